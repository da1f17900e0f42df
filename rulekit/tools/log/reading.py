"""Reading action logs: every line checked (JSON, size, header types, digests), errors at file:line."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from attrs import define, field

from rulekit.errors import Diagnostic, ReplayError, Span
from rulekit.limits import LIMITS, json_too_deep
from rulekit.tools.log.writing import DIGEST_LENGTH, LOG_VERSION

_DIGEST = re.compile(f"[0-9a-f]{{{DIGEST_LENGTH}}}")


@define
class GameLog:
    """A log read back from a file: header, actions (with their line numbers), final hash."""

    path: str
    header: dict[str, Any]
    actions: list[tuple[int, str, str]]  # (line, player text, action text)
    final_hash: str | None = None
    final_line: int = 0
    #: Where the log breaks off in the middle of a line (a game cut short), if it does.
    truncated: Span | None = None
    #: The state digest recorded after each action, by line number (older logs have none).
    digests: dict[int, str] = field(factory=dict)
    #: The outcomes of each action's chance steps, by line number (when the log has them).
    chances: dict[int, tuple[int, ...]] = field(factory=dict)


def read_log(path: str | Path) -> GameLog:
    """Read a JSON Lines log.

    Raises:
        ReplayError: the file is missing or not a rulekit log (with the line).
    """
    name = str(path)
    header: dict[str, Any] | None = None
    actions: list[tuple[int, str, str]] = []
    final_hash = None
    final_line = 0
    truncated = None
    digests: dict[int, str] = {}
    chances: dict[int, tuple[int, ...]] = {}
    for number, line, complete in _lines(path, name):
        if not line.strip():
            continue
        where = Span(name, number, 1)
        try:
            entry = _json_line(line, where)
        except ReplayError:
            if complete or header is None:
                raise
            truncated = where  # the last line was cut off (a killed game): replay what came before
            break
        if not isinstance(entry, dict):
            raise ReplayError(Diagnostic("each log line must be a JSON object", where))
        if header is None:
            if "rulekit_seat_log" in entry:
                raise ReplayError(
                    Diagnostic(
                        f"this is the log of what {str(entry.get('seat', 'one seat'))[:20]} saw: it has "
                        "no seed and no hidden cards, so it cannot be replayed",
                        where,
                        hint="replay the referee's log (the one play or serve wrote with --log)",
                    )
                )
            version = entry.get("rulekit_log")
            if type(version) is int and version > LOG_VERSION:
                raise ReplayError(
                    Diagnostic(
                        f"the log is of format {version}, newer than this rulekit's ({LOG_VERSION})",
                        where,
                        hint="replay it with the rulekit that wrote it, or a newer one",
                    )
                )
            if type(version) is not int or version != LOG_VERSION:
                raise ReplayError(
                    Diagnostic(
                        'not a rulekit log: the first line must be a header with "rulekit_log": 1', where
                    )
                )
            missing = [k for k in ("ruleset", "fingerprint", "players", "seed") if k not in entry]
            if missing:
                raise ReplayError(Diagnostic(f"the log header lacks {', '.join(missing)}", where))
            _check_header(entry, where)
            header = entry
        elif "final_hash" in entry:
            final_hash = str(entry["final_hash"])
            final_line = number
        elif isinstance(entry.get("action"), str):
            actions.append((number, str(entry.get("player", "")), entry["action"]))
            if "chance" in entry:
                drawn = entry["chance"]
                if not (isinstance(drawn, list) and all(_is_int(i) and i >= 0 for i in drawn)):
                    raise ReplayError(
                        Diagnostic(
                            'an action\'s "chance" must be a list of outcome indexes (whole numbers '
                            f"from 0), not {json.dumps(drawn)[:40]}",
                            where,
                        )
                    )
                chances[number] = tuple(drawn)
            if "h" in entry:
                digest = entry["h"]
                if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
                    raise ReplayError(
                        Diagnostic(
                            f'the action\'s state digest "h" must be {DIGEST_LENGTH} lowercase hex '
                            f"digits, not {json.dumps(digest)[:40]}",
                            where,
                        )
                    )
                digests[number] = digest
        else:
            raise ReplayError(
                Diagnostic(
                    'expected an action line {"player": ..., "action": ...} or {"final_hash": ...}', where
                )
            )
    if header is None:
        raise ReplayError(Diagnostic(f"log '{name}' is empty", Span(name, 1, 1)))
    return GameLog(name, header, actions, final_hash, final_line, truncated, digests, chances)


def _lines(path: str | Path, name: str) -> Iterator[tuple[int, str, bool]]:
    """(line number, text, ends with a newline) of each line, refusing overlong lines."""
    limit = LIMITS.max_line_bytes
    try:
        with open(path, "rb") as stream:
            for number, raw in enumerate(iter(lambda: stream.readline(limit + 1), b""), start=1):
                complete = raw.endswith(b"\n")
                if len(raw) > limit and not (complete and len(raw) == limit + 1):
                    raise ReplayError(
                        Diagnostic(
                            f"line longer than {limit} bytes",
                            Span(name, number, 1),
                            hint="see docs/security.md for the limit and how to raise it",
                        )
                    )
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as error:
                    raise ReplayError(
                        Diagnostic(
                            "the log is not UTF-8 text (a rulekit log is JSON Lines)",
                            Span(name, number, error.start + 1),
                        )
                    ) from None
                yield number, text.rstrip("\r\n"), complete
    except OSError as error:
        raise ReplayError(Diagnostic(f"cannot read log '{name}': {error.strerror}")) from None


def _json_line(line: str, where: Span) -> Any:
    """One JSON value; nesting beyond the depth limit and oversized numbers are refused."""
    if json_too_deep(line, LIMITS.max_depth):
        raise ReplayError(Diagnostic(f"JSON nested more than {LIMITS.max_depth} levels deep", where))
    try:
        return json.loads(line)
    except json.JSONDecodeError as error:
        raise ReplayError(
            Diagnostic(f"not JSON: {error.msg}", Span(where.file, where.line, error.colno))
        ) from None
    except (ValueError, RecursionError) as error:  # e.g. an integer beyond Python's digit limit
        raise ReplayError(Diagnostic(f"cannot read this line: {error}", where)) from None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_variant_list(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(e, dict) and isinstance(e.get("path"), str) for e in value
    )


#: What each header entry must be, in words, and the check for it.
_HEADER_TYPES: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "ruleset": ("a string", lambda v: isinstance(v, str)),
    "fingerprint": ("a string", lambda v: isinstance(v, str)),
    "semantics": ("a string", lambda v: isinstance(v, str)),
    "players": ("an integer", _is_int),
    "seed": ("an integer", _is_int),
    "source": ("a string", lambda v: isinstance(v, str)),
    "modules": ("a list of strings", lambda v: isinstance(v, list) and all(isinstance(m, str) for m in v)),
    "variants": ('a list of {"path": ..., "fingerprint": ...}', _is_variant_list),
}


def _check_header(header: dict[str, Any], where: Span) -> None:
    """Refuse a header whose entries have the wrong JSON types (a damaged or hand-edited log)."""
    for key, (expected, ok) in _HEADER_TYPES.items():
        if key in header and not ok(header[key]):
            shown = json.dumps(header[key])
            raise ReplayError(Diagnostic(f"the log header's {key!r} must be {expected}, not {shown}", where))
    for key, value in header.items():
        if not _unicode(value):  # a lone surrogate (``"\ud800"``) names no file, module or rule
            raise ReplayError(
                Diagnostic(f"the log header's {json.dumps(key)} holds text that is not valid Unicode", where)
            )


def _unicode(value: Any) -> bool:
    """Whether every text in ``value`` (a JSON value, nesting already bounded) is valid Unicode."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, list):
        return all(_unicode(item) for item in value)
    if isinstance(value, dict):
        return all(_unicode(k) and _unicode(v) for k, v in value.items())
    return True
