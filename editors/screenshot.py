"""Render what ``rulekit lsp`` tells an editor about a file (its diagnostics and a hover) as an
HTML page, and screenshot it with headless Chromium: docs/images/editor.png.

    python editors/screenshot.py [--out docs/images/editor.png]

The page is the server's own answers, drawn as an editor draws them (squiggles under the
ranges, the message and hint, a hover box); the server runs as a subprocess driven by pygls'
client, as any editor drives it.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import jinja2
from lsprotocol import types as lsp
from pygls import uris
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[1]
#: The file shown: the pig ruleset's `hold` action with two Python habits typed in.
MISTAKES = {
    "      if me.banked >= GOAL:": "      if me.banked >= GOAL or False:",
    "      - if: turn.rolls > 0": "      - if: rolls > 0",
}
FIRST, LAST = "actions:", "triggers:"  # the lines shown

PAGE = jinja2.Environment(autoescape=True).from_string(
    """<!doctype html><html><head><meta charset="utf-8"><style>
body { background: #1e1e1e; color: #d4d4d4; font: 14px/20px monospace; margin: 0; padding: 12px; }
.title { color: #999; margin-bottom: 8px; font-family: sans-serif; }
.row { white-space: pre; position: relative; }
.no { display: inline-block; width: 36px; color: #858585; text-align: right; margin-right: 16px; }
.bad { text-decoration: underline wavy #f14c4c; }
.diag { white-space: pre-wrap; margin: 2px 0 6px 52px; padding: 4px 8px; border-left: 3px solid #f14c4c;
        background: #2d2020; font-family: sans-serif; font-size: 13px; width: 800px; }
.hover { white-space: pre-wrap; margin: 2px 0 6px 0; padding: 6px 10px; background: #252526;
         border: 1px solid #454545; font-family: sans-serif; font-size: 13px; width: 520px; }
.hover code { font-family: monospace; color: #9cdcfe; }
</style></head><body>
<div class="title">{{ name }} (unsaved) as rulekit lsp reports it: {{ count }} diagnostics, and the hover over
<code>{{ hovered }}</code></div>
{% for row in rows %}<div class="row"><span class="no">{{ row.no }}</span>{{ row.before }}<span class="bad">{{
row.bad }}</span>{{ row.after }}</div>{% if row.hover %}<div class="hover" style="margin-left: {{
row.hover[2] }}px"><code>{{ row.hover[0] }}</code>
{{ row.hover[1] }}</div>{% endif %}
{% for d in row.diagnostics %}<div class="diag">{{ d }}</div>{% endfor %}{% endfor %}
</body></html>"""
)


async def answers(file: Path, text: str, hover_at: lsp.Position) -> tuple[list[lsp.Diagnostic], str]:
    """The server's diagnostics for ``text`` (as unsaved text of ``file``) and its hover."""
    client = LanguageClient("screenshot", "1")
    published: asyncio.Queue[lsp.PublishDiagnosticsParams] = asyncio.Queue()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        published.put_nowait(params)

    # Run where the file is, so that it is named as the user would see it (pig/ruleset.yaml).
    await client.start_io(sys.executable, "-m", "rulekit", "lsp", cwd=str(file.parent.parent))
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities()))
    client.initialized(lsp.InitializedParams())
    uri = str(uris.from_fs_path(str(file)))
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(uri, "yaml", 1, text))
    )
    while True:
        params = await asyncio.wait_for(published.get(), 120)
        if params.uri == uri:
            break
    hover = await client.text_document_hover_async(lsp.HoverParams(lsp.TextDocumentIdentifier(uri), hover_at))
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    value = hover.contents.value if hover and isinstance(hover.contents, lsp.MarkupContent) else ""
    return list(params.diagnostics), value


def render(text: str, diagnostics: list[lsp.Diagnostic], hover: str, hover_at: lsp.Position) -> str:
    lines = text.split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith(FIRST))
    last = next(i for i, line in enumerate(lines) if line.startswith(LAST))
    signature, _, rest = hover.strip("`\n").partition("\n```\n")
    rows = []
    for number in range(first, last):
        line = lines[number]
        here = [d for d in diagnostics if d.range.start.line == number]
        start = here[0].range.start.character if here else len(line)
        end = here[0].range.end.character if here else len(line)
        rows.append(
            {
                "no": number + 1,
                "before": line[:start],
                "bad": line[start:end],
                "after": line[end:],
                "diagnostics": [d.message for d in here],
                "hover": (signature, rest, 52 + 8.4 * hover_at.character)
                if number == hover_at.line
                else None,
            }
        )
    return PAGE.render(name="rulesets/pig/ruleset.yaml", count=len(diagnostics), rows=rows, hovered="GOAL")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=str(ROOT / "docs" / "images" / "editor.png"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "pig"
        shutil.copytree(ROOT / "rulesets" / "pig", folder)
        file = folder / "ruleset.yaml"
        text = file.read_text(encoding="utf-8")
        for old, new in MISTAKES.items():
            text = text.replace(old, new, 1)
        offset = text.index("GOAL", text.index("me.banked >= GOAL"))  # the hover is over this GOAL
        before = text[:offset]
        hover_at = lsp.Position(before.count("\n"), offset - before.rfind("\n") - 1)
        diagnostics, hover = asyncio.run(answers(file, text, hover_at))
        page = Path(scratch) / "page.html"
        page.write_text(render(text, diagnostics, hover, hover_at), encoding="utf-8")
        subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--screenshot={Path(args.out).resolve()}", "--window-size=1024,600", page.as_uri()],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
