"""The entries of the rules format: what one constant, component kind, field, function,
action, trigger, invariant, flow step ... looks like (see :mod:`rulekit.rules.schema`, which
assembles them into the sections and files of a rules file)."""

from __future__ import annotations

from rulekit.rules.shapes import (
    Block,
    Data,
    Either,
    Enum,
    Expr,
    Flag,
    Int,
    Key,
    ListOf,
    MapOf,
    Name,
    Names,
    Ref,
    Shape,
    Table,
    Tagged,
    Text,
    TypeText,
)

# ---------------------------------------------------------------- entries

_CITE = Key("cite", Text(), "The rule it comes from, e.g. §4.3.")
_DOC = Key("doc", Text(), "A description.")
_MESSAGE = Key("message", Text(), "What it means when it fails.")

PARAMETER = Table(
    "parameter",
    (
        Key("type", Enum(("int", "bool", "choice")), "int, bool or choice.", required=True),
        Key("default", Data(), "The value when none is given (the shipped game).", required=True),
        Key("min", Int(), "The smallest value allowed (int)."),
        Key("max", Int(), "The largest value allowed (int)."),
        Key("choices", Names(one_ok=False), "The values allowed (choice)."),
        Key("doc", Text(), "One line: what it changes.", required=True),
    ),
    "A game parameter: read in the rules as a constant of the same name, set with --param NAME=VALUE.",
)

PLAYERS = Table(
    "players",
    (
        Key("min", Int(1), "Fewest players.", default=2),
        Key("max", Int(1), "Most players (default: min)."),
    ),
    "Allowed player counts.",
)

GENERATE = Table(
    "generate",
    (
        Key(
            "for",
            MapOf(Expr(), "loop variable"),
            "Each attribute: a list of constants or range(a, b) (the first outermost).",
            required=True,
        ),
        Key("id", Text(), "The id template, e.g. c{x}_{y}.", required=True),
        Key(
            "copies",
            Int(1),
            "Distinct items made per combination: ids get _a, _b ... (or fill {copy} / {copy_number}).",
        ),
    ),
    "Items generated from parameters: one per combination of the loop values.",
)

COMPONENT_KIND = Table(
    "component",
    (
        Key("collection", Name(), "Name of the list of all items (default: the kind name + 's')."),
        Key(
            "attributes",
            MapOf(TypeText(), "attribute", reserved_ok=True),
            "Static attributes and their types (int, str, bool, list[int], a kind).",
        ),
        Key(
            "items",
            ListOf(Data()),
            "The components: {id: ..., attribute: value, ...}; copies: N makes N items (ids _a, _b ...).",
        ),
        Key("generate", GENERATE, "Items made from parameters, appended to items."),
        Key("doc", Text(), "What this kind of component is."),
    ),
    "A kind of component: its attributes and items.",
)

#: The words of a field's ``visibility`` (see :class:`rulekit.rules.model.FieldDecl`).
VISIBILITIES = ("public", "owner", "others", "hidden")

#: Who sees a field: a word, or ``{is: WORD, to: CONDITION}`` (``to`` alone: ``is: hidden``).
VISIBILITY = Either(
    Table(
        "visibility",
        (
            Key("is", Enum(VISIBILITIES), "public, owner, others or hidden.", default="hidden"),
            Key(
                "to",
                Expr(),
                "A condition: the seat ``viewer`` (a player) also sees the value when it holds; "
                "``owner`` is the field's owner (player and component fields).",
            ),
        ),
        "Who sees a field's contents.",
        short="is",
    )
)

FIELD = Table(
    "field",
    (
        Key(
            "type",
            TypeText(),
            "int bool str player owner map grid tuple any <kind> list[T]; T? may be none.",
            default="any",
        ),
        Key("initial", Data(), "Initial value: a literal or a DSL expression."),
        Key(
            "visibility",
            VISIBILITY,
            "Who sees the value: public, owner (only its owner), others (everyone but its owner; "
            "owner and others: player fields only), hidden (nobody), or {is: ..., to: CONDITION}: "
            "also every seat for which the condition holds (viewer and owner bound).",
            default="public",
        ),
        Key(
            "sample",
            Expr(),
            "List fields that some seat cannot see: a condition (owner, index and item bound) an "
            "item must meet to be dealt to position index in a resample of what a seat cannot see "
            "(the bots' determinize): what public information, such as a hint, says of the place.",
        ),
        Key("doc", Text(), "What this field holds."),
    ),
    "A state field: a type (int, player?, list[card]...) or {type, initial}.",
    short="type",
)

FUNCTION = Table(
    "function",
    (
        Key("params", MapOf(TypeText(), "parameter"), "Parameters and their types."),
        Key("body", Expr(), "The function's value.", required=True),
        Key("returns", TypeText(), "The type of its value, checked against the body."),
        Key("doc", Text(), "What the function computes."),
        Key(
            "wraps",
            Name(),
            "The function original(...) calls in the body: set when an override or replace wraps "
            "a function (the replaced definition is kept as NAME__original).",
        ),
    ),
    "A pure function: an expression body, or {params: {p: type}, body: EXPR}.",
    short="body",
)

PROCEDURE = Table(
    "procedure",
    (
        Key("params", MapOf(TypeText(), "parameter"), "Parameters and their types."),
        Key("body", Block(), "The effect it runs.", required=True),
        Key("doc", Text(), "What the procedure does."),
        Key("cite", Text(), "The rule it comes from."),
    ),
    "A named effect block called as a statement: name(args); never recursive.",
    short="body",
)

#: An action a fallback (``only_if_nothing_else``) ignores: its name, or ``{action, when}`` to
#: ignore it only when a condition on its parameters holds (``when: "not card_playable(me, card)"``).
IGNORED = Either(
    Table(
        "ignored action",
        (
            Key("action", Name(), "The action that does not count as something else.", required=True),
            Key("when", Expr(), "Ignored only when this holds (the action's parameters and me are known)."),
        ),
        "An action that does not keep the fallback from being offered.",
        short="action",
    )
)

REQUIREMENT = Table(
    "requirement",
    (
        Key("if", Expr(), "The condition."),
        Key("else", Text(), "The message shown when it fails."),
        Key("cite", Text(), "The rule it comes from, e.g. §4.3."),
        Key("use", Expr(), "A requirement group's requirements, for its arguments: group(args)."),
    ),
    "A condition the action needs, with the message shown when it fails; or a group used.",
    short="if",
    one_of=(
        (("if", "use"), "a requirement needs 'if: CONDITION' and 'else: MESSAGE' (or 'use: GROUP(ARGS)')"),
    ),
)

REQUIREMENT_GROUP = Table(
    "requirement group",
    (
        Key("params", MapOf(TypeText(), "parameter"), "Parameters and their types."),
        Key("require", ListOf(Either(REQUIREMENT), one_ok=True), "Its requirements.", required=True),
        Key("doc", Text(), "What the group checks."),
    ),
    "Named requirements (with their messages and citations) that actions use: use: name(args).",
)

ENSURES = Table(
    "property",
    (Key("holds", Expr(), "The condition.", required=True), _MESSAGE, _CITE),
    "A postcondition over the states before and after the action.",
    short="holds",
)

PROPERTY = Table(
    "property",
    (
        Key("holds", Expr(), "The condition.", required=True),
        _MESSAGE,
        _CITE,
        Key(
            "over",
            Enum(("action", "turn", "game")),
            "Compare across an action, a turn or the whole game (checked at its end).",
            default="action",
        ),
    ),
    "A condition over the states before and after (before(...), after(...)).",
    short="holds",
)

#: Who may see a field, at most (a ``visibility:`` expectation).
SEEN_BY = ("nobody", "owner", "others")

VISIBILITY_EXPECTATION = Table(
    "visibility expectation",
    (
        Key(
            "field",
            Text(200),
            "The field: SCOPE.NAME (game.deck, player.hand, a component kind's field).",
            required=True,
        ),
        Key(
            "seen_by",
            Enum(SEEN_BY),
            "Who may see its contents, at most: nobody, its owner (a player's field), or every "
            "player but its owner. A seat outside it that the information model lets see the "
            "field, in any state verify reaches, breaks the expectation.",
            required=True,
        ),
        _MESSAGE,
        _CITE,
    ),
    "Who may see a field at most, checked by rulekit verify on the information model.",
)

RELAXATION = Table(
    "relaxation",
    (
        Key(
            "or",
            Expr(),
            "The alternative: the invariant also holds when this condition does.",
            required=True,
            missing="a relaxation needs 'or: CONDITION' and 'because: REASON'",
        ),
        Key(
            "because",
            Text(),
            "Why the module relaxes the invariant (shown with its message).",
            required=True,
            missing="a relaxation needs 'because: REASON': say why the invariant no longer holds as written",
        ),
        _CITE,
    ),
    "An alternative a module adds to a base invariant (extend: {invariants: {NAME: {relax: [...]}}}).",
    short="or",
)

SYMMETRY = Table(
    "symmetry",
    (
        _DOC,
        _CITE,
        Key(
            "components",
            MapOf(MapOf(Expr(), "attribute"), "component kind"),
            "Per kind, the attributes that change and their new values (names: whole-number "
            "constants and the item's attributes): each item goes to the item of its kind with "
            "those attributes; a permutation of the kind.",
        ),
        Key(
            "points",
            MapOf(Expr(), "coordinate"),
            "Positions: tuples of whole numbers (a board's keys), their elements named in order, "
            "each with its new value (names: whole-number constants and the coordinates).",
        ),
    ),
    "A relabelling the rules claim they cannot tell apart; rulekit verify checks the claim.",
)

INVARIANT = Table(
    "invariant",
    (
        Key("holds", Expr(), "The condition.", required=True),
        _MESSAGE,
        _CITE,
        Key(
            "relax",
            ListOf(Either(RELAXATION), one_ok=True),
            "Alternatives added by modules (through extend:): the invariant holds when its "
            "condition or one of these does, so a module weakens it without copying it.",
            extend=True,
        ),
    ),
    "A condition that holds in every reachable state.",
    short="holds",
)

ACTION = Table(
    "action",
    (
        Key(
            "params",
            MapOf(Expr(), "parameter"),
            "Parameters and the DSL list of their possible values.",
        ),
        Key(
            "require",
            ListOf(Either(REQUIREMENT), one_ok=True),
            "Conditions, each with a message.",
            extend=True,
        ),
        Key("cost", Expr(), "Paid to the bank from the money field; unaffordable means illegal."),
        Key("effect", Block(), "What the action does."),
        Key("ends_turn", Flag(), "The action ends the player's turn.", default=False),
        Key(
            "only_if_nothing_else",
            Text(),
            "Offered only when no other action is legal (a pass): the message when it is refused.",
        ),
        Key(
            "ignoring",
            ListOf(IGNORED, one_ok=True),
            "With only_if_nothing_else: actions that do not count as something else (buying a card), "
            "each always or only when a condition on its parameters holds.",
            extend=True,
        ),
        Key("prompt", Flag(), "Only when asked (ask) or listed in a turn.", default=False),
        Key(
            "offered_with",
            Names(),
            "Also offered in every turn whose explicit actions list names one of these actions.",
        ),
        Key("cite", Text(), "The rule it comes from."),
        Key("doc", Text(), "What the action is."),
        Key(
            "ensures",
            ListOf(Either(ENSURES), one_ok=True),
            "Postconditions checked by verify after the action (before(...) and after(...)).",
            extend=True,
        ),
    ),
    "Something a player may do.",
)

TRIGGER = Table(
    "trigger",
    (
        Key("after", Name(), "The action or event after which it runs."),
        Key("before", Name(), "The action before which it runs."),
        Key("when", Expr(), "Runs only when this holds."),
        Key("effect", Block(), "What happens.", required=True),
        Key("cite", Text(), "The rule it comes from."),
        Key("doc", Text(), "What the trigger does."),
        Key(
            "ensures",
            ListOf(Either(ENSURES), one_ok=True),
            "Postconditions checked by verify after each firing (before(...) and after(...): "
            "just before and after its effect).",
            extend=True,
        ),
        Key(
            "original",
            ListOf(Block()),
            "The effects original() runs: set when an override or replace wraps a trigger "
            "(the replaced effect, then the one it wrapped ...).",
        ),
    ),
    "Effects run before or after an action or event.",
    one_of=((("after", "before"), "a trigger needs 'after: EVENT' or 'before: ACTION'"),),
)

STEPS = Ref("flow")

FLOW_STEP = Tagged(
    "flow step",
    (
        ("do", Table("do step", (Key("do", Block(), "Run an effect."),), "Run an effect block.")),
        (
            "repeat",
            Table(
                "repeat step",
                (
                    Key(
                        "repeat",
                        Table(
                            "repeat",
                            (
                                Key("times", Expr(), "How many times."),
                                Key("while", Expr(), "Repeat while this holds."),
                                Key("until", Expr(), "Repeat until this holds."),
                                Key("counter", Name(), "A game field counting the rounds."),
                                Key("steps", STEPS, "The steps of one round."),
                            ),
                            "Run steps a number of times, or while/until a condition holds.",
                            one_of=(
                                (("times", "while", "until"), "repeat needs 'times', 'while' or 'until'"),
                            ),
                        ),
                        "Run steps a number of times, or while/until a condition holds.",
                    ),
                ),
                "A repeat step.",
            ),
        ),
        (
            "for_each",
            Table(
                "for_each step",
                (
                    Key(
                        "for_each",
                        Table(
                            "for_each",
                            (
                                Key("in", Expr(), "The list.", required=True),
                                Key(
                                    "as",
                                    Name(),
                                    "A game field holding the element.",
                                    required=True,
                                    missing="for_each needs 'as: FIELD' "
                                    "(a game field that holds the element)",
                                ),
                                Key("steps", STEPS, "The steps run per element."),
                            ),
                            "Run steps once per element.",
                        ),
                        "Run steps once per element, stored in a game field.",
                    ),
                ),
                "A for_each step.",
            ),
        ),
        (
            "turn",
            Table(
                "turn step",
                (
                    Key(
                        "turn",
                        Either(
                            Table(
                                "turn",
                                (
                                    Key("player", Expr(), "Whose turn.", required=True),
                                    Key("actions", Names(one_ok=False), "Allowed actions."),
                                    Key("once", Flag(), "One action, then the turn ends.", default=False),
                                    Key("until", Expr(), "The turn ends when this holds."),
                                    Key("on_start", Block(), "Run when the turn starts."),
                                    Key("on_end", Block(), "Run when the turn ends."),
                                ),
                                "A turn: a player expression or {player, actions, once, until...}.",
                                short="player",
                            )
                        ),
                        "A turn: a player expression or {player, actions, once, until...}.",
                    ),
                ),
                "A turn step.",
            ),
        ),
        (
            "simultaneous",
            Table(
                "simultaneous step",
                (
                    Key(
                        "simultaneous",
                        Either(
                            Table(
                                "simultaneous",
                                (
                                    Key(
                                        "players",
                                        Expr(),
                                        "The seats that choose, in the order their actions resolve "
                                        "(default: every player).",
                                    ),
                                    Key("actions", Names(one_ok=False), "Allowed actions."),
                                ),
                                "Each seat chooses an action unseen by the others; all resolve in order.",
                                short="players",
                            )
                        ),
                        "Each seat chooses one action unseen by the others; then all resolve in order.",
                    ),
                ),
                "A simultaneous step.",
            ),
        ),
        (
            "if",
            Table(
                "if step",
                (
                    Key("if", Expr(), "Condition of an if step."),
                    Key("then", STEPS, "Steps run when it holds."),
                    Key("else", STEPS, "Steps run otherwise."),
                ),
                "An if step.",
            ),
        ),
    ),
    "One step: do, repeat, for_each, turn, simultaneous or if.",
)

RETURNS = Table(
    "returns",
    (
        Key("min", Int(), "The least score a player can end with.", required=True),
        Key("max", Int(), "The greatest score a player can end with.", required=True),
        Key("sum", Int(), "What the scores always add up to at the end (0: a zero-sum game)."),
    ),
    "The returns are the scores themselves (chips won or lost), not +1/-1 by standing.",
)

#: The outcomes a ruleset may declare (``scoring.outcome``).
OUTCOMES = ("competitive", "cooperative", "teams")

SCORING = Table(
    "scoring",
    (
        Key("score", Expr(), "Each player's score (`player` is bound)."),
        Key("tiebreak", ListOf(Expr(), one_ok=True), "Tie-breaks, in order (highest wins)."),
        Key("end_when", Expr(), "The game ends as soon as this holds."),
        Key(
            "returns",
            RETURNS,
            "The returns at the end are the scores, between min and max (and adding up to sum): "
            "a game played for chips. Without it: +1 for each winner, -1 for the others.",
        ),
        Key(
            "public",
            Flag(),
            "The scores may be shown to every seat during play, whatever they read "
            "(else: only those whose formulas read nothing the seat cannot see).",
            default=False,
        ),
        Key(
            "outcome",
            Enum(OUTCOMES),
            "competitive (each for herself: the best scores win), cooperative (one shared score, "
            "every seat gets the same return) or teams (a team's members share its result).",
            default="competitive",
        ),
        Key(
            "success",
            Int(1),
            "outcome: cooperative: the game is won when the shared score is at least this "
            "(default 1); each seat's return is the score divided by it, at most 1.",
        ),
        Key(
            "team",
            Expr(),
            "outcome: teams: each player's team, an int expression of `player`; a team's score "
            "(and tie-breaks) is the sum of its members'.",
        ),
        Key(
            "original",
            ListOf(Expr()),
            "The scores original() stands for: set when an override or replace wraps the scoring "
            "(the replaced score, then the one it wrapped ...).",
        ),
    ),
    "Final standings.",
)

BOTS = Table(
    "bots",
    (
        Key(
            "weights",
            MapOf(Data(), "action", free=True),
            "Relative weight of each action for random bots and verify (default 1): "
            "a whole number, or a DSL expression over `me` and the action's parameters.",
        ),
        Key(
            "evaluate",
            Expr(),
            "How good the state is for `me` (an int): the heuristic bot plays the action "
            "rated best, MCTS rates the states where it cuts a play-out off.",
        ),
        Key("doc", Text(), "Why these weights and this evaluation."),
    ),
    "Hints for bots and for `rulekit verify`'s exploration.",
)

SPACES = Table(
    "spaces",
    (
        Key(
            "bound",
            Int(0, 1000),
            "Open action parameters (ints, pairs of ints) lie within -bound..bound "
            "in the integer action space of OpenSpiel and PettingZoo (default 12).",
        ),
        Key("doc", Text(), "Why this bound."),
    ),
    "How moves are numbered for OpenSpiel and PettingZoo.",
)

#: Shapes referred to by name (recursive ones).
DEFS: dict[str, Shape] = {"flow": ListOf(FLOW_STEP)}
