"""One generated function per decision: a turn's enumerators run as one, first tests shared.

A turn that offers several actions lists them by calling each action's enumerator in
turn.  Many of those enumerators begin with the same tests (a rule that blocks a whole
kind of action, a phase check written once as a ``use:`` requirement) and read the same
fields.  :func:`fuse` writes the enumerators of one decision into a single function:

* each enumerator's body becomes a block ``for _ in P_once:`` (one pass), whose failing
  first tests ``break`` to the next block instead of returning;
* a first test that two or more blocks share (the same generated code, which calls no
  rules function and charges no step, and reads two fields or calls a built-in) is
  computed once, at the first block that reaches it, into a local ``G<n>`` (``P_miss``
  until then), and reused by the later blocks;
* field reads that every state holds are made once for the whole decision
  (:func:`planner_reads.hoist_reads`), not once per enumerator.

The blocks run in the decision's order and each test runs where it ran before, so the
same actions come out in the same order, with the same step count.  An error raised
inside the fused function is reported by listing the enumerators one by one again
(:func:`rulekit.engine.listing.list_legal`), which names the failing action.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from rulekit.compiler.planner_reads import Stable, hoist_reads

_INDENT = "    "
#: A first test: ``    if not (<code>):  #@N`` with ``        return`` on the next line.
_FIRST_TEST = re.compile(r"^    if not \((?P<code>.*)\):(?P<mark>  #@\d+)?$")
#: Code that may charge the step budget or depend on a runtime service: never shared.
_CHARGES = re.compile(r"\b(fn_\w+|R)\b")


def fuse(fname: str, enumerators: Sequence[list[str]], stable: Stable | None) -> str:
    """The source of ``def fname(F, R, me, mk, out)`` doing what calling each of
    ``enumerators`` (their lines from :func:`planner.enumerator_lines`, in the decision's
    order) does."""
    bodies = [lines[1:] for lines in enumerators]
    firsts = [_first_tests(body) for body in bodies]
    uses = Counter(code for tests in firsts for code in dict.fromkeys(tests.values()))  # (in order)
    shared = {
        code: f"G{k}"
        for k, code in enumerate(code for code, count in uses.items() if count > 1 and _worth_sharing(code))
    }
    lines = [f"def {fname}(F, R, me, mk, out):"]
    lines.extend(f"{_INDENT}{local} = P_miss" for local in shared.values())
    lines.append(f"{_INDENT}add = out.append")
    for body, tests in zip(bodies, firsts, strict=True):
        lines.append(f"{_INDENT}for _ in P_once:")
        for index, line in enumerate(body):
            if line == f"{_INDENT}add = out.append":
                continue
            if line == f"{_INDENT * 2}return":
                line = f"{_INDENT * 2}break"
            elif index in tests and tests[index] in shared:
                code, local = tests[index], shared[tests[index]]
                match = _FIRST_TEST.match(line)
                mark = (match.group("mark") or "") if match else ""
                line = f"{_INDENT}if not ({local} if {local} is not P_miss else ({local} := ({code}))):{mark}"
            lines.append(_INDENT + line)
        if body[-1:] != [f"{_INDENT * 2}P_too_many()"] or body[-2].startswith(_INDENT * 2):
            # (as checked after each enumerator when they are called one by one)
            lines.append(f"{_INDENT * 2}if len(out) > P_limits.max_candidates:")
            lines.append(f"{_INDENT * 3}P_too_many()")
    if stable is not None:
        lines = hoist_reads(lines, stable)
    return "\n".join(lines) + "\n"


def _worth_sharing(code: str) -> bool:
    """A test that charges no step and costs more than asking whether it was computed: it
    reads two fields or more, or calls a built-in."""
    return not _CHARGES.search(code) and code.count("F[(") + code.count("B_") >= 2


def _first_tests(body: list[str]) -> dict[int, str]:
    """The tests of ``body`` that return when they fail, before its first loop: line index
    -> the code tested."""
    found: dict[int, str] = {}
    for index, line in enumerate(body[:-1]):
        if not line.startswith(_INDENT) or line.startswith(_INDENT * 2):
            continue  # (a nested line: inside a loop or a block)
        if line.startswith(f"{_INDENT}for "):
            break
        match = _FIRST_TEST.match(line)
        if match is not None and body[index + 1] == f"{_INDENT * 2}return":
            found[index] = match.group("code")
    return found
