"""rulekit simulate: the statistics helpers, the report, --against, --json and the exit statuses."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable

import pytest

from rulekit.cli import main
from rulekit.load import load_game
from rulekit.tools.bots import make_bots, play_game
from rulekit.tools.simulate import (
    Config,
    intervals_overlap,
    mean_interval,
    simulate,
    wilson_interval,
)
from rulekit.tools.simulate.report import rate

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    def run_(*argv: str) -> tuple[int, str, str]:
        status = main(["simulate", *argv])
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run_


def _without_timing(report: str) -> str:
    return "\n".join(line for line in report.splitlines() if not line.startswith("speed: "))


# ---------------------------------------------------------------- statistics


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        # Newcombe (1998), Statistics in Medicine 17:857-872, table I, method 3 (Wilson score).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        # symmetric cases
        (5, 10, 0.2366, 0.7634),
        (10, 10, 0.7225, 1.0),
    ],
)
def test_wilson_interval_matches_published_values(
    successes: int, trials: int, low: float, high: float
) -> None:
    got_low, got_high = wilson_interval(successes, trials)
    assert got_low == pytest.approx(low, abs=5e-5)
    assert got_high == pytest.approx(high, abs=5e-5)


def test_wilson_interval_takes_shared_wins_and_knows_nothing_without_trials() -> None:
    low, high = wilson_interval(2.5, 5)
    assert low == pytest.approx(1 - high)  # 2.5 of 5 is symmetric around 0.5
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(4, 3)


def test_mean_interval_is_the_normal_approximation() -> None:
    mean, low, high = mean_interval([1, 2, 3, 4])
    half = 1.96 * math.sqrt(5 / 3) / 2  # sample variance of 1..4 is 5/3
    assert (mean, low, high) == pytest.approx((2.5, 2.5 - half, 2.5 + half))
    assert mean_interval([7]) == (7, -math.inf, math.inf)
    assert mean_interval([3, 3, 3]) == (3, 3, 3)
    with pytest.raises(ValueError):
        mean_interval([])


def test_intervals_overlap_including_touching_ends() -> None:
    assert intervals_overlap((0.1, 0.3), (0.3, 0.5))
    assert intervals_overlap((0.1, 0.6), (0.2, 0.3))
    assert not intervals_overlap((0.1, 0.2), (0.25, 0.5))
    assert not intervals_overlap((0.25, 0.5), (0.1, 0.2))


# ---------------------------------------------------------------- simulating


def test_win_rates_add_up_to_one_with_shared_wins() -> None:
    game = load_game("tic_tac_toe", 2)
    sim = simulate(game, Config("tic_tac_toe"), games=60, seed=3)
    assert sim.finished == 60 and sim.cut_off == 0
    assert sim.shared_first > 0  # some draws: both players share first place
    rates = [r.win_rate for r in sim.seat_results()]
    assert all(r is not None for r in rates)
    assert math.fsum(r for r in rates if r is not None) == pytest.approx(1.0)
    assert len(sim.lengths) == 60 and min(sim.lengths) >= 5


def test_win_rates_add_up_to_one_in_el_caballero() -> None:
    game = load_game("el_caballero", 2)
    sim = simulate(game, Config("el_caballero"), games=2, seed=0)
    assert math.fsum(sim.wins) == pytest.approx(sim.finished)


def test_game_i_is_the_game_rulekit_play_plays_with_seed_s_plus_i() -> None:
    game = load_game("tic_tac_toe", 2)
    sim = simulate(game, Config("tic_tac_toe"), games=4, seed=10)
    for i in range(4):
        played = play_game(game, 10 + i, make_bots(game, "random", 10 + i))
        assert [sim.scores[seat][i] for seat in range(2)] == played.state.scores()
        assert sim.lengths[i] == len(played.log.actions)


def test_the_same_seed_gives_the_same_report(run: Run) -> None:
    first = run("tic_tac_toe", "--games", "40", "--seed", "5", "--against", "--variant", "misere")
    second = run("tic_tac_toe", "--games", "40", "--seed", "5", "--against", "--variant", "misere")
    assert first[0] == second[0] == 0
    assert _without_timing(first[1]) == _without_timing(second[1])
    other = run("tic_tac_toe", "--games", "40", "--seed", "6")
    assert "(seeds 6-45)" in other[1]


def test_the_same_seed_gives_the_same_json(run: Run) -> None:
    def figures() -> dict[str, object]:
        status, out, _ = run("el_capitan", "--players", "3", "--games", "2", "--seed", "1", "--json")
        assert status == 0
        data = json.loads(out)
        for config in data["configurations"]:
            del config["timing"]
        return dict(data)

    assert figures() == figures()


def test_a_single_configuration_report(run: Run) -> None:
    status, out, err = run("tic_tac_toe", "--games", "30")
    assert status == 0
    assert err == ""  # no progress when stderr is not a terminal
    assert out.startswith("tic_tac_toe: 2 players, 30 games per configuration (seeds 0-29), random bots")
    assert "a win shared by k players tied for first counts 1/k for each" in out
    for text in ("P1  ", "P2  ", "games finished / cut off", "30 / 0", "mean winning score", "tie for first"):
        assert text in out
    assert "balance (1 - largest win-rate gap)" in out
    assert "B - A" not in out
    assert out.rstrip().splitlines()[-1].startswith("speed: ")


def test_against_a_variant_prints_both_columns_and_the_differences(run: Run) -> None:
    status, out, _ = run("tic_tac_toe", "--games", "100", "--against", "--variant", "misere")
    assert status == 0
    assert "  A: tic_tac_toe  (fingerprint " in out
    assert "  B: tic_tac_toe + variant misere  (fingerprint " in out
    rate_table = out.split("win rate")[1].split("mean score")[0].splitlines()
    header = next(line for line in rate_table if "B - A" in line)
    assert header.split() == ["A", "B", "B", "-", "A"]
    p1 = next(line for line in rate_table if line.startswith("P1"))
    assert p1.count("%") == 2 and " pts" in p1
    # with random bots, misère swaps who wins: a large, significant change for both seats
    assert p1.rstrip().endswith("*")
    assert "conservative test" in out
    assert out.count("balance") == 1


def test_against_takes_its_own_modules_and_json_after_it(run: Run) -> None:
    status, out, _ = run(
        "el_capitan", "--players", "3", "--games", "1", "--with", "lisboa", "--against", "--with", "lisboa",
        "--variant", "rich_start", "--json",
    )  # fmt: skip
    assert status == 0
    data = json.loads(out)
    a, b = data["configurations"]
    assert (a["modules"], a["variants"]) == (["lisboa"], [])
    assert (b["modules"], b["variants"]) == (["lisboa"], ["rich_start"])
    assert [d["seat"] for d in data["differences"]] == ["P1", "P2", "P3"]
    assert set(data["differences"][0]) == {
        "seat",
        "win_rate",
        "win_rate_significant",
        "mean_score",
        "mean_score_significant",
    }


def test_json_has_the_figures(run: Run) -> None:
    status, out, _ = run("tic_tac_toe", "--games", "20", "--json")
    assert status == 0
    data = json.loads(out)
    assert (data["players"], data["games"], data["seeds"], data["bot"]) == (2, 20, [0, 19], "random")
    (config,) = data["configurations"]
    assert config["finished"] + config["cut_off"] == 20
    seats = config["seats"]
    assert [s["seat"] for s in seats] == ["P1", "P2"]
    assert sum(s["win_rate"] for s in seats) == pytest.approx(1.0)
    low, high = seats[0]["win_rate_95"]
    assert low <= seats[0]["win_rate"] <= high
    assert set(config["length"]) == {"mean", "min", "max"}
    assert 0 <= config["balance"] <= 1
    assert config["timing"]["games_per_second"] > 0
    assert "differences" not in data


def test_games_cut_off_are_counted_and_left_out(run: Run) -> None:
    status, out, _ = run("tic_tac_toe", "--games", "5", "--max-actions", "3")
    assert status == 0
    assert "0 / 5" in out
    assert "n/a" in out
    status, out, _ = run("tic_tac_toe", "--games", "5", "--max-actions", "3", "--json")
    config = json.loads(out)["configurations"][0]
    assert config["cut_off"] == 5 and config["seats"][0]["win_rate"] is None and config["balance"] is None


def test_progress_goes_to_stderr_only_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["simulate", "tic_tac_toe", "--games", "3"]) == 0
    assert "simulating 3/3 games" in terminal.getvalue()
    assert "simulating" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "status", "message"),
    [
        (["--players", "3"], 1, "Tic-tac-toe is for 2-2 players, not 3"),
        (["--variant", "no_such_variant"], 1, "no variant file"),
        (["--against", "--variant", "no_such_variant"], 1, "no variant file"),
        (["--games", "0"], 2, "--games must be at least 1"),
        (["--max-actions", "0"], 2, "--max-actions must be at least 1"),
        (["--against", "--variant", "misere", "--games", "3"], 2, "unknown arguments after --against"),
        (["--bot", "clever"], 2, "unknown bot kind 'clever'"),
        (["--games", "many"], 2, "invalid int value"),
    ],
)
def test_exit_statuses(run: Run, argv: list[str], status: int, message: str) -> None:
    got, out, err = run("tic_tac_toe", *argv)
    assert got == status
    assert out == ""
    assert message in err
    assert "Traceback" not in err


def test_a_slow_run_still_shows_its_speed() -> None:
    assert [rate(x) for x in (5217.04, 3.46, 0.019, 0.0)] == ["5,217.0", "3.5", "0.019", "0.0"]


def test_a_ruleset_given_as_the_current_directory_is_named_by_its_folder(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rulekit.rules.compose import find_ruleset

    monkeypatch.chdir(find_ruleset("tic_tac_toe"))
    status, out, _ = run(".", "--games", "2", "--workers", "1")
    assert status == 0
    first, second = out.splitlines()[:2]
    assert first.startswith("tic_tac_toe: 2 players")
    assert second.strip().startswith("tic_tac_toe  (fingerprint")
