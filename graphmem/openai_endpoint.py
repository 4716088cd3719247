"""The one module that talks to OpenAI-compatible HTTP endpoints (OpenAI, Ollama, vLLM, ...)."""

from collections.abc import Sequence

import openai
from pydantic import SecretStr

from graphmem.errors import ConfigurationError, ModelError


class OpenAIEndpoint:
    """An OpenAI-compatible endpoint: base URL, API key, timeout and retry budget."""

    def __init__(
        self, base_url: str, api_key: SecretStr, *, timeout_seconds: float, max_retries: int
    ) -> None:
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key.get_secret_value(),
            timeout=timeout_seconds,
            max_retries=max_retries,
        )

    def embed(self, texts: Sequence[str], model: str, dimensions: int) -> list[list[float]]:
        """Embed texts with `model`; retries with backoff (honouring Retry-After) are built in."""
        try:
            response = self._client.embeddings.create(model=model, input=list(texts))
        except openai.AuthenticationError as error:
            raise ConfigurationError(
                f"the embedding endpoint refused the API key (HTTP {error.status_code})"
            ) from None
        except openai.APIStatusError as error:
            raise ModelError(
                f"the embedding endpoint answered HTTP {error.status_code} for model {model!r}"
            ) from None
        except openai.APIError as error:
            raise ModelError(f"the embedding endpoint failed: {type(error).__name__}") from None
        vectors = [item.embedding for item in sorted(response.data, key=lambda item: item.index)]
        if len(vectors) != len(texts) or any(len(vector) != dimensions for vector in vectors):
            raise ModelError(
                f"the embedding endpoint returned {len(vectors)} vectors for {len(texts)} texts,"
                f" expected each of {dimensions} dimensions"
            )
        return vectors

    def close(self) -> None:
        """Close the HTTP connections."""
        self._client.close()
