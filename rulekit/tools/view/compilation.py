"""Compile a ruleset's ``view``: every expression type-checked against the ruleset, errors at
their file:line:col; compiled once per program."""

from __future__ import annotations

from rulekit.compiler.program import Program
from rulekit.dsl import types as t
from rulekit.dsl.types import Type
from rulekit.errors import DiagnosticBag, RulekitError, RulesetError, Span, did_you_mean
from rulekit.rules import view as v
from rulekit.rules.yaml_source import LocStr
from rulekit.tools.view.model import CompiledAttr, CompiledCard, CompiledLayer, CompiledView, Fn

_EXPECTED = {
    v.NUM: t.INT,
    v.BOOL: t.BOOL,
    v.LIST: t.ANY_LIST,
}


#: Cards of plain values (a hand of whole numbers, such as numbered power cards): ``cards: {int: ...}``.
_PLAIN_CARDS = {"int": t.INT, "str": t.STR}

_COMPILED: dict[int, tuple[Program, CompiledView | None]] = {}

#: Names every view expression sees besides the rules' own, passed first by the drawer.
VIEW_NAMES: tuple[tuple[str, Type], ...] = (("game_over", t.BOOL),)


def compile_view(program: Program) -> CompiledView | None:
    """Check and compile the ruleset's view (cached per program); None if it has none.

    Raises:
        RulesetError: an expression does not compile or has the wrong type, each at its position.
    """
    cached = _COMPILED.get(id(program))
    if cached is not None and cached[0] is program:
        return cached[1]
    decl = program.rules.view
    result = None if decl is None else _compile(program, decl)
    _COMPILED[id(program)] = (program, result)
    return result


def _compile(program: Program, decl: v.ViewDecl) -> CompiledView:
    bag = DiagnosticBag()

    def target_ok(target: str, span: Span | None) -> None:
        """A binding target names an action and one of its parameters (or is ``action``)."""
        if target == v.ACTION_TARGET:
            return
        name, _, param = target.partition(".")
        actions = program.rules.actions
        if not param:
            bag.error(f"a binding target is ACTION.PARAM or action, not '{target}'", span)
        elif name not in actions:
            bag.error(f"binds unknown action '{name}'", span, hint=did_you_mean(name, actions))
        elif param not in (params := [p.name for p in actions[name].params]):
            where = f"its parameters: {', '.join(params)}" if params else "it takes no parameters"
            bag.error(
                f"action '{name}' has no parameter '{param}' ({where})",
                span,
                hint=did_you_mean(param, params),
            )

    def attr(a: v.Attr, params: list[tuple[str, Type]]) -> CompiledAttr | None:
        if a.kind == v.BIND:
            bound: list[tuple[str, Fn | None, Type]] = []
            for binding in a.literal:
                target_ok(binding.target, binding.span)
                if binding.source is None:
                    bound.append((binding.target, None, t.ANY))
                    continue
                fake = v.Attr(a.name, v.REF, source=binding.source, span=binding.span)
                compiled_value = attr(fake, params)
                if compiled_value is not None:
                    bound.append((binding.target, compiled_value.fn, compiled_value.type_))
            return CompiledAttr(a.name, a.kind, None, tuple(bound), t.ANY)
        if a.kind == v.ACTION:
            for name in a.literal:
                if name not in program.rules.actions:
                    hint = did_you_mean(name, program.rules.actions)
                    bag.error(f"'{a.name}' names unknown action '{name}'", a.span, hint=hint)
            return CompiledAttr(a.name, a.kind, None, a.literal, t.ANY)
        if not a.is_expr:
            return CompiledAttr(a.name, a.kind, None, a.literal, t.ANY)
        source = a.source
        origin = source.origin if isinstance(source, LocStr) else None
        try:
            fn, type_ = program.compile_expression(str(source), origin, params=[*VIEW_NAMES, *params])
        except RulekitError as error:
            bag.extend(error.diagnostics)
            return None
        if not _type_ok(a.kind, type_):
            bag.error(f"'{a.name}' must be {_wanted(a.kind)}, not {type_}", a.span)
            return None
        return CompiledAttr(a.name, a.kind, fn, None, type_)

    width = attr(decl.width, [])
    height = attr(decl.height, [])
    cards: dict[str, CompiledCard] = {}
    for kind, card in decl.cards.items():
        if kind not in program.rules.kinds and kind not in _PLAIN_CARDS:
            hint = did_you_mean(kind, [*program.rules.kinds, *_PLAIN_CARDS])
            bag.error(f"cards: '{kind}' is no component kind (nor int or str)", card.span, hint=hint)
            continue
        card_params = [(card.var, _PLAIN_CARDS.get(kind) or t.entity(kind))]
        compiled_card = {}
        for name, a in card.attrs.items():
            c = attr(a, card_params)
            if c is not None:
                compiled_card[name] = c
        cards[kind] = CompiledCard(card, compiled_card)
    layers = []
    for layer in decl.layers:
        params: list[tuple[str, Type]] = []
        each = None
        if layer.each is not None:
            each = attr(layer.each, [])
            element = t.element_type(each.type_) if each is not None else t.ANY
            params = [(layer.var, element)]
        when = attr(layer.when, params) if layer.when is not None else None
        shape = layer.shape
        compiled: dict[str, CompiledAttr] = {}
        item_params = list(params)
        items = shape.attrs.get("items")
        if items is not None:
            items_c = attr(items, params)
            if items_c is not None:
                compiled["items"] = items_c
                item_params += [(shape.item, t.element_type(items_c.type_)), ("index", t.INT)]
        for name, a in shape.attrs.items():
            if name == "items":
                continue
            per_item = shape.kind in ("track", "stack") and name in v.PER_ITEM
            c = attr(a, item_params if per_item else params)
            if c is not None:
                compiled[name] = c
        card_kind = _card_kind(shape, compiled.get("items"), decl, bag)
        layers.append(CompiledLayer(layer, each, when, compiled, card_kind))
    for control in decl.controls.values():
        target_ok(control.target, control.span)
    bag.raise_if_any(RulesetError)
    assert width is not None and height is not None
    return CompiledView(decl, width, height, tuple(layers), cards)


def _card_kind(
    shape: v.ShapeDecl, items: CompiledAttr | None, decl: v.ViewDecl, bag: DiagnosticBag
) -> str | None:
    """With ``shape: card``, the component kind of the items, whose card the view declares."""
    form = shape.attrs.get("shape")
    if form is None or form.literal != "card" or items is None:
        return None
    element = t.element_type(items.type_)
    if element.name in _PLAIN_CARDS and element.name in decl.cards:
        return element.name
    if element.name != "entity" or element.kind not in decl.cards:
        declared = ", ".join(decl.cards) or "none"
        bag.error(
            f"shape: card draws components whose kind has a card in the view's cards (declared: "
            f"{declared}); these items are {items.type_}",
            form.span,
        )
        return None
    return element.kind


def _type_ok(kind: str, type_: Type) -> bool:
    if kind == v.NUM and type_ == t.NONE:  # `none` would fit any type, but it is no number
        return False
    if kind in _EXPECTED:
        return t.compatible(_EXPECTED[kind], type_)
    if kind == v.COLOUR:
        return type_ in (t.STR, t.PLAYER, t.OWNER, t.INT, t.ANY, t.NONE)
    return True  # text and refs: anything can be written


def _wanted(kind: str) -> str:
    return {
        v.NUM: "an int",
        v.BOOL: "a bool",
        v.LIST: "a list",
        v.COLOUR: "a colour (a str, a player or none)",
    }.get(kind, kind)
