"""The scenario file format, declared with the same building blocks as the rules format.

A scenario (``rulekit scenario``) is a rules example as a test: a set-up, steps and
expectations.  :data:`SCENARIO` is the one answer to "what is a scenario file?": the
scenario runner checks files against it through :class:`rulekit.rules.structure.Structurer`
(every unknown key and every wrongly shaped value at its position, in one report), its
key lists come from it, and the JSON Schema ``rulekit/schema/scenario.schema.json`` is
generated from it (:mod:`rulekit.tools.schema`).  What the values mean is the scenario
runner's job (``rulekit/tools/scenario``); docs/rules-format.md describes the format.
"""

from __future__ import annotations

from rulekit.rules.shapes import (
    Block,
    Custom,
    Data,
    Either,
    Expr,
    Flag,
    Int,
    Key,
    ListOf,
    MapOf,
    Names,
    Table,
    Text,
)

#: One expectation: a DSL condition, or a value compared with ``equals``.
EXPECTATION = Either(
    Table(
        "expectation",
        (
            Key("expr", Expr(), "A DSL expression (a condition, when there is no equals).", required=True),
            Key("equals", Data(), "Its expected value (P1.. are players, none is none)."),
        ),
        "A DSL condition, or {expr, equals}.",
        short="expr",
    )
)

#: The expectations a scenario checks at the end and a checkpoint checks where it stands.
CHECKS = (
    Key("expect", ListOf(EXPECTATION, one_ok=True), "DSL conditions on the state, or {expr, equals}."),
    Key("expect_legal", Names(), "Actions (in the log notation) that must be legal."),
    Key("expect_not_legal", Names(), "Actions (in the log notation) that must not be legal."),
)

#: What a step does besides checking: one of these, or none (a checkpoint).
STEP_KINDS = ("action", "event", "effect")

#: One step of ``actions:``: an action (text stands for ``{action: TEXT}``), an event, an
#: effect, or a checkpoint of expectations only; expectations are checked right after it.
STEP = Either(
    Table(
        "step",
        (
            Key("action", Text(), "An action in the log notation, e.g. buy(card_3)."),
            Key("reject", Text(), "Expect the action to be rejected with a message containing this text."),
            Key("by", Text(), "The player who must be deciding, e.g. P2."),
            Key("may_reject", Flag(), "Play the action if it is legal, else go on (the state unchanged)."),
            Key("event", Text(), "An event fired now, e.g. payday() or built(city=lyon); its triggers run."),
            Key("effect", Block(), "DSL statements run now, as a rule's effect would."),
            *CHECKS,
        ),
        "A step: an action, an event or an effect, then expectations checked right after it.",
        short="action",
        one_of=(
            (
                (*STEP_KINDS, *(k.name for k in CHECKS)),
                "a step is one of action:, event: or effect:, or a checkpoint of expect:, "
                "expect_legal:, expect_not_legal:",
            ),
        ),
    )
)

SCENARIO = Table(
    "scenario",
    (
        Key("scenario", Text(), "What the scenario shows.", required=True),
        Key(
            "format",
            Int(1),
            "The scenario format the file is written in (default 1, the oldest; rulekit upgrade).",
        ),
        Key(
            "rules_version",
            Int(1),
            "The version of the ruleset's data encoding it is written for (default 1; migrations.yaml).",
        ),
        Key("cite", Text(), "The rule or example it comes from."),
        Key("doc", Text(), "More explanation."),
        Key("ruleset", Text(), "The ruleset (optional inside the ruleset's directory)."),
        Key("modules", Names(), "Modules to use."),
        Key("variants", Names(), "Variant files (relative to this file) or shipped variant names to apply."),
        Key("players", Int(1), "Number of players (default: the ruleset's fewest)."),
        Key("seed", Int(), "Random seed (default 0)."),
        Key(
            "before_setup",
            Data(),
            "State by path set before the ruleset's own setup runs (e.g. a deck's order).",
        ),
        Key("keep_order", Flag(), "Shuffles keep the order given (default false)."),
        Key("setup", Data(), "State by path before the actions, e.g. P1.money: 30, game.round: 2."),
        Key("setup_effect", Block(), "A DSL effect run after setup."),
        Key(
            "start",
            Custom("scenario_start"),
            "Who decides first (player: P2) and where the flow's counters stand (round: 3).",
        ),
        Key(
            "check_invariants",
            Flag(),
            "Check the rules' invariants after the set-up and every step (default true).",
        ),
        Key("skip_invariants", Names(), "Invariants not checked (the set-up leaves their world on purpose)."),
        Key(
            "expect_properties",
            Names(),
            "Transition properties (names, ACTION.ensures[N]) checked over every action and turn played.",
        ),
        Key("actions", ListOf(STEP), "Steps, in order."),
        *CHECKS,
        Key("expect_terminal", Flag(), "The game is over at the end (or not)."),
        Key("expect_winners", Names(), "The players tied for first at the end."),
        Key("expect_standings", Names(one_ok=False), "All players, first to last."),
        Key("expect_scores", MapOf(Int(), "player", free=True), "Final scores: P1: 30, P2: 12."),
    ),
    "A scenario: a rules example as a test.",
)

#: The keys of a scenario file, of a step and of an expectation, as the runner reads them.
SCENARIO_KEYS = SCENARIO.names
STEP_KEYS = STEP.table.names
EXPECT_KEYS = EXPECTATION.table.names
CHECK_KEYS = tuple(k.name for k in CHECKS)
