"""``rulekit verify RULESET --suggest``: likely properties mined from play, for the author to review.

In the manner of Daikon: many seeded random games are watched; every action's state before and
after is recorded (the observables of :mod:`rulekit.tools.verify.observe`: the whole-number,
true/false and player fields of the game, the turn and each player, the sizes of their lists,
sets and maps, and how many map entries or components name each player), and candidate
relations are kept only if they held at every observation, with enough distinct observations
behind them (:class:`~rulekit.tools.verify.suggest_action.Confidence`). The survivors are
written as a variant file (``add: properties:`` and ``extend: actions: NAME: ensures:``, the
format of the rules' own properties) that the author reads, deletes what is wrong or
accidental, and keeps: as a variant (``--variant FILE``) or moved into the ruleset. A later
edit or variant that breaks an accepted suggestion is then a property violation of ``verify``,
with its counterexample.

The relations of one action kind (amounts, who pays and receives, frames) are mined by
:mod:`rulekit.tools.verify.suggest_action`, who decides after it and what holds on one side of
a condition (implications) by :mod:`rulekit.tools.verify.suggest_if`, the relations between the
returns and the last state (properties ``over: game``) by
:mod:`rulekit.tools.verify.suggest_end`; here, those over every action and every turn:

* a value never decreases (or never increases), by at most a small step (a round counter
  advancing by one at a time); is never negative; a player field once set never changes (a
  winner); a true/false field once true (or false) stays so (knocked out);
* over every turn (turns counted as verify counts them for ``over: turn``): a value that moves
  by at most a small amount in one turn although the turn's actions could move it more (one
  build a turn).

What held in the games watched may be accidental (a bound never reached, a case never played):
it is a suggestion, and says how often it was seen.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from typing import Any

from attrs import define, field

from rulekit.compiler.program import Program
from rulekit.engine.game import Game
from rulekit.rules.yaml_source import dump_text
from rulekit.tools.verify.checker import flow_context
from rulekit.tools.verify.explore import player_counts
from rulekit.tools.verify.observe import Observable, held_observables, observables, snapshot
from rulekit.tools.verify.options import MAX_SEED, VerifyOptions
from rulekit.tools.verify.suggest_action import Confidence, changers, per_action
from rulekit.tools.verify.suggest_end import End, end_observables, end_relations, record
from rulekit.tools.verify.suggest_if import conditional, decider
from rulekit.tools.verify.suggest_model import Step, Suggestion
from rulekit.tools.verify.suggest_seen import Sight
from rulekit.tools.verify.suggest_trigger import TriggerWatch, per_trigger, set_once

__all__ = ["Confidence", "Mined", "Suggestion", "suggest"]

#: The largest step kept as a bound (a counter advancing by at most this much per action).
MAX_STEP = 2


@define
class Mined:
    """What :func:`suggest` found."""

    program: Program
    games: int
    actions: int
    suggestions: list[Suggestion] = field(factory=list)

    def variant_text(self, ruleset: str) -> str:
        """The suggestions as a variant file for review."""
        header = [
            f"# Likely properties of {self.program.name}, suggested by `rulekit verify {ruleset} --suggest`",
            f"# from {self.games} games ({self.actions} actions). Each held in every action watched; that",
            "# does not make it a rule. Review them: delete what is wrong or accidental, then keep the",
            "# file as a variant (`rulekit verify RULESET --variant THIS_FILE`) or move them into a",
            "# file the ruleset includes: `properties:` and `visibility:` as they are, each action's",
            "# `ensures:` under `postconditions: ACTION:`.",
        ]
        data: dict[str, Any] = {
            "variant": f"{self.program.name}_suggested",
            "title": f"Suggested properties of {self.program.name}",
            "description": "Likely properties mined from play by rulekit verify --suggest, for review.",
            "ruleset": self.program.name,
        }
        properties = {}
        visibility = {}
        ensures: dict[str, list[dict[str, str]]] = {}
        triggered: dict[str, list[dict[str, str]]] = {}
        for n, s in enumerate(self.suggestions, start=1):
            if s.relation == "visibility":
                visibility[f"suggested_{n}_{_slug(s.holds)}_{s.seen_by}"] = {
                    "field": s.holds,
                    "seen_by": s.seen_by,
                    "message": s.message,
                    "cite": "suggested by rulekit verify --suggest",
                }
                continue
            entry = {"holds": s.holds, "message": s.message, "cite": "suggested by rulekit verify --suggest"}
            if s.over != "action":
                entry = {"over": s.over, **entry}
            if s.trigger is not None:
                triggered.setdefault(s.trigger, []).append(entry)
            elif s.action is None:
                properties[f"suggested_{n}_{_slug(s.holds)}"] = entry
            else:
                ensures.setdefault(s.action, []).append(entry)
        if properties or visibility:
            data["add"] = {}
        if properties:
            data["add"]["properties"] = properties
        if visibility:
            data["add"]["visibility"] = visibility
        extend: dict[str, Any] = {}
        if ensures:  # extended, not added: the ruleset may have postconditions of the action already
            extend["actions"] = {name: {"ensures": items} for name, items in ensures.items()}
        if triggered:
            extend["triggers"] = {name: {"ensures": items} for name, items in triggered.items()}
        if extend:
            data["extend"] = extend
        body = dump_text(data)
        return "\n".join(header) + "\n" + body


def _slug(text: str) -> str:
    words = re.findall(r"[a-z][a-z0-9]*", text.lower())
    skip = {"after", "before", "for", "in", "if", "p", "players", "and", "or", "all", "me", "none", "not"}
    kept = [w for w in words if w not in skip][:4]
    return "_".join(dict.fromkeys(kept)) or "relation"


# ---------------------------------------------------------------- watching games


def _watch(
    options: VerifyOptions,
    program: Program,
    counts: list[int],
    watched: list[Observable],
    ends: list[End] | None = None,
    at_end: Sequence[Observable] = (),
    sight: Sight | None = None,
    triggers: TriggerWatch | None = None,
) -> Iterator[Step]:
    games: dict[int, Game] = {}
    for number in range(options.examples):
        rng = random.Random(f"{options.seed}:{number}")
        players, seed = rng.choice(counts), rng.randrange(MAX_SEED)
        game = games.get(players)
        if game is None:
            game = games[players] = Game(program, players)
            if triggers is not None:
                triggers.install(game)
        state = game.new_initial_state(seed)
        if sight is not None:
            sight.look(state)
        before = snapshot(state.fields, watched, players)
        turn = (before, state.current_player() if not state.is_terminal() else None, flow_context(state), 0)
        for _ in range(options.max_actions):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            action = legal[rng.randrange(len(legal))]
            me = state.current_player()
            state.apply_action(action)
            if sight is not None:
                sight.look(state)
            after = snapshot(state.fields, watched, players)
            step = Step(action.name, me, tuple(action.args), before, after, players)
            step.next = None if state.is_terminal() else state.current_player()
            if ends is not None and state.is_terminal():
                ends.append(record(state.fields, state.returns(), list(at_end), players, state.scores()))
            start, player, context, length = turn
            length += 1
            ended = program.actions[action.name].decl.ends_turn
            if (
                state.is_terminal()
                or ended
                or state.current_player() != player
                or flow_context(state) != context
            ):  # the turn ends here, as verify's Checker counts turns
                step.turn = (start, length)
                turn = (
                    after,
                    None if state.is_terminal() else state.current_player(),
                    flow_context(state),
                    0,
                )
            else:
                turn = (start, player, context, length)
            yield step
            before = after


# ---------------------------------------------------------------- mining


def suggest(options: VerifyOptions, confidence: Confidence | None = None) -> Mined:
    """Watch ``options.examples`` seeded random games and mine likely properties.

    Raises:
        RulekitError: the rules do not load.
    """
    confidence = confidence or Confidence()
    program, counts = player_counts(options)
    watched = observables(program)
    held = held_observables(program)
    at_end = end_observables(program, watched)
    game_players = [o for o in watched if o.kind == "player" and o.scope == "game"]
    ends: list[End] = []
    sight = Sight(program)
    triggers = TriggerWatch(program, watched) if program.rules.triggers else None
    steps = list(
        _watch(options, program, counts, [*watched, *held], ends, [*at_end, *game_players], sight, triggers)
    )
    mined = Mined(program, options.examples, len(steps))
    mined.suggestions += sight.suggestions(confidence)
    if len(steps) >= confidence.support:
        mined.suggestions += _global(steps, watched, confidence)
        mined.suggestions += set_once(steps, watched, confidence, f"in all {len(steps)} actions watched")
        mined.suggestions += _per_turn(steps, watched, confidence)
    optional = frozenset(
        o.key for o in game_players if program.rules.fields[o.scope][o.key.split(".", 1)[1]].declared.optional
    )
    mined.suggestions += end_relations(ends, at_end, game_players, confidence, optional)
    changed = changers(steps, watched)
    by_action: dict[str, list[Step]] = {}
    for s in steps:
        by_action.setdefault(s.name, []).append(s)
    for name in program.rules.actions:
        mine = by_action.get(name, [])
        if len(mine) >= confidence.support:
            found = per_action(name, mine, steps, changed, watched, program, confidence)
            found += decider(name, mine, confidence, watched)
            found += conditional(name, mine, program, watched, confidence, found, held)
            mined.suggestions += found
    if triggers is not None:
        mined.suggestions += per_trigger(triggers, steps, confidence)
    return mined


def _global(steps: list[Step], watched: list[Observable], confidence: Confidence) -> list[Suggestion]:
    found: list[Suggestion] = []
    for o in watched:
        pairs = [(s.before[(w, o.key)], s.after[(w, o.key)]) for s in steps for w in o.owners(s.players)]
        read = o.text("p")

        def over(condition: str, o: Observable = o) -> str:
            return f"all({condition} for p in players)" if o.scope == "player" else condition

        before, after = f"before({read})", f"after({read})"
        if o.kind == "player":
            if all(a is None or a == b for a, b in pairs) and any(
                a is None and b is not None for a, b in pairs
            ):
                found.append(
                    Suggestion(
                        None,
                        over(f"{before} == none or {after} == {before}"),
                        f"suggested: {o.text('player')}, once set, never changes",
                        len(pairs),
                        relation="set-once",
                    )
                )
            continue
        if o.kind == "bool":
            if o.scope == "turn":
                continue
            for value, text in ((True, "true"), (False, "false")):
                turned = sum(1 for a, b in pairs if a != value and b == value)
                if turned >= confidence.changes and all(not (a == value and b != value) for a, b in pairs):
                    found.append(
                        Suggestion(
                            None,
                            over(f"{after} == {before} or {after} == {text}"),
                            f"suggested: {o.text('player')}, once {text}, stays {text}",
                            len(pairs),
                            relation="monotonic",
                        )
                    )
            continue
        deltas = [b - a for a, b in pairs if type(a) is int and type(b) is int]
        if sum(1 for d in deltas if d) < confidence.changes:
            continue
        low, high = min(deltas), max(deltas)
        if o.scope != "turn" and (low >= 0 or high <= 0):
            rises = low >= 0
            most = high if rises else -low
            change = f"{after} - {before}" if rises else f"{before} - {after}"
            holds = f"{after} >= {before}" if rises else f"{after} <= {before}"
            if most <= MAX_STEP:
                holds += f" and {change} <= {most}"
            step = f" by at most {most} an action" if most <= MAX_STEP else ""
            verb = "never decreases" if rises else "never increases"
            found.append(
                Suggestion(
                    None,
                    over(holds),
                    f"suggested: {o.text('player')} {verb}{step}",
                    len(deltas),
                    relation="monotonic",
                )
            )
        values = [b for _, b in pairs if type(b) is int]
        if not o.derived and values and min(values) >= 0 and max(values) > 0:
            found.append(
                Suggestion(
                    None,
                    over(f"{after} >= 0"),
                    f"suggested: {o.text('player')} is never negative",
                    len(values),
                    relation="range",
                )
            )
    return found


def _per_turn(steps: list[Step], watched: list[Observable], confidence: Confidence) -> list[Suggestion]:
    """Per-turn counts: a value of the game or of a player that moves by at most a small amount
    in one turn, although turns of several actions moved it more than once (one build a turn)."""
    found: list[Suggestion] = []
    turns = [(s.turn[0], s.after, s.turn[1], s.players) for s in steps if s.turn is not None]
    if len(turns) < confidence.support:
        return found
    for o in watched:
        if o.kind != "int" or o.scope == "turn":
            continue
        read = o.text("p")
        per_turn = [
            (after[(w, o.key)] - start[(w, o.key)], length)
            for start, after, length, players in turns
            for w in o.owners(players)
            if type(start.get((w, o.key))) is int and type(after.get((w, o.key))) is int
        ]
        for direction, sign in (("rises", 1), ("falls", -1)):
            moves = [sign * d for d, _ in per_turn]
            most = max(moves, default=0)
            if most <= 0 or most > MAX_STEP:
                continue
            moving = [s for s in steps if sign * _delta_any(s, o) > 0]
            if (
                not any(length > 1 for d, length in per_turn if sign * d > 0)
                or len(moving) < confidence.changes
            ):
                continue  # never more than one action a turn: the per-action bound says as much
            change = f"after({read}) - before({read})" if sign > 0 else f"before({read}) - after({read})"
            holds = (
                f"all({change} <= {most} for p in players)" if o.scope == "player" else f"{change} <= {most}"
            )
            found.append(
                Suggestion(
                    None,
                    holds,
                    f"suggested: {o.text('player')} {direction} by at most {most} in one turn "
                    f"(in all {len(turns)} turns watched)",
                    len(turns),
                    over="turn",
                    relation="per-turn",
                )
            )
    return found


def _delta_any(step: Step, o: Observable) -> int:
    """The largest change of a value in one action (over the players for a player value)."""
    changes = []
    for w in o.owners(step.players):
        a, b = step.before.get((w, o.key)), step.after.get((w, o.key))
        if type(a) is int and type(b) is int:
            changes.append(b - a)
    return max(changes, key=abs, default=0)
