"""Settings come from GRAPHMEM_* variables, overrides win, and bad values are named."""

from pathlib import Path

import pytest

from graphmem.config import Settings
from graphmem.errors import ConfigurationError


def test_environment_variables_fill_settings_and_overrides_win() -> None:
    environ = {
        "GRAPHMEM_STORE": "neo4j",
        "GRAPHMEM_NEO4J_PASSWORD": "secret",
        "GRAPHMEM_PATH": "/tmp/a.json",
        "UNRELATED": "x",
    }
    settings = Settings.from_env(environ, path=Path("/tmp/b.json"), store=None)
    assert settings.store == "neo4j"
    assert settings.path == Path("/tmp/b.json")
    assert settings.neo4j_password is not None
    assert settings.neo4j_password.get_secret_value() == "secret"
    assert "secret" not in repr(settings)


def test_defaults_need_no_environment() -> None:
    settings = Settings.from_env({})
    assert (settings.store, settings.embedder, settings.path) == ("networkx", "e5", None)


def test_bad_values_are_named() -> None:
    with pytest.raises(ConfigurationError, match="GRAPHMEM_STORE: Input should be 'networkx'"):
        Settings.from_env({"GRAPHMEM_STORE": "postgres"})
    with pytest.raises(ConfigurationError, match="GRAPHMEM_OPENAI_MAX_RETRIES"):
        Settings.from_env({"GRAPHMEM_OPENAI_MAX_RETRIES": "-1"})
