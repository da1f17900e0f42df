"""Properties over two states: the ruleset's ``properties:``, its actions' and triggers' ``ensures:``.

An invariant sees one state; a property compares the state *before* and *after*
an action (``over: action``, the default) or a turn (``over: turn``; where a turn
ends is decided by the checker: another player decides, an action that ends the
turn, or the flow moving on). In its condition ``before(EXPR)`` and
``after(EXPR)`` evaluate ``EXPR`` in the state before and after; ``before.x.y``
is short for ``before(x.y)``; anything outside them reads the state after::

    properties:
      round_never_goes_back:
        holds: after.game.round >= before.game.round
        message: the round counter went backwards

An action's ``ensures:`` are properties of that action only; ``me`` is the
player who acted and its parameters are bound by name::

    actions:
      buy:
        params: {card: game.display}
        ensures:
          - holds: "after(me.money) == before(me.money) - card.cost"
            message: buying costs the card's price

A trigger's ``ensures:`` are checked after each of its firings: ``before(...)`` and
``after(...)`` read the states just before and just after its effect; the event's (or the
action's) parameters are bound by name, and ``me`` for a trigger of an action::

    triggers:
      payday_bonus:
        after: payday
        effect: ...
        ensures:
          - holds: "all(after(p.money) >= before(p.money) for p in players)"

Properties are compiled here, against the compiled program's functions, with
the same checker and messages as every rule expression (errors are located).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs
from attrs import define

from rulekit.compiler.codegen import CodeGen, Context
from rulekit.compiler.program import Program
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.dsl.types import Type
from rulekit.errors import DiagnosticBag, RulesetError
from rulekit.rules.model import PropertyDecl

Fn = Callable[..., Any]
#: The generated code's names of the two states (the generated code uses A, B_..., F, R itself).
_SIDES = {"before": "S_before", "after": "S_after"}
#: The generated code's names of the returns and the scores of a finished game (``over: game``).
_RESULTS = "S_result"
_SCORES = "S_score"
#: The engine's slot of who decides (``(seat, actions)``, ``None`` at the end).
_DECISION = '("_", "decision")'


class _TwoStateGen(CodeGen):
    """The rules' code generator plus ``before(EXPR)`` and ``after(EXPR)``."""

    def _expr_Call(self, node: ast.Call, ctx: Context) -> tuple[str, Type]:
        side = _SIDES.get(node.function)
        if side is None or node.function in self.rules.functions:
            return super()._expr_Call(node, ctx)
        if len(node.args) != 1 or node.keywords:
            self.error(f"{node.function}(...) takes one expression", node)
            return "None", t.ANY
        code, type_ = self.expr(node.args[0], ctx)
        return f"(lambda F: {code})({side})", type_

    def _decider(self, node: ast.Call) -> tuple[str, Type] | None:
        """``decider()``: the player who decides in the state read (``none`` at the end)."""
        if node.function != "decider" or node.function in self.rules.functions:
            return None
        if node.args or node.keywords:
            self.error("decider() takes no argument", node)
        return f"(lambda D: None if D is None else D[0])(F.get({_DECISION}))", t.PLAYER


class _PropertyGen(_TwoStateGen):
    """A property's generator: ``before``, ``after`` and ``decider()``."""

    def _expr_Call(self, node: ast.Call, ctx: Context) -> tuple[str, Type]:
        return self._decider(node) or super()._expr_Call(node, ctx)


class _GameGen(_PropertyGen):
    """A property ``over: game``'s generator, with ``result(PLAYER)``: her return at the end,
    and ``score(PLAYER)``: her score at the end (the ruleset's ``scoring: score``)."""

    def _expr_Call(self, node: ast.Call, ctx: Context) -> tuple[str, Type]:
        slot = {"result": _RESULTS, "score": _SCORES}.get(node.function)
        if slot is None or node.function in self.rules.functions:
            return super()._expr_Call(node, ctx)
        if len(node.args) != 1 or node.keywords:
            self.error(f"{node.function}(...) takes one player", node)
            return "None", t.ANY
        code, type_ = self.expr(node.args[0], ctx)
        self.expect(t.PLAYER, type_, node.args[0], f"{node.function}(...)'s argument")
        return f"{slot}[{code}]", t.INT


def two_state(expr: ast.Expr) -> ast.Expr:
    """``expr`` with ``before.x.y`` written as ``before(x.y)`` (and so for ``after``)."""
    if isinstance(expr, ast.Attribute):
        chain = []
        node: ast.Expr = expr
        while isinstance(node, ast.Attribute):
            chain.append(node)
            node = node.subject
        if isinstance(node, ast.Name) and node.id in _SIDES and len(chain) >= 2:
            inner: ast.Expr = ast.Name(chain[-1].name, span=chain[-1].span)
            for link in reversed(chain[:-1]):
                inner = ast.Attribute(inner, link.name, span=link.span)
            return ast.Call(node.id, (inner,), span=expr.span)
    if not _is_node(expr):
        return expr
    changes: dict[str, Any] = {}
    for attribute in attrs.fields(type(expr)):
        value = getattr(expr, attribute.name)
        new = _map(value)
        if new is not value and new != value:
            changes[attribute.name] = new
    if not changes:
        return expr
    return attrs.evolve(expr, **changes)


def _map(value: Any) -> Any:
    if _is_node(value):
        return two_state(value)
    if isinstance(value, tuple):
        return tuple(_map(v) for v in value)
    return value


def _is_node(value: Any) -> bool:
    return hasattr(value, "__attrs_attrs__") and type(value).__module__ == ast.__name__


@define
class CompiledProperty:
    """A property compiled to ``fn(F, R, me, before, after, *params)`` (``F`` is ``after``)."""

    decl: PropertyDecl
    check: Fn
    action: str | None = None
    params: tuple[str, ...] = ()
    #: A derived property (``derived.py``): whether it is about these two states (``None``:
    #: an authored property, about every pair).
    applies: Callable[[dict[Any, Any], dict[Any, Any]], bool] | None = None
    #: A trigger's postcondition: the trigger (checked after each of its firings).
    trigger: str | None = None


@define
class Properties:
    """The compiled properties of a program, by what they compare."""

    over_action: list[CompiledProperty]
    over_turn: list[CompiledProperty]
    ensures: dict[str, list[CompiledProperty]]
    #: ``over: game``: from the game's first state to its last, checked when it ends.
    over_game: list[CompiledProperty] = attrs.Factory(list)
    #: The triggers' ensures, by trigger (checked after each firing).
    triggers: dict[str, list[CompiledProperty]] = attrs.Factory(dict)

    def __bool__(self) -> bool:
        return bool(self.over_action or self.over_turn or self.ensures or self.over_game or self.triggers)

    def all(self) -> list[CompiledProperty]:
        return [
            *self.over_action,
            *self.over_turn,
            *self.over_game,
            *(p for ps in self.ensures.values() for p in ps),
            *(p for ps in self.triggers.values() for p in ps),
        ]


def select(properties: Properties, names: set[str]) -> Properties:
    """Only the properties named (``properties:`` names, ``ACTION.ensures[N]``)."""

    def keep(found: list[CompiledProperty]) -> list[CompiledProperty]:
        return [p for p in found if p.decl.name in names]

    ensures = {name: keep(found) for name, found in properties.ensures.items() if keep(found)}
    triggers = {name: keep(found) for name, found in properties.triggers.items() if keep(found)}
    return Properties(
        keep(properties.over_action),
        keep(properties.over_turn),
        ensures,
        keep(properties.over_game),
        triggers,
    )


def trigger_params(program: Program, name: str) -> tuple[list[tuple[str, Type]], bool]:
    """What a trigger's postconditions have bound: its parameters (the action's, or the event's
    fields) with their types, and whether ``me`` is (a trigger of an action)."""
    event = program.rules.triggers[name].event
    action = program.actions.get(event)
    if action is not None:
        return list(zip(action.params, action.param_types, strict=True)), True
    declared = program.rules.events.get(event)
    return [(n, d.type) for n, d in declared.fields] if declared is not None else [], False


def compile_properties(program: Program, *, derived: bool = True) -> Properties:
    """Compile the program's properties and ensures, and (``derived``) the properties its
    declarations imply (:mod:`rulekit.tools.verify.derived`).

    Raises:
        RulesetError: a property does not type-check (with its position).
    """
    rules = program.rules
    bag = DiagnosticBag()
    over_action: list[CompiledProperty] = []
    over_turn: list[CompiledProperty] = []
    over_game: list[CompiledProperty] = []
    for decl in rules.properties.values():
        fn = _compile(program, decl.condition, bag, me=False, params=(), game=decl.over == "game")
        target = {"turn": over_turn, "game": over_game}.get(decl.over, over_action)
        target.append(CompiledProperty(decl, fn))
    ensures: dict[str, list[CompiledProperty]] = {}
    for name, action in rules.actions.items():
        compiled = program.actions.get(name)
        if not action.ensures or compiled is None:
            continue
        params = list(zip(compiled.params, compiled.param_types, strict=True))
        for decl in action.ensures:
            fn = _compile(program, decl.condition, bag, me=True, params=params)
            ensures.setdefault(name, []).append(CompiledProperty(decl, fn, name, tuple(p for p, _ in params)))
    triggers: dict[str, list[CompiledProperty]] = {}
    for name, trigger in rules.triggers.items():
        if not trigger.ensures:
            continue
        params, me = trigger_params(program, name)
        names = tuple(p for p, _ in params)
        for decl in trigger.ensures:
            fn = _compile(program, decl.condition, bag, me=me, params=params)
            triggers.setdefault(name, []).append(CompiledProperty(decl, fn, params=names, trigger=name))
    bag.raise_if_any()
    if derived:
        from rulekit.tools.verify.derived import derived_properties

        for item in derived_properties(program):
            quiet = DiagnosticBag()
            of = program.actions.get(item.action) if item.action is not None else None
            params = list(zip(of.params, of.param_types, strict=True)) if of is not None else []
            fn = _compile(program, item.decl.condition, quiet, me=of is not None, params=params)
            if quiet.items:
                continue  # a declaration the derivation cannot express: nothing is implied
            if item.action is not None:
                names = tuple(p for p, _ in params)
                derived_ensures = CompiledProperty(item.decl, fn, item.action, names, applies=item.applies)
                ensures.setdefault(item.action, []).append(derived_ensures)
                continue
            target = over_turn if item.decl.over == "turn" else over_action
            target.append(CompiledProperty(item.decl, fn, applies=item.applies))
    return Properties(over_action, over_turn, ensures, over_game, triggers)


def _generator(game: bool) -> tuple[type[CodeGen], tuple[str, ...]]:
    """The code generator and extra arguments of a property (``game``: over a whole game)."""
    if game:
        return _GameGen, (*_SIDES.values(), _RESULTS, _SCORES)
    return _PropertyGen, tuple(_SIDES.values())


def _compile(
    program: Program,
    condition: ast.Expr,
    bag: DiagnosticBag,
    *,
    me: bool,
    params: Sequence[tuple[str, Type]],
    game: bool = False,
) -> Fn:
    generator, extra = _generator(game)
    try:
        return program.compile_predicate(
            two_state(condition),
            "a property",
            me=me,
            params=params,
            generator=generator,
            extra_args=extra,
        )
    except RulesetError as error:
        bag.extend(error.diagnostics)
        return lambda *args: True


def evaluate_parts(
    program: Program,
    prop: CompiledProperty,
    before: dict[Any, Any],
    after: dict[Any, Any],
    runtime: Any,
    me: int = -1,
    args: Sequence[Any] = (),
) -> list[str]:
    """Why a property is false, as an invariant is explained (``explain.py``): each part of an
    ``and`` up to the false one, every part of an ``or``, each comparison with its operands side
    by side (``after(me.money) == before(me.money) - amount is false: 9 == 8``) and the value of
    each side; ``before(...)`` and ``after(...)`` evaluated in their states by the compiler's
    own code (the property's code generator), ``me`` and the action's parameters bound."""
    from rulekit.tools.verify.explain import Binding, explain_with

    params: list[tuple[str, Type]] = []
    has_me = prop.action is not None
    if prop.action is not None:
        compiled = program.actions[prop.action]
        params = list(zip(compiled.params, compiled.param_types, strict=True))
    elif prop.trigger is not None:
        params, has_me = trigger_params(program, prop.trigger)

    generator, extra = _generator(prop.decl.over == "game" and prop.action is None and prop.trigger is None)

    def evaluate(expr: ast.Expr, bindings: Sequence[Binding]) -> tuple[Any, Type]:
        fn, type_ = program.compile_function(
            two_state(expr),
            params=[*params, *((name, type_) for name, type_, _ in bindings)],
            me=has_me,
            generator=generator,
            extra_args=extra,
        )
        runtime.reset_steps()  # each part with its own step budget
        return fn(after, runtime, me, before, after, *args, *(value for _, _, value in bindings)), type_

    return explain_with(evaluate, prop.decl.condition)
