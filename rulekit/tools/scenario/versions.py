"""Scenario format versions: what a file's ``format:`` means, and the rewrites between them.

A file without ``format:`` is of format 1.  The versions, and what changed (docs/rules-format.md):

* 1 -- until commit c1beec2: the rules' invariants are not checked (unless the file asks with
  ``check_invariants: true`` or ``skip_invariants:``); ``range(a, b)`` counts from ``a`` to ``b``
  *inclusive* (until commit 231a433).
* 2 -- now: invariants are checked after the set-up and after every step; ``range(a, b)`` is
  Python's half-open range and ``between(a, b)`` the inclusive one.

A file of an older format runs with the semantics it was written for (its DSL text through the
rewrites below, invariants as then); ``rulekit upgrade`` writes the rewrites into the file.
"""

from __future__ import annotations

from typing import Any

from rulekit.errors import Diagnostic, RulesetError, Span
from rulekit.rules.migrations import Rewrite, template_rewrite

#: The format scenario files are written in today.
FORMAT = 2

#: The DSL rewrites that take a file of format N to format N + 1, keyed by N.
FORMAT_REWRITES: dict[int, tuple[Rewrite, ...]] = {
    1: (
        template_rewrite(
            "range(",
            "between(",
            "range(a, b) was inclusive in format 1; between(a, b) is the inclusive range now",
        ),
    ),
}


def declared_version(data: Any, key: str, newest: int, where: Span, what: str) -> int:
    """The whole number ``data[key]`` (default 1), refused above ``newest`` or below 1."""
    value = data.get(key, 1)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise RulesetError(Diagnostic(f"{key} is a whole number from 1", where))
    if value > newest:
        raise RulesetError(
            Diagnostic(
                f"{key}: {value} is newer than {what} ({newest})",
                where,
                hint="the file was written for a newer rulekit or ruleset; update them",
            )
        )
    return int(value)
