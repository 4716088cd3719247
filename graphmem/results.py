"""Re-exports of graphmem.contract, until the importers move (issue 60)."""

from graphmem.contract import *  # noqa: F403
