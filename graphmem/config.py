"""Settings: which store and embedder to use and how to reach them, from GRAPHMEM_* variables."""

import os
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from graphmem.errors import ConfigurationError

ENV_PREFIX = "GRAPHMEM_"
STORE_FILE = "graph.json"
"""The name of the embedded store's file in the per-user data folder (see `user_store_file`)."""


class Settings(BaseModel):
    """Everything graphmem can be configured with; each field is also GRAPHMEM_<NAME>."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    store: Literal["networkx", "neo4j"] = Field(
        "networkx", description="networkx (embedded, in process) or neo4j (a server over Bolt)"
    )
    path: Path | None = Field(
        None,
        description="file of the networkx store; unset keeps the memory in process only (the"
        " command line then keeps it in the per-user file, `user_store_file`)",
    )
    neo4j_uri: str = Field("bolt://127.0.0.1:7687", description="Bolt address of Neo4j")
    neo4j_user: str = Field("neo4j", description="Neo4j user")
    neo4j_password: SecretStr | None = Field(None, description="Neo4j password (required)")
    neo4j_database: str = Field("neo4j", description="Neo4j database name")
    cognition: Literal["offline", "openai"] = Field(
        "offline", description="offline (documented rules) or openai (a chat model)"
    )
    embedder: Literal["e5", "openai"] = Field(
        "e5", description="e5 (offline multilingual-e5-small) or openai (an embeddings endpoint)"
    )
    embedding_cache: Path | None = Field(
        None, description="SQLite file caching embeddings across runs; unset caches in memory"
    )
    openai_base_url: str = Field(
        "https://api.openai.com/v1", description="any OpenAI-compatible endpoint"
    )
    openai_api_key: SecretStr | None = Field(None, description="API key of that endpoint")
    openai_chat_model: str = Field("gpt-4o-mini", description="chat model of the cognition")
    openai_embedding_model: str = Field("text-embedding-3-small", description="embedding model")
    openai_embedding_dimensions: int = Field(1536, gt=0, description="its vector size")
    openai_timeout_seconds: float = Field(30.0, gt=0, description="timeout of one HTTP call")
    openai_max_retries: int = Field(
        4, ge=0, description="retries on 429/5xx/timeouts/connection errors, with backoff"
    )
    openai_backoff_seconds: float = Field(
        0.5, ge=0, description="first backoff cap; doubles per retry, full jitter"
    )
    openai_max_concurrent: int = Field(
        4,
        gt=0,
        description="model calls in flight at once, shared by every endpoint of the process for"
        " the same base URL (the first one's limits hold)",
    )
    openai_requests_per_minute: int | None = Field(
        None,
        gt=0,
        description="most requests sent in any 60 seconds to the base URL, shared like"
        " max_concurrent; a request waits for room; unset: no budget",
    )
    openai_tokens_per_minute: int | None = Field(
        None,
        gt=0,
        description="most tokens (prompt and answer, from the answer's usage; a prompt not yet"
        " answered counts ASCII characters / 4 + other characters) in any 60 seconds to the base"
        " URL, shared like max_concurrent; a request waits for room; unset: no budget",
    )
    openai_json_mode: Literal["auto", "json_schema", "json_object"] = Field(
        "auto",
        description="how answers are asked for: by JSON schema, or as a JSON object with the"
        " schema in the prompt (llama.cpp's own server); auto tries the schema first and keeps"
        " the object if the endpoint fails the schema",
    )
    openai_max_tokens: int | None = Field(
        None,
        gt=0,
        description="most tokens of one answer (sent as max_tokens); unset: the server's own cap,"
        " which a small model repeating itself runs to",
    )
    openai_response_cache: Path | None = Field(
        None, description="SQLite file caching valid model answers across runs; unset: none"
    )
    telemetry: Literal["off", "otel"] = Field(
        "off",
        description="off, or otel: a span per verb call with its statements and model calls,"
        " and metrics, through the OpenTelemetry API to the providers the application"
        " configures (needs `pip install 'graphmem[otel]'`; docs/telemetry.md)",
    )

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        file: Path | None = None,
        **overrides: Any,
    ) -> "Settings":
        """Settings from keyword overrides, else GRAPHMEM_* variables, else a TOML file.

        The file is `file`, else GRAPHMEM_CONFIG if set; its keys are the field names
        (`store = "neo4j"`). Overrides that are None count as not given.
        """
        environ = os.environ if environ is None else environ
        config = file if file is not None else environ.get(ENV_PREFIX + "CONFIG")
        values = {} if not config else _file_values(Path(config))
        sources = {name: f"{name} in {config}" for name in values}  # named in errors
        variables = {
            name: environ[ENV_PREFIX + name.upper()]
            for name in cls.model_fields
            if environ.get(ENV_PREFIX + name.upper())
        }
        values.update(variables)
        sources.update({name: ENV_PREFIX + name.upper() for name in variables})
        given = {name: value for name, value in overrides.items() if value is not None}
        values.update(given)
        sources.update({name: f"{name} (given)" for name in given})
        try:
            return cls.model_validate(values)
        except ValidationError as error:
            problems = []
            for item in error.errors():
                field = str(item["loc"][0]) if item["loc"] else "settings"
                problems.append(f"{sources.get(field, field)}: {item['msg']}")
            raise ConfigurationError(f"invalid settings: {'; '.join(problems)}") from None


def _file_values(path: Path) -> dict[str, Any]:
    """The settings a TOML file holds, or ConfigurationError naming the file and problem."""
    try:
        with path.open("rb") as file:
            values = tomllib.load(file)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigurationError(f"cannot read the settings file {path}: {error}") from None
    unknown = sorted(set(values) - set(Settings.model_fields))
    if unknown:
        raise ConfigurationError(f"{path}: unknown settings {unknown}")
    return values


def user_store_file(environ: Mapping[str, str] | None = None, platform: str | None = None) -> Path:
    """The per-user file the command line keeps the embedded store in when no path is set.

    It is `graph.json` in the folder `graphmem` of the user's data folder: `$XDG_DATA_HOME` when
    it is set to an absolute path (on any platform), else `~/.local/share` (Linux and other
    Unix), `~/Library/Application Support` (macOS) or `%LOCALAPPDATA%` (Windows).
    """
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    xdg = environ.get("XDG_DATA_HOME", "")
    home = Path(environ["HOME"]) if environ.get("HOME") else Path.home()
    if xdg and Path(xdg).is_absolute():  # the XDG specification ignores a relative one
        data = Path(xdg)
    elif platform == "darwin":
        data = home / "Library" / "Application Support"
    elif platform == "win32":
        local = environ.get("LOCALAPPDATA")
        data = Path(local) if local else home / "AppData" / "Local"
    else:
        data = home / ".local" / "share"
    return data / "graphmem" / STORE_FILE
