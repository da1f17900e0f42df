"""``rulekit verify`` as a run: exploration that reaches rare actions, termination, shrinking
within a time budget, counterexample files written at once, progress output, no stray files."""

from __future__ import annotations

import io
import os
import random
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

from rulekit.engine.game import Action
from rulekit.tools.verify import Checker, VerifyOptions, format_counterexample, main, verify
from rulekit.tools.verify.explore import Explorer, Plan
from rulekit.tools.verify.options import Stats
from rulekit.tools.verify.report import Progress

ROOT = Path(__file__).resolve().parents[2]
PLANTED = ROOT / "tests" / "fixtures" / "planted"

# A counter game: 'step' is the common action; 'rare' is weighted 0 for bots and breaks the invariant.
COUNTER = """
ruleset: counter
players: {min: 1, max: 2}
state:
  game:
    n: {type: int}
    broken: {type: bool}
    who: {type: player, initial: "player_at(1)"}
actions:
  step:
    effect: game.n += 1
    ends_turn: true
  rare:
    effect: |
      game.n += 1
      game.broken = true
    ends_turn: true
bots:
  weights:
    rare: 0
flow:
  - repeat:
      until: game.n >= LIMIT
      steps:
        - for_each:
            in: players
            as: who
            steps:
              - turn: game.who
constants:
  LIMIT: 30
invariants:
  never_broken:
    holds: not game.broken
    message: the rare action breaks the game
"""


def _options(ruleset: Path | str, out: Path | None, **kwargs: object) -> VerifyOptions:
    return VerifyOptions(ruleset=str(ruleset), out=out, **kwargs)  # type: ignore[arg-type]


def test_an_action_of_weight_zero_is_still_explored(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    directory = write_ruleset(COUNTER)
    result = verify(_options(directory, None, weighted=True, examples=50))
    assert result.counterexample is not None, "a weight of 0 made the action unreachable"
    assert result.counterexample.key == "invariant:never_broken"
    assert [text for _, text in result.counterexample.actions] == ["rare"]


def test_a_game_that_does_not_end_is_a_violation(write_ruleset: Callable[..., Path], tmp_path: Path) -> None:
    directory = write_ruleset(COUNTER.replace("LIMIT: 30", "LIMIT: 500").replace("rare: 0", "rare: 1"))
    result = verify(_options(directory, tmp_path, max_actions=100, examples=5, players=1))
    example = result.counterexample
    assert example is not None and example.key in ("engine:ends", "invariant:never_broken")
    stopped = verify(_options(directory, tmp_path, max_actions=100, examples=5, players=1, must_end=False))
    assert stopped.counterexample is None or stopped.counterexample.key != "engine:ends"


def test_a_game_cut_off_at_the_limit_is_reported_with_its_actions(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    directory = write_ruleset(
        COUNTER.replace("LIMIT: 30", "LIMIT: 500").replace("game.broken = true", "pass")
    )
    result = verify(_options(directory, tmp_path, max_actions=40, examples=3, players=1))
    example = result.counterexample
    assert example is not None and example.key == "engine:ends"
    assert len(example.actions) == 40
    assert "has not ended after 40 actions" in format_counterexample(example)
    assert any(p.suffix == ".jsonl" for p in example.files)


def test_an_invariant_that_raises_names_the_failing_part_its_values_and_the_cause(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    directory = write_ruleset(
        COUNTER.replace("holds: not game.broken", 'holds: "[1, 2, 3][game.n] > 0"').replace(
            "rare: 0", "rare: 1"
        )
    )
    result = verify(_options(directory, tmp_path, players=1))
    example = result.counterexample
    assert example is not None and example.key == "invariant:never_broken"
    text = format_counterexample(example)
    assert "game.n = 3" in text
    assert "[1, 2, 3][game.n] cannot be evaluated: IndexError" in text


def test_no_shrink_writes_the_first_counterexample(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = main([str(PLANTED / "ttt_wrong_winner"), "--no-shrink", "--quiet", "--out", str(out)])
    assert code == 1
    text = capsys.readouterr().out
    assert "not shrunk (--no-shrink)" in text
    assert sorted(p.suffix for p in out.iterdir()) == [".jsonl", ".yaml"]
    scenario = pytest.importorskip("rulekit.tools.scenario")
    outcome = scenario.run_scenario(next(out.glob("*.yaml")))
    failures = outcome.failures
    assert not outcome.passed
    assert any("expectation failed" in f or "invariant 'winner_has_a_line' fails" in f for f in failures)


def test_with_no_time_to_shrink_the_first_counterexample_is_kept(tmp_path: Path) -> None:
    result = verify(_options(PLANTED / "ttt_wrong_winner", tmp_path, shrink_seconds=0.0))
    example = result.counterexample
    assert example is not None
    assert "stopped at the limit of 0s of work" in example.shrink_note
    assert example.original_length == len(example.actions)
    assert all(path.exists() for path in example.files)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_shrinking_reports_how_far_it_got(tmp_path: Path) -> None:
    result = verify(_options(PLANTED / "ttt_wrong_winner", tmp_path))
    example = result.counterexample
    assert example is not None
    assert "1-minimal" in example.shrink_note


def test_coverage_is_reported_by_default_even_after_a_violation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(PLANTED / "ttt_double_mark"), "--quiet", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out
    assert "coverage:" in out and "never fired" in out and "trigger 'three_in_a_row'" in out
    assert "(coverage of the 1 game played until the violation)" in out


def test_progress_off_a_terminal_is_plain_lines_without_carriage_returns() -> None:
    stream = io.StringIO()
    stats = Stats(games=3, actions=40)
    progress = Progress(VerifyOptions("tic_tac_toe"), stats, stream)
    progress.every = 0.0
    progress()
    progress()
    progress.done()
    text = stream.getvalue()
    assert "\r" not in text
    assert text.count("\n") == 2 and "3 games, 40 actions" in text


def test_verify_leaves_no_example_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([str(PLANTED / "ttt_double_mark"), "--quiet", "--out", "out"]) == 1
    assert sorted(os.listdir(tmp_path)) == ["out"]


def test_all_combinations_verifies_each_allowed_set_of_modules(
    write_ruleset: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    broken = (
        "module: broken\ninvariants:\n  never:\n    holds: game.n < 0\n    message: a module that breaks\n"
    )
    directory = write_ruleset(
        COUNTER.replace("game.broken = true", "pass"), modules={"extra": "module: extra\n", "broken": broken}
    )
    code = main(
        [
            str(directory),
            "--all-combinations",
            "--examples",
            "5",
            "--quiet",
            "--cut-off",
            "--out",
            str(directory / "out"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert "verify counter: OK" in out  # the combination without modules comes first
    assert "with broken: FAILED" in out and "invariant 'never' violated" in out
    assert main([str(directory), "--all-combinations", "--with", "extra", "--quiet"]) == 2


# COUNTER where the invariant breaks only after a streak of 5 'rare' in a row: seed 1 first
# finds it in game 12, once every lane has played a few games (so workers run ahead of it).
STREAK = (
    COUNTER.replace("broken: {type: bool}", "broken: {type: bool}\n    streak: {type: int}")
    .replace("effect: game.n += 1\n", "effect: |\n      game.n += 1\n      game.streak = 0\n")
    .replace("game.broken = true", "game.streak += 1")
    .replace("holds: not game.broken", "holds: game.streak < 5")
)


def _outcome(options: VerifyOptions) -> tuple[object, ...]:
    """Everything a run reports that must not depend on the workers (not the timings)."""
    result = verify(options)
    stats = result.stats
    assert result.coverage is not None
    example = format_counterexample(result.counterexample) if result.counterexample else None
    figures = (stats.games, stats.actions, stats.invariant_checks, stats.property_checks, stats.longest)
    return figures, stats.found_after_games, result.coverage.report(), example


@pytest.mark.parametrize("case", ["clean", "planted", "unending"])
def test_the_result_does_not_depend_on_the_number_of_workers(
    case: str, write_ruleset: Callable[..., Path]
) -> None:
    if case == "planted":
        options = _options(write_ruleset(STREAK), None, examples=100, seed=1, shrink=False)
    elif case == "unending":  # a game still running after --max-actions, found in a worker
        directory = write_ruleset(COUNTER.replace("game.broken = true", "pass"))
        options = _options(directory, None, examples=10, max_actions=10, shrink=False)
    else:
        options = _options("tic_tac_toe", None, examples=40)
    one, two, three = (_outcome(attrs.evolve(options, workers=n)) for n in (1, 2, 3))
    assert one == two == three
    figures, found_after, _, example = one
    if case == "planted":
        # game 12 failed: games 0-12 are counted, none of the later ones some lanes had played
        assert found_after == figures[0] == 13
        assert example is not None and "invariant 'never_broken' violated" in example
    elif case == "unending":
        assert found_after == 1 and example is not None and "has not ended after 10 actions" in example
    else:
        assert figures[0] == 40 and example is None


def test_a_lane_plays_the_same_games_whichever_lanes_share_its_process(
    write_ruleset: Callable[..., Path],
) -> None:
    from rulekit.tools.verify.lanes import _Bound, play_lanes

    options = _options(write_ruleset(STREAK.replace("< 5", "< 99")), None, examples=24, seed=1)
    alone, _ = play_lanes(options, [1], _Bound(options.examples), lambda record: None)
    shared, _ = play_lanes(options, [0, 1, 2, 3], _Bound(options.examples), lambda record: None)
    assert [r.number for r in alone] == [1, 5, 9, 13, 17, 21]
    assert alone == [r for r in shared if r.number % 4 == 1]
    assert sum(r.actions for r in alone) > 0 and any(r.fired for r in alone)


def test_a_lane_stops_before_the_games_above_a_failure_found_elsewhere(
    write_ruleset: Callable[..., Path],
) -> None:
    from rulekit.tools.verify.lanes import _Bound, play_lanes

    options = _options(write_ruleset(STREAK.replace("< 5", "< 99")), None, examples=40)
    records, found = play_lanes(options, [0, 2], _Bound(9), lambda record: None)
    assert found is None and [r.number for r in records] == [0, 2, 4, 6, 8]


def test_verify_explores_with_every_core_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """The result does not depend on the number of workers, so the default takes every core."""
    import argparse

    from rulekit.tools.verify.command import add_parser

    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    parser = add_parser(argparse.ArgumentParser().add_subparsers())
    assert parser.parse_args(["tic_tac_toe"]).workers == 64
    assert "all cores" in parser.format_help()


def test_lanes_below_one_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tic_tac_toe", "--lanes", "0", "--quiet"]) == 2
    assert "--lanes must be at least 1" in capsys.readouterr().err


def test_bots_play_a_share_of_the_games_as_explorers(
    write_ruleset: Callable[..., Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from rulekit.tools.verify import explore

    directory = write_ruleset(COUNTER.replace("game.broken = true", "pass"))
    chosen: list[str] = []
    real = explore.make_explorer_bot

    def spy(spec: str, seed: int) -> object:
        chosen.append(spec)
        return real(spec, seed)

    monkeypatch.setattr(explore, "make_explorer_bot", spy)
    result = verify(_options(directory, None, examples=30, bots=("first",)))
    assert result.ok and 0 < len(chosen) < 30 and set(chosen) == {"first"}
    assert main([str(directory), "--bots", "nonsense", "--quiet"]) == 2
    assert "unknown bot kind 'nonsense'" in capsys.readouterr().err


# One player moves a token to one of twenty squares, or stops.
SQUARES = """
ruleset: squares
players: {min: 1, max: 1}
state:
  game:
    done: {type: bool}
  player:
    pos: {type: int, initial: "7"}
actions:
  move:
    params: {to: "between(1, 20)"}
    effect: me.pos = to
  stop:
    effect: game.done = true
flow:
  - repeat:
      until: game.done
      steps:
        - turn: {player: player_at(1), once: true}
"""


def _shares(directory: Path, plan: Plan, picked: Callable[[Action], bool]) -> float:
    from rulekit.load import load_program

    program = load_program(str(directory))
    explorer = Explorer(_options(directory, None), Checker(program, Stats()), [1])
    state = explorer.checker.start(1, 0)
    legal = state.legal_actions()
    rng = random.Random(0)
    draws = [explorer.choose(rng, state, legal, plan) for _ in range(3000)]
    return sum(1 for a in draws if picked(a)) / len(draws)


def test_a_game_drawing_kinds_first_is_not_crowded_out_by_many_instances(
    write_ruleset: Callable[..., Path],
) -> None:
    directory = write_ruleset(SQUARES)
    stop = lambda a: a.name == "stop"  # noqa: E731
    assert _shares(directory, Plan(), stop) < 0.1  # one of 21 actions
    assert _shares(directory, Plan(by_kind=True), stop) > 0.4  # one of 2 kinds


def test_an_aliasing_game_prefers_arguments_the_player_holds(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(SQUARES)
    onto_itself = lambda a: a.name == "move" and a.args == (7,)  # noqa: E731
    assert _shares(directory, Plan(), onto_itself) < 0.07  # one of 21
    assert _shares(directory, Plan(aliasing=True), onto_itself) > 0.12  # four times as likely


def test_a_counterexample_scenario_stays_valid_once_the_rules_are_fixed(tmp_path: Path) -> None:
    """Issue #19: the scenario's last action is 'rejected or the invariant holds after it', so a
    fix that makes it illegal (a cell can no longer be marked twice) passes the scenario."""
    from rulekit.tools.scenario import run_scenario

    result = verify(_options(PLANTED / "ttt_double_mark", tmp_path, players=2))
    example = result.counterexample
    assert example is not None and example.key.startswith("invariant:")
    scenario = next(p for p in example.files if p.suffix == ".yaml")
    text = scenario.read_text(encoding="utf-8")
    assert "may_reject: true" in text
    assert run_scenario(scenario).failures, "the scenario reproduces the bug"
    fixed = tmp_path / "fixed.yaml"
    shipped = str(ROOT / "rulesets" / "tic_tac_toe")
    fixed.write_text(text.replace(str(PLANTED / "ttt_double_mark"), shipped), encoding="utf-8")
    assert shipped in fixed.read_text(encoding="utf-8")
    assert run_scenario(fixed).failures == []
    # written without may_reject, the last action would fail on the fixed rules for the wrong reason
    strict = tmp_path / "strict.yaml"
    strict.write_text(fixed.read_text(encoding="utf-8").replace("may_reject: true", "may_reject: false"))
    assert run_scenario(strict).failures


def test_the_summary_names_the_longest_game_that_ended() -> None:
    result = verify(VerifyOptions("tic_tac_toe", examples=30, out=None))
    assert 5 <= result.stats.longest <= 9  # a game of tic-tac-toe has five to nine marks
    assert f"the longest game that ended took {result.stats.longest} actions" in result.stats.summary()


def test_shrinking_drops_whole_turns_and_players(write_ruleset: Callable[..., Path]) -> None:
    from rulekit.load import load_program
    from rulekit.tools.verify.shrink import Shrinker, find_failure

    directory = write_ruleset(COUNTER)
    checker = Checker(load_program(str(directory)), Stats(), focus="invariant:never_broken")
    # two players take turns (step, step, ...) and the second breaks the game on her fifth turn
    texts = ["step"] * 9 + ["rare"]
    failure = find_failure(checker, 2, 7, texts, "invariant:never_broken")
    assert failure is not None and failure.players == 2 and len(failure.history) == 10
    shrinker = Shrinker(checker, 30.0, 1)
    best = shrinker.shrink(failure)
    assert best.players == 1, "the same failure with one player fewer"
    assert [text for _, text in best.history] == ["rare"]
    assert shrinker.minimal
