"""The protocol side of ``rulekit lsp`` (pygls): documents in, diagnostics and answers out.

A document's ruleset is checked when it is opened or saved and, while it is edited, once the
edits pause for :data:`DEBOUNCE` seconds; checks run one at a time in a worker thread, so
completion and hover stay quick meanwhile.  The last ruleset that loaded (per document: a
module or variant is checked with it applied) answers completion, hover and navigation.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from lsprotocol import types as lsp
from pygls import uris
from pygls.lsp.server import LanguageServer

from rulekit.errors import Diagnostic
from rulekit.lsp import features, index, project
from rulekit.lsp.features import Symbol
from rulekit.rules.model import RulesModel

#: Seconds without an edit before a changed document is checked again.
DEBOUNCE = 0.3
_SEVERITY = {"error": lsp.DiagnosticSeverity.Error, "warning": lsp.DiagnosticSeverity.Warning}
_KINDS = {
    "builtin": lsp.CompletionItemKind.Function,
    "function": lsp.CompletionItemKind.Function,
    "procedure": lsp.CompletionItemKind.Method,
    "constant": lsp.CompletionItemKind.Constant,
    "field": lsp.CompletionItemKind.Field,
    "attribute": lsp.CompletionItemKind.Property,
    "action": lsp.CompletionItemKind.Event,
    "event": lsp.CompletionItemKind.Event,
    "kind": lsp.CompletionItemKind.Class,
    "enum": lsp.CompletionItemKind.Enum,
    "enum_value": lsp.CompletionItemKind.EnumMember,
    "key": lsp.CompletionItemKind.Property,
    "keyword": lsp.CompletionItemKind.Keyword,
}


class RulekitServer(LanguageServer):
    """The server, with what it knows of each ruleset."""

    def __init__(self) -> None:
        super().__init__("rulekit", _version(), text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.models: dict[Path, RulesModel] = {}  # the last model that loaded, by document
        self.by_ruleset: dict[Path, RulesModel] = {}  # ... by ruleset folder
        self.indexes: dict[Path, list[index.Occurrence]] = {}  # by ruleset folder; dropped on edit
        self.published: dict[Path, set[Path]] = {}  # files given diagnostics, by ruleset folder
        self.pending: dict[Path, asyncio.Task[None]] = {}
        self.lock = asyncio.Lock()

    # -------------------------------------------------------------- state

    def texts(self) -> dict[Path, str]:
        """The open documents' texts, by resolved path."""
        out = {}
        for uri, document in self.workspace.text_documents.items():
            path = _path(uri)
            if path is not None:
                out[path] = document.source
        return out

    def occurrences(self, folder: Path) -> list[index.Occurrence]:
        if folder not in self.indexes:
            self.indexes[folder] = index.build(folder, self.texts())
        return self.indexes[folder]

    def model_for(self, path: Path) -> RulesModel | None:
        folder = project.ruleset_dir(path)
        model = self.models.get(path) or (self.by_ruleset.get(folder) if folder else None)
        if model is None and folder is not None:  # asked before any check finished
            self.remember(path, project.check(path, self.texts()))
            model = self.models.get(path) or self.by_ruleset.get(folder)
        if model is None and folder is not None:  # the unsaved texts do not load: the saved files
            self.remember(path, project.check(path, {}))
            model = self.models.get(path) or self.by_ruleset.get(folder)
        return model

    def remember(self, path: Path, checked: project.Checked) -> None:
        if checked.composed is not None:
            model = checked.composed.program.rules
            self.models[path] = model
            folder = project.ruleset_dir(path)
            if folder is not None:
                self.by_ruleset.setdefault(folder, model)
                if project.kind_of(path, "") == "ruleset":
                    self.by_ruleset[folder] = model

    # -------------------------------------------------------------- checking

    def changed(self, uri: str) -> None:
        """Check the document's ruleset once its edits pause."""
        path = _path(uri)
        if path is None:
            return
        folder = project.ruleset_dir(path)
        if folder is not None:
            self.indexes.pop(folder, None)
        task = self.pending.pop(path, None)
        if task is not None:
            task.cancel()
        self.pending[path] = asyncio.ensure_future(self.check_later(uri, DEBOUNCE))

    async def check_later(self, uri: str, delay: float) -> None:
        await asyncio.sleep(delay)  # a newer edit cancels the check here...
        # ...but not once it started: its thread would go on while the next one ran (the
        # loader's overlay is the process's), so it finishes and the next waits for the lock.
        await asyncio.shield(self.check_now(uri))

    async def check_now(self, uri: str) -> None:
        path = _path(uri)
        if path is None:
            return
        async with self.lock:
            texts = self.texts()
            checked = await asyncio.to_thread(project.check, path, texts)
        self.remember(path, checked)
        self.publish(path, checked, texts)

    def publish(self, path: Path, checked: project.Checked, texts: dict[Path, str]) -> None:
        folder = project.ruleset_dir(path) or path.parent
        before = self.published.get(folder, set())
        files = set(checked.diagnostics) | {path}
        for file in files | before:
            found = checked.diagnostics.get(file, [])
            lines = _lines(file, texts)
            self.text_document_publish_diagnostics(
                lsp.PublishDiagnosticsParams(
                    uri=uris.from_fs_path(str(file)) or "", diagnostics=[_diagnostic(d, lines) for d in found]
                )
            )
        self.published[folder] = {f for f in files if checked.diagnostics.get(f)}

    # -------------------------------------------------------------- questions

    def symbol_at(self, uri: str, position: lsp.Position) -> tuple[RulesModel, Path, Symbol] | None:
        path = _path(uri)
        folder = project.ruleset_dir(path) if path else None
        if path is None or folder is None:
            return None
        model = self.model_for(path)
        if model is None:
            return None
        occ = features.occurrence_at(
            self.occurrences(folder), path, position.line + 1, position.character + 1
        )
        if occ is None:
            return None
        symbol = features.classify(model, occ)
        return None if symbol is None else (model, folder, symbol)


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("rulekit")
    except metadata.PackageNotFoundError:  # a source tree that is not installed
        return "(not installed)"


def _path(uri: str) -> Path | None:
    found = uris.to_fs_path(uri)
    return Path(found).resolve() if found else None


def _lines(file: Path, texts: dict[Path, str]) -> list[str]:
    text = texts.get(file)
    if text is None:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
    return text.split("\n")


def _diagnostic(found: Diagnostic, lines: list[str]) -> lsp.Diagnostic:
    span = found.span
    line, column, end_line, end_column = 1, 1, 1, 1
    if span is not None:
        line, column = span.line, span.column
        end_line, end_column = span.end_line, span.end_column
    if (end_line, end_column) <= (line, column):
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        word = re.match(r"\w+", text[column - 1 :])
        end_line, end_column = line, column + (len(word.group()) if word else 1)
    message = found.message
    if found.expected:
        message += "\nexpected one of: " + ", ".join(found.expected[:12])
    if found.hint:
        message += f"\nhint: {found.hint}"
    return lsp.Diagnostic(
        range=lsp.Range(
            start=lsp.Position(line=max(line - 1, 0), character=max(column - 1, 0)),
            end=lsp.Position(line=max(end_line - 1, 0), character=max(end_column - 1, 0)),
        ),
        message=message,
        severity=_SEVERITY.get(found.severity, lsp.DiagnosticSeverity.Information),
        source="rulekit",
        data={"hint": found.hint or ""},
    )


def _location(occ: index.Occurrence) -> lsp.Location:
    return lsp.Location(uri=uris.from_fs_path(str(occ.file)) or "", range=_range(occ))


def _range(occ: index.Occurrence) -> lsp.Range:
    return lsp.Range(
        start=lsp.Position(line=occ.line - 1, character=occ.column - 1),
        end=lsp.Position(line=occ.line - 1, character=occ.end - 1),
    )


def make_server() -> RulekitServer:
    """The server with every feature registered."""
    server = RulekitServer()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: RulekitServer, params: lsp.DidOpenTextDocumentParams) -> None:
        path = _path(params.text_document.uri)
        folder = project.ruleset_dir(path) if path else None
        if folder is not None:
            ls.indexes.pop(folder, None)
        await ls.check_now(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RulekitServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.changed(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: RulekitServer, params: lsp.DidSaveTextDocumentParams) -> None:
        await ls.check_now(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RulekitServer, params: lsp.DidCloseTextDocumentParams) -> None:
        path = _path(params.text_document.uri)
        folder = project.ruleset_dir(path) if path else None
        if folder is not None:
            ls.indexes.pop(folder, None)

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["."]))
    def completion(ls: RulekitServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        path = _path(params.text_document.uri)
        document = ls.workspace.get_text_document(params.text_document.uri)
        line = document.lines[params.position.line] if params.position.line < len(document.lines) else ""
        before = line[: params.position.character]
        model = ls.model_for(path) if path else None
        kind = project.kind_of(path, document.source) if path else "part"
        items = features.complete(model, before, kind, _top_keys(kind) if not before[:1].isspace() else ())
        return lsp.CompletionList(
            is_incomplete=False,
            items=[
                lsp.CompletionItem(label=c.label, kind=_KINDS.get(c.kind), detail=c.detail or None)
                for c in items
            ],
        )

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: RulekitServer, params: lsp.HoverParams) -> lsp.Hover | None:
        found = ls.symbol_at(params.text_document.uri, params.position)
        if found is None:
            return None
        text = features.hover_text(found[0], found[2])
        if text is None:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text))

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: RulekitServer, params: lsp.DefinitionParams) -> list[lsp.Location] | None:
        found = ls.symbol_at(params.text_document.uri, params.position)
        if found is None:
            return None
        model, folder, symbol = found
        return [_location(o) for o in features.definitions(model, ls.occurrences(folder), symbol)] or None

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    def references(ls: RulekitServer, params: lsp.ReferenceParams) -> list[lsp.Location] | None:
        found = ls.symbol_at(params.text_document.uri, params.position)
        if found is None:
            return None
        model, folder, symbol = found
        occurrences = features.references(model, ls.occurrences(folder), symbol)
        if not params.context.include_declaration:
            occurrences = [o for o in occurrences if o.declares is None]
        return [_location(o) for o in occurrences]

    @server.feature(lsp.TEXT_DOCUMENT_RENAME)
    def rename(ls: RulekitServer, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
        found = ls.symbol_at(params.text_document.uri, params.position)
        if found is None:
            return None
        model, folder, symbol = found
        try:
            places = features.rename_edits(model, ls.occurrences(folder), symbol, params.new_name)
        except ValueError as error:
            raise ValueError(str(error)) from None
        changes: dict[str, list[lsp.TextEdit]] = {}
        for occ in places:
            edit = lsp.TextEdit(range=_range(occ), new_text=params.new_name)
            changes.setdefault(uris.from_fs_path(str(occ.file)) or "", []).append(edit)
        return lsp.WorkspaceEdit(changes=changes)

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix])
    )
    def code_action(ls: RulekitServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        document = ls.workspace.get_text_document(params.text_document.uri)
        lines = document.source.split("\n")
        out = []
        for diagnostic in params.context.diagnostics:
            data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
            hint = str(data.get("hint") or diagnostic.message)
            start, end = diagnostic.range.start, diagnostic.range.end
            end_column = end.character + 1 if end.line == start.line else start.character + 1
            for fix in features.fixes(lines, start.line + 1, start.character + 1, end_column, hint):
                edit = lsp.TextEdit(
                    range=lsp.Range(
                        start=lsp.Position(line=fix.line - 1, character=fix.column - 1),
                        end=lsp.Position(line=fix.end_line - 1, character=fix.end_column - 1),
                    ),
                    new_text=fix.text,
                )
                out.append(
                    lsp.CodeAction(
                        title=fix.title,
                        kind=lsp.CodeActionKind.QuickFix,
                        diagnostics=[diagnostic],
                        edit=lsp.WorkspaceEdit(changes={params.text_document.uri: [edit]}),
                    )
                )
        return out

    return server


def _top_keys(kind: str) -> tuple[str, ...]:
    from rulekit.rules import schema
    from rulekit.rules.schema_scenario import SCENARIO_KEYS

    if kind == "scenario":
        return tuple(SCENARIO_KEYS)
    if kind == "module":
        return tuple(schema.MODULE.names)
    if kind in ("ruleset", "part"):
        return tuple(schema.RULESET.names)
    return ()


def main() -> int:
    """Serve one editor over stdin and stdout until it exits."""
    make_server().start_io()
    return 0
