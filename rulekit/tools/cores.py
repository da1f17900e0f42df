"""The default ``--workers`` of simulate, verify and bench: every core of the machine."""

from __future__ import annotations

import os


def all_cores() -> int:
    """How many processes ``--workers`` defaults to: the machine's cores (1 if unknown)."""
    return os.cpu_count() or 1
