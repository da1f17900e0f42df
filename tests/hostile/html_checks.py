"""Is a page or picture rulekit wrote inert?  The checker of the HTML tests and the fuzz campaign.

A page is parsed with the standard library's :class:`html.parser.HTMLParser` (which, like a
browser, reads ``<script>`` and ``<style>`` as raw text up to their end tag) and judged against
what rulekit's templates write: known elements and attributes only, no event handler attribute,
no link, and no script that the page's Content-Security-Policy would let run but ours.  Also here:
the grammar of breakouts the tests and the fuzzer put into rulesets, and the hostile ruleset.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import yaml

from rulekit.tools.html import source_hash

ROOT = Path(__file__).resolve().parents[2]
TIC_TAC_TOE = ROOT / "rulesets" / "tic_tac_toe"

#: Pieces of text an attacker puts into a ruleset to get out of HTML text, an attribute, a
#: script, a comment, CDATA or a template (ours were filled with str.replace once).
BREAKOUTS = [
    "</script>",
    "</SCRIPT ><script>window.pwned=1</script>",
    "<script>window.pwned=1</script>",
    "</title><script>window.pwned=1</script>",
    "</style><script>window.pwned=1</script>",
    "<!--",
    "-->",
    "<!-- <script>",
    "<img src=x onerror=window.pwned=1>",
    '<img src="x" onerror="document.title=\'pwned\'">',
    "<svg onload=window.pwned=1>",
    "<svg><foreignObject><iframe srcdoc='<script>parent.pwned=1</script>'></iframe></foreignObject></svg>",
    '<a href="javascript:window.pwned=1">x</a>',
    "javascript:window.pwned=1",
    "url(javascript:window.pwned=1)",
    '" onmouseover="window.pwned=1" x="',
    "' onfocus='window.pwned=1' autofocus='",
    "<![CDATA[",
    "]]>",
    "{{ 7*7 }}",
    "{% raw %}",
    "{# #}",
    "%DATA%",
    "%TITLE%",
    "%CHART%",
    "${window.pwned=1}",
    "`",
    '"',
    "'",
    "<",
    ">",
    "&",
    "&lt;",
    "&#60;script&#62;",
    "\\u003c",
    "\\",
    "\u2028",
    "\u2029",
    "\x00",
    "<base href=//example.com/>",
    '<meta http-equiv="refresh" content="0;url=javascript:window.pwned=1">',
]

#: The elements and attributes rulekit's pages and pictures consist of.
PAGE_TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "p", "span", "main", "div",
    "aside", "button", "label", "input", "form", "ul", "ol", "li", "kbd", "script", "b", "code",
}  # fmt: skip
SVG_TAGS = {"svg", "title", "rect", "circle", "polygon", "line", "polyline", "text", "g"}
ATTRIBUTES = {
    "lang", "charset", "name", "content", "http-equiv", "id", "class", "type", "title", "min", "max",
    "value", "placeholder", "autocomplete", "aria-label", "aria-live", "role", "nonce",
    "xmlns", "width", "height", "viewbox", "font-family", "font-size", "font-weight", "x", "y", "rx",
    "r", "cx", "cy", "x1", "y1", "x2", "y2", "points", "fill", "stroke", "stroke-width",
    "stroke-dasharray", "text-anchor", "opacity", "data-player", "data-ref", "data-action", "data-bind",
    "hidden",
}  # fmt: skip
COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}|[a-z]{3,20}")
_NONCE_OR_HASH = re.compile(r"'(nonce-[A-Za-z0-9+/_=-]+|sha256-[A-Za-z0-9+/=]+|none)'")


_VOID = {"meta", "input", "br", "img", "link", "hr", "base", "area", "col", "embed", "source", "wbr"}


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.scripts: list[tuple[dict[str, str], str]] = []
        self.texts: dict[str, str] = {}
        self._open: list[str] = []
        self._script: dict[str, str] | None = None
        self._buffer: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        self.elements.append((tag, values))
        if tag == "script":
            self._script, self._buffer = values, []
        if tag not in _VOID:
            self._open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {name: value or "" for name, value in attrs}))

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script, "".join(self._buffer)))
            self._script = None
        if tag in self._open:
            while self._open.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._buffer.append(data)
        elif self._open and self._open[-1] in ("title", "h1"):
            key = "/".join(self._open)
            self.texts[key] = self.texts.get(key, "") + data


def parse(text: str) -> _Parser:
    parser = _Parser()
    parser.feed(text)
    parser.close()
    return parser


def _element_problems(parser: _Parser, tags: set[str]) -> list[str]:
    problems = []
    for tag, attrs in parser.elements:
        if tag not in tags:
            problems.append(f"element <{tag}>")
        for name, value in attrs.items():
            if name.startswith("on"):
                problems.append(f"event handler <{tag} {name}={value!r}>")
            elif name not in ATTRIBUTES:
                problems.append(f"attribute <{tag} {name}>")
            if "javascript:" in re.sub(r"[\s\x00-\x1f]", "", value).lower():
                problems.append(f"javascript: URL in <{tag} {name}={value!r}>")
            if name in ("fill", "stroke") and not COLOUR.fullmatch(value):
                problems.append(f"paint that is not a colour <{tag} {name}={value!r}>")
    return problems


def svg_problems(svg: str) -> list[str]:
    """What in a picture (``render``'s file, a replay frame, the served page's board) is not inert."""
    return _element_problems(parse(svg), SVG_TAGS)


def script_sources(csp: str) -> set[str]:
    """The sources a policy's script-src allows."""
    for directive in csp.split(";"):
        name, _, sources = directive.strip().partition(" ")
        if name == "script-src":
            return set(sources.split())
    return set()


def page_problems(text: str, header_csp: str | None = None) -> list[str]:
    """What in an HTML page is not inert: unknown elements or attributes, event handlers, links,
    ``javascript:`` URLs, a missing or loose policy, a script the policy would run that is not
    one of ours (the page's only executable script carries the nonce or hash the policy names),
    JSON data that does not parse, a picture in the data that is not inert."""
    parser = parse(text)
    problems = _element_problems(parser, PAGE_TAGS | SVG_TAGS)
    metas = [
        a["content"]
        for t, a in parser.elements
        if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"
    ]
    policies = [p for p in [header_csp, *metas] if p]
    if not policies:
        return [*problems, "no Content-Security-Policy"]
    allowed = set.intersection(*(script_sources(p) for p in policies))
    for policy in policies:
        directives = dict(d.strip().partition(" ")[::2] for d in policy.split(";"))
        if directives.get("default-src") != "'none'" or directives.get("base-uri") != "'none'":
            problems.append(f"a policy that is not default-src 'none'; base-uri 'none': {policy}")
        for name in ("script-src", "style-src"):
            if not all(_NONCE_OR_HASH.fullmatch(s) for s in directives.get(name, "'none'").split()):
                problems.append(f"a loose {name}: {policy}")
    executable = 0
    for attrs, body in parser.scripts:
        if attrs.get("type") == "application/json":
            try:
                data = json.loads(body)
            except ValueError as error:
                problems.append(f"data that is not JSON: {error}")
                continue
            for chunk in data.get("chunks", []) if isinstance(data, dict) else []:
                problems += svg_problems(chunk)
            continue
        if attrs.get("src"):
            problems.append(f"script from {attrs['src']!r}")
        runs = f"'nonce-{attrs.get('nonce')}'" in allowed or source_hash(body) in allowed
        if runs:
            executable += 1
        elif "pwned" in body or "<" in body:
            problems.append(f"a script the policy would block, but a script: {body[:80]!r}")
    if executable != 1:
        problems.append(f"{executable} scripts the policy lets run (rulekit's pages have one)")
    return problems


def page_data(text: str) -> Any:
    """The JSON of the replay page's data element."""
    for attrs, body in parse(text).scripts:
        if attrs.get("type") == "application/json":
            return json.loads(body)
    raise AssertionError("no data element")


def page_texts(text: str) -> dict[str, str]:
    """The text of the page's ``<title>`` and ``<h1>`` (decoded), by path of open elements."""
    return parse(text).texts


#: Where text from a ruleset or a variant reaches the pages (see :func:`hostile_ruleset`).
PLACES = (
    "title", "action doc", "action cite", "trigger cite", "note", "view label", "shape title",
    "variant doc", "variant cite",
)  # fmt: skip


def variant_args(texts: dict[str, str]) -> list[str]:
    """The options that play the ruleset of :func:`hostile_ruleset` with its hostile variant, if any."""
    return ["--variant", "hostile"] if {"variant doc", "variant cite"} & set(texts) else []


def hostile_ruleset(target: Path, texts: dict[str, str]) -> Path:
    """Tic-tac-toe copied to ``target`` with ``texts[place]`` written at each place of :data:`PLACES`
    it names: the title, the action's doc and cite, the trigger's cite, a note the action writes,
    a text layer of the view, the title (tooltip) of the cells, and the action's doc and the
    trigger's cite as a variant ``hostile`` sets them (play it with :func:`variant_args`)."""
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(TIC_TAC_TOE, target, ignore=shutil.ignore_patterns("scenarios", "variants", "*.json"))
    data = yaml.safe_load((target / "ruleset.yaml").read_text(encoding="utf-8"))
    if "title" in texts:
        data["title"] = texts["title"]
    place = data["actions"]["place"]
    if "action doc" in texts:
        place["doc"] = texts["action doc"]
    if "action cite" in texts:
        place["cite"] = texts["action cite"]
    if "trigger cite" in texts:
        data["triggers"]["three_in_a_row"]["cite"] = texts["trigger cite"]
    constants = data.setdefault("constants", {})
    for key, name in (("note", "NOTE"), ("view label", "LABEL"), ("shape title", "TIP")):
        if key in texts:
            constants[name] = {"type": "str", "value": texts[key]}
    if "note" in texts:
        place["effect"] = "cell.mark = me\nnote(NOTE)"
    layers = data["view"]["layers"]
    if "shape title" in texts:
        layers[0]["rect"]["title"] = "TIP"
    if "view label" in texts:
        layers.append({"name": "label", "text": {"x": 5, "y": 12, "text": "LABEL"}})
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=10**6)
    (target / "ruleset.yaml").write_text(text, encoding="utf-8")
    changes = {
        "actions.place.doc": texts.get("variant doc"),
        "triggers.three_in_a_row.cite": texts.get("variant cite"),
    }
    if variant_args(texts):
        (target / "variants").mkdir()
        variant = {
            "variant": "hostile",
            "ruleset": "tic_tac_toe",
            "set": {k: v for k, v in changes.items() if v is not None},
        }
        text = yaml.safe_dump(variant, allow_unicode=True, sort_keys=False, width=10**6)
        (target / "variants" / "hostile.yaml").write_text(text, encoding="utf-8")
    return target


def hostile_text(rng: random.Random) -> str:
    """A few breakouts and ordinary words, for the fuzzer."""
    words = [*BREAKOUTS, "a", "b2", " ", "Tic", "é", "\n"]
    return "".join(rng.choice(words) for _ in range(rng.randint(1, 5)))
