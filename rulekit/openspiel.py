"""Every ruleset as an OpenSpiel game (the ``openspiel`` extra: ``pip install rulekit[openspiel]``).

``register("my_game", players=4, modules=["harbor"])`` registers the Python game
``rulekit_my_game`` with :mod:`pyspiel` and returns it loaded; afterwards
``pyspiel.load_game("rulekit_my_game(players=3,modules=harbor+market)")`` works too.

Game parameters: ``players``; ``modules`` and ``variants`` (names joined by ``+``); the
ruleset's own ``parameters:`` under their names (``{"ROWS": 5}``, checked like ``--param``);
``seeds`` (how many RNG seeds the chance node draws from); ``bound`` (the box of open
action parameters, see :mod:`rulekit.engine.spaces`); ``max_moves`` (the horizon,
0 = :data:`DEFAULT_MAX_MOVES`); ``max_chance_nodes`` (0 = ``max_moves``);
``explicit_setup`` (default false: the setup's draws are chance nodes, not a seed).

What the game declares, and why it holds:

* dynamics ``SEQUENTIAL``: one player decides at a time; ``SIMULTANEOUS`` when the flow
  has a ``simultaneous`` step.  Then at such a step ``current_player()`` is
  ``PlayerId.SIMULTANEOUS``, ``legal_actions(p)`` is each seat's own (empty for a seat
  that does not choose) and ``apply_actions(joint)`` applies one action per player
  atomically (an illegal one raises and changes nothing; the action given for a seat
  that does not choose is ignored); the choices resolve in the step's order.  Every
  other decision is a one-player node as in a sequential game.
* chance: every random draw of the rules is a chance step with known outcomes and
  probabilities (``roll``, ``shuffle``, ``pick``: :mod:`rulekit.engine.chance`).  When
  the rules draw at all, the game is ``EXPLICIT_STOCHASTIC``: one chance node at the
  start picks the setup's seed uniformly among ``seeds`` outcomes (the setup's shuffles
  follow from it), and every chance step of a player's action is a real chance node
  after that action, with the step's outcomes and probabilities as
  ``chance_outcomes()`` (a roll of 6 has outcomes 0..5 of probability 1/6; a shuffle
  of n items is n - 1 nodes).  With ``explicit_setup=true`` there is no seed node: the
  setup's own draws (a deal of cards with ``pick``) are chance nodes too, one per step,
  before the first decision, and the state's RNG is seeded 0 (a card game's exact chance
  tree, as OpenSpiel's poker games have it).  The action completes when its last step has an outcome.
  ``max_chance_outcomes`` is ``seeds``; a step with more outcomes is an error naming
  it.  Otherwise the game is ``DETERMINISTIC`` and starts from seed 0.  Clones and
  serialized states carry the pending action and its outcomes so far.
  ``max_chance_nodes_in_history`` is ``max_chance_nodes``: once a game has had that
  many chance nodes (the seed's included), the state's seeded RNG draws the later
  outcomes inside the moves, as it does outside OpenSpiel, so the bound holds whatever
  the rules roll.
* information ``IMPERFECT_INFORMATION`` when a field is declared ``hidden`` or
  ``owner``-visible, else ``PERFECT_INFORMATION``.
* utility: returns are +1 for each winner, -1 for the others, 0 for all on a full tie,
  so ``min_utility=-1``, ``max_utility=1``; with two players they sum to 0
  (``ZERO_SUM``), with more ``GENERAL_SUM`` (with ``outcome: teams`` too).  A cooperative
  game (``outcome: cooperative``) gives every seat the same return, the shared score over
  its success threshold, clamped to [-1, 1]: ``IDENTICAL``.  When the scoring declares
  ``returns: {min, max, sum}`` the returns are the scores: ``min_utility``/``max_utility``
  are its bounds, and the game is ``ZERO_SUM`` with ``sum: 0``, ``CONSTANT_SUM`` with
  another sum, else ``GENERAL_SUM``.  Reward model ``TERMINAL``.
* ``num_distinct_actions``: the size of the :class:`~rulekit.engine.spaces.ActionSpace`.
* ``max_game_length``: the horizon ``max_moves``.  The rules give no bound on a game's
  length (flows repeat until a condition), so the adapter imposes one: a game that
  reaches it ends there as a draw (all returns 0).  The default is far beyond the
  longest random games of the shipped rulesets.

Observations are :func:`~rulekit.engine.spaces.observation_text` and the
:class:`~rulekit.engine.spaces.ObservationEncoder` vector.  The information state
string is the player's observation plus the whole action history: actions are public
in rulekit (logs and views show them), so with the current observation it is what the
player has seen, as long as no ruleset shows a player something and hides it later
(no shipped ruleset does).  The information-state tensor is the observation tensor
followed by one number per move up to the horizon: the action's integer + 1 (0 for
moves not made yet).
``resample_from_infostate`` (for IS-MCTS) is the engine's determinization
(:func:`rulekit.engine.information.determinize`, as rulekit's own MCTS): the items of
every list the player may not see (hidden fields, other players' owner-only fields) are
dealt again among the places they could be (the other hands and the hidden lists of
their type), and the RNG is reseeded; the sample keeps every observation and the
information state.  It is not a draw from the exact posterior: hidden values other than
lists (an opponent's secret number) are kept, so with such rules a sample knows more
than the player.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyspiel

from rulekit.compiler.program import Program
from rulekit.engine.chance import ChanceStep, chance_step
from rulekit.engine.flow import has_simultaneous
from rulekit.engine.game import Game, State
from rulekit.engine.information import determinize, has_hidden_information
from rulekit.engine.spaces import (
    ActionSpace,
    ObservationEncoder,
    default_bound,
    observation_text,
    uses_randomness,
)
from rulekit.errors import Diagnostic, RulekitError
from rulekit.load import load_game, load_program
from rulekit.rules.compose import find_ruleset
from rulekit.rules.parameters import is_setting, settings, split_setting
from rulekit.runtime.chance import ChanceControl, ChancePending

PREFIX = "rulekit_"
DEFAULT_MAX_MOVES = 5000
DEFAULT_SEEDS = 4096

_RULESETS: dict[str, str] = {}


def short_name(ruleset: str) -> str:
    """The OpenSpiel name of a ruleset (``rulekit_`` + its name)."""
    return PREFIX + load_program(ruleset).name


def register(
    ruleset: str,
    players: int | None = None,
    modules: Sequence[str] = (),
    variants: Sequence[str] = (),
    *,
    seeds: int = DEFAULT_SEEDS,
    bound: int | None = None,
    max_moves: int = 0,
    max_chance_nodes: int = 0,
    explicit_setup: bool = False,
    params: Mapping[str, Any] | None = None,
) -> Any:
    """Register ``ruleset`` (a bundled name or a directory) with pyspiel; return the loaded game.

    ``params`` sets the ruleset's own parameters (``parameters:``, e.g. ``{"ROWS": 5}``); they
    are OpenSpiel game parameters too, so ``pyspiel.load_game("rulekit_x", {"ROWS": 5})`` works.

    Raises:
        RulesetError: the rules, modules or variants are wrong.
        RulekitError: another ruleset directory was registered under the same name.
    """
    program = load_program(ruleset, modules, variants, players=players)
    rules = program.rules
    name = PREFIX + program.name
    if players is None:
        players = rules.min_players
    if bound is None:
        bound = default_bound(program)
    directory = find_ruleset(ruleset).resolve()
    known = _RULESETS.get(name)
    if known is not None and find_ruleset(known).resolve() != directory:
        raise RulekitError(
            Diagnostic(
                f"OpenSpiel already knows {name} from {find_ruleset(known)}, not {directory}",
                hint="a process can register one ruleset of each name",
            )
        )
    if known is None:
        _RULESETS[name] = str(ruleset)
        defaults = {
            "players": players,
            "modules": "",
            "variants": "",
            "seeds": DEFAULT_SEEDS,
            "bound": bound,
            "max_moves": 0,
            "max_chance_nodes": 0,
            "explicit_setup": False,
        }
        defaults |= {n: p.value for n, p in rules.parameters.items() if n not in defaults}
        game_class = type(f"RulekitGame_{program.name}", (RulekitGame,), {"registered_name": name})
        pyspiel.register_game(_game_type(name, program, players, defaults), game_class)
    params = {
        "players": players,
        "modules": "+".join(modules),
        "variants": "+".join(variants),
        "seeds": seeds,
        "bound": bound,
        "max_moves": max_moves,
        "max_chance_nodes": max_chance_nodes,
        "explicit_setup": explicit_setup,
        **(params or {}),
    }
    return pyspiel.load_game(name, params)


def _unpickle_game(
    ruleset: str, players: int, modules: Sequence[str], variants: Sequence[str], params: dict[str, Any]
) -> Any:
    """The game a pickled :class:`RulekitGame` stood for (see its ``__reduce__``)."""
    register(ruleset, players, modules, variants)
    return pyspiel.load_game(PREFIX + load_program(ruleset, modules, variants, players=players).name, params)


def _game_type(name: str, program: Program, players: int, params: dict[str, Any]) -> Any:
    """The GameType of ``program`` played by ``players`` (see the module doc for why)."""
    rules = program.rules
    kind = pyspiel.GameType
    hidden = has_hidden_information(program)
    return kind(
        short_name=name,
        long_name=f"rulekit {rules.title}",
        dynamics=kind.Dynamics.SIMULTANEOUS if has_simultaneous(program) else kind.Dynamics.SEQUENTIAL,
        chance_mode=kind.ChanceMode.EXPLICIT_STOCHASTIC
        if uses_randomness(program)
        else kind.ChanceMode.DETERMINISTIC,
        information=kind.Information.IMPERFECT_INFORMATION
        if hidden
        else kind.Information.PERFECT_INFORMATION,
        utility=_utility(program, players),
        reward_model=kind.RewardModel.TERMINAL,
        max_num_players=rules.max_players,
        min_num_players=rules.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


def _utility(program: Program, players: int) -> Any:
    """IDENTICAL for a cooperative game (every seat gets the same return), ZERO_SUM for two
    players each for herself, GENERAL_SUM otherwise (teams of unknown sizes included)."""
    kind = pyspiel.GameType.Utility
    scoring = program.rules.scoring
    if scoring.returns is not None:  # the returns are the scores, summing as declared
        total = scoring.returns[2]
        return kind.GENERAL_SUM if total is None else kind.ZERO_SUM if total == 0 else kind.CONSTANT_SUM
    outcome = scoring.outcome
    if outcome == "cooperative":
        return kind.IDENTICAL
    return kind.ZERO_SUM if players == 2 and outcome == "competitive" else kind.GENERAL_SUM


#: The adapter's own game parameters; any other is one of the ruleset's ``parameters:``.
_ADAPTER_PARAMS = frozenset(
    {"players", "modules", "variants", "seeds", "bound", "max_moves", "max_chance_nodes", "explicit_setup"}
)


def _ruleset_params(params: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if k not in _ADAPTER_PARAMS}


def _variants(text: str, chosen: Mapping[str, Any]) -> tuple[str, ...]:
    """The variants named in ``text`` then the settings of the ruleset parameters ``chosen``
    (which replace a setting of the same parameter among the variants)."""
    mine = tuple(settings(chosen))
    named = {split_setting(ref)[0] for ref in mine}
    given = tuple(v for v in _names(text) if not (is_setting(v) and split_setting(v)[0] in named))
    return given + mine


def _names(text: str) -> tuple[str, ...]:
    return tuple(part for part in text.split("+") if part)


class RulekitGame(pyspiel.Game):
    """A rulekit game seen by OpenSpiel (one subclass is registered per ruleset)."""

    registered_name = ""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = params or {}
        name = self.registered_name
        ruleset = _RULESETS[name]
        self.spec = (
            str(ruleset),
            int(params["players"]),
            _names(str(params.get("modules", ""))),
            _variants(str(params.get("variants", "")), _ruleset_params(params)),
        )
        self.engine = _engine(self.spec)
        self.random = uses_randomness(self.engine.program)
        self.seeds = max(1, int(params.get("seeds", DEFAULT_SEEDS))) if self.random else 1
        bound = int(params.get("bound", default_bound(self.engine.program)))
        space = _SPACES.get((self.spec, bound))
        if space is None:
            space = _SPACES[(self.spec, bound)] = ActionSpace(self.engine, bound)
        self.space = space
        self.encoder = ObservationEncoder.of(self.engine)
        self.max_moves = int(params.get("max_moves", 0)) or DEFAULT_MAX_MOVES
        self.max_chance_nodes = (
            (int(params.get("max_chance_nodes", 0)) or self.max_moves) if self.random else 0
        )
        self.explicit_setup = self.random and bool(params.get("explicit_setup", False))
        if self.explicit_setup:
            self.seeds = max(1, int(params.get("seeds", DEFAULT_SEEDS)))
        self._initial: dict[int, State] = {}
        self._setups: dict[tuple[int, ...], State | ChanceStep] = {}
        players = self.engine.num_players
        game_type = _game_type(name, self.engine.program, players, dict(params))
        zero = game_type.utility == pyspiel.GameType.Utility.ZERO_SUM
        low, high, total = -1.0, 1.0, 0.0 if zero else None
        returns = self.engine.program.rules.scoring.returns
        if returns is not None:
            low, high, total = returns[0], returns[1], returns[2]
        info = pyspiel.GameInfo(
            num_distinct_actions=self.space.size,
            max_chance_outcomes=self.seeds if self.random else 0,
            num_players=players,
            min_utility=float(low),
            max_utility=float(high),
            utility_sum=None if total is None else float(total),
            max_game_length=self.max_moves,
        )
        super().__init__(game_type, info, dict(params))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as the registration that makes it (the class itself is made at run time):
        unpickling registers the ruleset again if needed and loads the same game."""
        ruleset, players, modules, variants = self.spec
        given = tuple(v for v in variants if not is_setting(v))  # the settings are in the parameters
        return _unpickle_game, (ruleset, players, modules, given, self.get_parameters())

    def max_chance_nodes_in_history(self) -> int:
        """At most ``max_chance_nodes`` (later draws come from the state's RNG)."""
        return self.max_chance_nodes

    def new_initial_state(self) -> RulekitState:
        if self.explicit_setup:  # a setup that draws nothing starts at the first decision
            found = self.set_up(())
            return RulekitState(self, found if isinstance(found, State) else None)
        return RulekitState(self, None if self.random else self.initial_state(0))

    def initial_state(self, seed: int) -> State:
        """A fresh engine state after setup with ``seed`` (set up once per seed, then cloned)."""
        state = self._initial.get(seed)
        if state is None:
            state = self._initial[seed] = self.engine.new_initial_state(seed)
        return state.clone()

    def set_up(self, given: tuple[int, ...]) -> State | ChanceStep:
        """With ``explicit_setup``: the state after a setup whose draws had the outcomes
        ``given``, or the setup's next chance step (a fresh clone of a kept result)."""
        found = self._setups.get(given)
        if found is None:
            runtime = self.engine.runtime
            saved = runtime.chance
            runtime.chance = ChanceControl(given, probe=len(given) < self.max_chance_nodes)
            try:
                found = self.engine.new_initial_state(0)
            except ChancePending as pending:
                found = pending.step
            finally:
                runtime.chance = saved
            self._setups[given] = found
        return found.clone() if isinstance(found, State) else found

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return _InfoStateObserver(self) if perfect_recall else _Observer(self)


class _Inner:
    """The engine state inside an OpenSpiel state: deep-copied as a clone and
    pickled as its exact JSON (what OpenSpiel's clone and serialization use)."""

    __slots__ = ("pending", "spec", "state", "step")

    def __init__(
        self,
        spec: tuple[str, int, tuple[str, ...], tuple[str, ...]],
        state: State | None,
        pending: tuple[int, tuple[int, ...]] | None = None,
    ) -> None:
        self.spec = spec
        self.state = state
        #: A player's action waiting for chance: (its id, the outcomes of its steps so far).
        self.pending = pending
        self.step: ChanceStep | None = None  # the pending action's next step (a cache)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Inner:
        copy = _Inner(self.spec, None if self.state is None else self.state.clone(), self.pending)
        copy.step = self.step
        return copy

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # JSON text: plain str and int only (ids read from YAML are str subclasses).
        text = None if self.state is None else json.dumps(self.state.to_json())
        return (_restore, (self.spec, text, self.pending))


def _restore(
    spec: tuple[str, int, tuple[str, ...], tuple[str, ...]],
    text: str | None,
    pending: tuple[int, tuple[int, ...]] | None = None,
) -> _Inner:
    if text is None:
        return _Inner(spec, None, pending)
    return _Inner(spec, State.from_json(_engine(spec), json.loads(text)), pending)


_ENGINES: dict[tuple[str, int, tuple[str, ...], tuple[str, ...]], Game] = {}
_SPACES: dict[tuple[tuple[str, int, tuple[str, ...], tuple[str, ...]], int], ActionSpace] = {}


def _engine(spec: tuple[str, int, tuple[str, ...], tuple[str, ...]]) -> Game:
    """The rulekit game of a parameter set, loaded once per process."""
    game = _ENGINES.get(spec)
    if game is None:
        game = _ENGINES[spec] = load_game(spec[0], spec[1], spec[2], spec[3])
    return game


class RulekitState(pyspiel.State):
    """A game in progress, seen by OpenSpiel; before the chance node, no engine state yet."""

    def __init__(self, game: RulekitGame, state: State | None) -> None:
        super().__init__(game)
        self._inner = _Inner(game.spec, state)
        self._moves = 0
        self._chance_nodes = 0
        self._legal: list[int] | None = None

    @property
    def engine_state(self) -> State:
        """The rulekit :class:`~rulekit.engine.game.State` (to read; do not apply to it).

        Raises:
            ValueError: at the chance node, before the seed is drawn.
        """
        state = self._inner.state
        if state is None:
            raise ValueError("the seed is not drawn yet (chance node)")
        return state

    def _game(self) -> RulekitGame:
        game: RulekitGame = self.get_game()
        return game

    def current_player(self) -> int:
        state = self._inner.state
        if state is None or self._inner.pending is not None:
            return int(pyspiel.PlayerId.CHANCE)
        if state.is_terminal() or self._moves >= self._game().max_moves:
            return int(pyspiel.PlayerId.TERMINAL)
        if state.is_simultaneous():
            return int(pyspiel.PlayerId.SIMULTANEOUS)
        return state.current_player()

    def is_terminal(self) -> bool:
        state = self._inner.state
        return state is not None and (state.is_terminal() or self._moves >= self._game().max_moves)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._inner.state is not None and self._inner.pending is not None:
            return self._pending_step().pairs()
        if self._game().explicit_setup:
            return self._setup_step().pairs()
        seeds = self._game().seeds
        return [(seed, 1.0 / seeds) for seed in range(seeds)]

    def _pending_step(self) -> ChanceStep:
        """The next chance step of the pending action (probed once after a clone or a
        deserialization, else kept from the apply that reached it)."""
        inner = self._inner
        assert inner.state is not None and inner.pending is not None
        if inner.step is None:
            action, given = inner.pending
            inner.step = chance_step(inner.state, self._game().space.decode(action), given)
            assert inner.step is not None, "a pending action has a chance step"
        return self._checked(inner.step)

    def _setup_given(self) -> tuple[int, ...]:
        """With ``explicit_setup``, before the first decision: the setup's outcomes so far."""
        pending = self._inner.pending
        return () if pending is None else pending[1]

    def _setup_step(self) -> ChanceStep:
        """With ``explicit_setup``, before the first decision: the setup's next chance step."""
        inner = self._inner
        if inner.step is None:
            step = self._game().set_up(self._setup_given())
            assert isinstance(step, ChanceStep), "a setup not finished has a chance step"
            inner.step = step
        return self._checked(inner.step)

    def _checked(self, step: ChanceStep) -> ChanceStep:
        seeds = self._game().seeds
        if len(step.outcomes) > seeds:
            raise ValueError(
                f"the chance step {step.event} has {len(step.outcomes)} outcomes, "
                f"more than max_chance_outcomes ({seeds}; raise the seeds parameter)"
            )
        return step

    def _legal_actions(self, player: int) -> list[int]:
        if self._inner.state is None:
            if self._game().explicit_setup:
                return [index for index, _ in self._setup_step().pairs()]
            return list(range(self._game().seeds))
        if self._inner.pending is not None:
            return [index for index, _ in self._pending_step().pairs()]
        state = self._inner.state
        if state.is_simultaneous():
            if player == pyspiel.PlayerId.SIMULTANEOUS:  # flat joint actions
                return list(range(math.prod(len(mine) for mine in self._each_legal() if mine)))
            space = self._game().space
            return sorted(space.encode(a) for a in state.legal_actions_of(player))
        if self._legal is None:
            self._legal = self._game().space.legal_ids(state)
        return list(self._legal)

    def _each_legal(self) -> list[list[int]]:
        """At a simultaneous node, each player's legal actions (empty: does not choose)."""
        return [self._legal_actions(p) for p in range(self._game().num_players())]

    def _joint(self, flat: int) -> list[int]:
        """A flat joint action as one action per player, as OpenSpiel's
        ``FlatJointActionToActions`` reads it (player 0 least significant; -1 for a player
        who does not choose)."""
        joint = []
        for mine in self._each_legal():
            if mine:
                joint.append(mine[flat % len(mine)])
                flat //= len(mine)
            else:
                joint.append(-1)
        return joint

    def _apply_actions(self, actions: Sequence[int]) -> None:
        """A simultaneous node: each choosing seat's action, applied atomically (the
        choices resolve once the last is made; its chance steps are chance nodes)."""
        game = self._game()
        state = self._inner.state
        assert state is not None and state.is_simultaneous()
        seats = [s for s in state.simultaneous_seats() if state.legal_actions_of(s)]
        joint = {seat: game.space.decode(int(actions[seat])) for seat in seats}
        if not game.random:
            state.apply_joint(joint)
            self._moves += len(seats)
            self._legal = None
            return
        backup, moves = state.clone(), self._moves
        try:
            for seat in seats[:-1]:  # recorded only: nothing resolves before the last choice
                state.apply_action(joint[seat])
                self._moves += 1
            self._apply_until_chance(int(actions[seats[-1]]), ())
        except BaseException:
            self._inner.state, self._moves = backup, moves
            self._inner.pending = self._inner.step = None
            raise
        self._legal = None

    def _apply_action(self, action: int) -> None:
        game = self._game()
        inner = self._inner
        if inner.state is None and game.explicit_setup:
            given = (*self._setup_given(), action)
            found = game.set_up(given)
            if isinstance(found, State):
                inner.state, inner.pending, inner.step = found, None, None
            else:
                inner.pending, inner.step = (-1, given), self._checked(found)
            self._chance_nodes = len(given)
            return
        if inner.state is None:
            inner.state = game.initial_state(action)
            self._chance_nodes = 1
            return
        if inner.pending is not None:  # a chance outcome of the pending action
            self._pending_step()
            player_action, given = inner.pending
            self._apply_until_chance(player_action, (*given, action), chance_nodes=1)
            return
        if inner.state.is_simultaneous():  # a flat joint action
            self._apply_actions(self._joint(action))
            return
        if game.random:
            self._apply_until_chance(action, ())
            return
        inner.state.apply_action(game.space.decode(action))
        self._moves += 1
        self._legal = None

    def _apply_until_chance(self, action: int, given: tuple[int, ...], chance_nodes: int = 0) -> None:
        """Apply the player's ``action`` with the chance outcomes ``given``, once.

        The engine applies it for real, stopping at the first chance step without an
        outcome: then the state is unchanged (``State.apply_action`` is atomic) and the
        action waits for that step's chance node; else the action is complete.  Past
        ``max_chance_nodes`` the state's RNG draws the outcomes not given.  The
        ``chance_nodes`` of this apply (its given outcome) count once it succeeds.
        """
        inner = self._inner
        assert inner.state is not None
        runtime = inner.state.game.runtime
        saved = runtime.chance
        nodes = self._chance_nodes + chance_nodes
        probe = nodes < self._game().max_chance_nodes
        runtime.chance = ChanceControl(given, probe=probe)
        try:
            inner.state.apply_action(self._game().space.decode(action))
        except ChancePending as pending:
            inner.pending, inner.step = (action, given), self._checked(pending.step)
            self._chance_nodes = nodes
            return
        finally:
            runtime.chance = saved
        self._chance_nodes = nodes
        inner.pending, inner.step = None, None
        self._moves += 1
        self._legal = None

    def _action_to_string(self, player: int, action: int) -> str:
        game = self._game()
        if player == pyspiel.PlayerId.CHANCE:
            if self._inner.state is not None and self._inner.pending is not None:
                step = self._pending_step()
                return f"{step.event} = {game.engine.runtime.format_value(step.outcomes[action])}"
            if game.explicit_setup:
                step = self._setup_step()
                return f"{step.event} = {game.engine.runtime.format_value(step.outcomes[action])}"
            return f"seed {action}"
        return game.engine.action_to_string(game.space.decode(action))

    def returns(self) -> list[float]:
        state = self._inner.state
        if state is None or not state.is_terminal():
            return [0.0] * self._game().num_players()
        return state.returns()

    def resample_from_infostate(self, player: int, sampler: Any = None) -> RulekitState:
        """A state the player cannot tell from this one (the engine's determinization:
        unseen items dealt again among the places they could be, chance re-seeded)."""
        rng = random.Random(int(sampler() * 2**32) if callable(sampler) else None)
        copy: RulekitState = self.clone()
        inner = copy._inner
        if inner.state is None:
            return copy
        inner.state = determinize(inner.state, player, rng)
        inner.step = None
        copy._legal = None
        return copy

    def __str__(self) -> str:
        state = self._inner.state
        if state is None:
            if self._game().explicit_setup:
                return f"chance: setting up, outcomes so far {list(self._setup_given())}"
            return "chance: the seed is drawn"
        if self._inner.pending is not None:
            return f"{self._str_of(state)}\nwaiting for chance: {self._inner.pending}"
        return self._str_of(state)

    @staticmethod
    def _str_of(state: State) -> str:
        # What a spectator sees, and a digest of everything (hidden fields and the RNG
        # included), so that the states OpenSpiel compares are equal only when they are.
        digest = hashlib.sha256(repr(state.fields).encode("utf-8")).hexdigest()[:16]
        return f"{observation_text(state, None)}\nstate={digest}"


class _Observer:
    """Observation string and tensor of one player (OpenSpiel's PyObserver interface)."""

    def __init__(self, game: RulekitGame) -> None:
        self.encoder = game.encoder
        self.tensor = np.zeros(self.encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: RulekitState, player: int) -> None:
        view = self.dict["observation"]
        inner = state._inner.state
        if inner is None:  # the chance node: nothing to see yet
            view.fill(0.0)
            view[player] = 1.0
            return
        view[:] = self.encoder.encode(inner, player)

    def string_from(self, state: RulekitState, player: int) -> str:
        inner = state._inner.state
        return "chance" if inner is None else observation_text(inner, player)


class _InfoStateObserver(_Observer):
    """The information state: the observation and the players' (public) action history.

    The tensor is the observation tensor, then one number per move up to the horizon:
    the action's integer + 1 (0 for moves not made yet)."""

    def __init__(self, game: RulekitGame) -> None:
        super().__init__(game)
        self.observation_size = self.encoder.size
        self.tensor = np.zeros(self.observation_size + game.max_moves, np.float32)
        self.dict = {
            "observation": self.tensor[: self.observation_size],
            "history": self.tensor[self.observation_size :],
        }

    def set_from(self, state: RulekitState, player: int) -> None:
        super().set_from(state, player)
        history = self.dict["history"]
        history.fill(0.0)
        moves = _moves(state)
        history[: len(moves)] = np.asarray(moves, np.float32) + 1.0

    def string_from(self, state: RulekitState, player: int) -> str:
        history = " ".join(str(action) for action in _moves(state))
        return f"P{player + 1}\n{super().string_from(state, player)}\nhistory={history}"


def _moves(state: RulekitState) -> list[int]:
    """The players' actions so far; the chance outcome (the seed) stays hidden."""
    return [item.action for item in state.full_history() if item.player >= 0]
