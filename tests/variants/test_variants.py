"""Variant files: every operation, every error at its file:line:col with a hint, fingerprints."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.errors import RulekitError, RulesetError
from rulekit.load import load_game, load_program
from rulekit.rules.variants import load_variant, variant_fingerprints

WriteVariant = Callable[..., Path]

HEADER = "variant: house\nruleset: tic_tac_toe\n"


def _error(
    ruleset: str, variants: list[str], *, modules: tuple[str, ...] = (), players: int | None = None
) -> str:
    with pytest.raises(RulekitError) as info:
        load_program(ruleset, modules, variants, players=players)
    return str(info.value)


def _play(game_variants: list[str], moves: list[str]) -> tuple[bool, list[int]]:
    game = load_game("tic_tac_toe", 2, variants=game_variants)
    state = game.new_initial_state(1)
    for move in moves:
        state.apply_action(move)
    return state.is_terminal(), state.scores()


DIAGONAL = ["place(a1)", "place(a2)", "place(b2)", "place(a3)", "place(c3)"]


# ------------------------------------------------------------------ operations


def test_set_constant_changes_play(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "set:\n  constants.LINES: [[a1, b1, c1], [a2, b2, c2], [a3, b3, c3]]\n")
    assert _play([], DIAGONAL) == (True, [1, 0])
    assert _play([str(path)], DIAGONAL) == (False, [0, 0])


def test_set_component_attribute(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "set:\n  components.cell.b2.column: 7\n")
    program = load_program("tic_tac_toe", (), [str(path)])
    assert program.attributes[("b2", "column")] == 7


def test_set_dsl_by_path_and_dsl_may_replace_a_literal(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + 'set:\n  triggers.three_in_a_row.effect: "game.winner = next_player(me)"\n')
    # the completer of the diagonal (P1) now hands the win to P2
    assert _play([str(path)], DIAGONAL) == (True, [0, 1])


def test_set_may_add_an_optional_key_of_a_definition(write_variant: WriteVariant) -> None:
    path = write_variant(
        HEADER + 'set:\n  actions.place.require: [{if: "cell != cells.b2", else: "the centre is closed"}]\n'
    )
    game = load_game("tic_tac_toe", 2, variants=[str(path)])
    state = game.new_initial_state(1)
    assert "place(b2)" not in state.legal_action_strings()
    with pytest.raises(RulekitError, match="the centre is closed"):
        state.apply_action("place(b2)")


def test_replace_scoring_by_name(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + 'replace:\n  scoring:\n    score: "0 if game.winner == player else 1"\n')
    assert _play([str(path)], DIAGONAL) == (True, [0, 1])


def test_replacing_an_action_changes_its_legal_moves(write_variant: WriteVariant) -> None:
    path = write_variant(
        HEADER
        + "replace:\n  actions:\n    place:\n"
        + '      params: {cell: "[c for c in cells if c.mark == none and c.row != 1]"}\n'
        + "      effect: cell.mark = me\n      ends_turn: true\n"
    )
    state = load_game("tic_tac_toe", 2, variants=[str(path)]).new_initial_state(1)
    assert sorted(state.legal_action_strings()) == sorted(
        f"place({c})" for c in ["a1", "b1", "c1", "a3", "b3", "c3"]
    )


def test_a_replaced_action_keeps_its_doc_and_cite_unless_it_gives_its_own(
    write_variant: WriteVariant,
) -> None:
    body = '      params: {cell: "[c for c in cells if c.mark == none]"}\n      effect: cell.mark = me\n'
    path = write_variant(HEADER + "replace:\n  actions:\n    place:\n" + body + "      ends_turn: true\n")
    place = load_program("tic_tac_toe", variants=[str(path)]).rules.actions["place"]
    assert (place.doc, place.cite) == ("Mark an empty cell.", "Rules: a turn")
    own = write_variant(
        HEADER + "replace:\n  actions:\n    place:\n" + body + "      ends_turn: true\n      cite: House 1\n",
        "own",
    )
    place = load_program("tic_tac_toe", variants=[str(own)]).rules.actions["place"]
    assert (place.doc, place.cite) == ("Mark an empty cell.", "House 1")


def test_remove_trigger_means_nobody_wins(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "remove: [triggers.three_in_a_row]\n")
    assert _play([str(path)], DIAGONAL) == (False, [0, 0])


def test_remove_deep_path_removes_a_component_item(write_variant: WriteVariant) -> None:
    path = write_variant(
        HEADER + "remove: [components.cell.c3]\n" + "set:\n  constants.LINES: [[a1, b1, c1]]\n"
    )
    program = load_program("tic_tac_toe", (), [str(path)])
    assert "c3" not in program.collections["cell"]


def test_add_trigger_and_action(write_variant: WriteVariant) -> None:
    path = write_variant(
        HEADER
        + "add:\n"
        + "  state:\n    game:\n      passes: {type: int, initial: 0}\n"
        + "  actions:\n    pass_turn:\n      effect: game.passes += 1\n      ends_turn: true\n"
        + "  triggers:\n    centre_taken:\n      after: place\n      when: cell == cells.b2\n"
        + '      effect: note("centre")\n'
    )
    state = load_game("tic_tac_toe", 2, variants=[str(path)]).new_initial_state(1)
    assert "pass_turn" in state.legal_action_strings()
    state.apply_action("pass_turn")
    state.apply_action("place(b2)")
    assert state.value("game", "passes") == 1
    assert "centre" in state.notes()


def test_operations_run_in_the_order_written(write_variant: WriteVariant) -> None:
    path = write_variant(
        HEADER
        + 'add:\n  functions:\n    bonus: {body: "1"}\n'
        + 'set:\n  functions.bonus.body: "2"\n'
        + 'replace:\n  scoring:\n    score: "bonus() if game.winner == player else 0"\n'
    )
    assert _play([str(path)], DIAGONAL) == (True, [2, 0])


def test_variants_apply_in_order(write_variant: WriteVariant) -> None:
    first = write_variant(HEADER + 'set:\n  scoring.score: "5 if game.winner == player else 0"\n', "first")
    second = write_variant(
        'variant: second\nruleset: tic_tac_toe\nset:\n  scoring.score: "7 if game.winner == player else 0"\n',
        "second",
    )
    assert _play([str(first), str(second)], DIAGONAL) == (True, [7, 0])
    assert _play([str(second), str(first)], DIAGONAL) == (True, [5, 0])


def test_shipped_variant_found_by_name() -> None:
    program = load_program("tic_tac_toe", (), ["misere"])
    assert program.rules.variants == (
        (
            "rulesets/tic_tac_toe/variants/misere.yaml",
            load_variant(Path("rulesets/tic_tac_toe/variants/misere.yaml")).fingerprint,
        ),
    )


# ------------------------------------------------------------------ errors at file:line:col


def test_misspelled_constant_path_reports_position_and_nearest_name(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "set:\n  constants.LINEZ: []\n")
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:4:13: error: constants.LINEZ: there is no 'LINEZ' in constants" in message
    assert "hint: did you mean 'LINES'?" in message


def test_misspelled_item_attribute_reports_segment(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "set:\n  components.cell.b2.colum: 3\n")
    message = _error("tic_tac_toe", [str(path)])
    assert (
        f"{path}:4:22: error: components.cell.b2.colum: there is no 'colum' in components.cell.b2" in message
    )
    assert "did you mean 'column'?" in message


def test_unknown_item_lists_existing_ids(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "set:\n  components.cell.z9.column: 3\n")
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:4:19: error: components.cell.z9.column: there is no 'z9' in components.cell" in message
    assert "existing names here: attributes, items, a1, b1, c1" in message


def test_quoted_path_key_points_inside_the_quotes(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + 'set:\n  "actions.plaice.effect": pass\n')
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:4:11: error: actions.plaice.effect: there is no 'plaice' in actions" in message
    assert "did you mean 'place'?" in message


def test_type_mismatch_string_for_int(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + 'set:\n  components.cell.b2.column: "3"\n')
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:4:30: error: components.cell.b2.column: must be an int, not the text '3'" in message
    assert "hint: write 3 without quotes" in message


def test_type_mismatch_in_untyped_data(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "set:\n  components.cell.b2.items: 3\n")
    message = _error("tic_tac_toe", [str(path)])
    assert "there is no 'items' in components.cell.b2" in message
    path = write_variant(HEADER + "set:\n  flow.0.repeat.steps: 3\n")
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:4:3: error: flow.0.repeat.steps: was a list, cannot become an int" in message


def test_list_of_other_length_is_fine_but_wrong_elements_are_not(write_variant: WriteVariant) -> None:
    fine = write_variant(HEADER + "set:\n  constants.LINES: [[a1, b1, c1]]\n", "fine")
    load_program("tic_tac_toe", (), [str(fine)])
    bad = write_variant(HEADER + "set:\n  constants.LINES: [a1, b1]\n", "bad")
    message = _error("tic_tac_toe", [str(bad)])
    assert f"{bad}:4:21: error: constants.LINES: must be a list (list[cell]), not the text 'a1'" in message


def test_unknown_ids_in_a_typed_constant_point_into_the_variant(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "set:\n  constants.LINES: [[a1, b1, zz]]\n")
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:4:30: error: constants.LINES: 'zz' is not a cell" in message


def test_dsl_errors_point_into_the_variant_file(write_variant: WriteVariant) -> None:
    path = write_variant(
        HEADER
        + 'set:\n  actions.place.effect: "cell.mark = mee"\n'
        + "add:\n  triggers:\n    t:\n      after: place\n"
        + "      when: cell == cells.b2 and\n      effect: pass\n"
    )
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:9:33: error: unexpected end of text" in message
    path.write_text(path.read_text().replace(" and\n", "\n"))
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:4:38: error: unknown name 'mee'" in message
    assert "did you mean 'me'?" in message


def test_replace_unknown_name(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "replace:\n  actions:\n    plase: {effect: pass}\n")
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:5:5: error: cannot replace actions 'plase': no such entry" in message
    assert "did you mean 'place'?" in message


def test_replace_unknown_section(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "replace:\n  scorring: {}\n")
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:4:3: error: unknown section 'scorring'" in message
    assert "did you mean 'scoring'?" in message


def test_remove_unknown_name(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "remove: [triggers.three_in_row, flow.0.repeat.untill]\n")
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:3:10: error: cannot remove 'triggers.three_in_row': no such entry" in message
    assert "did you mean 'three_in_a_row'?" in message
    assert f"{path}:3:47: error: flow.0.repeat.untill: there is no 'untill' in flow.0.repeat" in message


def test_add_existing_name_and_single_section(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "add:\n  actions:\n    place: {effect: pass}\n  flow: []\n")
    message = _error("tic_tac_toe", [str(path)])
    assert (
        f"{path}:5:5: error: action 'place' is already defined at rulesets/tic_tac_toe/ruleset.yaml"
        in message
    )
    assert "hint: use 'replace:' to replace it" in message
    assert f"{path}:6:3: error: 'flow' holds one value and cannot be added to" in message


def test_add_unknown_section(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "add:\n  actionz: {}\n")
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:4:3: error: unknown section 'actionz'" in message
    assert "did you mean 'actions'" in message


def test_variant_for_another_ruleset(write_variant: WriteVariant) -> None:
    path = write_variant("variant: house\nruleset: chess\nset:\n  constants.LINES: []\n")
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:2:10: error: variant 'house' is for ruleset 'chess', not 'tic_tac_toe'" in message


def test_unknown_top_level_key(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "sett:\n  constants.LINES: []\nactions: {}\n")
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:3:1: error: unknown variant key 'sett'" in message
    assert "did you mean 'set'?" in message
    assert f"{path}:5:1: error: unknown variant key 'actions'" in message
    assert "'add: {actions: ...}'" in message


def test_variant_that_changes_nothing(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER)
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:1:1: error: a variant changes nothing" in message


def test_missing_variant_file_names_shipped_variants() -> None:
    message = _error("tic_tac_toe", ["miser"])
    assert "no variant file 'miser'" in message
    assert "did you mean 'misere'?" in message


def test_all_problems_reported_together(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "set:\n  constants.LINEZ: []\n  actions.plase.effect: pass\n")
    message = _error("tic_tac_toe", [str(path)])
    assert "2 errors" in message


# ------------------------------------------------------------------ constraints


def test_variant_requires_a_module(ttt_copy: Path, write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "requires: [quiet]\nset:\n  components.cell.b2.row: 1\n")
    message = _error(str(ttt_copy), [str(path)])
    assert f"variant 'house' requires module 'quiet' (declared at {path}:3:12)" in message
    assert "choose module 'quiet' too" in message
    load_program(str(ttt_copy), ("quiet",), [str(path)])


def test_variant_requires_an_unknown_module(ttt_copy: Path, write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "requires: [quite]\nset:\n  components.cell.b2.row: 1\n")
    message = _error(str(ttt_copy), [str(path)], modules=("quiet",))
    assert (
        f"{path}:3:12: error: variant 'house' requires 'quite', which is no module of 'tic_tac_toe'"
        in message
    )
    assert "did you mean 'quiet'?" in message


def test_variant_conflicts_with_module_and_variant(ttt_copy: Path, write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "conflicts: [quiet, misere]\nset:\n  components.cell.b2.row: 1\n")
    message = _error(str(ttt_copy), [str(path)], modules=("quiet",))
    assert f"variant 'house' conflicts with module 'quiet' (declared at {path}:3:13)" in message
    message = _error(str(ttt_copy), [str(path), "misere"])
    assert f"variant 'house' conflicts with variant 'misere' (declared at {path}:3:20)" in message


def test_module_conflicting_with_a_variant(ttt_copy: Path) -> None:
    (ttt_copy / "modules" / "quiet.yaml").write_text("module: quiet\nconflicts: [misere]\n")
    message = _error(str(ttt_copy), ["misere"], modules=("quiet",))
    assert "module 'quiet' conflicts with variant 'misere' (declared at" in message


def test_variant_player_range(ttt_copy: Path, write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "players: {min: 3, max: 4}\nset:\n  components.cell.b2.row: 1\n")
    message = _error(str(ttt_copy), [str(path)], players=2)
    assert f"variant 'house' allows 3-4 players, not 2 (declared at {path}:3:10)" in message
    program = load_program(str(ttt_copy), (), [str(path)], players=3)
    assert (program.rules.min_players, program.rules.max_players) == (3, 4)


def test_module_constraint_messages_name_declaration(ttt_copy: Path) -> None:
    message = _error(str(ttt_copy), [], modules=("big", "quiet"))
    assert "module 'big' conflicts with module 'quiet' (declared at" in message
    message = _error(str(ttt_copy), [], modules=("needs_quiet",))
    assert "module 'needs_quiet' requires module 'quiet' (declared at" in message


# ------------------------------------------------------------------ fingerprints


def test_fingerprint_changes_with_a_variant(write_variant: WriteVariant) -> None:
    base = load_program("tic_tac_toe").fingerprint
    path = write_variant(HEADER + "set:\n  constants.LINES: [[a1, b1, c1]]\n")
    with_variant = load_program("tic_tac_toe", (), [str(path)]).fingerprint
    assert with_variant != base
    path.write_text(HEADER + "set:\n  constants.LINES: [[a2, b2, c2]]\n")
    assert load_program("tic_tac_toe", (), [str(path)]).fingerprint not in (base, with_variant)


def test_variant_fingerprint_ignores_comments_and_wording(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "title: One\nset:\n  constants.LINES: [[a1, b1, c1]]\n")
    first = variant_fingerprints([path])[0]
    path.write_text("# a comment\n" + HEADER + "title: Two\nset:\n  constants.LINES: [[a1, b1, c1]]\n")
    second = variant_fingerprints([path])[0]
    assert first["fingerprint"] == second["fingerprint"]
    assert (first["title"], second["title"]) == ("One", "Two")
    path.write_text(HEADER + "set:\n  constants.LINES: [[a1, b1, b2]]\n")
    assert variant_fingerprints([path])[0]["fingerprint"] != first["fingerprint"]


def test_variant_fingerprints_by_shipped_name() -> None:
    (info,) = variant_fingerprints(["misere"], "tic_tac_toe")
    assert info["variant"] == "misere"
    assert info["path"] == "rulesets/tic_tac_toe/variants/misere.yaml"
    assert info["title"].startswith("Misère")


def test_model_records_variants_with_fingerprints() -> None:
    program = load_program("tic_tac_toe", (), ["no_diagonals", "misere"])
    assert [p for p, _ in program.rules.variants] == [
        "rulesets/tic_tac_toe/variants/no_diagonals.yaml",
        "rulesets/tic_tac_toe/variants/misere.yaml",
    ]


def test_variant_error_is_a_ruleset_error(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "set:\n  constants.LINEZ: []\n")
    with pytest.raises(RulesetError):
        load_program("tic_tac_toe", (), [str(path)])


def test_extend_appends_a_requirement(write_variant: WriteVariant) -> None:
    path = write_variant(
        HEADER
        + "extend:\n  actions:\n    place:\n"
        + '      require: [{if: "cell != cells.a1", else: "a1 is a lake"}]\n'
    )
    state = load_game("tic_tac_toe", 2, variants=[str(path)]).new_initial_state(1)
    assert "place(a1)" not in state.legal_action_strings()
    assert "place(b1)" in state.legal_action_strings()


def test_variant_must_name_its_ruleset(write_variant: WriteVariant) -> None:
    path = write_variant("variant: house\nset:\n  constants.LINES: []\n")
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:1:1: error: a variant file needs 'ruleset: NAME', the game it changes" in message
    assert "hint: add 'ruleset: tic_tac_toe'" in message


def test_two_variants_with_one_name(write_variant: WriteVariant) -> None:
    first = write_variant(HEADER + "set:\n  components.cell.b2.row: 1\n", "one")
    second = write_variant(HEADER + "set:\n  components.cell.b2.row: 1\n", "two")
    message = _error("tic_tac_toe", [str(first), str(second)])
    assert f"two different variants are named 'house' ({first} and {second})" in message


def test_variant_player_range_outside_the_game(write_variant: WriteVariant) -> None:
    path = write_variant(HEADER + "players: {min: 3, max: 4}\nset:\n  components.cell.b2.row: 1\n")
    message = _error("tic_tac_toe", [str(path)])
    assert f"{path}:3:10: error: variant 'house' allows 3-4 players, but tic_tac_toe is for 2-2" in message
