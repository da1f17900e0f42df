"""The typed rules model: what a composed ruleset says, with every DSL snippet and type parsed.

Built by :mod:`rulekit.rules.loader` from the located YAML; consumed by the
compiler.  Every declaration keeps its span for error messages and explanations.
"""

from __future__ import annotations

from typing import Any

from attrs import field, frozen

from rulekit.dsl import ast
from rulekit.dsl.types import Type
from rulekit.errors import Span
from rulekit.rules.values import Declared
from rulekit.rules.view import ViewDecl


@frozen
class Constant:
    """A named constant: ``START_MONEY: 20``."""

    name: str
    value: Any
    span: Span | None
    #: ``{type: T, value: V}``: the declared type (else the value's own type is used).
    declared: Declared | None = None


@frozen
class Parameter:
    """A game parameter (``parameters:``): read in the rules as the constant ``name`` whose value is
    ``value`` (the default unless ``--param NAME=VALUE`` chose another)."""

    name: str
    kind: str  # int, bool or choice
    value: Any
    doc: str
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    span: Span | None = None

    def allowed(self) -> str:
        """The values allowed, in words: ``a whole number from 2 to 26``, ``true or false``."""
        if self.kind == "bool":
            return "true or false"
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.low is not None and self.high is not None:
            return f"a whole number from {self.low} to {self.high}"
        if self.low is not None:
            return f"a whole number from {self.low}"
        if self.high is not None:
            return f"a whole number up to {self.high}"
        return "a whole number"


@frozen
class Item:
    """One component instance: ``{id: a1, row: 0, col: 0}``."""

    id: str
    values: dict[str, Any]
    span: Span | None


@frozen
class ComponentKind:
    """A kind of component with static attributes and its instances."""

    name: str
    collection: str
    attributes: dict[str, Declared]
    items: tuple[Item, ...]
    span: Span | None


@frozen
class FieldDecl:
    """A piece of game state: ``money: {type: int, initial: START_MONEY}``.

    ``scope`` is ``game``, ``turn``, ``player`` or a component kind.
    ``visibility`` is ``public``, ``owner`` (player fields: only that player sees
    it), ``others`` (player fields: everyone but that player) or ``hidden`` (nobody sees
    the contents, only its size); ``visible_to`` is a condition under which a seat
    (``viewer``) sees it anyway.  What a seat sees is decided by
    :func:`rulekit.engine.information.unseen` alone.
    """

    scope: str
    name: str
    declared: Declared
    initial: ast.Expr | None
    visibility: str
    span: Span | None
    visible_to: ast.Expr | None = None
    #: ``sample:``: a condition an item must meet to be dealt, in a resample of what a seat
    #: cannot see (``determinize``), to position ``index`` of this field (``owner`` and ``item``
    #: bound): what public information (a hint) says about a hidden place.
    sample: ast.Expr | None = None


@frozen
class FunctionDecl:
    """A named pure function of the ruleset: ``V(city)``."""

    name: str
    params: tuple[tuple[str, Declared], ...]
    body: ast.Expr
    span: Span | None
    #: ``returns:``: the declared type of its value (checked against the body), or None.
    returns: Declared | None = None


@frozen
class ProcedureDecl:
    """A named effect block with typed parameters, called as a statement: ``payday(city)``."""

    name: str
    params: tuple[tuple[str, Declared], ...]
    body: ast.Block
    span: Span | None


@frozen
class EventDecl:
    """An event that effects may ``emit`` and triggers may listen to."""

    name: str
    fields: tuple[tuple[str, Declared], ...]
    span: Span | None


@frozen
class Param:
    """An action parameter and the DSL expression listing its possible values."""

    name: str
    domain: ast.Expr
    span: Span | None


@frozen
class Requirement:
    """A condition an action needs, the message shown when it fails, and a citation."""

    condition: ast.Expr
    message: str
    cite: str | None
    span: Span | None


@frozen
class ActionDecl:
    """Something a player may do: parameters, requirements, cost, effect.

    ``offered_with`` names actions of explicit turn lists: this action is also
    offered in every ``turn`` step whose ``actions:`` list names one of them
    (so a module can add an action to a base ruleset's turns).
    """

    name: str
    params: tuple[Param, ...]
    requires: tuple[Requirement, ...]
    cost: ast.Expr | None
    effect: ast.Block | None
    ends_turn: bool
    prompt_only: bool
    cite: str | None
    doc: str
    span: Span | None
    cost_span: Span | None = None
    offered_with: tuple[str, ...] = ()
    ensures: tuple[PropertyDecl, ...] = ()
    #: ``only_if_nothing_else``: offered only when no other action is legal (the refusal
    #: message), other than the actions it ignores.
    fallback: str | None = None
    fallback_ignoring: tuple[str, ...] = ()
    #: Ignored actions that are ignored only when a condition on their parameters holds.
    fallback_ignored_when: tuple[tuple[str, ast.Expr], ...] = ()


@frozen
class TriggerDecl:
    """Effects that run right ``before`` or ``after`` an action or event."""

    name: str
    timing: str
    event: str
    condition: ast.Expr | None
    effect: ast.Block
    cite: str | None
    span: Span | None
    #: Postconditions of each firing (``before(...)``/``after(...)``: just before and just after
    #: its effect; its parameters bound, ``me`` for a trigger of an action). Checked by verify.
    ensures: tuple[PropertyDecl, ...] = ()


@frozen
class PropertyDecl:
    """A condition over two states: ``before(...)`` and ``after(...)`` (or ``before.x``,
    ``after.x``) read the state before and after an action (``over: action``) or a turn
    (``over: turn``); an action's ``ensures:`` are properties of that action only, with
    ``me`` and its parameters bound. Checked by ``rulekit verify``."""

    name: str
    condition: ast.Expr
    message: str
    cite: str | None
    span: Span | None
    over: str = "action"


@frozen
class VisibilityDecl:
    """An expectation of the ``visibility:`` section: who may see a field at most
    (``nobody``, its ``owner``, the ``others``), in every state ``rulekit verify`` reaches."""

    name: str
    scope: str
    field: str
    seen_by: str
    message: str
    cite: str | None
    span: Span | None


@frozen
class InvariantDecl:
    """A condition that must hold in every reachable state."""

    name: str
    condition: ast.Expr
    message: str
    cite: str | None
    span: Span | None


@frozen
class DoStep:
    """Flow step ``do:``: run an effect block."""

    effect: ast.Block
    span: Span | None


@frozen
class RepeatStep:
    """Flow step ``repeat:``: run steps ``times`` times, or ``while``/``until`` a condition."""

    steps: tuple[FlowStep, ...]
    times: ast.Expr | None
    while_: ast.Expr | None
    until: ast.Expr | None
    counter: str | None
    span: Span | None


@frozen
class ForEachStep:
    """Flow step ``for_each:``: run steps once per element, stored in a game field."""

    items: ast.Expr
    var: str
    steps: tuple[FlowStep, ...]
    span: Span | None


@frozen
class TurnStep:
    """Flow step ``turn:``: a player decides until she ends her turn."""

    player: ast.Expr
    actions: tuple[str, ...] | None
    once: bool
    until: ast.Expr | None
    on_start: ast.Block | None
    on_end: ast.Block | None
    span: Span | None


@frozen
class SimultaneousStep:
    """Flow step ``simultaneous:``: each of ``players`` (default: every player) chooses one
    action without seeing the others' choices; then the actions resolve in that order."""

    players: ast.Expr | None
    actions: tuple[str, ...] | None
    span: Span | None


@frozen
class IfStep:
    """Flow step ``if:``: run ``then`` or ``else`` steps."""

    condition: ast.Expr
    then: tuple[FlowStep, ...]
    otherwise: tuple[FlowStep, ...]
    span: Span | None


FlowStep = DoStep | RepeatStep | ForEachStep | TurnStep | SimultaneousStep | IfStep


@frozen
class Scoring:
    """Final standings: a score per player (``player`` is bound), then tie-breaks."""

    score: ast.Expr | None
    tiebreak: tuple[ast.Expr, ...]
    end_when: ast.Expr | None
    span: Span | None
    #: ``public: true``: the scores may be shown to every seat during play, whatever they read.
    public: bool = False
    #: ``returns: {min, max, sum}``: the returns are the scores (min, max, their sum or None);
    #: None: +1 for each winner, -1 for the others.
    returns: tuple[int, int, int | None] | None = None
    #: ``competitive`` (each for herself), ``cooperative`` (one shared score) or ``teams``.
    outcome: str = "competitive"
    #: A cooperative game is a success when the shared score is at least this (default 1).
    success: int | None = None
    #: ``outcome: teams``: each player's team (an int expression of ``player``).
    team: ast.Expr | None = None


@frozen
class SymmetryDecl:
    """``symmetries: NAME``: a relabelling the rules claim not to tell apart (see
    :mod:`rulekit.rules.symmetries`); checked by ``rulekit verify``."""

    name: str
    #: Each mapped component's image (item id -> item id, a permutation of each kind).
    mapping: dict[str, str]
    #: The kinds mapped.
    kinds: tuple[str, ...]
    #: Positions: a tuple's elements named in order, each with its image's expression.
    points: tuple[tuple[str, ast.Expr], ...]
    #: The whole-number constants the point expressions may read.
    constants: dict[str, int]
    doc: str | None
    cite: str | None
    span: Span | None
    #: Why the items do not map as declared (verify reports it), or None.
    problem: str | None = None


@frozen
class RulesModel:
    """A whole composed ruleset, parsed and structurally checked."""

    name: str
    title: str
    description: str
    min_players: int
    max_players: int
    constants: dict[str, Constant]
    kinds: dict[str, ComponentKind]
    fields: dict[str, dict[str, FieldDecl]]
    functions: dict[str, FunctionDecl]
    events: dict[str, EventDecl]
    actions: dict[str, ActionDecl]
    triggers: dict[str, TriggerDecl]
    invariants: dict[str, InvariantDecl]
    setup: ast.Block | None
    flow: tuple[FlowStep, ...]
    scoring: Scoring
    money: str | None
    display: dict[str, Any]
    bot_weights: dict[str, ast.Expr] = field(factory=dict)
    properties: dict[str, PropertyDecl] = field(factory=dict)
    #: ``visibility:``: who may see a field at most, checked by verify.
    visibility: dict[str, VisibilityDecl] = field(factory=dict)
    #: ``bots.evaluate``: how good a state is for ``me`` (heuristic and MCTS bots).
    bot_evaluate: ast.Expr | None = None
    #: ``spaces.bound``: the box open action parameters lie in for integer action spaces.
    space_bound: int | None = None
    modules: tuple[str, ...] = ()
    fingerprint: str = ""
    variants: tuple[tuple[str, str], ...] = field(default=())
    #: What decides play only (no docs, messages, panels): logs replay while it stays the same.
    semantic_fingerprint: str = ""
    view: ViewDecl | None = None  # the picture of a state (rules/view.py)
    #: ``symmetries:``: relabellings the rules claim not to tell apart (checked by verify).
    symmetries: dict[str, SymmetryDecl] = field(factory=dict)
    #: Who wrote each named entry: ``origins["actions"]["buy"] == "module harbor"`` (or
    #: ``"variant PATH"``, ``"ruleset"``); for listings such as ``rulekit rules``.
    origins: dict[str, dict[str, str]] = field(factory=dict)
    #: Named effect blocks (``procedures:``), called as statements.
    procedures: dict[str, ProcedureDecl] = field(factory=dict)
    #: Game parameters (``parameters:``), by name, with the values chosen; each is also a constant.
    parameters: dict[str, Parameter] = field(factory=dict)
    #: Declared record types (``records:``), by name.
    records: dict[str, Type] = field(factory=dict)
    #: Enumerations (``enums:``), by name.
    enums: dict[str, Type] = field(factory=dict)
