"""``verify --suggest``: conditions on the components players hold (hidden hands), to split an
action's applications by (:func:`rulekit.tools.verify.suggest_if.conditional` mines each side).

The values are the held observables of :func:`rulekit.tools.verify.observe.held_observables`
(the miner sees the whole state, hands included). For an action with a player parameter:

* the sum of a whole-number attribute over the components ``me`` and the parameter hold,
  compared (``>``, ``<``, ``==``): ``me``'s read before the action and after it (she may play one
  of her own components in it: a Baron compares the card she keeps), the parameter's before
  (``after(sum(c.value for c in me.hand)) > before(sum(c.value for c in target.hand))``);
* a parameter of the action equal to an attribute of a component ``me`` or a player parameter
  holds before it (a guess checked against a hand: ``before(any(c.kind == guess for c in
  target.hand))``), when every value the parameter took is a value of that attribute.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rulekit.compiler.program import Program
from rulekit.tools.verify.observe import Observable
from rulekit.tools.verify.suggest_model import Step

Test = Callable[[Step], Any]
Split = tuple[tuple[str, str], Test, str]

#: The comparisons split on, with their negations.
_OPS: tuple[tuple[str, str, Callable[[int, int], bool]], ...] = (
    (">", "<=", lambda a, b: a > b),
    ("<", ">=", lambda a, b: a < b),
    ("==", "!=", lambda a, b: a == b),
)


def held_splits(action: str, mine: list[Step], program: Program, held: Sequence[Observable]) -> list[Split]:
    """The conditions on held components that ``action``'s applications ``mine`` are split by:
    (its text, its negation's), its test (``None``: neither side) and ``""`` (no value of its
    own that a relation could merely say again)."""
    compiled = program.actions[action]
    people: list[tuple[str, Callable[[Step], Any]]] = [("me", _acting)]
    others: list[tuple[int, str]] = []
    for i, param in enumerate(compiled.params):
        if compiled.param_types[i].name == "player":
            people.append((param, _argument(i)))
        else:
            others.append((i, param))
    found: list[Split] = []
    if len(people) > 1:
        for o in held:
            if o.kind != "int":
                continue
            for label, who in people[1:]:
                theirs = f"before({o.text(label)})"
                for moment in ("before", "after"):
                    mine_text = f"{moment}({o.text('me')})"
                    for op, negation, compare in _OPS:
                        found.append(
                            (
                                (f"{mine_text} {op} {theirs}", f"{mine_text} {negation} {theirs}"),
                                _compared(o.key, moment, who, compare),
                                "",
                            )
                        )
    for i, param in others:
        values = {s.args[i] for s in mine}
        for o in held:
            if o.kind != "values":
                continue
            field, attribute = o.key.removeprefix("values:").split(".", 1)
            possible = _attribute_values(program, field, attribute)
            if not values or not values <= possible:
                continue
            for label, who in people:
                text = f"before(any(c.{attribute} == {param} for c in {label}.{field}))"
                found.append(((text, f"not {text}"), _holding(o.key, who, i), ""))
    return found


def _attribute_values(program: Program, field: str, attribute: str) -> set[Any]:
    """The values ``attribute`` takes among the components a player's ``field`` holds."""
    element = program.rules.fields["player"][field].declared.type.element
    ids = program.collections.get(str(element.kind if element else ""), ())
    return {program.attributes.get((i, attribute)) for i in ids}


def _acting(step: Step) -> Any:
    return step.me


def _argument(index: int) -> Callable[[Step], Any]:
    return lambda s: s.args[index]


def _compared(key: str, moment: str, who: Callable[[Step], Any], compare: Callable[[int, int], bool]) -> Test:
    def test(step: Step) -> bool | None:
        mine = (step.before if moment == "before" else step.after).get((step.me, key))
        theirs = step.before.get((who(step), key))
        if type(mine) is not int or type(theirs) is not int:
            return None
        return compare(mine, theirs)

    return test


def _holding(key: str, who: Callable[[Step], Any], index: int) -> Test:
    def test(step: Step) -> bool | None:
        held = step.before.get((who(step), key))
        if held is None:
            return None
        return step.args[index] in held

    return test
