"""The information model: what each seat may see of a state, and states it cannot tell apart.

Every channel that shows a seat something — the view and its text panels (:func:`masked_fields`),
``State.view``, the scores, OpenSpiel's observations and information state, PettingZoo's
observations, explanations of refused actions (:func:`seat_explanation`) and the bots'
sampling (:func:`determinize`) — asks :func:`unseen` which places ``(owner, field)`` the seat
cannot see.  A field's ``visibility`` decides it:

- ``public``: everyone; ``hidden``: no one (only its size);
- ``owner``: only the player it belongs to; ``others``: every player but that one (a hand held
  the wrong way round); spectators see neither;
- ``{is: WORD, to: CONDITION}``: the word's seats, and also each seat ``viewer`` for which the
  condition holds (``owner`` is the field's owner; evaluated on the state);
- and a place shown to a player by the ``reveal`` effect stays visible to her (the engine's
  ``revealed`` field: (owner, field, player) triples, public).

The pending choices of a ``simultaneous`` flow step (the engine's ``chosen`` field) are each
seen only by the seat that made it, until the step resolves: views and masked fields show a
seat its own (:meth:`State.chosen`), the move history hides the others' (:func:`seat_history`)
and :func:`determinize` replaces them by random legal choices.

A player who reasons about the game knows the *size* of each unseen field and, for list
fields, which items could be in it.  :func:`determinize` deals those items again.  The
unseen lists of one field of several owners (the other players' hands, or one's own
``others`` hand) form a pool, and every unseen ``hidden`` list of the same type joins it:
the hands were dealt from those lists, so an unseen card may be in any of them.  Without
unseen hands, several hidden lists of one type (two decks) are each shuffled on their own,
since an item of one may not belong in the other.  Each pool is shuffled and every field
refilled with as many items as it had; what the seat sees (a card revealed to it, the
others' hands) stays where it is.  Chance is re-seeded too.  Unseen fields that are not
lists (a hidden number) are kept as they are: nothing is known about their possible values.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Iterable
from typing import Any

from attrs import frozen

from rulekit.engine.game import Game, State
from rulekit.engine.slots import CHOSEN, DECISION
from rulekit.engine.slots import ENGINE as _ENGINE
from rulekit.rules.visibility_check import ReadWalker as _ReadWalker

#: The engine's field of places shown by ``reveal``: sorted (owner, field, player) triples.
REVEALED = (_ENGINE, "revealed")

Place = tuple[Any, str]


def _static_unseen(game: Game, seat: int | None) -> tuple[frozenset[Place], tuple[tuple[Any, str, str], ...]]:
    """The places ``seat`` cannot see by their visibility words, and the (owner, scope, field)
    of those among them that a condition may still show (cached per game and seat)."""
    cache: dict[int | None, Any] = game.__dict__.setdefault("_static_unseen", {})
    found = cache.get(seat)
    if found is not None:
        return found
    places: set[Place] = set()
    conditional: list[tuple[Any, str, str]] = []
    for scope, fields in game.program.rules.fields.items():
        for name, decl in fields.items():
            word = decl.visibility
            if word == "public":
                continue
            for owner in game.owners(scope):
                if word == "owner" and owner == seat:
                    continue
                if word == "others" and seat is not None and owner != seat:
                    continue
                places.add((owner, name))
                if decl.visible_to is not None:
                    conditional.append((owner, scope, name))
    found = cache[seat] = (frozenset(places), tuple(conditional))
    return found


def unseen(state: State, seat: int | None) -> frozenset[Place]:
    """The places ``(owner, field)`` whose contents ``seat`` (None: a spectator) cannot see now.

    The one decision of what a seat may know: every channel derives from it."""
    game = state.game
    places, conditional = _static_unseen(game, seat)
    revealed = state.fields.get(REVEALED, ())
    if not conditional and not revealed:
        return places
    shown: set[Place] = set()
    if seat is not None:
        shown.update((owner, name) for owner, name, to in revealed if to == seat)
    if conditional:
        checks = game.program.visible_to
        F, R = state.fields, game.runtime
        for owner, scope, name in conditional:
            R.reset_steps()
            try:
                if checks[(scope, name)](F, R, None, seat, owner) is True:
                    shown.add((owner, name))
            except Exception:  # a condition that fails shows nothing
                continue
    return places - shown if shown else places


def has_hidden_information(program: Any) -> bool:
    """Whether any field of the rules may be unseen by some seat."""
    return any(d.visibility != "public" for fields in program.rules.fields.values() for d in fields.values())


def mask(value: Any) -> Any:
    """An unseen value as a view gives it: a list of as many nones, an empty map, or none."""
    if isinstance(value, tuple):
        return (None,) * len(value)
    if isinstance(value, dict):
        return {}
    return None


def masked_fields(state: State, seat: int | None) -> dict[Any, Any]:
    """The state's fields with what ``seat`` may not see masked (:func:`mask`), the notes
    told to other players dropped, and the engine's chance state removed."""
    fields = dict(state.fields)
    for key in unseen(state, seat):
        if key in fields:
            fields[key] = mask(fields[key])
    told = fields.get((_ENGINE, "told"))
    if told:
        fields[(_ENGINE, "told")] = tuple(entry for entry in told if entry[0] == seat)
    if CHOSEN in fields:  # a simultaneous step's pending choices: only the seat's own
        fields[CHOSEN] = state.chosen(seat)
    return fields


@frozen
class HiddenPlaces:
    """For one player: the unseen list fields in pools (each pool is dealt as one), and the
    unseen fields left as they are."""

    pools: tuple[tuple[Place, ...], ...]
    kept: tuple[Place, ...]

    @property
    def empty(self) -> bool:
        return not self.pools


def hidden_places(state: State, player: int | None) -> HiddenPlaces:
    """The fields whose contents ``player`` (None: a spectator) cannot see now, pooled."""
    game = state.game
    places = unseen(state, player)
    cache: dict[Any, HiddenPlaces] = game.__dict__.setdefault("_hidden_places", {})
    found = cache.get((player, places))
    if found is not None:
        return found
    rules = game.program.rules
    hidden: dict[str, list[Place]] = {}  # by type: nobody sees them (decks)
    others: dict[tuple[str, str], list[Place]] = {}  # by field: hands
    kept: list[Place] = []
    for scope, fields in rules.fields.items():
        for name, decl in fields.items():
            for owner in game.owners(scope):
                if (owner, name) not in places:
                    continue
                if not decl.declared.type.is_list:
                    kept.append((owner, name))
                elif decl.visibility == "hidden" and scope != "player":
                    hidden.setdefault(decl.declared.text, []).append((owner, name))
                else:
                    others.setdefault((decl.declared.text, name), []).append((owner, name))
    pools: list[tuple[Place, ...]] = []
    for type_text, places_of in sorted(hidden.items()):
        joined = [k for k in others if k[0] == type_text]
        if len(places_of) == 1 or joined:
            # the unseen hands were dealt from the hidden lists of their type, so a card the
            # player cannot see may be in any of them: they share one pool
            pools.append((*places_of, *(place for k in joined for place in others.pop(k))))
        else:  # two decks of one type and no hands: an item of one may not fit the other
            pools += [(place,) for place in places_of]
    pools += [tuple(places_of) for _, places_of in sorted(others.items())]
    found = HiddenPlaces(tuple(pools), tuple(kept))
    if len(cache) > 4096:
        cache.clear()
    cache[(player, places)] = found
    return found


def sees_all(state: State, player: int | None) -> bool:
    """Whether ``player`` sees the whole state now: no unseen list to deal again and no other
    seat's pending choice in a simultaneous step (then :func:`determinize` changes nothing
    but chance)."""
    if any(entry[0] != player for entry in state.fields.get(CHOSEN, ())):
        return False
    return hidden_places(state, player).empty


def determinize(state: State, player: int | None, rng: random.Random, *, reseed: bool = True) -> State:
    """A copy of ``state`` that ``player`` cannot tell from it: unseen items dealt again
    among the places they could be, and (unless not ``reseed``) chance re-seeded from ``rng``."""
    copy = state.clone()
    fields = copy.fields
    hidden = hidden_places(state, player)
    if not hidden.empty:
        copy.listed = None
    fits = _sample_checks(state, player)
    for places in hidden.pools:
        values = [fields[place] for place in places]
        pool = [item for value in values if isinstance(value, tuple) for item in value]
        # in a fixed order first, so the deal depends on which items are unseen, never on where they are
        pool.sort(key=_order)
        rng.shuffle(pool)
        slots = [
            (place, i)
            for place, value in zip(places, values, strict=True)
            if isinstance(value, tuple)
            for i in range(len(value))
        ]
        dealt = _constrained_deal(slots, pool, fits, rng) if fits else None
        start = 0
        for place, value in zip(places, values, strict=True):
            if not isinstance(value, tuple):
                continue
            if dealt is not None:
                fields[place] = tuple(dealt[(place, i)] for i in range(len(value)))
            else:
                fields[place] = tuple(pool[start : start + len(value)])
            start += len(value)
    if any(entry[0] != player for entry in fields.get(CHOSEN, ())):
        _guess_choices(copy, player, rng)
    if reseed:
        fields[(_ENGINE, "rng")] = rng.getrandbits(64)
    return copy


#: Whether an item may be dealt to a slot ``(place, index)`` in a resample (``sample:``).
SampleCheck = Callable[[Place, int, Any], bool]

#: How many times a constrained deal starts again before it settles for an unconstrained one.
SAMPLE_TRIES = 64


def _sample_checks(state: State, player: int | None) -> SampleCheck | None:
    """The fields' ``sample:`` conditions as one check, evaluated on what ``player`` may see
    (:func:`masked_fields`: a condition cannot read the cards it constrains); None without any."""
    game = state.game
    conditions = game.program.sample
    if not conditions:
        return None
    scopes = {name: scope for scope, decls in game.program.rules.fields.items() for name in decls}
    F, R = masked_fields(state, player), game.runtime

    def check(place: Place, index: int, item: Any) -> bool:
        owner, name = place
        fn = conditions.get((scopes.get(name, ""), name))
        if fn is None:
            return True
        R.reset_steps()
        try:
            return fn(F, R, None, owner, index, item) is True
        except Exception:  # a condition that fails admits nothing
            return False

    return check


def _constrained_deal(
    slots: list[tuple[Place, int]], pool: list[Any], fits: SampleCheck, rng: random.Random
) -> dict[tuple[Place, int], Any] | None:
    """Deal ``pool`` (shuffled) to ``slots`` so that every item meets its slot's ``sample:``
    condition: the most constrained slots first, each an item drawn among those that fit,
    started again up to :data:`SAMPLE_TRIES` times; None if no such deal was found (the
    plain deal is used: consistent with what the seat sees, if not with every hint)."""
    options = {slot: [k for k, item in enumerate(pool) if fits(slot[0], slot[1], item)] for slot in slots}
    order = sorted(slots, key=lambda slot: len(options[slot]))
    for _ in range(SAMPLE_TRIES):
        free = set(range(len(pool)))
        dealt: dict[tuple[Place, int], Any] = {}
        for slot in order:
            choices = [k for k in options[slot] if k in free]
            if not choices:
                break
            k = rng.choice(choices)
            free.remove(k)
            dealt[slot] = pool[k]
        else:
            return dealt
    return None


def _guess_choices(world: State, player: int | None, rng: random.Random) -> None:
    """Replace the pending choices of a simultaneous step that ``player`` did not make by
    choices drawn uniformly from each seat's legal actions in ``world`` (they are the same
    whatever was chosen: no choice is applied before all are made)."""
    fields = world.fields
    names = fields[DECISION][1]
    guessed = []
    for seat, name, args in fields[CHOSEN]:
        if seat != player:
            probe = dict(fields)
            probe[DECISION] = (seat, names)
            legal = type(world)(world.game, probe).legal_actions()
            if legal:
                name, args = rng.choice(legal)
        guessed.append((seat, name, args))
    fields[CHOSEN] = tuple(guessed)
    world.listed = None


def _order(item: Any) -> tuple[str, str]:
    return type(item).__name__, repr(item)


def seat_explanation(state: State, action: Any, seat: int | None) -> Any:
    """Why ``action`` is refused, as told to ``seat``: explained on a state the seat cannot
    tell from the real one (:func:`determinize` with a fixed seed), so the message never
    names what the seat cannot see (\"P2 holds guard_3\").  Where the refusal depends on
    unseen values the message is the rule's general one."""
    world = determinize(state, seat, random.Random(0), reseed=False)
    return world.explain(action)


def information_key(state: State, seat: int | None, history: Iterable[str] = ()) -> str:
    """A seat's information state as a hash: its view (:meth:`State.view`, from :func:`unseen`),
    who decides, and the actions played so far (``history``: public in rulekit, but for the
    pending choices of a simultaneous step: :func:`seat_history`).  Equal for two states that
    differ only in what the seat cannot see."""
    data = {
        "view": state.view(seat),
        "decides": state.current_player(),
        "history": seat_history(state, list(history), seat),
    }
    text = json.dumps(data, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


#: What a seat sees in place of another seat's pending choice in a simultaneous step.
HIDDEN_CHOICE = "?"


def seat_history(state: State, history: list[str], seat: int | None) -> list[str]:
    """The moves of ``history`` (every move made so far, ending at ``state``) as ``seat``
    may see them: the others' pending choices of a simultaneous step under way (the last
    moves) are :data:`HIDDEN_CHOICE`.  Every move is public once its step resolves."""
    chosen = state.fields.get(CHOSEN, ())
    if not chosen or len(history) < len(chosen):
        return history
    start = len(history) - len(chosen)
    return history[:start] + [
        text if entry[0] == seat else HIDDEN_CHOICE
        for text, entry in zip(history[start:], chosen, strict=True)
    ]


# ------------------------------------------------------------------ scores

#: What the scoring formulas read, for :func:`score_knowledge`: every field they read is
#: public (``public``); the hidden ones are only the scored player's own ``owner`` fields
#: (``own``: she knows her score, nobody else does); anything else (``none``).
ScoreReach = str


def score_reach(game: Game) -> ScoreReach:
    """How far the scores (and tie-breaks) are known during play, from what their formulas read.

    The scoring expressions and every function they call are read as syntax trees: a field
    read through ``player`` (the scored player, or a function parameter given it) of an
    ``owner`` field is the scored player's own secret; any other read of a field that is not
    public (a deck, another player's hand, a field of the same name in any scope) hides the
    score from everyone.  ``scoring: {public: true}`` in the rules says the scores are public
    whatever they read (where this reading is too coarse)."""
    cache: dict[str, ScoreReach] = game.__dict__.setdefault("_score_reach", {})
    if "reach" in cache:
        return cache["reach"]
    rules = game.program.rules
    scoring = rules.scoring
    if scoring.public:
        reach = "public"
    else:
        reads: set[tuple[str, bool]] = set()
        walker = _ReadWalker(rules)
        for expr in (scoring.score, *scoring.tiebreak):
            if expr is not None:
                reads |= walker.reads(expr, frozenset({"player"}))
        reach = "public"
        for name, own in reads:
            for scope, decls in rules.fields.items():
                decl = decls.get(name)
                if decl is None or decl.visibility == "public":
                    continue
                if own and scope == "player" and decl.visibility == "owner":
                    reach = "own" if reach == "public" else reach
                else:
                    reach = "none"
    cache["reach"] = reach
    return reach


def known_scores(state: State, seat: int | None) -> list[int | None]:
    """Each player's score as ``seat`` (None: a spectator) may know it: all of them once the
    game is over; during play a score is None where its formulas read what the seat cannot
    see for that player (:func:`score_reach`)."""
    scores: list[int | None] = list(state.scores())
    if state.is_terminal():
        return scores
    reach = score_reach(state.game)
    if reach == "public":
        return scores
    return [value if reach == "own" and p == seat else None for p, value in enumerate(scores)]


# ------------------------------------------------------------------ rules that fired


def hidden_triggers(game: Game) -> frozenset[str]:
    """The triggers whose condition reads a field not every seat sees (read on the syntax tree,
    functions followed): that such a trigger fired tells what its condition read, so seats hear
    of it only once the game is over (:func:`known_fired`)."""
    cache: dict[str, frozenset[str]] = game.__dict__.setdefault("_hidden_triggers", {})
    if "names" not in cache:
        rules = game.program.rules
        secret = {
            name
            for decls in rules.fields.values()
            for name, decl in decls.items()
            if decl.visibility != "public"
        }
        walker = _ReadWalker(rules)
        cache["names"] = frozenset(
            name
            for name, trigger in rules.triggers.items()
            if trigger.condition is not None
            and any(field in secret for field, _ in walker.reads(trigger.condition, frozenset()))
        )
    return cache["names"]


def known_fired(state: State, fired: Iterable[str], seat: int | None) -> list[str]:
    """The rules that fired (``action:NAME``, ``trigger:NAME``) as ``seat`` (None: a spectator)
    may hear of them in ``state``: all once the game is over, else without the triggers whose
    condition reads what not everyone sees (:func:`hidden_triggers`)."""
    names = list(fired)
    if state.is_terminal():
        return names
    hidden = hidden_triggers(state.game)
    return [name for name in names if not (name.startswith("trigger:") and name[len("trigger:") :] in hidden)]
