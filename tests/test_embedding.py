"""Embedders: the offline model, the OpenAI path against a scripted local server, and the cache."""

from pathlib import Path

import pytest
from pydantic import SecretStr

from graphmem.embedding import CachedEmbedder, E5Embedder, OpenAIEmbedder
from graphmem.errors import ConfigurationError, ModelError
from graphmem.openai_endpoint import OpenAIEndpoint
from graphmem.testing import Reply, ScriptedServer, embeddings_reply, scripted_openai_server


def cosine(left: list[float], right: list[float]) -> float:
    return sum(a * b for a, b in zip(left, right, strict=True))


def test_the_offline_model_embeds_chinese_and_english_alike() -> None:
    model = E5Embedder()
    allergy, milk, weather = model.embed(
        ["I'm allergic to milk.", "桌上有半杯牛奶。", "The weather is nice today."], "passage"
    )
    assert len(allergy) == E5Embedder.dimensions
    assert sum(value * value for value in allergy) == pytest.approx(1.0, abs=1e-4)
    assert cosine(allergy, milk) > cosine(allergy, weather)
    [query] = model.embed(["milk allergy"], "query")
    assert query != allergy


def test_the_cache_embeds_each_text_once_and_keeps_it_in_a_file(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    cached = CachedEmbedder(E5Embedder(), path)
    first = cached.embed(["milk", "fever", "milk"], "passage")
    assert cached.computed == 2
    assert first[0] == first[2]
    assert cached.embed(["fever", "milk"], "passage") == [first[1], first[0]]
    assert cached.computed == 2
    cached.embed(["milk"], "query")
    assert cached.computed == 3
    cached.close()
    reopened = CachedEmbedder(E5Embedder(), path)
    assert reopened.embed(["milk", "fever"], "passage") == first[:2]
    assert reopened.computed == 0
    reopened.close()


def endpoint(server: ScriptedServer, max_retries: int = 2) -> OpenAIEndpoint:
    return OpenAIEndpoint(
        server.base_url, SecretStr("sk-test-secret"), timeout_seconds=5, max_retries=max_retries
    )


def test_openai_embeddings_come_back_in_input_order() -> None:
    with scripted_openai_server() as server:
        server.script(embeddings_reply([[1.0, 0.0], [0.0, 1.0]]))
        embedder = OpenAIEmbedder(endpoint(server), "text-embedding-3-small", 2)
        assert embedder.embed(["a", "b"], "passage") == [[1.0, 0.0], [0.0, 1.0]]
        embedder.close()
        [request] = server.requests
        assert request["path"] == "/v1/embeddings"
        assert request["body"]["input"] == ["a", "b"]
        assert request["body"]["model"] == "text-embedding-3-small"


def test_openai_errors_are_retried_honouring_retry_after() -> None:
    with scripted_openai_server() as server:
        server.script(
            Reply(429, {"error": {"message": "slow down"}}, {"retry-after-ms": "10"}),
            Reply(500, {"error": {"message": "oops"}}, {"retry-after-ms": "10"}),
            embeddings_reply([[0.6, 0.8]]),
        )
        embedder = OpenAIEmbedder(endpoint(server), "m", 2)
        assert embedder.embed(["a"], "query") == [[0.6, 0.8]]
        embedder.close()
        assert len(server.requests) == 3


def test_openai_failures_after_the_retries_are_model_errors() -> None:
    with scripted_openai_server() as server:
        failing = Reply(503, {"error": {"message": "down"}}, {"retry-after-ms": "10"})
        server.script(failing, failing)
        embedder = OpenAIEmbedder(endpoint(server, max_retries=1), "m", 2)
        with pytest.raises(ModelError, match="failed embed after 2 attempts: HTTP 503"):
            embedder.embed(["a"], "passage")
        embedder.close()
        assert len(server.requests) == 2


def test_a_refused_key_is_a_configuration_error_without_the_key() -> None:
    with scripted_openai_server() as server:
        server.script(Reply(401, {"error": {"message": "bad key"}}))
        embedder = OpenAIEmbedder(endpoint(server), "m", 2)
        with pytest.raises(ConfigurationError, match="refused the API key") as caught:
            embedder.embed(["a"], "passage")
        embedder.close()
        assert "sk-test-secret" not in str(caught.value)


def test_vectors_of_the_wrong_size_are_refused() -> None:
    with scripted_openai_server() as server:
        server.script(embeddings_reply([[1.0, 0.0, 0.0]]))
        embedder = OpenAIEmbedder(endpoint(server), "m", 2)
        with pytest.raises(ModelError, match="expected each of 2 dimensions"):
            embedder.embed(["a"], "passage")
        embedder.close()
