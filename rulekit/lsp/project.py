"""A ruleset as the editor sees it: found from any of its files, checked with unsaved texts."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from attrs import frozen

from rulekit.errors import Diagnostic, RulekitError, Span
from rulekit.load import Composed, load_composed
from rulekit.rules.yaml_source import LocDict, load_text, overlaid

#: How many folders up from a file its ruleset.yaml may be (variants/scenarios/x.yaml: 2).
_UP = 4


@frozen
class Checked:
    """What checking a document found: diagnostics by resolved file, and the composed ruleset
    (None when it did not load)."""

    diagnostics: dict[Path, list[Diagnostic]]
    composed: Composed | None


def ruleset_dir(path: Path) -> Path | None:
    """The folder of the ruleset ``path`` belongs to (the nearest one with a ruleset.yaml)."""
    folder = path.resolve().parent
    for _ in range(_UP):
        if (folder / "ruleset.yaml").is_file():
            return folder
        if folder.parent == folder:
            break
        folder = folder.parent
    return None


def kind_of(path: Path, text: str) -> str:
    """``ruleset``, ``module``, ``variant``, ``scenario`` or ``part`` (an included file), from
    the file's name and its first keys."""
    if path.name == "ruleset.yaml":
        return "ruleset"
    for line in text.splitlines()[:80]:
        for kind in ("module", "variant", "scenario"):
            if line.startswith(f"{kind}:"):
                return kind
    return "part"


def check(path: Path, texts: Mapping[Path, str]) -> Checked:
    """Load and check the ruleset of ``path`` as ``rulekit check`` does, reading the unsaved
    ``texts`` (by resolved path) instead of the files: a module is checked with the ruleset,
    a variant applied to it, a scenario's keys checked against the scenario format."""
    path = path.resolve()
    directory = ruleset_dir(path)
    text = texts.get(path)
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
    kind = kind_of(path, text)
    found: list[Diagnostic] = []
    composed = None
    with overlaid(texts):
        if kind == "scenario":
            found += _scenario_problems(path, text)
        if directory is not None:
            try:
                composed = _compose(directory, path, kind, text)
            except RulekitError as error:
                if kind != "scenario":  # a scenario is not to blame for its ruleset's problems
                    found += error.diagnostics
            except Exception as error:  # a bug in rulekit must not stop the server
                found.append(Diagnostic(f"internal error in rulekit: {error!r}", Span(str(path), 1, 1)))
    return Checked(_by_file(found, path), composed)


def _compose(directory: Path, path: Path, kind: str, text: str) -> Composed:
    from rulekit.tools.render import compile_display
    from rulekit.tools.view import compile_view

    modules: list[str] = []
    variants: list[str] = []
    if kind == "module":
        data = load_text(text, str(path))
        name = data.get("module") if isinstance(data, LocDict) else None
        modules.append(str(name) if name else path.stem)
    elif kind == "variant":
        variants.append(str(path))
    composed = load_composed(str(directory), modules, variants)
    compile_display(composed.program)
    compile_view(composed.program)
    return composed


def _scenario_problems(path: Path, text: str) -> list[Diagnostic]:
    from rulekit.errors import DiagnosticBag
    from rulekit.rules.schema_scenario import SCENARIO
    from rulekit.rules.structure import Structurer
    from rulekit.rules.yaml_source import span_of

    try:
        data = load_text(text, str(path))
    except RulekitError as error:
        return list(error.diagnostics)
    if not isinstance(data, LocDict):
        return [
            Diagnostic(
                "a scenario file is a mapping (scenario:, actions:, expect: ...)", Span(str(path), 1, 1)
            )
        ]
    bag = DiagnosticBag()
    Structurer(bag).value(SCENARIO, data, span_of(data), "")
    try:
        bag.raise_if_any()
    except RulekitError as error:
        return list(error.diagnostics)
    return []


def _by_file(found: list[Diagnostic], document: Path) -> dict[Path, list[Diagnostic]]:
    out: dict[Path, list[Diagnostic]] = {}
    for diagnostic in found:
        file = document if diagnostic.span is None else Path(diagnostic.span.file).resolve()
        out.setdefault(file, []).append(diagnostic)
    return out
