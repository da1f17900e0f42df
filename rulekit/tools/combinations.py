"""``rulekit check RULESET --all-combinations``: every allowed module combination, checked and played.

For every subset of the ruleset's modules (with the given variants) and every
player count the ruleset allows, the module and variant constraints (requires,
conflicts, players) decide whether the combination is allowed.  Each allowed
combination is loaded and checked, then a short seeded random game is played
with each allowed player count, checking the declared invariants after every
action.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence
from typing import Any

from attrs import define, field

from rulekit.engine.game import Game
from rulekit.errors import RulekitError
from rulekit.load import load_program
from rulekit.rules.compose import RulesetSource, load_source, module_order
from rulekit.rules.variants import VariantSource, check_constraints, data_players, load_variant
from rulekit.runtime.errors import StepBudgetExceeded

DEFAULT_MAX_ACTIONS = 200


@define
class Combination:
    """One allowed combination: modules, and the player counts it allows."""

    modules: tuple[str, ...]
    players: tuple[int, ...]


@define
class ComboResult:
    """What checking and playing one combination with one player count gave."""

    modules: tuple[str, ...]
    players: int
    actions: int = 0
    finished: bool = False
    problems: list[str] = field(factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def label(self) -> str:
        mods = ", ".join(self.modules) if self.modules else "(no modules)"
        return f"{mods}; {self.players} players"


def _player_range(source: RulesetSource) -> range:
    """The ruleset's player counts (2-2 when it does not say or says it wrongly: loading reports that)."""
    low, high = data_players(source.data) or (2, 2)
    return range(low, high + 1)


def allowed_combinations(ruleset: str, variants: Sequence[str] = ()) -> list[Combination]:
    """Every subset of the ruleset's modules that some player count allows, with those counts.

    Raises:
        RulesetError: the ruleset or a variant file cannot be read.
    """
    source = load_source(ruleset)
    loaded: list[VariantSource] = [load_variant(v, source) for v in variants]
    names = sorted(source.modules)
    result = []
    for size in range(len(names) + 1):
        for subset in itertools.combinations(names, size):
            counts = tuple(n for n in _player_range(source) if _allowed(source, list(subset), loaded, n))
            if counts:
                result.append(Combination(subset, counts))
    return result


def _allowed(source: RulesetSource, modules: list[str], variants: list[VariantSource], players: int) -> bool:
    try:
        chosen = module_order(source, modules, players)
        if variants:
            check_constraints(source, chosen, variants, players)
    except RulekitError:
        return False
    return True


def check_all_combinations(
    ruleset: str,
    variants: Sequence[str] = (),
    *,
    seed: int = 0,
    max_actions: int = DEFAULT_MAX_ACTIONS,
    out: Callable[[str], None] | None = None,
) -> list[ComboResult]:
    """Check every allowed combination and play one short random game per player count.

    ``out`` receives one line per result as it is produced.
    """
    results = []
    for combo in allowed_combinations(ruleset, variants):
        # the constraints for each player count were checked above; load once per combination
        program = None
        problem = None
        try:
            program = load_program(ruleset, combo.modules, variants)
        except RulekitError as error:
            problem = error.render()
        for players in combo.players:
            result = ComboResult(combo.modules, players)
            try:
                if program is None:
                    result.problems.append(problem or "the rules did not load")
                else:
                    _random_game(Game(program, players), seed, max_actions, result)
            except RulekitError as error:
                result.problems.append(error.render())
            results.append(result)
            if out is not None:
                out(format_result(result))
    return results


def _random_game(game: Game, seed: int, max_actions: int, result: ComboResult) -> None:
    rng = random.Random(seed)
    state = game.new_initial_state(seed)
    invariants = game.program.invariants
    runtime = game.runtime
    while not state.is_terminal() and result.actions < max_actions:
        legal = state.legal_actions()
        if not legal:
            result.problems.append(
                f"after {result.actions} actions: nobody can act, but the game is not over"
            )
            return
        action = rng.choice(legal)
        state.apply_action(action)
        result.actions += 1
        for invariant in invariants:
            decl = invariant.decl
            runtime.reset_steps()  # each invariant is one evaluation, with its own step budget
            try:
                holds = invariant.check(state.fields, runtime, -1)
            except Exception as error:  # a rule error (or the step budget), not a rulekit bug
                holds, detail = False, f" (it could not be evaluated: {_error_text(error)})"
            else:
                detail = ""
            if holds is not True:
                result.problems.append(
                    f"after {result.actions} actions ({game.action_to_string(action)}): invariant "
                    f"'{decl.name}' does not hold: {decl.message}{detail}"
                    + (f" ({decl.span})" if decl.span else "")
                )
                return
    result.finished = state.is_terminal()


def _error_text(error: Exception) -> str:
    if isinstance(error, RulekitError | StepBudgetExceeded):
        return str(error)
    return f"{type(error).__name__}: {error}"


def format_result(result: ComboResult) -> str:
    status = "ok  " if result.ok else "FAIL"
    ending = "game over" if result.finished else "stopped at the cap" if result.ok else "stopped"
    line = f"{status} {result.label()}: {result.actions} actions, {ending}"
    for problem in result.problems:
        line += "\n" + "\n".join("      " + part for part in problem.splitlines())
    return line


def run_all_combinations(
    ruleset: str,
    variants: Sequence[str] = (),
    *,
    seed: int = 0,
    max_actions: int = DEFAULT_MAX_ACTIONS,
    out: Callable[[str], Any] = print,
) -> int:
    """The ``check --all-combinations`` command: prints a line per combination; 0 if all pass."""
    results = check_all_combinations(ruleset, variants, seed=seed, max_actions=max_actions, out=out)
    failed = sum(1 for r in results if not r.ok)
    combos = len({r.modules for r in results})
    out(f"{combos} module combinations, {len(results)} games: {len(results) - failed} ok, {failed} failed")
    return 1 if failed else 0
