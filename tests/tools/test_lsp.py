"""``rulekit lsp`` driven as an editor drives it: a real client (pytest-lsp) starts the server in a
subprocess, opens and edits documents and asks what an editor asks.

The shipped pig ruleset is copied to a temporary folder (a rename's edits are applied there and
the result loaded); each typical mistake of tests/unit/test_python_habits.py is typed into an
unsaved document, whose diagnostics must sit at the mistake, with the hint.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.ecosystem.extras import require

require("pygls", "lsp")
pytest_lsp = require("pytest_lsp", "test")  # skipped on a dev machine without it, fails in CI

from lsprotocol import types as lsp  # noqa: E402
from pygls import uris  # noqa: E402

from rulekit.load import load_program  # noqa: E402
from tests.tools.conftest import TINY  # noqa: E402
from tests.unit.test_python_habits import CASES  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SERVER = pytest_lsp.ClientServerConfig(
    server_command=[sys.executable, "-m", "rulekit", "lsp"],
    server_env={**os.environ, "PYTHONPATH": str(ROOT), "RULEKIT_NO_CACHE": "1"},
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: pytest_lsp.LanguageClient) -> AsyncIterator[None]:
    await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=pytest_lsp.client_capabilities("visual-studio-code"))
    )
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def pig(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("lsp") / "pig"
    shutil.copytree(ROOT / "rulesets" / "pig", folder)
    return folder


def _uri(path: Path) -> str:
    return str(uris.from_fs_path(str(path.resolve())))


def _position(text: str, needle: str, after: int = 0, nth: int = 0) -> lsp.Position:
    """The position of ``needle`` (its ``nth`` occurrence) plus ``after`` characters."""
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    offset += after
    before = text[:offset]
    return lsp.Position(line=before.count("\n"), character=offset - (before.rfind("\n") + 1))


async def _open(
    client: pytest_lsp.LanguageClient, path: Path, text: str | None = None
) -> list[lsp.Diagnostic]:
    """Open ``path`` (with ``text`` unsaved if given) and wait for its diagnostics."""
    uri = _uri(path)
    client.diagnostics.pop(uri, None)
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(
                uri=uri, language_id="yaml", version=1, text=text if text is not None else path.read_text()
            )
        )
    )
    return await _diagnostics(client, uri)


async def _diagnostics(client: pytest_lsp.LanguageClient, uri: str) -> list[lsp.Diagnostic]:
    async def published() -> None:
        while uri not in client.diagnostics:
            await client.wait_for_notification(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    await asyncio.wait_for(published(), timeout=60)  # a server that never answers fails, not hangs
    return list(client.diagnostics[uri])


def _close(client: pytest_lsp.LanguageClient, path: Path) -> None:
    client.text_document_did_close(
        lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=_uri(path)))
    )


async def _hover(client: pytest_lsp.LanguageClient, path: Path, position: lsp.Position) -> str:
    found = await client.text_document_hover_async(
        lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=_uri(path)), position=position)
    )
    assert found is not None
    assert isinstance(found.contents, lsp.MarkupContent)
    return found.contents.value


def _range_text(text: str, range_: lsp.Range) -> str:
    lines = text.split("\n")
    assert range_.start.line == range_.end.line
    return lines[range_.start.line][range_.start.character : range_.end.character]


# ------------------------------------------------------------------ diagnostics


async def test_a_shipped_ruleset_opens_without_diagnostics(
    client: pytest_lsp.LanguageClient, pig: Path
) -> None:
    assert await _open(client, pig / "ruleset.yaml") == []


@pytest.mark.parametrize("case", CASES)
async def test_a_typical_mistake_typed_unsaved_is_diagnosed_at_its_range_with_the_hint(
    client: pytest_lsp.LanguageClient, tmp_path: Path, case: str
) -> None:
    old, new, mistake, hint = CASES[case]
    folder = tmp_path / "habits"
    folder.mkdir()
    file = folder / "ruleset.yaml"
    file.write_text(TINY)  # the saved text is right: only the editor's text has the mistake
    assert await _open(client, file) == []
    text = TINY.replace(old, new, 1)
    uri = _uri(file)
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    diagnostics = await _diagnostics(client, uri)
    _close(client, file)
    start = _position(text, new, after=new.index(mistake))
    assert [(d.range.start.line, d.range.start.character) for d in diagnostics][:1] == [
        (start.line, start.character)
    ]
    assert hint in diagnostics[0].message
    assert diagnostics[0].severity == lsp.DiagnosticSeverity.Error


async def test_edits_in_quick_succession_are_reported_for_the_last_text(
    client: pytest_lsp.LanguageClient, tmp_path: Path
) -> None:
    folder = tmp_path / "quick"
    folder.mkdir()
    file = folder / "ruleset.yaml"
    file.write_text(TINY)
    assert await _open(client, file) == []
    uri = _uri(file)
    client.diagnostics.pop(uri, None)
    for version, mistake in enumerate(("True", "Flase"), start=2):
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    lsp.TextDocumentContentChangeWholeDocument(
                        text=TINY.replace('"me.coins >= amount"', f'"me.coins >= amount or {mistake}"')
                    )
                ],
            )
        )
    diagnostics = await _diagnostics(client, uri)
    _close(client, file)
    assert ["Flase" in d.message for d in diagnostics] == [True]


FIXED = {
    "True": "me.coins >= amount or true",
    "field without me.": "me.coins >= amount",
    "flow mapping": '{if: "greatest(me.coins, amount) >= amount", else: not enough coins}',
}


@pytest.mark.parametrize("case", FIXED)
async def test_a_code_action_fixes_the_hinted_mistake(
    client: pytest_lsp.LanguageClient, tmp_path: Path, case: str
) -> None:
    old, new, _, _ = CASES[case]
    text = TINY.replace(old, new, 1)
    folder = tmp_path / "fix"
    folder.mkdir()
    file = folder / "ruleset.yaml"
    file.write_text(text)
    diagnostics = await _open(client, file)
    actions = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=_uri(file)),
            range=diagnostics[0].range,
            context=lsp.CodeActionContext(diagnostics=diagnostics[:1]),
        )
    )
    _close(client, file)
    assert actions
    action = actions[0]
    assert isinstance(action, lsp.CodeAction) and action.edit and action.edit.changes
    (edit,) = action.edit.changes[_uri(file)]
    lines = text.split("\n")
    row = lines[edit.range.start.line]
    lines[edit.range.start.line] = (
        row[: edit.range.start.character] + edit.new_text + row[edit.range.end.character :]
    )
    fixed = "\n".join(lines)
    assert FIXED[case] in fixed
    file.write_text(fixed)
    load_program(str(folder))  # the fix is accepted by the checker


async def test_a_mistake_in_a_folded_scalar_is_diagnosed_on_the_line_it_is_written(
    client: pytest_lsp.LanguageClient, tmp_path: Path
) -> None:
    folded = "effect: >-\n      transfer(amount,\n      me, bnak)"
    text = TINY.replace("effect: transfer(amount, me, bank)", folded)
    folder = tmp_path / "folded"
    folder.mkdir()
    file = folder / "ruleset.yaml"
    file.write_text(text)
    diagnostics = await _open(client, file)
    _close(client, file)
    assert diagnostics
    assert _range_text(text, diagnostics[0].range) == "bnak"
    assert "bank" in diagnostics[0].message


# ------------------------------------------------------------------ completion and hover


async def _labels(client: pytest_lsp.LanguageClient, path: Path, position: lsp.Position) -> set[str]:
    found = await client.text_document_completion_async(
        lsp.CompletionParams(text_document=lsp.TextDocumentIdentifier(uri=_uri(path)), position=position)
    )
    assert isinstance(found, lsp.CompletionList)
    return {item.label for item in found.items}


async def test_completion_after_me_offers_player_fields_and_after_turn_the_turn_fields(
    client: pytest_lsp.LanguageClient, pig: Path
) -> None:
    file = pig / "ruleset.yaml"
    text = file.read_text()
    await _open(client, file)
    after_me = await _labels(client, file, _position(text, "me.banked >= GOAL", after=3))
    after_turn = await _labels(client, file, _position(text, "turn.total = 0", after=5))
    anywhere = await _labels(client, file, _position(text, "me.banked >= GOAL", after=13))
    top = await _labels(client, file, _position(text, "flow:"))
    assert "banked" in after_me and "total" not in after_me
    assert {"total", "rolls", "pigged"} <= after_turn and "banked" not in after_turn
    assert {"GOAL", "next_player", "player_at", "roll", "hold", "rolled"} <= anywhere
    assert {"constants", "state", "actions", "flow"} <= top


async def test_completion_in_a_scenario_offers_its_keys(client: pytest_lsp.LanguageClient, pig: Path) -> None:
    file = pig / "scenarios" / "a_one_loses_the_turn.yaml"
    text = file.read_text()
    await _open(client, file)
    labels = await _labels(client, file, _position(text, "seed:"))
    _close(client, file)
    assert {"scenario", "players", "seed", "setup", "actions", "expect"} <= labels


async def test_hover_shows_a_constant_a_field_a_builtin_and_a_rule(
    client: pytest_lsp.LanguageClient, pig: Path
) -> None:
    file = pig / "ruleset.yaml"
    text = file.read_text()
    await _open(client, file)
    constant = await _hover(client, file, _position(text, "me.banked >= GOAL", after=13))
    field = await _hover(client, file, _position(text, "me.banked >= GOAL", after=4))
    builtin = await _hover(client, file, _position(text, "next_player(game.current)"))
    assert "GOAL = 100" in constant and "set by ruleset" in constant
    assert "player.banked: int" in field and "visibility: public" in field
    assert "next_player(" in builtin and "built-in" in builtin
    variant = pig / "variants" / "openspiel.yaml"
    vtext = variant.read_text()
    await _open(client, variant)
    horizon = await _hover(client, variant, _position(vtext, "game.decisions < HORIZON", after=17))
    hold = await _hover(client, variant, _position(vtext, "actions.hold.doc", after=8))
    _close(client, variant)
    assert "HORIZON = 1000" in horizon and "variant" in horizon
    assert "action hold" in hold and "Rules: a turn" in hold


# ------------------------------------------------------------------ navigation and rename


async def _definition(
    client: pytest_lsp.LanguageClient, path: Path, position: lsp.Position
) -> list[lsp.Location]:
    found = await client.text_document_definition_async(
        lsp.DefinitionParams(text_document=lsp.TextDocumentIdentifier(uri=_uri(path)), position=position)
    )
    assert isinstance(found, list)
    return [f for f in found if isinstance(f, lsp.Location)]


async def test_definition_goes_to_the_declaration_in_another_file(
    client: pytest_lsp.LanguageClient, pig: Path
) -> None:
    variant = pig / "variants" / "openspiel.yaml"
    await _open(client, variant)
    text = (pig / "ruleset.yaml").read_text()
    (banked,) = await _definition(client, variant, _position(variant.read_text(), "me.banked", after=4))
    (goal,) = await _definition(client, variant, _position(variant.read_text(), "GOAL:", after=0, nth=0))
    assert banked.uri == _uri(pig / "ruleset.yaml")
    assert banked.range.start == _position(text, "banked: {type: int")
    assert goal.range.start == _position(text, "GOAL: 100")


async def test_references_find_a_field_in_the_ruleset_its_variants_and_scenarios(
    client: pytest_lsp.LanguageClient, pig: Path
) -> None:
    file = pig / "ruleset.yaml"
    text = file.read_text()
    await _open(client, file)
    found = await client.text_document_references_async(
        lsp.ReferenceParams(
            text_document=lsp.TextDocumentIdentifier(uri=_uri(file)),
            position=_position(text, "me.banked >= GOAL", after=4),
            context=lsp.ReferenceContext(include_declaration=True),
        )
    )
    assert found
    files = {Path(str(uris.to_fs_path(f.uri))).relative_to(pig.resolve()) for f in found}
    assert Path("ruleset.yaml") in files and Path("variants/openspiel.yaml") in files
    assert any(f.parts[0] == "scenarios" for f in files)
    for location in found:
        written = Path(str(uris.to_fs_path(location.uri))).read_text()
        assert _range_text(written, location.range) == "banked"


async def _rename(
    client: pytest_lsp.LanguageClient, pig: Path, copy: Path, at: str, old: str, new: str
) -> set[str]:
    """Rename the name at ``at`` (in pig's ruleset.yaml) to ``new``; write the edited files into
    ``copy`` (a copy of pig) after checking that each edit replaces ``old``; the files edited."""
    file = pig / "ruleset.yaml"
    await _open(client, file)
    edit = await client.text_document_rename_async(
        lsp.RenameParams(
            text_document=lsp.TextDocumentIdentifier(uri=_uri(file)),
            position=_position(file.read_text(), at),
            new_name=new,
        )
    )
    assert edit is not None and edit.changes
    shutil.copytree(pig, copy)
    for uri, edits in edit.changes.items():
        original = Path(str(uris.to_fs_path(uri)))
        lines = original.read_text().split("\n")
        for change in sorted(
            edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
        ):
            assert _range_text("\n".join(lines), change.range) == old
            row = lines[change.range.start.line]
            start, end = change.range.start.character, change.range.end.character
            lines[change.range.start.line] = row[:start] + change.new_text + row[end:]
        (copy / original.relative_to(pig.resolve())).write_text("\n".join(lines))
    return {str(Path(str(uris.to_fs_path(u))).relative_to(pig.resolve())) for u in edit.changes}


async def test_renaming_a_constant_edits_every_file_and_the_ruleset_still_loads(
    client: pytest_lsp.LanguageClient, pig: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "pig"
    edited = await _rename(client, pig, copy, "GOAL: 100", "GOAL", "TARGET")
    assert {"ruleset.yaml", "variants/openspiel.yaml"} <= edited
    assert "TARGET" in load_program(str(copy)).rules.constants
    variant = load_program(str(copy), variants=[str(copy / "variants" / "openspiel.yaml")])
    assert "GOAL" not in variant.rules.constants


async def test_renaming_a_field_edits_the_variant_and_the_scenarios_which_still_pass(
    client: pytest_lsp.LanguageClient, pig: Path, tmp_path: Path
) -> None:
    from rulekit.tools.scenario.run import run_paths

    copy = tmp_path / "pig"
    edited = await _rename(client, pig, copy, "banked: {type: int", "banked", "points")
    assert {"ruleset.yaml", "variants/openspiel.yaml"} <= edited
    assert any(name.startswith("scenarios/") for name in edited)
    assert "points" in load_program(str(copy)).rules.fields["player"]
    printed: list[str] = []
    assert run_paths([copy / "scenarios", copy / "variants"], printed.append) == 0, printed


async def test_a_document_that_is_not_yaml_is_diagnosed_and_the_saved_files_still_answer_hover(
    client: pytest_lsp.LanguageClient, tmp_path: Path
) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    file = folder / "ruleset.yaml"
    file.write_text(TINY)
    text = TINY.replace("players: {min: 2, max: 2}", "players: {min: 2, max: [2}")
    diagnostics = await _open(client, file, text)
    hover = await _hover(client, file, _position(text, "me.coins >= amount", after=4))
    _close(client, file)
    assert [d.severity for d in diagnostics] == [lsp.DiagnosticSeverity.Error]
    assert diagnostics[0].range.start.line == _position(text, "players:").line
    assert "player.coins: int" in hover


async def test_a_yaml_file_outside_any_ruleset_gets_no_diagnostics_and_no_answers(
    client: pytest_lsp.LanguageClient, tmp_path: Path
) -> None:
    file = tmp_path / "other.yaml"
    file.write_text("name: True\n")
    assert await _open(client, file) == []
    found = await client.text_document_hover_async(
        lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=_uri(file)), position=lsp.Position(0, 7))
    )
    _close(client, file)
    assert found is None


async def test_completion_after_an_enumeration_and_a_component_value_and_hover_inside_a_quoted_flow_value(
    client: pytest_lsp.LanguageClient,
) -> None:
    file = ROOT / "rulesets" / "royal_letter" / "ruleset.yaml"
    text = file.read_text()
    await _open(client, file)
    enum = await _labels(client, file, _position(text, "holds(me, card_kind.guard)", after=20))
    card = await _labels(client, file, _position(text, "max(c.value for c", after=6))
    hover = await _hover(client, file, _position(text, "holds(me, card_kind.priest)", after=20))
    _close(client, file)
    assert {"guard", "priest", "baron", "handmaid", "prince", "princess"} == enum
    assert {"kind", "value"} <= card
    assert "card_kind.priest" in hover
