"""Command-line options shared by every command that loads rules: ``--with`` and ``--variant``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence


def add_rules_options(parser: argparse.ArgumentParser, *, modules: bool = True) -> None:
    """Add ``--with MOD,...`` (unless ``modules`` is false) and ``--variant FILE``, both repeatable.

    They land in ``args.modules`` (read it with :func:`module_names`) and ``args.variants``.
    """
    if modules:
        parser.add_argument(
            "--with",
            dest="modules",
            action="append",
            default=[],
            metavar="MOD,...",
            help="modules to add (comma-separated; repeatable)",
        )
    parser.add_argument(
        "--variant",
        dest="variants",
        action="append",
        default=[],
        metavar="FILE",
        help="a variant file, or the name of a variant shipped with the ruleset (repeatable)",
    )


def module_names(values: Sequence[str] | None) -> list[str]:
    """The module names of repeated ``--with`` options: ``["a,b", "c"]`` gives ``a``, ``b``, ``c``."""
    return [name.strip() for value in values or () for name in value.split(",") if name.strip()]
