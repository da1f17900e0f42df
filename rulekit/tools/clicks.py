"""Actions built by clicks (``rulekit serve``): what the clicks chosen so far still allow.

A view binds action parameters to the shapes that stand for their values (``bind:``, see
docs/rules-format.md#view): a click on a shape is a *choice*, ``{target: value}`` with a target
``ACTION.PARAM`` or ``action`` (the action's name), as the shape's ``data-bind``.  A legal action
matches a choice when one of the choice's targets has that value in it.  Everything here is
read from the engine's legal-action listing: the candidates (legal actions matching every
choice), the values still open per target (the shapes to highlight), the controls for targets
no shape binds, the single remaining completion, the rules that would apply, a preview of the
state after the first candidate, and for a refused click the rule that refuses it (the
engine's explanation, as the seat may be told it).  Nothing here knows a game.
"""

from __future__ import annotations

import random
import secrets
from typing import Any

from rulekit.engine.game import Action, State
from rulekit.engine.information import determinize, has_hidden_information, known_fired, seat_explanation
from rulekit.engine.values import format_value
from rulekit.errors import Diagnostic, IllegalActionError
from rulekit.rules.view import ACTION_TARGET
from rulekit.tools.view import CompiledView

#: A click: binding target -> value in the action notation.
Choice = dict[str, str]
#: The most choices a partial action may carry, and targets one click may choose.
MAX_CHOICES = 16
MAX_TARGETS = 32
#: How many of the candidates' actions have their rule (name, citation, doc) listed.
MAX_RULES = 8


def action_pairs(state: State, action: Action) -> dict[str, str]:
    """The targets an action fills and their values: ``action`` -> its name, ``NAME.PARAM`` ->
    the argument in the action notation."""
    compiled = state.game.program.actions[action.name]
    pairs = {ACTION_TARGET: action.name}
    for param, arg, type_ in zip(compiled.params, action.args, compiled.param_types, strict=False):
        pairs[f"{action.name}.{param}"] = format_value(arg, type_)
    return pairs


def matches(pairs: dict[str, str], choice: Choice) -> bool:
    """Whether an action (its :func:`action_pairs`) agrees with a click."""
    return any(pairs.get(target) == value for target, value in choice.items())


def bound_targets(view: CompiledView | None) -> frozenset[str]:
    """The targets some layer of the view binds to its shapes (the others get controls)."""
    if view is None:
        return frozenset()
    found: set[str] = set()
    for layer in view.layers:
        attr = layer.attrs.get("bind")
        if attr is not None:
            found.update(target for target, _, _ in attr.constant)
    return frozenset(found)


def plays_by_clicks(view: CompiledView | None) -> bool:
    """Whether the page builds actions by clicks: the view binds a shape or declares a control
    (a ruleset whose actions take no parameters gets a button per action that way)."""
    return bool(bound_targets(view)) or bool(view is not None and view.decl.controls)


class Listing:
    """The legal actions of the seat on turn, each with its text and its target values."""

    def __init__(self, state: State) -> None:
        self.state = state
        game = state.game
        self.entries = [
            (action, game.action_to_string(action), action_pairs(state, action))
            for action in state.legal_actions()
        ]

    def candidates(self, choices: list[Choice]) -> list[tuple[Action, str, dict[str, str]]]:
        return [entry for entry in self.entries if all(matches(entry[2], c) for c in choices)]


def choose(
    state: State, seat: int, choices: list[Choice], view: CompiledView | None, *, preview: bool = True
) -> dict[str, Any]:
    """The answer to a click: ``choices`` (the last one the click) applied to the listing.

    A click that leaves no legal action replaces the earlier choice of its kind (a choice
    sharing a target: another cell instead of the chosen one) when that leaves one; else it is
    refused with the rule that refuses the action it would build (``refused``) and the earlier
    choices stand; a click that only disagrees with earlier choices of another action starts
    the partial action again.  The answer's ``choices`` are the ones that stand."""
    listing = Listing(state)
    answer: dict[str, Any] = {}
    if choices and not listing.candidates(choices):
        click, before = choices[-1], choices[:-1]
        replaced = [c for c in before if not set(c) & set(click)] + [click]
        if listing.candidates(replaced):
            choices = replaced
            answer["replaced"] = True
        else:
            refused = refusal(listing, seat, before, click)
            if refused is None and listing.candidates([click]):
                choices = [click]
                answer["restarted"] = True
            else:  # earlier choices that no longer fit (the state moved on) are dropped
                choices = before if listing.candidates(before) else []
                shown = ", ".join(click.values())
                answer["refused"] = refused or Diagnostic(f"no legal action can be built with {shown} now")
    answer.update(describe(listing, seat, choices, view, preview=preview))
    return answer


def describe(
    listing: Listing, seat: int, choices: list[Choice], view: CompiledView | None, *, preview: bool
) -> dict[str, Any]:
    """What ``choices`` leave: candidates, open values, controls, a unique completion, rules, preview."""
    state = listing.state
    candidates = listing.candidates(choices)
    open_values: dict[str, dict[str, None]] = {}
    for _, _, pairs in candidates:
        for target, value in pairs.items():
            open_values.setdefault(target, {})[value] = None
    bound = bound_targets(view)
    labels = {} if view is None else {t: c.label for t, c in view.decl.controls.items()}
    controls = []
    for target, values in open_values.items():
        if target in bound and target not in labels:  # a declared control is shown anyway
            continue
        # only values that narrow the candidates: one every candidate has chooses nothing
        narrowing = [v for v in values if not all(p.get(target) == v for _, _, p in candidates)]
        if narrowing:
            default = "action" if target == ACTION_TARGET else target.replace(".", ": ")
            controls.append({"target": target, "label": labels.get(target, default), "values": narrowing})
    answer: dict[str, Any] = {
        "choices": choices,
        "candidates": [{"text": text, "pairs": pairs} for _, text, pairs in candidates],
        "open": {target: list(values) for target, values in open_values.items()},
        "controls": controls,
        "complete": None,
        "auto": False,
        "rules": _rules(state, candidates),
        "preview": None,
    }
    if len(candidates) == 1:
        _, text, pairs = candidates[0]
        chosen = {t for c in choices for t, v in c.items() if pairs.get(t) == v}
        params = [t for t in pairs if t != ACTION_TARGET]
        answer["complete"] = text
        answer["auto"] = bool(choices) and set(params or [ACTION_TARGET]) <= chosen
    if preview and choices and candidates:
        answer["preview"] = _preview(state, seat, candidates[0][0], candidates[0][1])
    return answer


def _rules(state: State, candidates: list[tuple[Action, str, dict[str, str]]]) -> list[dict[str, Any]]:
    """The rules of the candidates' actions: name, citation and what it does."""
    names = list(dict.fromkeys(action.name for action, _, _ in candidates))
    decls = state.game.program.rules.actions
    return [
        {
            "action": name,
            "cite": decls[name].cite,
            "doc": decls[name].doc,
            "count": sum(1 for action, _, _ in candidates if action.name == name),
        }
        for name in names[:MAX_RULES]
    ]


def _preview(state: State, seat: int, action: Action, text: str) -> dict[str, Any] | None:
    """The seat's picture of the state after ``action``, played on a state the seat cannot tell
    from the real one (hidden items dealt again, chance re-seeded): it shows nothing the seat
    may not know; what the action would reveal is a guess."""
    from rulekit.tools.svg import to_svg
    from rulekit.tools.view import draw

    world = determinize(state, seat, random.Random(secrets.randbits(64)))
    runtime = state.game.runtime
    fired: list[str] = []
    previous = runtime.fired
    runtime.fired = fired.append
    try:
        world.apply_action(action)
    except Exception:
        return None
    finally:
        runtime.fired = previous
    decls = state.game.program.rules.triggers
    triggers = [
        {"name": name[len("trigger:") :], "cite": decls[name[len("trigger:") :]].cite}
        for name in known_fired(state, fired, seat)
        if name.startswith("trigger:") and name[len("trigger:") :] in decls
    ]
    return {
        "text": text,
        "svg": to_svg(draw(world, seat)),
        "triggers": triggers,
        "guessed": has_hidden_information(state.game.program),
    }


def refusal(listing: Listing, seat: int, choices: list[Choice], click: Choice) -> Diagnostic | None:
    """Why a click cannot complete a legal action with ``choices``: the engine's explanation
    (as ``seat`` may be told it) of the action the click would build, its other arguments taken
    from a legal action of that name that agrees with ``choices``; None when that action is
    legal (the click only disagrees with the earlier choices) or none can be built."""
    state = listing.state
    game = state.game
    for target, value in click.items():
        if target == ACTION_TARGET:
            name, param = value, ""
        else:
            name, _, param = target.partition(".")
        compiled = game.program.actions.get(name)
        if compiled is None or (param and param not in compiled.params):
            continue
        if name not in state.allowed_action_names():
            return seat_explanation(state, Action(name, ()), seat)
        same = [entry for entry in listing.entries if entry[0].name == name]
        agreeing = [entry for entry in same if all(matches(entry[2], c) for c in choices)]
        if not (agreeing or same):
            if not compiled.params:
                return seat_explanation(state, Action(name, ()), seat)
            continue
        template = (agreeing or same)[0]
        texts = [value if p == param else template[2][f"{name}.{p}"] for p in compiled.params]
        try:
            action = game.parse_action(f"{name}({', '.join(texts)})" if texts else name)
        except IllegalActionError as error:
            return error.diagnostics[0]
        if action in state.legal_actions():
            return None
        return seat_explanation(state, action, seat)
    return None
