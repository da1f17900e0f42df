"""``python -m rulekit``: the command-line interface."""

from rulekit.cli import main

raise SystemExit(main())
