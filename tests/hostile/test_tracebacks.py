"""Inputs that used to end in a traceback (exit 3) are user errors: exit 1 with a position."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import printable
from tests.hostile.conftest import Run, assert_refused


def _with_setup(ruleset: Callable[[str], Path], setup: str) -> Path:
    return ruleset(f"setup: {json.dumps(setup)}\n")


@pytest.mark.parametrize(
    "expression",
    [
        "(" * 300 + "1 + (" * 100 + "1" + ")" * 400,
        " + ".join(["1"] * 500),
        "x where x = " * 200 + "1",
        "1 if true else " * 600 + "1",
        "-" * 1000 + "1",
        "[" * 250 + "1" + "]" * 250,
    ],
    ids=["parentheses", "long_sum", "nested_where", "nested_if_else", "negations", "lists"],
)
def test_deeply_nested_dsl_is_a_located_error(
    run: Run, ruleset: Callable[[str], Path], expression: str
) -> None:
    """Nesting past the limit is refused where it is written, before Python's compiler sees it."""
    status, _, err = run("check", str(_with_setup(ruleset, f"game.n = {expression}")))
    assert_refused(status, err)


def test_deeply_nested_yaml_is_a_located_error(run: Run, ruleset: Callable[[str], Path]) -> None:
    """5000 nested YAML lists: refused with a position, not a RecursionError."""
    status, _, err = run("check", str(ruleset("constants:\n  A: " + "[" * 5000 + "]" * 5000 + "\n")))
    assert_refused(status, err)
    assert "nested" in err


@pytest.mark.parametrize("value", ["9" * 5000, "-" + "9" * 5000])
def test_a_huge_integer_in_yaml_is_a_located_error(
    run: Run, ruleset: Callable[[str], Path], value: str
) -> None:
    """Integers beyond Python's conversion limit are refused at their position."""
    status, _, err = run("check", str(ruleset(f"constants:\n  BIG: {value}\n")))
    assert_refused(status, err)
    assert "too large" in err


@pytest.mark.parametrize("segment", ["²", "9" * 5000])
def test_odd_digits_in_a_variant_path_are_a_located_error(run: Run, tmp_path: Path, segment: str) -> None:
    """A superscript digit or a 5000-digit index in a variant path does not crash int()."""
    variant = tmp_path / "v.yaml"
    variant.write_text(f"variant: v\nruleset: tic_tac_toe\nset:\n  constants.LINES.{segment}: [a1, b1, c1]\n")
    status, _, err = run("check", "tic_tac_toe", "--variant", str(variant))
    assert status == 1, err
    assert "Traceback" not in err


@pytest.mark.parametrize("name", ['"a\\0b"', '"a\\ud800b"', '"\\e[31mred"'])
def test_control_characters_and_surrogates_in_the_ruleset_name_are_refused(
    run: Run, ruleset: Callable[[str], Path], name: str
) -> None:
    """NUL, a lone surrogate or an escape code in the ruleset name is a located error."""
    rules = ruleset("")
    text = (
        (rules / "ruleset.yaml").read_text(encoding="utf-8").replace("ruleset: hostile", f"ruleset: {name}")
    )
    (rules / "ruleset.yaml").write_text(text, encoding="utf-8")
    status, _, err = run("check", str(rules))
    assert_refused(status, err)
    assert "\x1b" not in err


@pytest.mark.parametrize(
    "scoring",
    [
        "scoring:\n  score: 1 // (game.n - game.n)\n",
        "scoring:\n  score: '0'\n  tiebreak: [1 % (game.n - game.n)]\n",
        "functions:\n  nothing: none\nscoring:\n  score: nothing()\n",
    ],
    ids=["score_divides_by_zero", "tiebreak_divides_by_zero", "score_is_none"],
)
def test_a_failing_score_or_tiebreak_is_a_located_rule_error(
    run: Run, ruleset: Callable[[str], Path], scoring: str
) -> None:
    """Scores and tie-breaks run under the engine's error handling: exit 1 naming the rule."""
    status, _, err = run("play", str(ruleset(scoring)), "--quiet")
    assert_refused(status, err)
    assert "the standings failed" in err or "the scores failed" in err


@pytest.mark.parametrize(
    "weights",
    [
        "bots:\n  weights:\n    go: 1 // game.n\n",
        "functions:\n  nothing: none\nbots:\n  weights:\n    go: nothing()\n",
    ],
    ids=["divides_by_zero", "is_none"],
)
def test_a_failing_bot_weight_is_a_located_rule_error(
    run: Run, ruleset: Callable[[str], Path], weights: str
) -> None:
    """A bot weight that divides by zero or is none is reported at the weight, not as a traceback."""
    status, _, err = run("play", str(ruleset(weights)), "--quiet")
    assert_refused(status, err)
    assert "bot weight" in err


def test_a_rule_failing_inside_setup_points_at_the_rule(run: Run, ruleset: Callable[[str], Path]) -> None:
    """player_at(5) in a 2-player game fails inside setup with the setup's position."""
    status, _, err = run("play", str(_with_setup(ruleset, "game.n = seat(player_at(5))")), "--quiet")
    assert_refused(status, err)
    assert "setup failed" in err


@pytest.mark.parametrize(
    "action",
    ["place(" + "(" * 3000 + ")" * 3000 + ")", "place(" + "9" * 5000 + ")", "place(" + '"\x1b[2J"' + ")"],
    ids=["nested_parentheses", "huge_integer", "escape_code"],
)
def test_hostile_action_text_in_a_log_is_a_located_error(run: Run, tmp_path: Path, action: str) -> None:
    """Action text from a log is parsed with depth and digit limits; escape codes are not printed raw."""
    run("play", "tic_tac_toe", "--quiet", "--log", str(tmp_path / "good.jsonl"))
    header = (tmp_path / "good.jsonl").read_text(encoding="utf-8").splitlines()[0]
    log = tmp_path / "bad.jsonl"
    log.write_text(header + "\n" + json.dumps({"player": "P1", "action": action}) + "\n", encoding="utf-8")
    status, _, err = run("replay", str(log))
    assert_refused(status, err)
    assert "\x1b" not in err


def test_hostile_action_text_in_a_scenario_is_reported(run: Run, tmp_path: Path) -> None:
    """A scenario's actions go through the same parser: a failure, not a traceback."""
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "scenario: deep\nruleset: tic_tac_toe\nactions: ['place(" + "(" * 3000 + ")" * 3000 + ")']\n",
        encoding="utf-8",
    )
    status, out, err = run("scenario", str(scenario))
    assert status == 1, out + err
    assert "Traceback" not in out + err


def test_a_deeply_nested_scenario_expectation_is_reported(run: Run, tmp_path: Path) -> None:
    """An expectation nested 3000 deep is a located failure, not a RecursionError."""
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "scenario: deep\nruleset: tic_tac_toe\nexpect: ['" + "[" * 3000 + "1" + "]" * 3000 + " != none']\n",
        encoding="utf-8",
    )
    status, out, err = run("scenario", str(scenario))
    assert status == 1, out + err
    assert "Traceback" not in out + err


def test_an_included_section_merged_into_a_non_mapping_is_a_located_error(
    run: Run, ruleset: Callable[[str], Path]
) -> None:
    """Found by the fuzzer: an included file's invariants merged into 'invariants: text'."""
    rules = ruleset("include: [extra.yaml]\ninvariants: are\n")
    (rules / "extra.yaml").write_text("invariants:\n  fine: 'true'\n", encoding="utf-8")
    status, _, err = run("check", str(rules))
    assert_refused(status, err)
    assert "must be a mapping of names" in err


def test_hostile_answers_in_human_play_are_refused_and_play_goes_on() -> None:
    """A superscript digit, a 5000-digit number or 3000 nested parentheses typed at the prompt."""
    from rulekit.load import load_game
    from rulekit.tools.bots import make_bots
    from rulekit.tools.human import play_human

    game = load_game("tic_tac_toe", 2)
    answers = iter(["²", "9" * 5000, "place(" + "(" * 3000 + ")" * 3000 + ")", "q"])
    shown: list[str] = []
    status = play_human(
        game,
        0,
        make_bots(game, "random", 0),
        seed=0,
        max_actions=9,
        read=lambda _: next(answers),
        write=shown.append,
    )
    assert status == 0
    assert "you quit the game" in shown


@pytest.mark.parametrize(
    ("lines", "position"),
    [
        ("ruleset: tic_tac_to-\n", ":2:10: error: no ruleset 'tic_tac_to-'"),
        ("ruleset: tic_tac_toe\nmodules: [nope]\n", ":3:11: error: unknown module 'nope'"),
        ("ruleset: tic_tac_toe\nvariants: [misere, nope]\n", ":3:20: error: no variant file 'nope'"),
    ],
    ids=["ruleset", "module", "variant"],
)
def test_an_unknown_name_in_a_scenario_points_at_its_entry(
    run: Run, tmp_path: Path, lines: str, position: str
) -> None:
    """Found by the fuzzer: a misspelt ruleset, module or variant name in a scenario was an
    error without a position."""
    scenario = tmp_path / "s.yaml"
    scenario.write_text(f"scenario: s\n{lines}actions: [place(a1)]\n", encoding="utf-8")
    status, out, err = run("scenario", str(scenario))
    assert status == 1, out + err
    assert f"{scenario}{position}" in out


@pytest.mark.parametrize(
    "line",
    [
        "expect_standings: none",
        "expect_standings: [none, 3]",
        "expect_winners: none",
        "expect_scores: [P1]",
        "expect_terminal: none",
    ],
)
def test_an_end_expectation_of_the_wrong_shape_is_a_located_failure(
    run: Run, tmp_path: Path, line: str
) -> None:
    """Found by the fuzz campaign: ``expect_standings: none`` after a finished game was a
    TypeError (exit 3) while the failure message was built."""
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "scenario: s\nruleset: tic_tac_toe\n"
        "actions: [place(a1), place(b1), place(a2), place(b2), place(a3)]\n" + line + "\n",
        encoding="utf-8",
    )
    status, out, err = run("scenario", str(scenario))
    assert status == 1, out + err
    assert "Traceback" not in out + err
    assert f"{scenario}:4:" in out, out


@pytest.mark.parametrize("operation", ["replace", "add"])
@pytest.mark.parametrize("value", ["3", "true", "[a, b]"])
def test_a_section_that_is_not_a_mapping_is_located_at_its_key(
    run: Run, tmp_path: Path, operation: str, value: str
) -> None:
    """A variant's (or module's) section given a number, a flag or a list: the error points at the
    list, or at the section's key for a number or a flag, which carry no position of their own
    (found by the fuzz campaign: an error without a position)."""
    variant = tmp_path / "v.yaml"
    variant.write_text(
        f"variant: v\nruleset: tic_tac_toe\n{operation}:\n  invariants: {value}\n", encoding="utf-8"
    )
    status, _, err = run("check", "tic_tac_toe", "--variant", str(variant))
    assert_refused(status, err)
    column = 15 if value.startswith("[") else 3
    assert f"v.yaml:4:{column}: error:" in err and "'invariants' must be a mapping of names" in err


@pytest.mark.parametrize(
    "action",
    ["place(a3)\x1b[31m\x07\x00", "\ud800place(a3)", 'place("\x1b]0;owned\x07")'],
    ids=["escape_bell_nul", "lone_surrogate", "escape_in_a_quoted_text"],
)
def test_replay_force_escapes_hostile_action_text_like_replay(run: Run, tmp_path: Path, action: str) -> None:
    """``replay --force`` prints a log's action text escaped exactly as plain ``replay`` does
    (no raw ESC, BEL, NUL or lone surrogate reaches the terminal) and reports the line: exit 1."""
    run("play", "tic_tac_toe", "--quiet", "--log", str(tmp_path / "good.jsonl"))
    header = (tmp_path / "good.jsonl").read_text(encoding="utf-8").splitlines()[0]
    log = tmp_path / "bad.jsonl"
    log.write_text(header + "\n" + json.dumps({"player": "P1", "action": action}) + "\n", encoding="utf-8")
    _, _, plain = run("replay", str(log))
    status, out, err = run("replay", "--force", str(log))
    assert status == 1, err
    assert "line 2" in out
    for raw in ("\x1b", "\x07", "\x00", "\ud800"):
        assert raw not in out + err
    assert printable(action) in out
    assert printable(action) in plain


@pytest.mark.parametrize(
    "entry",
    ['"modules": ["\\ud800"]', '"ruleset": "tic\\udfff"', '"source": "\\ud800"', '"extra": {"\\ud800": 1}'],
)
def test_a_lone_surrogate_in_a_log_header_is_a_located_error(run: Run, tmp_path: Path, entry: str) -> None:
    """Found by the fuzz campaign (log seed 11376189): a module named ``"\\ud800"`` reached the
    program cache's key and failed to encode (exit 3)."""
    header = (
        '{"rulekit_log": 1, "ruleset": "tic_tac_toe", "modules": [], "variants": [], '
        '"fingerprint": "3861da27288e965c", "players": 2, "seed": 5, ' + entry + "}"
    )
    header = header.replace('"modules": [], ', "", 1) if '"modules"' in entry else header
    header = header.replace('"ruleset": "tic_tac_toe", ', "", 1) if '"ruleset"' in entry else header
    log = tmp_path / "surrogate.jsonl"
    log.write_text(header + '\n{"player": "P1", "action": "place(a2)"}\n', encoding="utf-8")
    status, _, err = run("replay", str(log))
    assert_refused(status, err)
    assert "not valid Unicode" in err


@pytest.mark.parametrize("panels", ["[7, null]", "5", "[]\n  winner_has_a_line: 3"])
def test_a_display_panel_that_is_not_a_mapping_is_a_located_error(
    run: Run, ruleset: Callable[[str], Path], panels: str
) -> None:
    """Found by the fuzz campaign (rules seed 11625844): a number in display.panels has no span
    of its own, and the error had no position."""
    status, _, err = run("check", str(ruleset(f"display:\n  panels: {panels}\n")))
    assert_refused(status, err)
