"""Model traffic under control: slots shared per base URL, a per-minute budget, shared pauses."""

import gc
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from pydantic import SecretStr

from graphmem.cognition.base import AttentionQuestion
from graphmem.cognition.openai import OpenAICognition
from graphmem.config import Settings
from graphmem.errors import ConfigurationError, ModelError
from graphmem.openai_endpoint import (
    OpenAIEndpoint,
    Traffic,
    TrafficLimits,
    prompt_tokens_estimate,
    traffic_for,
    url_shown,
)
from graphmem.opening import open_parts
from graphmem.testing import Reply, ScriptedServer, chat_reply, scripted_openai_server

QUESTION = AttentionQuestion(
    item="There's half a glass of milk on the table.", speaker="user", working_memory=[]
)
LABEL = json.dumps({"score": 7.5, "reason": "milk"})


@dataclass
class FakeTime:
    """A clock that moves only when slept on, and the sleeps it was asked for."""

    now: float = 0.0
    slept: list[float] = field(default_factory=list)

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def fake_traffic(
    fake: FakeTime,
    *,
    max_concurrent: int = 4,
    requests_per_minute: int | None = None,
    tokens_per_minute: int | None = None,
) -> Traffic:
    limits = TrafficLimits(
        max_concurrent=max_concurrent,
        requests_per_minute=requests_per_minute,
        tokens_per_minute=tokens_per_minute,
    )
    return Traffic("http://fake/v1", limits, clock=fake.clock, sleep=fake.sleep)


def endpoint_of(
    server: ScriptedServer,
    *,
    max_concurrent: int = 4,
    max_retries: int = 0,
    traffic: Traffic | None = None,
) -> OpenAIEndpoint:
    return OpenAIEndpoint(
        server.base_url,
        SecretStr("sk-test"),
        timeout_seconds=5,
        max_retries=max_retries,
        backoff_seconds=0.01,
        max_concurrent=max_concurrent,
        json_mode="json_schema",
        traffic=traffic,
    )


def until(condition: Callable[[], bool], timeout: float = 10) -> None:
    """Return once the condition holds (checked every few ms); fail after the timeout."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        threading.Event().wait(0.005)


# --- slots shared per base URL ----------------------------------------------------------------


def test_two_endpoints_of_one_url_share_their_slots_and_other_urls_are_not_held_up() -> None:
    with (
        scripted_openai_server(responder=lambda body: chat_reply(LABEL)) as server,
        scripted_openai_server(responder=lambda body: chat_reply(LABEL)) as elsewhere,
    ):
        server.hold = threading.Event()
        first, second = endpoint_of(server, max_concurrent=2), endpoint_of(server, max_concurrent=2)
        assert first.traffic is second.traffic
        callers = [
            threading.Thread(
                target=OpenAICognition(endpoint, "m").label_attention, args=(QUESTION,)
            )
            for endpoint in (first, second, first, second, first, second)
        ]
        for caller in callers:
            caller.start()
        # With a bound of its own, each endpoint would have 2 in flight and 1 waiting.
        until(lambda: first.traffic_state().waiting == 4 and server.in_flight == 2)
        assert second.traffic_state().in_flight == 2
        # Another URL has slots of its own: its call goes while this one's are all taken.
        other = endpoint_of(elsewhere, max_concurrent=2)
        assert OpenAICognition(other, "m").label_attention(QUESTION).score == 7.5
        assert other.traffic_state().waits == 0
        assert server.in_flight == 2
        server.hold.set()
        for caller in callers:
            caller.join()
        for endpoint in (first, second, other):
            endpoint.close()
    assert server.max_in_flight == 2
    assert first.accounting.total().requests + second.accounting.total().requests == 6
    state = first.traffic_state()
    assert (state.in_flight, state.waiting, state.waits) == (0, 0, 4)
    assert state.waited_seconds > 0
    assert (state.requests_last_minute, state.tokens_last_minute) == (6, 6 * 120)  # usage: 100+20


def test_the_first_limits_of_a_url_hold_until_no_endpoint_uses_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    url = "http://user:password@127.0.0.1:9/v1/"
    first = traffic_for(url, 2, requests_per_minute=10)
    with caplog.at_level(logging.WARNING, logger="graphmem"):
        again = traffic_for("http://127.0.0.1:9/v1", 2, requests_per_minute=10)
        assert not caplog.records
        other = traffic_for(url, 5)
    assert again is first
    assert other is first
    assert other.limits == TrafficLimits(max_concurrent=2, requests_per_minute=10)
    [warning] = caplog.records
    assert "http://127.0.0.1:9/v1 is already in use" in warning.getMessage()
    assert "max_concurrent=5" in warning.getMessage()
    assert "password" not in caplog.text
    del first, again, other
    gc.collect()
    fresh = traffic_for(url, 5)
    assert fresh.limits == TrafficLimits(max_concurrent=5)
    assert fresh.state().base_url == url_shown(url) == "http://127.0.0.1:9/v1"


# --- pauses asked for with Retry-After --------------------------------------------------------


def test_a_retry_after_seen_by_one_endpoint_pauses_the_others_of_its_url() -> None:
    with scripted_openai_server() as server:
        server.script(Reply(429, {"error": {"message": "slow down"}}, {"retry-after": "1"}))
        told, other = endpoint_of(server), endpoint_of(server)
        assert other.traffic_state().paused_for_seconds == 0
        with pytest.raises(ModelError, match="HTTP 429"):
            OpenAICognition(told, "m").label_attention(QUESTION)
        paused = other.traffic_state().paused_for_seconds
        told.close()
        other.close()
    assert 0 < paused <= 1


def test_the_other_endpoints_next_call_waits_the_pause_out() -> None:
    fake = FakeTime()
    shared = fake_traffic(fake)
    with scripted_openai_server() as server:
        server.script(
            Reply(429, {"error": {"message": "slow down"}}, {"retry-after": "1"}),
            chat_reply(LABEL),
        )
        told = endpoint_of(server, traffic=shared)
        other = endpoint_of(server, traffic=shared)
        with pytest.raises(ModelError, match="HTTP 429"):
            OpenAICognition(told, "m").label_attention(QUESTION)
        assert (fake.slept, other.traffic_state().paused_for_seconds) == ([], 1.0)
        assert OpenAICognition(other, "m").label_attention(QUESTION).score == 7.5
        told.close()
        other.close()
    assert fake.slept == [1.0]
    state = other.traffic_state()
    assert (state.paused_for_seconds, state.waits, state.waited_seconds) == (0, 1, 1.0)
    assert state.requests_last_minute == 2
    # The 429 keeps its prompt's estimate; the answer counts as its usage, 100 + 20.
    estimate = state.tokens_last_minute - 120
    assert 0 < estimate < len(json.dumps(server.requests[0]["body"]))


def test_the_caller_that_got_the_retry_after_waits_it_out_in_the_traffic() -> None:
    fake = FakeTime()
    shared = fake_traffic(fake)
    with scripted_openai_server() as server:
        server.script(
            Reply(503, {"error": {"message": "busy"}}, {"retry-after-ms": "2500"}),
            chat_reply(LABEL),
        )
        endpoint = endpoint_of(server, max_retries=1, traffic=shared)
        assert OpenAICognition(endpoint, "m").label_attention(QUESTION).score == 7.5
        endpoint.close()
    assert fake.slept == [2.5]
    assert endpoint.accounting.total().retries == 1


def test_a_later_pause_extends_one_running_and_an_earlier_one_does_not_shorten_it() -> None:
    fake = FakeTime()
    traffic = fake_traffic(fake)
    traffic.pause(10)
    traffic.pause(4)
    assert traffic.state().paused_for_seconds == 10
    fake.now = 3
    traffic.pause(12)
    with traffic.request(1):
        pass
    assert fake.slept == [12]


# --- the per-minute budget --------------------------------------------------------------------


def test_a_request_beyond_the_requests_per_minute_waits_for_the_window() -> None:
    fake = FakeTime()
    traffic = fake_traffic(fake, requests_per_minute=3)
    for _ in range(3):
        with traffic.request(10):
            pass
    assert fake.slept == []
    assert traffic.state().requests_last_minute == 3
    with traffic.request(10):
        pass
    assert fake.slept == [60]
    fake.now = 70
    with traffic.request(10):  # the window holds one request, sent at 60
        pass
    fake.now = 80
    with traffic.request(10):
        pass
    assert fake.slept == [60]
    with traffic.request(10):  # three in the window (60, 70, 80): wait for the one at 60
        pass
    assert fake.slept == [60, 40]
    state = traffic.state()
    assert (state.waits, state.waited_seconds, state.requests_last_minute) == (2, 100, 3)


def test_a_request_beyond_the_tokens_per_minute_waits_until_enough_leave_the_window() -> None:
    fake = FakeTime()
    traffic = fake_traffic(fake, tokens_per_minute=1000)
    with traffic.request(400) as sent:
        traffic.used(sent, 600)  # the answer's usage replaces the estimate
    fake.now = 10
    with traffic.request(300) as sent:
        traffic.used(sent, None)  # no usage: the estimate stays
    assert traffic.state().tokens_last_minute == 900
    fake.now = 20
    with traffic.request(200):  # 900 + 200 > 1000: wait for the 600 sent at 0 to leave
        pass
    assert fake.slept == [40]
    assert traffic.state().tokens_last_minute == 500
    with traffic.request(800):  # 300 (at 10) + 200 (at 60) + 800: wait for the 300 to leave
        pass
    assert fake.slept == [40, 10]
    assert traffic.state().tokens_last_minute == 1000


def test_a_prompt_larger_than_the_whole_token_budget_goes_alone() -> None:
    fake = FakeTime()
    traffic = fake_traffic(fake, tokens_per_minute=1000)
    with traffic.request(5000):
        pass
    assert fake.slept == []
    fake.now = 30
    with traffic.request(5000):
        pass
    assert fake.slept == [30]


def test_a_caller_waiting_for_the_budget_holds_no_slot() -> None:
    fake = FakeTime()
    asleep, wake = threading.Event(), threading.Event()

    def sleep(seconds: float) -> None:
        """Sleep until the test wakes the caller, as if the time had passed."""
        asleep.set()
        assert wake.wait(10)
        fake.sleep(seconds)

    limits = TrafficLimits(max_concurrent=1, tokens_per_minute=1000)
    traffic = Traffic("http://fake/v1", limits, clock=fake.clock, sleep=sleep)
    with traffic.request(900):
        pass

    def large() -> None:
        with traffic.request(500):  # 900 + 500 > 1000: sleeps until 60
            pass

    waiting = threading.Thread(target=large)
    waiting.start()
    assert asleep.wait(10)
    with traffic.request(50):  # fits the budget, and the sleeper holds no slot
        state = traffic.state()
        assert (state.in_flight, state.waiting) == (1, 1)
    wake.set()
    waiting.join()
    assert fake.slept == [60]
    state = traffic.state()
    assert (state.in_flight, state.waits, state.waited_seconds) == (0, 1, 60)
    assert state.tokens_last_minute == 500


def test_the_prompt_estimate_is_a_quarter_of_ascii_and_one_per_other_character() -> None:
    assert prompt_tokens_estimate([]) == 0
    assert prompt_tokens_estimate(["abcdefgh"]) == 2
    assert prompt_tokens_estimate(["abcdefghi"]) == 3
    assert prompt_tokens_estimate(["abcd", "efgh"]) == 2
    assert prompt_tokens_estimate(["我对牛奶过敏。"]) == 7
    assert prompt_tokens_estimate(["milk 牛奶"]) == 2 + 2


# --- settings ---------------------------------------------------------------------------------


def test_the_budget_settings_come_from_the_environment_and_are_checked() -> None:
    settings = Settings.from_env(
        {
            "GRAPHMEM_OPENAI_REQUESTS_PER_MINUTE": "500",
            "GRAPHMEM_OPENAI_TOKENS_PER_MINUTE": "200000",
        }
    )
    assert (settings.openai_requests_per_minute, settings.openai_tokens_per_minute) == (
        500,
        200_000,
    )
    defaults = Settings.from_env({})
    assert (defaults.openai_requests_per_minute, defaults.openai_tokens_per_minute) == (None, None)
    with pytest.raises(
        ConfigurationError, match="GRAPHMEM_OPENAI_REQUESTS_PER_MINUTE: Input should be greater"
    ):
        Settings.from_env({"GRAPHMEM_OPENAI_REQUESTS_PER_MINUTE": "0"})
    with pytest.raises(
        ConfigurationError, match="GRAPHMEM_OPENAI_TOKENS_PER_MINUTE: Input should be a valid int"
    ):
        Settings.from_env({"GRAPHMEM_OPENAI_TOKENS_PER_MINUTE": "lots"})


def test_memories_opened_on_one_url_share_the_traffic_the_settings_bound() -> None:
    with scripted_openai_server() as server:
        settings = Settings.from_env(
            {
                "GRAPHMEM_COGNITION": "openai",
                "GRAPHMEM_OPENAI_API_KEY": "sk-test",
                "GRAPHMEM_OPENAI_BASE_URL": server.base_url,
                "GRAPHMEM_OPENAI_MAX_CONCURRENT": "3",
                "GRAPHMEM_OPENAI_REQUESTS_PER_MINUTE": "100",
                "GRAPHMEM_OPENAI_TOKENS_PER_MINUTE": "5000",
            }
        )
        opened = [open_parts(settings, cognition=None, embedder=None) for _ in range(2)]
        endpoints = [parts.endpoint for parts in opened]
        try:
            assert endpoints[0] is not None
            assert endpoints[1] is not None
            assert endpoints[0] is not endpoints[1]
            assert endpoints[0].traffic is endpoints[1].traffic
            assert endpoints[0].traffic_state().limits == TrafficLimits(
                max_concurrent=3, requests_per_minute=100, tokens_per_minute=5000
            )
        finally:
            for parts in opened:
                parts.store.close()
                parts.embedder.close()
                if parts.endpoint is not None:
                    parts.endpoint.close()
