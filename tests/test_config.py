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


def test_a_settings_file_fills_in_below_variables_and_overrides(tmp_path: Path) -> None:
    file = tmp_path / "graphmem.toml"
    file.write_text(
        'store = "neo4j"\nneo4j_password = "from-file"\nneo4j_uri = "bolt://file:7687"\n'
        'path = "/tmp/file.json"\n'
    )
    environ = {"GRAPHMEM_CONFIG": str(file), "GRAPHMEM_NEO4J_URI": "bolt://env:7687"}
    settings = Settings.from_env(environ, path=Path("/tmp/flag.json"))
    assert settings.store == "neo4j"
    assert settings.neo4j_uri == "bolt://env:7687"
    assert settings.path == Path("/tmp/flag.json")
    assert settings.neo4j_password is not None
    assert settings.neo4j_password.get_secret_value() == "from-file"
    other = tmp_path / "other.toml"
    other.write_text('store = "networkx"\n')
    assert Settings.from_env(environ, file=other).store == "networkx"


def test_a_bad_settings_file_is_named(tmp_path: Path) -> None:
    file = tmp_path / "graphmem.toml"
    file.write_text('stor = "neo4j"\n')
    with pytest.raises(ConfigurationError, match=r"graphmem.toml: unknown settings \['stor'\]"):
        Settings.from_env({}, file=file)
    file.write_text("store = \n")
    with pytest.raises(ConfigurationError, match="cannot read the settings file"):
        Settings.from_env({}, file=file)
    with pytest.raises(ConfigurationError, match="cannot read the settings file"):
        Settings.from_env({"GRAPHMEM_CONFIG": str(tmp_path / "missing.toml")})
    file.write_text('store = "postgres"\n')
    with pytest.raises(ConfigurationError, match=r"store in .*graphmem.toml: Input should be"):
        Settings.from_env({}, file=file)
    with pytest.raises(ConfigurationError, match=r"store \(given\): Input should be"):
        Settings.from_env({}, store="sqlite")
