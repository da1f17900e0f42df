"""One generated function per decision: a turn's enumerators run as one, first tests shared.

A turn that offers several actions lists them by calling each action's enumerator in
turn.  Many of those enumerators begin with the same tests (a rule that blocks a whole
kind of action, a phase check written once as a ``use:`` requirement) and read the same
fields.  :func:`fuse` writes the enumerators of one decision into a single function:

* each enumerator's body becomes a block ``for _ in P_once:`` (one pass), whose failing
  first tests ``break`` to the next block instead of returning (the lines the planner
  recorded as the enumerator's exits, :attr:`planner.Enumerator.exits`: no generated text
  is matched);
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

from collections import Counter
from collections.abc import Sequence

from attrs import evolve

from rulekit.compiler.facts import Facts, combine
from rulekit.compiler.planner import Check, Enumerator
from rulekit.compiler.planner_reads import Line, Stable, hoist_reads, source


def fuse(fname: str, enumerators: Sequence[Enumerator], stable: Stable | None) -> str:
    """The source of ``def fname(F, R, me, mk, out)`` doing what calling each of
    ``enumerators`` (from :func:`planner.enumerator`, in the decision's order) does."""
    bodies = [enumerator.lines[1:] for enumerator in enumerators]
    # (line indexes of the bodies: one less than in the enumerators, whose line 0 is the header)
    firsts = [{index - 1: check for index, check in e.firsts.items()} for e in enumerators]
    uses = Counter(code for tests in firsts for code in dict.fromkeys(c.code for c in tests.values()))
    worth = {c.code for tests in firsts for c in tests.values() if _worth_sharing(c)}
    shared = {
        code: f"G{k}"
        for k, code in enumerate(code for code, count in uses.items() if count > 1 and code in worth)
    }
    lines = [Line(0, f"def {fname}(F, R, me, mk, out):")]
    lines.extend(Line(1, f"{local} = P_miss") for local in shared.values())
    lines.append(Line(1, "add = out.append"))
    for body, tests, enumerator in zip(bodies, firsts, enumerators, strict=True):
        lines.append(Line(1, "for _ in P_once:"))
        for index, line in enumerate(body):
            if index + 1 == enumerator.appender:  # (bound once, above)
                continue
            if index + 1 in enumerator.exits:
                line = Line(line.depth, "break")
            elif index in tests and tests[index].code in shared:
                check = tests[index]
                local = shared[check.code]
                code = f"if not ({local} if {local} is not P_miss else ({local} := ({check.code}))):"
                line = Line(line.depth, code, check.mark)
            lines.append(Line(line.depth + 1, line.code, line.mark))
        if not enumerator.limited:  # (as checked after each enumerator when they are called one by one)
            lines.append(Line(2, "if len(out) > P_limits.max_candidates:"))
            lines.append(Line(3, "P_too_many()"))
    if stable is not None:
        lines = hoist_reads(lines, stable)
    return source(lines)


def facts(enumerators: Sequence[Enumerator]) -> Facts | None:
    """The facts of the function :func:`fuse` writes: its enumerators' together, each
    ``return`` of theirs a ``break`` out of its block (None: some enumerator's are unknown)."""
    parts = [enumerator.facts for enumerator in enumerators]
    if any(part is None for part in parts):
        return None
    known = [part for part in parts if part is not None]
    exits = {kind for part in known for kind in part.exits}
    if "return" in exits:
        exits = (exits - {"return"}) | {"break"}
    return combine([evolve(part, exits=frozenset()) for part in known], exits)


def _worth_sharing(check: Check) -> bool:
    """A test that charges no step and costs more than asking whether it was computed: it
    reads two fields or more, or calls a built-in."""
    facts = check.facts
    return facts is not None and not facts.charges and facts.work >= 2
