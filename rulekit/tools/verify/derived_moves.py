"""Conservation over the sources and sinks the rules declare (``derived.py`` collects these).

* **money** (``derived:money``): where no rule but the setup writes the ``money`` field itself,
  money moves only by ``transfer``, ``transfer_up_to`` and ``cost``, between the players and
  the bank those name, so over every action the players' money plus what the bank took in
  minus what it paid out stays the same.
* **a quantity moved between parties** (``derived:conserved:SCOPE.FIELD``): an int field
  that every rule but the setup changes only in pairs ``a.f -= E`` and ``b.f += E`` (the same
  ``E``, in one block) is only moved between the parties the pairs name: its total over its
  owners never changes.
* **items in zones** (``derived:items:KIND``): list fields the rules name in ``move``,
  ``draw`` or ``shuffle`` are zones, places items lie in; an item of a kind the rules keep in
  zones lies in one place at a time, so no item is in two zones (or twice in one) after an
  action. An effect that adds a card to a hand but leaves it in the display breaks it.

Each applies only where the rules declare it that way, and says nothing where they do not (a
field written directly, a list built afresh): a move the rules spell wrong in both places
agrees with itself and is not found here.
"""

from __future__ import annotations

from collections.abc import Iterator

from rulekit.compiler.program import Program
from rulekit.dsl import ast
from rulekit.dsl.parser import parse_expression
from rulekit.dsl.printer import print_expr
from rulekit.rules import model as m
from rulekit.rules.model import PropertyDecl
from rulekit.tools.verify.rule_walk import (
    ZONE_EFFECTS,
    Field,
    Origin,
    blocks,
    fields_named,
    statements,
    written,
)

#: The blocks that run during play (the setup runs before the first action is checked).
PLAY = {"action", "trigger", "procedure", "flow"}


def conservation(program: Program) -> Iterator[PropertyDecl]:
    """The conservation properties of the rules (see the module's doc), over each action."""
    rules = program.rules
    yield from _money(rules)
    yield from _moved_totals(rules)
    yield from _items(rules)


# ------------------------------------------------------------------ money


def _money(rules: m.RulesModel) -> Iterator[PropertyDecl]:
    money = rules.money
    if not money:
        return
    direct = [s for _, s in written(rules, PLAY).get(("player", money), []) if isinstance(s, ast.Assign)]
    if direct:
        return
    total = f"sum(p.{money} for p in players) + bank.taken_in - bank.paid_out"
    yield PropertyDecl(
        "derived:money",
        parse_expression(f"({total}) == before({total})"),
        f"money moves only by transfer and cost (no rule writes '{money}' itself): the players' "
        f"{money} plus the bank's balance stays the same",
        None,
        None,
    )


# ------------------------------------------------------------------ quantities moved in pairs


def _moved_totals(rules: m.RulesModel) -> Iterator[PropertyDecl]:
    writes = written(rules, PLAY)
    for (scope, name), found in sorted(writes.items()):
        declared = rules.fields[scope][name].declared.type
        if declared.name != "int" or scope == "turn":
            continue
        if not all(isinstance(s, ast.Assign) and s.op in ("+=", "-=") for _, s in found):
            continue
        if not all(_paired(rules, origin, s) for origin, s in found):
            continue
        total = _total(rules, scope, name)
        if total is None:
            continue
        yield PropertyDecl(
            f"derived:conserved:{scope}.{name}",
            parse_expression(f"({total}) == before({total})"),
            f"every rule moves '{name}' between two parties ('-=' and '+=' of the same amount): "
            f"its total stays the same",
            None,
            found[0][1].span,
        )


def _paired(rules: m.RulesModel, origin: Origin, statement: ast.Stmt) -> bool:
    """Whether ``statement`` (``x.f += E``) has its opposite (``y.f -= E``) in the same block."""
    assert isinstance(statement, ast.Assign)
    for _, block in blocks(rules):
        for body in _bodies(block.statements):
            if statement not in body:
                continue
            opposite = "-=" if statement.op == "+=" else "+="
            return any(
                isinstance(s, ast.Assign)
                and s.op == opposite
                and s.target.name == statement.target.name
                and fields_named(rules, s.target) == fields_named(rules, statement.target)
                and print_expr(s.value) == print_expr(statement.value)
                and print_expr(s.target) != print_expr(statement.target)
                for s in body
            )
    return False


def _bodies(body: tuple[ast.Stmt, ...]) -> Iterator[tuple[ast.Stmt, ...]]:
    yield body
    for s in body:
        if isinstance(s, ast.If):
            for _, inner in s.branches:
                yield from _bodies(inner)
            yield from _bodies(s.otherwise)
        elif isinstance(s, ast.For):
            yield from _bodies(s.body)


def _total(rules: m.RulesModel, scope: str, name: str) -> str | None:
    """All the places of a field as one DSL sum (or list, for a list field)."""
    if scope in ("game", "turn"):
        return f"{scope}.{name}"
    if scope == "player":
        return f"sum(o.{name} for o in players)"
    kind = rules.kinds.get(scope)
    return f"sum(o.{name} for o in {kind.collection})" if kind is not None else None


# ------------------------------------------------------------------ items in zones


def _items(rules: m.RulesModel) -> Iterator[PropertyDecl]:
    zones: dict[str, set[Field]] = {}
    first: dict[str, ast.Stmt] = {}
    for _, block in blocks(rules):
        for statement in statements(block):
            if not (isinstance(statement, ast.CallStatement) and statement.call.function in ZONE_EFFECTS):
                continue
            call = statement.call
            for i in ZONE_EFFECTS[call.function]:
                for scope, name in fields_named(rules, call.args[i]) if i < len(call.args) else ():
                    element = rules.fields[scope][name].declared.type.element
                    if element is None or element.name != "entity" or element.kind is None:
                        continue
                    zones.setdefault(element.kind, set()).add((scope, name))
                    first.setdefault(element.kind, statement)
    for kind, places in sorted(zones.items()):
        if any(scope not in ("game", "turn", "player") and scope not in rules.kinds for scope, _ in places):
            continue
        everything = " + ".join(_list(rules, scope, name) for scope, name in sorted(places))
        shown = ", ".join(f"{scope}.{name}" for scope, name in sorted(places))
        # the length test first: cheap, and when it fails the items found twice are shown
        every = f"({everything})"
        twice = f"[x for x in unique({every}) if count_of({every}, x) > 1] == []"
        condition = f"len(unique({every})) == len({every}) or {twice}"
        yield PropertyDecl(
            f"derived:items:{kind}",
            parse_expression(condition),
            f"the rules move each {kind} between zones ({shown}) with move, draw or shuffle: "
            f"it lies in one place at a time",
            None,
            first[kind].span,
        )


def _list(rules: m.RulesModel, scope: str, name: str) -> str:
    if scope in ("game", "turn"):
        return f"{scope}.{name}"
    collection = "players" if scope == "player" else rules.kinds[scope].collection
    return f"[x for o in {collection} for x in o.{name}]"
