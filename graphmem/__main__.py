"""Run the command line as `python -m graphmem`."""

from graphmem.cli import main

raise SystemExit(main())
