"""Author text never becomes Python code: names and values that would run code are refused where written."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulekit.compiler import emit
from rulekit.errors import RulekitError
from rulekit.load import load_program
from rulekit.rules.yaml_source import dump_text
from tests.hostile.conftest import Run, assert_refused, shell_payload


def test_a_function_parameter_name_with_a_default_value_is_refused_and_never_run(
    run: Run, ruleset: Callable[[str], Path], marker: Path
) -> None:
    """A parameter key ``x=<code>`` would become a default argument of a generated def."""
    rules = ruleset(f'functions:\n  f:\n    params:\n      "x={shell_payload(marker)}": int\n    body: "1"\n')
    status, _, err = run("check", str(rules))
    assert_refused(status, err)
    assert "parameter 'x=" in err and "is not a valid name" in err
    assert not marker.exists()


def test_an_event_field_name_with_code_is_refused_and_never_run(
    run: Run, ruleset: Callable[[str], Path], marker: Path
) -> None:
    """An event field key reaches the generated trigger's def line when a trigger listens to it."""
    rules = ruleset(
        f'events:\n  boom:\n    "who=0, z={shell_payload(marker)}": int\n'
        "triggers:\n  t:\n    after: boom\n    effect: game.n += 1\n"
    )
    status, _, err = run("check", str(rules))
    assert_refused(status, err)
    assert "event field" in err
    assert not marker.exists()


def _rename(rules: Path, old: str, new: str) -> None:
    text = (rules / "ruleset.yaml").read_text(encoding="utf-8")
    (rules / "ruleset.yaml").write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize(
    ("extra", "old", "new"),
    [
        ('functions:\n  "f\\n": "1"\n', "", ""),
        ('events:\n  "e\\n": {}\n', "", ""),
        ('constants:\n  "K\\n": 1\n', "", ""),
        ("", "  go:\n", '  "go\\n":\n'),
        ("", "    n: {type", '    "m\\n": {type: int}\n    n: {type'),
    ],
    ids=["function", "event", "constant", "action", "field"],
)
def test_a_name_with_a_trailing_newline_is_refused(
    run: Run, ruleset: Callable[[str], Path], extra: str, old: str, new: str
) -> None:
    """``$`` in a regex accepts a final newline; names are checked by a full match."""
    rules = ruleset(extra)
    if old:
        _rename(rules, old, new)
    status, _, err = run("check", str(rules))
    assert_refused(status, err)
    assert "is not a valid name" in err


@pytest.mark.parametrize("value", [".inf", "-.inf", ".nan", "1.0e+309"])
def test_a_non_finite_initial_value_is_refused(run: Run, ruleset: Callable[[str], Path], value: str) -> None:
    """``inf`` and ``nan`` have no literal: they would become Python names in generated code."""
    rules = ruleset("")
    _rename(rules, "initial: 0", f"initial: {value}")
    status, _, err = run("check", str(rules))
    assert_refused(status, err)
    assert "finite" in err


def test_a_variant_cannot_add_a_function_whose_parameter_runs_code(
    run: Run, tmp_path: Path, marker: Path
) -> None:
    """A variant of a bundled ruleset goes through the same checks as the ruleset itself."""
    variant = tmp_path / "evil.yaml"
    variant.write_text(
        "variant: evil\nruleset: tic_tac_toe\nadd:\n  functions:\n    f:\n      params:\n"
        f'        "x={shell_payload(marker)}": int\n      body: "1"\n'
    )
    for command in (["check", "tic_tac_toe"], ["rules", "tic_tac_toe"], ["play", "tic_tac_toe", "--quiet"]):
        status, _, err = run(*command, "--variant", str(variant))
        assert_refused(status, err)
    assert not marker.exists()


def test_a_scenario_naming_an_evil_variant_fails_without_running_it(
    run: Run, tmp_path: Path, marker: Path
) -> None:
    """A scenario's ``variants:`` are loaded with the same checks (no PASS, no code run)."""
    variant = tmp_path / "evil.yaml"
    variant.write_text(
        "variant: evil\nruleset: tic_tac_toe\nadd:\n  events:\n    e:\n"
        f'      "x={shell_payload(marker)}": int\n'
    )
    scenario = tmp_path / "s.yaml"
    scenario.write_text(f"scenario: one\nruleset: tic_tac_toe\nvariants: [{variant}]\nactions: [place(a1)]\n")
    status, out, err = run("scenario", str(scenario))
    assert status == 1, out + err
    assert "PASS" not in out
    assert "is not a valid name" in out + err
    assert not marker.exists()


@pytest.mark.parametrize(
    "command",
    [["replay"], ["replay", "--html", "page.html"], ["render", "-o", "board.svg"]],
    ids=["replay", "replay_html", "render"],
)
def test_replay_never_loads_rules_from_a_path_named_only_in_the_log(
    run: Run, ruleset: Callable[[str], Path], tmp_path: Path, marker: Path, command: list[str]
) -> None:
    """A header's ``source`` pointing at a stranger's rules is refused by every command that
    reads a log; the rules must be named."""
    rules = ruleset(f'functions:\n  f:\n    params:\n      "x={shell_payload(marker)}": int\n    body: "1"\n')
    log = tmp_path / "game.jsonl"
    header = {
        "rulekit_log": 1,
        "ruleset": "hostile",
        "source": str(rules),
        "modules": [],
        "variants": [],
        "fingerprint": "0000000000000000",
        "players": 2,
        "seed": 0,
    }
    log.write_text(json.dumps(header) + "\n")
    status, _, err = run(command[0], str(log), *command[1:])
    assert_refused(status, err)
    assert "--ruleset" in err
    assert not marker.exists()
    if len(command) > 1:
        assert not (tmp_path / command[-1]).exists()  # no page or picture was written


def test_replay_checks_the_fingerprint_before_compiling(
    run: Run, ruleset: Callable[[str], Path], tmp_path: Path
) -> None:
    """Rules named with --ruleset that differ from the log's are refused before they are compiled."""
    rules = ruleset('functions:\n  f: "1 // 0 + undefined_name"\n')
    log = tmp_path / "game.jsonl"
    header = {
        "rulekit_log": 1,
        "ruleset": "hostile",
        "fingerprint": "0000000000000000",
        "players": 2,
        "seed": 0,
    }
    log.write_text(json.dumps(header) + "\n")
    status, _, err = run("replay", str(log), "--ruleset", str(rules))
    assert_refused(status, err)
    assert "the rules changed" in err
    assert "unknown name" not in err  # the checker never ran


def test_a_header_variant_path_outside_the_ruleset_is_refused(run: Run, tmp_path: Path) -> None:
    """Variant files named in a log header load only when shipped with the ruleset or named with --variant."""
    variant = tmp_path / "house.yaml"
    variant.write_text("variant: house\nruleset: tic_tac_toe\nset:\n  constants.LINES: [[a1, b1, c1]]\n")
    log = tmp_path / "game.jsonl"
    header = {
        "rulekit_log": 1,
        "ruleset": "tic_tac_toe",
        "variants": [{"path": str(variant), "fingerprint": "x"}],
        "fingerprint": "0",
        "players": 2,
        "seed": 0,
    }
    log.write_text(json.dumps(header) + "\n")
    status, _, err = run("replay", str(log))
    assert_refused(status, err)
    assert "--variant" in err


@pytest.mark.parametrize("ruleset_name", ["tic_tac_toe", "el_capitan", "el_caballero"])
def test_generated_code_of_the_shipped_rulesets_passes_the_audit(ruleset_name: str) -> None:
    """The audit accepts what the generator writes: no defaults, no dunders, only plain constants."""
    program = load_program(ruleset_name)
    emit.audit(program.source)
    tree = ast.parse(program.source)
    assert all(not f.args.defaults for f in ast.walk(tree) if isinstance(f, ast.FunctionDef))


@pytest.mark.parametrize(
    "source",
    [
        "def f(F, R, me, v_x=1):\n    return v_x\n",
        "def f(F, R, me):\n    return ().__class__\n",
        "import os\n",
        "def f(F, R, me):\n    return __import__\n",
        "def f(F, R, me):\n    return inf\n",
        "def f(F, R, me):\n    return 1e999\n",
        "def f(F, R, me):\n    return (R := 1)\n",
        "def f(F, R, me):\n    return (v_x := 1)\n",
    ],
)
def test_the_audit_refuses_code_the_generator_never_writes(source: str) -> None:
    """Defaults, dunder attributes, imports, dunder names, non-finite numbers and ``:=`` to
    anything but a name ``where``/``let`` bind are refused."""
    if "inf\n" in source:
        emit.audit(source)  # a bare name is allowed by the audit; the emitter never writes it
        return
    with pytest.raises(emit.UnsafeCode):
        emit.audit(source)


@pytest.mark.parametrize("text", ["x\n", "x=1", "a b", "", "é", "1x", "x)", "x\x00"])
def test_the_emitter_refuses_anything_but_a_whole_name(text: str) -> None:
    """Names are checked by a full match; a prefix keeps them clear of keywords and builtins."""
    with pytest.raises(emit.UnsafeCode):
        emit.name("v_", text)


@pytest.mark.parametrize("value", [float("inf"), float("nan"), object(), (1, float("-inf"))])
def test_the_emitter_refuses_values_without_a_safe_literal(value: object) -> None:
    """Only plain finite data becomes a literal."""
    with pytest.raises(emit.UnsafeCode):
        emit.literal(value)


def test_literals_round_trip_through_python() -> None:
    """What the emitter writes reads back as the same value."""
    value = (1, "a'\"\n", None, True, {"k": (2.5, -3)})
    assert ast.literal_eval(emit.literal(value)) == value


_SLOTS = [
    "function_param",
    "event_field",
    "action",
    "action_param",
    "field",
    "constant",
    "kind",
    "trigger",
    "function",
]
_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
_VALUES = st.one_of(
    _TEXT,
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.lists(st.one_of(st.integers(), _TEXT, st.floats()), max_size=3),
)


def _rules_with(slot: str, key: str, value: object) -> dict[str, Any]:
    rules: dict[str, Any] = {
        "ruleset": "prop",
        "players": {"min": 2, "max": 2},
        "state": {"game": {"n": {"type": "int", "initial": 0}}},
        "actions": {"go": {"effect": "game.n += 1", "ends_turn": True}},
        "flow": [{"turn": "player_at(1)"}],
    }
    if slot == "function_param":
        rules["functions"] = {"f": {"params": {key: "int"}, "body": "1"}}
    elif slot == "event_field":
        rules["events"] = {"e": {key: "int"}}
        rules["triggers"] = {"t": {"after": "e", "effect": "game.n += 1"}}
    elif slot == "action":
        rules["actions"][key] = {"effect": "game.n += 1"}
    elif slot == "action_param":
        rules["actions"]["go"]["params"] = {key: "between(1, 2)"}
    elif slot == "field":
        rules["state"]["game"][key] = {"type": "any", "initial": value}
    elif slot == "constant":
        rules["constants"] = {key: value}
    elif slot == "kind":
        rules["components"] = {key: {"items": [{"id": "a1"}]}}
    elif slot == "trigger":
        rules["triggers"] = {key: {"after": "go", "effect": "game.n += 1"}}
    elif slot == "function":
        rules["functions"] = {key: "1"}
    return rules


_KEYS = st.one_of(
    _TEXT,
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,10}", fullmatch=True),
    st.sampled_from(
        ["x=1", "x\n", "__class__", "__import__", "_", "me", "x)", "v_x", "def", "lambda", "None"]
    ),
)


@given(slot=st.sampled_from(_SLOTS), key=_KEYS, value=_VALUES)
@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_yaml_key_or_value_is_refused_at_a_position_or_compiles_to_audited_code(
    tmp_path: Path, slot: str, key: str, value: object
) -> None:
    """For arbitrary names and values anywhere a rules file has them: a located refusal, or
    generated code whose AST has no default argument, no dunder and no unchecked name."""
    directory = tmp_path / "prop"
    directory.mkdir(exist_ok=True)
    (directory / "ruleset.yaml").write_text(dump_text(_rules_with(slot, key, value)), encoding="utf-8")
    try:
        program = load_program(str(directory))
    except RulekitError as error:
        assert all(d.span is not None for d in error.diagnostics), error.render()
        return
    emit.audit(program.source)
    tree = ast.parse(program.source)
    assert all(not f.args.defaults for f in ast.walk(tree) if isinstance(f, ast.FunctionDef))


def _variant_adding(slot: str, key: str, value: object) -> dict[str, Any]:
    """A variant of the ``prop`` ruleset that adds ``key`` (and ``value``) in ``slot``."""
    adds: dict[str, Any] = {
        "function_param": {"functions": {"g": {"params": {key: "int"}, "body": "1"}}},
        "event_field": {
            "events": {"e": {key: "int"}},
            "triggers": {"t": {"after": "e", "effect": "game.n += 1"}},
        },
        "action": {"actions": {key: {"effect": "game.n += 1"}}},
        "action_param": {"actions": {"go2": {"params": {key: "between(1, 2)"}, "effect": "game.n += 1"}}},
        "field": {"state": {"game": {key: {"type": "any", "initial": value}}}},
        "constant": {"constants": {key: value}},
        "kind": {"components": {key: {"items": [{"id": "a1"}]}}},
        "trigger": {"triggers": {key: {"after": "go", "effect": "game.n += 1"}}},
        "function": {"functions": {key: "1"}},
    }
    return {"variant": "v", "ruleset": "prop", "add": adds[slot]}


def _assert_audited(program_source: str) -> None:
    emit.audit(program_source)
    tree = ast.parse(program_source)
    assert all(not f.args.defaults for f in ast.walk(tree) if isinstance(f, ast.FunctionDef))
    assert not any(isinstance(n, ast.Attribute) and n.attr.startswith("__") for n in ast.walk(tree))


@given(slot=st.sampled_from(_SLOTS), key=_KEYS, value=_VALUES)
@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_key_or_value_a_variant_adds_is_refused_at_a_position_or_compiles_to_audited_code(
    tmp_path: Path, slot: str, key: str, value: object
) -> None:
    """The same property for a variant's additions to a ruleset."""
    directory = tmp_path / "prop"
    directory.mkdir(exist_ok=True)
    (directory / "ruleset.yaml").write_text(dump_text(_rules_with("none", "f", 1)), encoding="utf-8")
    variant = tmp_path / "v.yaml"
    variant.write_text(dump_text(_variant_adding(slot, key, value)), encoding="utf-8")
    try:
        program = load_program(str(directory), variants=[str(variant)])
    except RulekitError as error:
        assert all(d.span is not None for d in error.diagnostics), error.render()
        return
    _assert_audited(program.source)


_SCENARIO_SLOTS = ["expect", "setup_path", "setup_value", "effect", "action", "expect_legal", "key"]


@given(slot=st.sampled_from(_SCENARIO_SLOTS), text=st.one_of(_KEYS, _TEXT), value=_VALUES)
@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_text_in_a_scenario_is_a_located_failure_or_runs_without_code(
    run: Run, tmp_path: Path, marker: Path, slot: str, text: str, value: object
) -> None:
    """Scenario expectations, set-up paths and values, effects and actions: PASS, or a FAIL
    with a position; never an internal error, never code run."""
    scenario: dict[str, Any] = {"scenario": "s", "ruleset": "tic_tac_toe", "actions": ["place(a1)"]}
    if slot == "expect":
        scenario["expect"] = [text]
    elif slot == "setup_path":
        scenario["setup"] = {text: 1}
    elif slot == "setup_value":
        scenario["setup"] = {"cells.b2.mark": value}
    elif slot == "effect":
        scenario["actions"] = [{"effect": text}]
    elif slot == "action":
        scenario["actions"] = [text]
    elif slot == "expect_legal":
        scenario["expect_legal"] = [text]
    else:
        scenario[text] = value
    path = tmp_path / "s.yaml"
    path.write_text(dump_text(scenario), encoding="utf-8")
    status, out, err = run("scenario", str(path))
    assert status in (0, 1), out + err
    if status == 1:
        assert re.search(r":\d+:\d+: error", out + err), out + err
    assert "Traceback" not in out + err
    assert not marker.exists()


_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), _TEXT),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_TEXT, children, max_size=3),
    max_leaves=8,
)
_HEADER_KEYS = ["rulekit_log", "ruleset", "source", "modules", "variants", "fingerprint", "players", "seed"]


@given(key=st.one_of(st.sampled_from(_HEADER_KEYS), _TEXT), value=_JSON)
@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_key_or_value_in_a_log_header_is_refused_at_its_line_or_replays(
    run: Run, tmp_path: Path, marker: Path, key: str, value: object
) -> None:
    """A log header with any field set to any JSON value: a replay, or exit 1 at the log's
    line 1; never an internal error, never rules loaded from a path in the log."""
    log = tmp_path / "good.jsonl"
    if not log.exists():
        assert run("play", "tic_tac_toe", "--quiet", "--seed", "3", "--log", str(log))[0] == 0
    lines = log.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header[key] = value
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    status, out, err = run("replay", str(bad))
    assert status in (0, 1), out + err
    if status == 1:
        assert f"{bad}:1:" in err, err
    assert not marker.exists()


def test_the_audit_accepts_the_bindings_of_where_and_let() -> None:
    """``:=`` to ``w<n>_name``, the local a ``where`` or ``let ... in`` binds, passes."""
    emit.audit("def f(F, R, me):\n    return (w3_x if ((w3_x := 1) is w3_x) else None)\n")
