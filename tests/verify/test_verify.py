"""``rulekit verify``: invariants, engine properties, shrinking, counterexample files, coverage."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.dsl.parser import parse_expression
from rulekit.engine.game import Game, State
from rulekit.load import load_program
from rulekit.tools.log import read_log, replay
from rulekit.tools.verify import (
    Checker,
    Stats,
    VerifyOptions,
    find_failure,
    format_counterexample,
    main,
    verify,
)

ROOT = Path(__file__).resolve().parents[2]
PLANTED = ROOT / "tests" / "fixtures" / "planted"

# (fixture directory, the invariant it breaks, the longest acceptable counterexample)
TIC_TAC_TOE_BUGS = [
    ("ttt_double_mark", "invariant:marks_balanced", 2),
    ("ttt_wrong_winner", "invariant:winner_has_a_line", 5),
]


def _options(ruleset: str | Path, tmp_path: Path | None = None, **kwargs: object) -> VerifyOptions:
    return VerifyOptions(
        ruleset=str(ruleset),
        examples=int(kwargs.pop("examples", 60)),  # type: ignore[call-overload]
        max_actions=int(kwargs.pop("max_actions", 100)),  # type: ignore[call-overload]
        out=tmp_path,
        **kwargs,  # type: ignore[arg-type]
    )


def test_verify_passes_on_tic_tac_toe() -> None:
    result = verify(_options("tic_tac_toe", examples=100))
    assert result.ok, format_counterexample(result.counterexample)  # type: ignore[arg-type]
    assert result.stats.games >= 50
    assert result.stats.invariant_checks >= result.stats.actions * len(result.program.invariants) > 0


def test_tic_tac_toe_declares_invariants() -> None:
    names = {i.decl.name for i in load_program("tic_tac_toe").invariants}
    assert {"marks_balanced", "winner_has_a_line"} <= names


@pytest.mark.parametrize(("fixture", "key", "longest"), TIC_TAC_TOE_BUGS)
def test_planted_bug_is_caught_with_a_short_one_minimal_counterexample(
    fixture: str, key: str, longest: int, tmp_path: Path
) -> None:
    ruleset = PLANTED / fixture
    result = verify(_options(ruleset, tmp_path))
    example = result.counterexample
    assert example is not None, f"{fixture}: the planted bug was not found"
    assert example.key == key
    assert 0 < len(example.actions) <= longest
    _assert_one_minimal(ruleset, example.players, example.seed, [a for _, a in example.actions], key)


def _assert_one_minimal(ruleset: Path | str, players: int, seed: int, texts: list[str], key: str) -> None:
    checker = Checker(load_program(str(ruleset)), Stats(), full=True)
    assert find_failure(checker, players, seed, texts, key) is not None, (
        "the counterexample does not reproduce"
    )
    for i in range(len(texts)):
        shorter = texts[:i] + texts[i + 1 :]
        assert find_failure(checker, players, seed, shorter, key) is None, f"action {i + 1} can be dropped"


@pytest.mark.parametrize(("fixture", "key", "longest"), TIC_TAC_TOE_BUGS)
def test_written_log_replays_to_the_violation(fixture: str, key: str, longest: int, tmp_path: Path) -> None:
    result = verify(_options(PLANTED / fixture, tmp_path))
    assert result.counterexample is not None
    log_path = next(p for p in result.counterexample.files if p.suffix == ".jsonl")
    log = read_log(log_path)
    assert log.header["players"] == result.counterexample.players
    assert [a for _, _, a in log.actions] == [a for _, a in result.counterexample.actions]
    state = replay(log_path, ruleset=str(PLANTED / fixture))
    name = key.split(":", 1)[1]
    invariant = next(i for i in result.program.invariants if i.decl.name == name)
    assert not invariant.check(state.fields, state.game.runtime, -1)


@pytest.mark.parametrize(("fixture", "key", "longest"), TIC_TAC_TOE_BUGS)
def test_written_scenario_reproduces_the_violation(
    fixture: str, key: str, longest: int, tmp_path: Path
) -> None:
    scenario = pytest.importorskip("rulekit.tools.scenario")
    result = verify(_options(PLANTED / fixture, tmp_path))
    assert result.counterexample is not None
    path = next(p for p in result.counterexample.files if p.suffix == ".yaml")
    outcome = scenario.run_scenario(path)
    assert not outcome.passed
    name = key.split(":", 1)[1]
    assert any(
        "expectation failed" in failure or f"invariant '{name}' fails" in failure
        for failure in outcome.failures
    ), outcome.failures
    # with the rules fixed (the real tic_tac_toe) the same scenario passes: its last action is
    # played if legal (the invariant then holds) or skipped if refused (ttt_double_mark's second mark)
    fixed = path.read_text(encoding="utf-8").replace(f"ruleset: {PLANTED / fixture}", "ruleset: tic_tac_toe")
    fixed_path = tmp_path / "fixed.yaml"
    fixed_path.write_text(fixed, encoding="utf-8")
    assert scenario.run_scenario(fixed_path).passed


def test_report_names_the_invariant_its_place_values_and_actions(tmp_path: Path) -> None:
    result = verify(_options(PLANTED / "ttt_double_mark", tmp_path))
    assert result.counterexample is not None
    text = format_counterexample(result.counterexample)
    assert "invariant 'marks_balanced' violated" in text
    assert "ttt_double_mark/ruleset.yaml:" in text
    assert "= -1" in text  # the value of the left side of the comparison
    first, second = (text for _, text in result.counterexample.actions)
    assert first == second and f"P1 {first}" in text and f"P2 {second}" in text


def test_an_effect_that_fails_on_an_offered_action_is_reported(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    directory = write_ruleset(
        """
ruleset: failing_effect
players: {min: 1, max: 1}
state:
  game:
    n: {type: int}
actions:
  bump:
    effect: |
      game.n += 1
      if game.n == 3:
          fail "three is too many"
flow:
  - repeat:
      times: 5
      steps:
        - turn: player_at(1)
"""
    )
    result = verify(_options(directory, tmp_path / "out"))
    example = result.counterexample
    assert example is not None
    assert example.key == "engine:legal-applies"
    assert "three is too many" in example.message
    assert [a for _, a in example.actions] == ["bump", "bump", "bump"]


def test_a_clone_that_differs_from_its_original_is_reported(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    original = State.clone

    def stale_clone(self: State) -> State:
        twin = original(self)
        twin.listed = list(self.legal_actions())[1:]  # the bug: a stale cache of legal actions
        return twin

    monkeypatch.setattr(State, "clone", stale_clone)
    result = verify(_options("tic_tac_toe", tmp_path))
    assert result.counterexample is not None
    assert result.counterexample.key == "engine:clone-independent"
    assert len(result.counterexample.actions) == 1


def test_a_lossy_json_round_trip_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    original = State.to_json

    def lossy(self: State) -> dict[str, object]:
        data = original(self)
        data["fields"] = [f for f in data["fields"] if f[1] != "winner"]
        return data

    monkeypatch.setattr(State, "to_json", lossy)
    result = verify(_options("tic_tac_toe", tmp_path))
    assert result.counterexample is not None
    assert result.counterexample.key == "engine:json-roundtrip"
    assert result.counterexample.actions == []


HIDDEN_DECK = """
ruleset: hidden_deck
players: {min: 2, max: 3}
state:
  game:
    current: {type: player, initial: "player_at(1)"}
    deck: {type: "list[int]", initial: "[1, 2, 3, 4, 5, 6]", visibility: hidden}
  player:
    hand: {type: "list[int]", visibility: owner}
setup: shuffle(game.deck)
actions:
  take:
    effect: draw(game.deck, me.hand, 1)
    ends_turn: true
flow:
  - repeat:
      while: len(game.deck) > 0
      steps:
        - for_each:
            in: players
            as: current
            steps:
              - turn: game.current
  - do: pass
"""


def test_views_of_hidden_information_hold_for_a_hidden_deck(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    directory = write_ruleset(HIDDEN_DECK)
    result = verify(_options(directory, tmp_path))
    assert result.ok, format_counterexample(result.counterexample)  # type: ignore[arg-type]


def test_a_view_that_leaks_hidden_order_is_reported(
    write_ruleset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    directory = write_ruleset(HIDDEN_DECK)
    original = State.view

    def leaky(self: State, player: int | None) -> dict[str, object]:
        shown = original(self, player)
        shown["leak"] = list(self.fields[("game", "deck")])
        return shown

    monkeypatch.setattr(State, "view", leaky)
    result = verify(_options(directory, tmp_path))
    assert result.counterexample is not None
    assert result.counterexample.key == "engine:view-hidden"
    assert result.counterexample.actions == []


def test_players_counts_are_explored_within_the_range(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    directory = write_ruleset(
        HIDDEN_DECK + "\ninvariants:\n  not_three:\n    holds: num_players < 3\n    message: three players\n"
    )
    result = verify(_options(directory, tmp_path))
    assert result.counterexample is not None
    assert result.counterexample.players == 3
    assert result.counterexample.actions == []
    only_two = verify(_options(directory, tmp_path, players=2))
    assert only_two.ok


def test_coverage_lists_what_never_fired_with_positions(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(
        """
ruleset: coverage_demo
players: {min: 1, max: 1}
state:
  game:
    n: {type: int}
actions:
  step:
    effect: game.n += 1
  jump:
    require:
      - if: game.n > 100
        else: only after a hundred steps
    effect: game.n += 10
triggers:
  never:
    after: step
    when: game.n < 0
    effect: game.n = 0
flow:
  - repeat:
      times: 4
      steps:
        - turn: {player: player_at(1), once: true}
"""
    )
    result = verify(_options(directory, None, coverage=True, examples=20))
    assert result.ok
    assert result.coverage is not None
    report = result.coverage.report()
    assert "never fired" in report
    assert "action 'jump'" in report and "trigger 'never'" in report
    assert "action 'step'" not in report.split("never fired:")[1].split("never")[0]
    never_true = report.split("never true:")[1]
    assert "only after a hundred steps" in never_true and "'when' of trigger 'never'" in never_true
    assert "ruleset.yaml:" in never_true


def test_coverage_names_if_branches_of_effects_never_taken(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(
        """
ruleset: branch_demo
players: {min: 1, max: 1}
state:
  game:
    n: {type: int}
actions:
  step:
    effect: |
      if game.n > 100:
          game.n = 0
      elif game.n >= 0:
          game.n += 1
      else:
          game.n = 1
flow:
  - repeat:
      times: 4
      steps:
        - turn: {player: player_at(1), once: true}
"""
    )
    result = verify(_options(directory, None, coverage=True, examples=5))
    assert result.ok and result.coverage is not None
    report = result.coverage.report()
    assert "1/3 branches taken" in report
    never = report.split("branches never taken:")[1]
    assert "ruleset.yaml:10:7: 'if' statement: branch 1 (if) was never taken" in never
    assert "ruleset.yaml:10:7: 'if' statement: its else (without one: no branch) was never taken" in never
    assert "branch 2 (elif)" not in never


def test_coverage_counts_conditional_expressions_and_procedure_ifs(
    write_ruleset: Callable[..., Path],
) -> None:
    directory = write_ruleset(
        """
ruleset: conditional_demo
players: {min: 1, max: 1}
state:
  game:
    n: {type: int}
functions:
  step_size:
    params: {x: int}
    body: "1 if x >= 0 else 2"
procedures:
  bump:
    body: |
      if game.n > 100:
          game.n = 0
actions:
  step:
    effect: |
      game.n += step_size(game.n)
      bump()
invariants:
  small: "(game.n if game.n < 0 else 0) == 0 and step_size(-1) == 2"
flow:
  - repeat:
      times: 4
      steps:
        - turn: {player: player_at(1), once: true}
"""
    )
    result = verify(_options(directory, None, coverage=True, examples=5))
    assert result.ok and result.coverage is not None
    report = result.coverage.report()
    # the function's conditional (2 outcomes) and the procedure's if (2 branches); the
    # invariant's conditional is not the game's rules and is not counted, nor is the branch
    # the invariant takes in the function (step_size(-1)): the game itself never takes it
    assert "2/4 branches taken" in report, report
    never = report.split("branches never taken:")[1]
    expected = "ruleset.yaml:10:12: conditional expression 'a if c else b': its 'else' value was never taken"
    assert expected in never
    assert "'if' value" not in never
    assert "ruleset.yaml:14:7: 'if' statement: branch 1 (if) was never taken" in never


def test_conditional_expressions_report_to_the_branch_hook_only_when_set() -> None:
    game = Game(load_program("tic_tac_toe"), 2)
    fn, _ = game.program.compile_function(parse_expression("1 if game.winner != none else 2"), me=False)
    state = game.new_initial_state(0)
    taken: list[int] = []
    assert fn(state.fields, game.runtime, -1) == 2
    game.runtime.branch = lambda span, index: taken.append(index)
    assert fn(state.fields, game.runtime, -1) == 2
    assert taken == [1]


def test_if_branch_hook_is_off_outside_verify() -> None:
    assert Game(load_program("tic_tac_toe"), 2).runtime.branch is None


def test_returns_that_break_ties_by_seat_are_an_engine_violation(monkeypatch: pytest.MonkeyPatch) -> None:
    # a returns() that favours the lower seat whenever the standings tie (a draw)
    def by_seat(state: State) -> list[float]:
        return [1.0] + [-1.0] * (state.game.num_players - 1)

    monkeypatch.setattr(State, "returns", by_seat)
    result = verify(_options("tic_tac_toe", None, examples=30))
    example = result.counterexample
    assert example is not None and example.key == "engine:seat-blind-returns"
    assert "gets 1.0 but P2" in example.message or "gets -1.0 but P1" in example.message


def test_coverage_of_tic_tac_toe_reaches_everything() -> None:
    result = verify(_options("tic_tac_toe", None, coverage=True, examples=100))
    assert result.ok and result.coverage is not None
    assert result.coverage.never_fired() == []
    assert "every action, trigger and condition was reached both ways" in result.coverage.report()


def test_coverage_does_not_change_the_shared_program() -> None:
    program = load_program("tic_tac_toe")
    before = program.actions["place"].requires, program.triggers[0].condition
    verify(_options("tic_tac_toe", None, coverage=True, examples=5))
    assert (program.actions["place"].requires, program.triggers[0].condition) == before


def test_cli_exit_codes_and_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tic_tac_toe", "--examples", "30", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "verify tic_tac_toe: OK" in out
    assert "games/min" in out and "actions/min" in out
    code = main([str(PLANTED / "ttt_double_mark"), "--examples", "30", "--quiet", "--out", str(tmp_path)])
    assert code == 1
    out = capsys.readouterr().out
    assert "invariant 'marks_balanced' violated" in out
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".jsonl", ".yaml"]
    header = json.loads((next(tmp_path.glob("*.jsonl"))).read_text().splitlines()[0])
    assert header["rulekit_log"] == 1 and header["players"] == 2


def test_cli_reports_a_missing_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no_such_ruleset", "--quiet"]) == 1
    assert "no ruleset 'no_such_ruleset'" in capsys.readouterr().err


def test_the_same_seed_gives_the_same_exploration() -> None:
    first = verify(_options(PLANTED / "ttt_wrong_winner", None, seed=3))
    second = verify(_options(PLANTED / "ttt_wrong_winner", None, seed=3))
    assert first.counterexample is not None and second.counterexample is not None
    assert first.counterexample.actions == second.counterexample.actions


def test_coverage_says_how_close_a_condition_never_true_came(write_ruleset: Callable[..., Path]) -> None:
    directory = write_ruleset(
        """
ruleset: closeness_demo
players: {min: 2, max: 2}
state:
  game:
    n: {type: int}
    big: {type: bool}
  player:
    steps: {type: int}
events:
  stepped: {who: player}
actions:
  step:
    effect: |
      me.steps += 1
      game.n += 1
      emit stepped(who=me)
    ends_turn: true
triggers:
  far_away:
    after: stepped
    when: "who.steps >= 10 and game.n > 0"
    effect: game.big = true
flow:
  - repeat:
      times: 3
      steps:
        - turn: player_at(1)
        - turn: player_at(2)
"""
    )
    result = verify(_options(directory, None, coverage=True, examples=5))
    assert result.ok and result.coverage is not None
    never_true = result.coverage.report().split("never true:")[1]
    # each player steps three times: who.steps reaches 3 of the 10 needed; game.n > 0 holds
    assert "closest: who.steps >= 10 came to 3 >= 10)" in never_true


def test_distance_is_how_far_a_comparison_is_from_true() -> None:
    from rulekit.tools.verify.closeness import distance

    assert distance(">=", 7, 9) == 2 and distance(">=", 9, 9) == 0
    assert distance(">", 9, 9) == 1 and distance("<", 3, 3) == 1
    assert distance("<=", 5, 3) == 2 and distance("==", 2, 5) == 3


def test_coverage_counts_requirements_that_the_planned_listing_checks_inline() -> None:
    result = verify(_options("el_capitan", None, coverage=True, examples=2, players=3, max_actions=1000))
    assert result.ok and result.coverage is not None
    supply = next(
        c for k, c in result.coverage.conditions.items() if k.startswith("require:build_warehouse:")
    )
    # every listing of build_warehouse evaluates its requirements: many times in two games
    assert supply.true + supply.false > 50, supply
