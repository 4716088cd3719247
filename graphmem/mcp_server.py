"""`graphmem mcp`: observe, recall and consolidate as tools of a Model Context Protocol server."""

from typing import Literal

from graphmem.config import Settings
from graphmem.errors import ConfigurationError


def serve(
    settings: Settings,
    *,
    owner: str | None,
    transport: Literal["stdio", "http"],
    host: str,
    port: int,
) -> None:
    """Serve the tools until the client goes away (placeholder until the server is built)."""
    raise ConfigurationError("the MCP server is not built yet")
