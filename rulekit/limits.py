"""Resource limits on everything a stranger's file can make rulekit do (see docs/security.md).

One mutable instance, :data:`LIMITS`, read where each limit applies; the command line
sets it from ``--limit NAME=VALUE`` before it loads anything.  Every limit is reported
as a located user error (exit 1), never a hang, a crash or a traceback.
"""

from __future__ import annotations

from attrs import define, fields


@define
class Limits:
    """The limits and their defaults."""

    #: Steps (loop iterations, rule-function entries) one rule evaluation may take.
    max_steps: int = 2_000_000
    #: Legal-action candidates one listing may enumerate.
    max_candidates: int = 100_000
    #: Values a YAML file may expand to (aliases counted each time they are used).
    max_yaml_nodes: int = 100_000
    #: How deeply YAML collections and JSON log lines may nest.
    max_depth: int = 100
    #: Bytes in one rules, variant, scenario or log file.
    max_file_bytes: int = 5_000_000
    #: Bytes in one line of a log.
    max_line_bytes: int = 1_000_000
    #: Bits of a number a rule may compute with ``*``.
    max_int_bits: int = 1024
    #: Characters of a text a rule may build with ``concat`` or ``join``.
    max_text_chars: int = 1_000_000
    #: Items one component kind's ``generate:`` may make (copies included); also the copies
    #: its listed entries' ``copies:`` may make.
    max_generated_items: int = 10_000
    #: Size of the game state after an action (characters of every text, elements of every
    #: list and map; see :mod:`rulekit.runtime.sizes`).
    max_state_size: int = 20_000_000

    def set(self, text: str) -> None:
        """Apply ``NAME=VALUE`` (a positive whole number).

        Raises:
            ValueError: an unknown name or a bad value, with the known names.
        """
        name, _, value = text.partition("=")
        known = [f.name for f in fields(Limits)]
        if name.strip().replace("-", "_") not in known:
            raise ValueError(f"unknown limit {name!r}; limits: {', '.join(known)}")
        if (
            not value.strip().isascii()
            or not value.strip().isdigit()
            or len(value.strip()) > 18
            or int(value) < 1
        ):
            raise ValueError(f"limit {name} needs a positive whole number, not {value!r}")
        setattr(self, name.strip().replace("-", "_"), int(value))

    def reset(self) -> None:
        """Back to the defaults."""
        for f in fields(Limits):
            setattr(self, f.name, f.default)


LIMITS = Limits()


def json_too_deep(text: str, limit: int) -> bool:
    """Whether the arrays and objects of JSON ``text`` nest deeper than ``limit`` (strings
    skipped), found without parsing, so a bomb of brackets costs one pass and a text with few
    brackets none: Python's parser recurses once per level."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False
