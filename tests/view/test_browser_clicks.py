"""Served games played by clicks only (headless Chromium via Selenium): a view's ``bind:`` makes
shapes and controls build an action one click at a time (docs/viewer.md#play-by-clicks).

After every click the highlighted shapes and controls are compared with what the engine's
legal actions allow given the clicks so far; the person's seat aims at a legal action chosen at
random and reaches it by clicking only highlighted elements; the bots play the other seats;
the log the server wrote replays.  Skipped without Chromium/selenium (failed in CI), as the
other browser tests (tests/view/conftest.py).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rulekit.cli import main
from rulekit.engine.game import Action, Game, State
from rulekit.engine.values import format_value
from rulekit.load import load_game, load_program
from rulekit.tools.bots import RandomBot
from rulekit.tools.clicks import bound_targets
from rulekit.tools.serve import Session
from rulekit.tools.view import compile_view

TIMEOUT = 20
MAX_CLICKS_PER_ACTION = 40

#: What the page shows now: which answer it has drawn, for which state, and every bound element.
PROBE = """
const box = document.getElementById("clicks");
const offer = document.getElementById("play-complete");
return {
  drawn: Number(box.dataset.drawn || 0),
  moves: box.dataset.moves === undefined ? -1 : Number(box.dataset.moves),
  answered: Boolean(clicks.answer),
  auto: Boolean(clicks.answer && clicks.answer.auto),
  terminal: Boolean(snapshot && snapshot.terminal),
  yourTurn: Boolean(snapshot && snapshot.your_turn),
  choices: clicks.choices,
  board: Array.from(document.querySelectorAll("#board [data-bind]")).map((e) => ({
    bind: JSON.parse(e.dataset.bind), lit: e.classList.contains("clickable"),
    chosen: e.classList.contains("chosen")})),
  controls: Array.from(document.querySelectorAll("#clicks button.control"))
    .map((e) => JSON.parse(e.dataset.bind)),
  complete: offer ? offer.textContent.replace(/^play /, "") : null,
  listed: Array.from(document.querySelectorAll("#actions li[data-refs]:not(.dim) button"))
    .map((b) => b.dataset.action),
};
"""
#: Whether a click at the centre of the n-th bound element reaches it (scrolled into view first).
HITS = """
const el = document.querySelectorAll("#board [data-bind]")[arguments[0]];
el.scrollIntoView({block: "center", inline: "center"});
const r = el.getBoundingClientRect();
return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === el;
"""


def _pairs(game: Game, action: Action) -> dict[str, str]:
    """The targets an action fills: its name, and each parameter's value as the notation writes it."""
    compiled = game.program.actions[action.name]
    found = {"action": action.name}
    for name, arg, type_ in zip(compiled.params, action.args, compiled.param_types, strict=True):
        found[f"{action.name}.{name}"] = format_value(arg, type_)
    return found


def _key(binds: dict[str, str]) -> str:
    return json.dumps(sorted(binds.items()))


def _agrees(pairs: dict[str, str], binds: dict[str, str]) -> bool:
    return any(pairs.get(t) == v for t, v in binds.items())


def _expected(
    state: State, choices: list[dict[str, str]], board: list[dict[str, str]], bound: frozenset[str]
) -> Any:
    """From the engine's legal actions: which board elements and control values can still complete
    one with the choices so far (a chosen element is not highlighted again; a control offers only
    values that leave out some candidate)."""
    game = state.game
    legal = [_pairs(game, a) for a in state.legal_actions()]
    candidates = [p for p in legal if all(_agrees(p, c) for c in choices)]
    chosen = {_key(c) for c in choices}
    lit = [_key(b) not in chosen and any(_agrees(p, b) for p in candidates) for b in board]
    controls = {
        (t, v)
        for p in candidates
        for t, v in p.items()
        if t not in bound and not all(q.get(t) == v for q in candidates)
    }
    return lit, controls, candidates


def _wait_ready(browser: Any, session: Session, after: int) -> dict[str, Any]:
    """The page's probe once it has drawn a new answer for the server's current state (not one
    about to be played at once)."""
    from selenium.webdriver.support.ui import WebDriverWait

    def ready(b: Any) -> Any:
        probe = b.execute_script(PROBE)
        if probe["drawn"] <= after or probe["auto"]:
            return False
        with session.lock:
            moves = session.state.moves()
        return probe if probe["moves"] == moves and (probe["answered"] or probe["terminal"]) else False

    return dict(WebDriverWait(browser, TIMEOUT).until(ready))


def play_by_clicks(browser: Any, session: Session, url: str, seed: int) -> int:
    """Play the person's seat to the end of the game by clicking highlighted elements only,
    checking each time that they are exactly what the legal actions allow; returns the clicks."""
    from selenium.webdriver.common.by import By

    rng = random.Random(seed)
    bound = bound_targets(compile_view(session.game.program))
    browser.get(url)
    drawn, clicks, moves, aim, spent = 0, 0, -1, None, 0
    while True:
        probe = _wait_ready(browser, session, drawn)
        drawn = probe["drawn"]
        state = session.state
        if probe["terminal"]:
            return clicks
        assert probe["yourTurn"], "the page waits while the bots have played"
        game = state.game
        if probe["moves"] != moves:  # a new decision: aim at a legal action
            moves, spent = probe["moves"], 0
            aim = rng.choice(state.legal_actions())
        assert aim is not None
        board = [e["bind"] for e in probe["board"]]
        lit, controls, candidates = _expected(state, probe["choices"], board, bound)
        assert [e["lit"] for e in probe["board"]] == lit, (probe["choices"], game.action_to_string(aim))
        assert {(t, v) for c in probe["controls"] for t, v in c.items()} == controls
        texts = {game.action_to_string(a) for a in state.legal_actions() if _pairs(game, a) in candidates}
        assert set(probe["listed"]) == texts  # the text list, filtered to what the clicks chose
        goal = _pairs(game, aim)
        text = game.action_to_string(aim)
        if probe["complete"] is not None:
            assert len(candidates) == 1 and probe["complete"] == text
            browser.find_element(By.ID, "play-complete").click()
            clicks += 1
            continue
        options = [("board", i) for i, b in enumerate(board) if lit[i] and _agrees(goal, b)]
        options += [("control", i) for i, c in enumerate(probe["controls"]) if _agrees(goal, c)]
        rng.shuffle(options)
        for kind, index in options:
            if kind == "control":
                browser.find_elements(By.CSS_SELECTOR, "#clicks button.control")[index].click()
                break
            if browser.execute_script(HITS, index):
                browser.find_elements(By.CSS_SELECTOR, "#board [data-bind]")[index].click()
                break
        else:
            raise AssertionError(
                f"{text} cannot be built by clicks: nothing highlighted leads to it ({probe['choices']})"
            )
        clicks += 1
        spent += 1
        assert spent <= MAX_CLICKS_PER_ACTION, f"{text}: no progress after {spent} clicks"


def _replays(path: str) -> bool:
    return main(["replay", path]) == 0


def test_a_tic_tac_toe_game_is_played_by_clicks_only_and_its_log_replays(
    browser: Any, tmp_path: Path, serve: Callable[[Any], str]
) -> None:
    game = load_game("tic_tac_toe", 2)
    log = str(tmp_path / "t.jsonl")
    session = Session(game, 3, {0}, [RandomBot(1), RandomBot(2)], log)
    clicks = play_by_clicks(browser, session, serve(session) + f"?token={session.seat_tokens[0]}", seed=3)
    assert session.state.is_terminal() and clicks >= 3
    assert _replays(log)


def _session(ruleset: str, players: int, modules: list[str], seed: int, log: str) -> Session:
    program = load_program(ruleset, modules, [], players=players)
    game = Game(program, players)
    return Session(game, seed, {0}, [RandomBot(seed * 10 + s) for s in range(players)], log)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("ruleset", "players", "modules", "seed"),
    [
        ("el_caballero", 3, [], 5),
        ("el_capitan", 3, ["porto", "lisboa", "islas_canarias"], 6),
        ("royal_letter", 3, [], 7),
    ],
)
def test_a_whole_game_is_played_by_clicks_only_against_bots_and_its_log_replays(
    browser: Any,
    tmp_path: Path,
    serve: Callable[[Any], str],
    ruleset: str,
    players: int,
    modules: list[str],
    seed: int,
) -> None:
    log = str(tmp_path / f"{ruleset}.jsonl")
    session = _session(ruleset, players, modules, seed, log)
    url = serve(session) + f"?token={session.seat_tokens[0]}"
    clicks = play_by_clicks(browser, session, url, seed)
    assert session.state.is_terminal()
    assert clicks >= len([p for p, _ in session.recorder.actions if p == 0])
    assert _replays(log)


def _index(browser: Any, binds: dict[str, str]) -> int:
    """The position among the bound shapes of the one that binds exactly ``binds``."""
    script = (
        "return Array.from(document.querySelectorAll('#board [data-bind]'))"
        ".findIndex((e) => e.dataset.bind === arguments[0])"
    )
    index = int(browser.execute_script(script, json.dumps(binds, sort_keys=True)))
    assert index >= 0, binds
    return index


def test_a_partial_action_is_previewed_and_a_refused_click_shows_its_rule_next_to_it(
    browser: Any, tmp_path: Path, artifacts: Path, serve: Callable[[Any], str]
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    game = load_game("el_caballero", 3)
    session = Session(game, 1, {0}, [RandomBot(s) for s in range(3)], str(tmp_path / "b.jsonl"))
    mine = RandomBot(9)
    for _ in range(7):  # to a state where land_06 does not fit the free cell (-1, -1)
        assert session.act(0, game.action_to_string(mine.choose(session.state))) == {"ok": True}
    browser.get(serve(session) + f"?token={session.seat_tokens[0]}")
    drawn = _wait_ready(browser, session, 0)["drawn"]
    shapes = By.CSS_SELECTOR, "#board [data-bind]"
    card = {"place_area.card": "land_06"}
    browser.find_elements(*shapes)[_index(browser, card)].click()
    probe = _wait_ready(browser, session, drawn)
    cells = [b["bind"] for b in probe["board"] if b["lit"] and "place_area.cell" in b["bind"]]
    fits = {
        a.args[1] for a in session.state.legal_actions() if a.name == "place_area" and a.args[0] == "land_06"
    }
    assert {c["place_area.cell"] for c in cells} == {f"({x}, {y})" for x, y in fits}
    cell = cells[0]
    browser.find_elements(*shapes)[_index(browser, cell)].click()
    probe = _wait_ready(browser, session, probe["drawn"])
    caption = browser.find_element(By.CSS_SELECTOR, "#preview .caption").text
    assert caption.startswith(f"preview: after place_area(land_06, {cell['place_area.cell']}, ")
    assert browser.find_elements(By.CSS_SELECTOR, "#preview svg .layer-areas")
    assert "place_area [§6.2, §3.3]" in browser.find_element(By.ID, "rules").text
    rotation = browser.find_elements(By.CSS_SELECTOR, "#clicks button.control")
    assert rotation
    ActionChains(browser).move_to_element(rotation[0]).perform()
    tip = browser.find_element(By.ID, "tip").text
    assert "place_area.rotation = " in tip and "click: place_area(land_06, " in tip
    browser.execute_script("window.scrollTo(0, 0)")
    browser.save_screenshot(str(artifacts / "serve_clicks_preview.png"))
    browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    probe = _wait_ready(browser, session, probe["drawn"])
    assert probe["choices"] == [] and not browser.find_elements(By.CSS_SELECTOR, "#preview svg")
    assert len(probe["listed"]) == len(session.state.legal_actions())
    browser.find_elements(*shapes)[_index(browser, card)].click()
    probe = _wait_ready(browser, session, probe["drawn"])
    bad = {"add_caballero.cell": "(-1, -1)", "place_area.cell": "(-1, -1)"}
    assert not probe["board"][_index(browser, bad)]["lit"]
    browser.find_elements(*shapes)[_index(browser, bad)].click()
    note = _wait_ready(browser, session, probe["drawn"]) and browser.find_element(By.ID, "click-note")
    rule = "every edge shared with an area card must match, land to land and water to water [§3.3]"
    assert note.is_displayed() and rule in note.text and "turn_actions.yaml:" in note.text
    assert rule in browser.find_element(By.ID, "message").text
    browser.execute_script("window.scrollTo(0, 0)")
    browser.save_screenshot(str(artifacts / "serve_clicks_refused.png"))
