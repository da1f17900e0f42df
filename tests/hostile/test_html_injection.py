"""HTML and SVG outputs: no text from a ruleset or log runs as script in a browser.

The replay page (``replay --html``), the served page (``serve``, through Starlette's TestClient)
and the pictures (``render``, the frames of both pages) are built from tic-tac-toe with hostile
text at every place a ruleset puts text that reaches a page, and judged by
:mod:`tests.hostile.html_checks`: known elements and attributes only, no event handler, no link,
the one script of the page runs by the policy's nonce or hash, the data parses back to itself,
and the title and heading say what the ruleset says.  The browser test is
tests/view/test_browser_hostile.py.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulekit.load import load_game, load_program
from rulekit.tools.bots import FirstLegalBot
from rulekit.tools.html import script_data, source_hash
from rulekit.tools.replay_html import collect
from rulekit.tools.svg import to_svg
from rulekit.tools.view import Picture, Shape
from tests.hostile.fuzzing import run as run_cli
from tests.hostile.html_checks import (
    BREAKOUTS,
    PLACES,
    hostile_ruleset,
    page_data,
    page_problems,
    page_texts,
    parse,
    svg_problems,
    variant_args,
)
from tests.view.conftest import need_web, web_client

IMG = "<img src=x onerror=window.pwned=1>"
ASSETS = Path(__file__).resolve().parents[2] / "rulekit" / "tools" / "assets"


def _replay(
    directory: Path, work: Path, seed: int = 1, variant: list[str] = ()
) -> tuple[str, dict[str, Any]]:
    """The replay page of a game of ``directory``, and the data it should hold."""
    log, page = work / "game.jsonl", work / "game.html"
    log.unlink(missing_ok=True)
    played = run_cli(["play", str(directory), *variant, "--quiet", "--seed", str(seed), "--log", str(log)])
    assert played.status == 0, played.err
    replayed = run_cli(["replay", str(log), "--ruleset", str(directory), "--html", str(page)])
    assert replayed.status == 0, replayed.err
    return page.read_text(encoding="utf-8"), collect(log, ruleset=str(directory))


def _served(directory: Path, work: Path, variants: Sequence[str] = ()) -> tuple[str, str, dict[str, Any]]:
    """The served page of ``directory`` (its text and policy header) and the state it asks for."""
    need_web()
    from rulekit.tools.serve import TOKEN_HEADER, Session, make_app

    game = load_game(str(directory), 2, variants=variants)
    session = Session(game, 0, {0}, [FirstLegalBot(), FirstLegalBot()], str(work / "served.jsonl"))
    session.act(0, "place(b2)")  # the log and a note
    client = web_client(make_app(session))
    token = session.seat_tokens[0]
    page = client.get(f"/?token={token}")
    assert page.status_code == 200
    state = client.get("/api/state", headers={TOKEN_HEADER: token})
    assert state.status_code == 200
    return page.text, page.headers.get("content-security-policy", ""), state.json()


def _title(directory: Path) -> str:
    return load_program(str(directory)).rules.title


@pytest.mark.parametrize("place", ["variant doc", "variant cite"])
def test_a_variants_text_reaches_the_replay_page_as_text(tmp_path: Path, place: str) -> None:
    texts = {place: "<!-- " + IMG, "title": "%DATA%"}
    directory = hostile_ruleset(tmp_path / "rs", texts)
    page, data = _replay(directory, tmp_path, 1, variant_args(texts))
    assert page_problems(page) == []
    assert page_data(page) == data
    assert "<!-- " + IMG in json.dumps(page_data(page), ensure_ascii=False)


# ------------------------------------------------------------------ the findings


def test_a_title_cannot_close_the_served_pages_title_and_run_a_script(tmp_path: Path) -> None:
    directory = hostile_ruleset(tmp_path / "rs", {"title": "</title><script>window.pwned=1</script>"})
    page, csp, _ = _served(directory, tmp_path)
    assert page_problems(page, csp) == []
    assert page_texts(page)["html/head/title"] == "</title><script>window.pwned=1</script> · rulekit"
    assert page_texts(page)["html/body/header/h1"] == "</title><script>window.pwned=1</script>"


def test_a_title_cannot_close_the_replay_pages_title_and_run_a_script(tmp_path: Path) -> None:
    directory = hostile_ruleset(tmp_path / "rs", {"title": "</title><script>window.pwned=1</script>"})
    page, _ = _replay(directory, tmp_path)
    assert page_problems(page) == []
    assert page_texts(page)["html/head/title"] == "</title><script>window.pwned=1</script> · replay"


def test_a_title_percent_data_stays_the_heading_of_the_replay_page(tmp_path: Path) -> None:
    """The old page filled its template with chained str.replace: the game's JSON went into <h1>."""
    directory = hostile_ruleset(tmp_path / "rs", {"title": "%DATA% %CHART% {{ data }}"})
    page, data = _replay(directory, tmp_path)
    assert page_texts(page)["html/body/header/h1"] == "%DATA% %CHART% {{ data }} · replay"
    assert page_data(page) == data


@pytest.mark.parametrize("place", ["action doc", "note", "action cite", "trigger cite"])
def test_an_image_with_onerror_in_a_rule_text_stays_text(tmp_path: Path, place: str) -> None:
    directory = hostile_ruleset(tmp_path / "rs", {"title": "%DATA%", place: IMG})
    page, data = _replay(directory, tmp_path)
    assert page_problems(page) == []
    assert IMG in json.dumps(page_data(page), ensure_ascii=False)
    assert page_data(page) == data


@pytest.mark.parametrize("place", ["note", "action cite", "trigger cite", "action doc"])
def test_a_comment_opener_in_a_rule_text_keeps_the_data_valid_json(tmp_path: Path, place: str) -> None:
    """The old page wrote <!-- as <\\!--, which is not JSON: the page showed nothing."""
    directory = hostile_ruleset(tmp_path / "rs", {place: "a <!-- b <script> c"})
    page, data = _replay(directory, tmp_path)
    assert page_data(page) == data
    assert "a <!-- b <script> c" in json.dumps(page_data(page), ensure_ascii=False)


def test_the_replay_page_declares_a_policy_that_runs_only_its_own_script_and_style(tmp_path: Path) -> None:
    page, _ = _replay(hostile_ruleset(tmp_path / "rs", {}), tmp_path)
    parsed = parse(page)
    [csp] = [a["content"] for t, a in parsed.elements if a.get("http-equiv") == "Content-Security-Policy"]
    [(_, script)] = [(a, body) for a, body in parsed.scripts if "type" not in a]
    style = re.search(r"<style>(.*?)</style>", page, re.S)
    assert style is not None
    directives = dict(d.strip().partition(" ")[::2] for d in csp.split(";"))
    assert directives == {
        "default-src": "'none'",
        "script-src": source_hash(script),
        "style-src": source_hash(style.group(1)),
        "img-src": "data:",
        "base-uri": "'none'",
        "form-action": "'none'",
    }
    assert page_problems(page) == []


def test_the_served_page_sends_a_policy_with_a_fresh_nonce_per_response(tmp_path: Path) -> None:
    need_web()
    from rulekit.tools.serve import Session, make_app

    game = load_game("tic_tac_toe", 2)
    session = Session(game, 0, {0}, [FirstLegalBot(), FirstLegalBot()], str(tmp_path / "g.jsonl"))
    client = web_client(make_app(session))
    nonces = []
    for _ in range(2):
        response = client.get(f"/?token={session.seat_tokens[0]}")
        csp = response.headers["content-security-policy"]
        directives = dict(d.strip().partition(" ")[::2] for d in csp.split(";"))
        nonce = directives["script-src"]
        assert re.fullmatch(r"'nonce-[A-Za-z0-9_-]{20,}'", nonce)
        assert directives == {
            "default-src": "'none'",
            "script-src": nonce,
            "style-src": nonce,
            "img-src": "data:",
            "base-uri": "'none'",
            "form-action": "'none'",
            "connect-src": "'self'",
            "frame-ancestors": "'none'",
        }
        parsed = parse(response.text)
        assert [f"'nonce-{a['nonce']}'" for t, a in parsed.elements if t in ("script", "style")] == [
            nonce
        ] * 2
        assert page_problems(response.text, csp) == []
        nonces.append(nonce)
    assert nonces[0] != nonces[1]


def test_no_page_has_an_inline_handler_and_only_pictures_go_through_inner_html() -> None:
    """Handlers are attached with addEventListener; text goes into the page with textContent."""
    for path in sorted(ASSETS.iterdir()):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\son[a-z]+\s*=", text), path.name
        assert not re.search(r"\.on[a-z]+\s*=", text), path.name  # element.onclick = ...
        assert "|safe" not in text.replace(" ", "") and "autoescape false" not in text, path.name
        assert text.count("innerHTML =") <= 1, path.name
        for line in text.splitlines():
            if "innerHTML =" in line:
                assert re.search(
                    r"\.innerHTML = (s\.svg|step\.frame\.map\(\(k\) => DATA\.chunks\[k\]\))", line
                )


# ------------------------------------------------------------------ pictures


HOSTILE_PROPS = {
    "fill": "url(javascript:alert(1))",
    "stroke": '"><script>window.pwned=1</script>',
    "anchor": '" onload="window.pwned=1',
    "title": "</title><script>window.pwned=1</script>",
    "text": "<svg onload=window.pwned=1>]]>",
    "ref": '"/><foreignObject><iframe/></foreignObject>',
    "action": "x\" onclick='window.pwned=1'",
    "bind": {"go.k": "'/><script>window.pwned=1</script>", '" onclick="x': "1"},
}


@pytest.mark.parametrize("kind", ["rect", "circle", "polygon", "line", "text"])
def test_a_picture_writes_hostile_shape_values_as_text_and_only_colours_as_paint(kind: str) -> None:
    props = {"x": 1, "y": 2, "w": 3, "h": 4, "r": 5, "x1": 0, "y1": 0, "x2": 1, "y2": 1, "points": [(0, 0)]}
    shape = Shape(kind, 'l" onmouseover="window.pwned=1', {**props, **HOSTILE_PROPS})
    picture = Picture(10, 10, "javascript:x", (shape,), ("<img src=x onerror=window.pwned=1>",), "<script>")
    svg = to_svg(picture, caption="<!-- <script>")
    assert svg_problems(svg) == []
    root = ET.fromstring(svg)  # well-formed XML: every value stayed inside its attribute or text
    texts = "".join(root.itertext())
    assert "<script>" in texts and "<img src=x onerror=window.pwned=1>" in texts


def test_a_colour_that_is_not_a_colour_is_refused_by_check(tmp_path: Path) -> None:
    directory = hostile_ruleset(tmp_path / "rs", {})
    text = (directory / "ruleset.yaml").read_text(encoding="utf-8")
    text = text.replace("'#f7f3e8'", "'url(javascript:alert(1))'")
    (directory / "ruleset.yaml").write_text(text, encoding="utf-8")
    outcome = run_cli(["check", str(directory)])
    assert outcome.status == 1 and "background must be a colour" in outcome.err


# ------------------------------------------------------------------ the data function

_json_text = st.one_of(st.sampled_from(BREAKOUTS), st.text(max_size=12))
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | _json_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_json_text, inner, max_size=4),
    max_leaves=20,
)


@given(data=_json)
def test_script_data_is_json_of_exactly_the_data_that_cannot_end_its_element(data: Any) -> None:
    text = str(script_data(data))
    assert json.loads(text) == data
    assert not set(text) & {"<", ">", "&", "\u2028", "\u2029"}
    assert "</script" not in text.lower() and "<!--" not in text and "]]>" not in text


def test_script_data_refuses_a_number_json_cannot_say() -> None:
    with pytest.raises(ValueError):
        script_data({"score": float("nan")})


# ------------------------------------------------------------------ the property

_ORDINARY = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=6)
_HOSTILE = st.lists(st.one_of(st.sampled_from(BREAKOUTS), _ORDINARY), min_size=1, max_size=5).map("".join)

# A title is printable text of at most 200 characters (else check refuses the ruleset, exit 1).
_TITLE = _HOSTILE.map(lambda text: "".join(c for c in text if c.isprintable())[:200])
_TEXTS = st.fixed_dictionaries({}, optional={"title": _TITLE, **dict.fromkeys(PLACES[1:], _HOSTILE)})


@settings(
    parent=settings(),
    max_examples=min(settings().max_examples, 10),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(texts=_TEXTS, seed=st.integers(0, 50))
def test_hostile_text_anywhere_in_a_ruleset_reaches_every_page_inert(
    tmp_path: Path, texts: dict[str, str], seed: int
) -> None:
    """Breakouts of HTML, SVG, scripts, comments and templates at every place of a ruleset or
    variant whose text reaches a page: the replay page and the served page are inert and work."""
    _assert_inert_pages(tmp_path, texts, seed)


@pytest.mark.slow
@settings(
    parent=settings(),
    max_examples=max(settings().max_examples, 300),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(texts=_TEXTS, seed=st.integers(0, 50))
def test_much_hostile_text_reaches_every_page_inert(tmp_path: Path, texts: dict[str, str], seed: int) -> None:
    """The long version of the property."""
    _assert_inert_pages(tmp_path, texts, seed)


def _assert_inert_pages(tmp_path: Path, texts: dict[str, str], seed: int) -> None:
    """The replay page and the served page of the hostile ruleset ``texts`` are inert and work."""
    directory = hostile_ruleset(tmp_path / "rs", texts)
    title = _title(directory)
    variant = variant_args(texts)
    page, data = _replay(directory, tmp_path, seed, variant)
    assert page_problems(page) == []
    assert page_data(page) == data
    assert page_texts(page)["html/head/title"] == f"{title} · replay"
    assert page_texts(page)["html/body/header/h1"] == f"{title} · replay"
    served, csp, state = _served(directory, tmp_path, ["hostile"] if variant else [])
    assert page_problems(served, csp) == []
    assert page_texts(served)["html/head/title"] == f"{title} · rulekit"
    assert svg_problems(state["svg"]) == []
    assert state["legal"]  # the page still has something to play
