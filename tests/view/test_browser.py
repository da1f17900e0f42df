"""The replay viewer and the served game in a real browser (headless Chromium driven by Selenium).

What the page shows is compared with the engine's state; screenshots are saved as artefacts in
$RULEKIT_ARTIFACTS (default: pytest's temporary directory), never in the repository.
Without Chromium, chromedriver or selenium these tests are skipped on a developer's machine
(with how to install them) and fail in CI.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rulekit.cli import main
from rulekit.engine.game import State
from rulekit.load import load_game, load_program
from rulekit.tools.bots import FirstLegalBot, RandomBot
from rulekit.tools.serve import Session
from rulekit.tools.svg import to_svg
from rulekit.tools.view import draw
from rulekit.tools.view_cli import replay_to

TIMEOUT = 15


def _wait(browser: Any, condition: Callable[[Any], Any]) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, TIMEOUT).until(condition)


def _message_after(browser: Any, previous: str) -> str:
    """The page's message once it says something else than ``previous`` (else "": keep waiting)."""
    from selenium.webdriver.common.by import By

    text = str(browser.find_element(By.ID, "message").text)
    return text if text and previous not in text else ""


def _texts(browser: Any, layer: str) -> list[str]:
    """The texts of a layer of the picture on the page."""
    script = "return Array.from(document.querySelectorAll(arguments[0])).map(e => e.textContent)"
    return list(browser.execute_script(script, f"#board text.layer-{layer}"))


def _svg_texts(state: State, layer: str, seat: int | None = None) -> list[str]:
    """The same texts in the picture the engine draws for a state."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(to_svg(draw(state, seat)))
    return [
        "".join(t.itertext()).strip()
        for t in root.iter("{http://www.w3.org/2000/svg}text")
        if t.get("class") == f"layer-{layer}"
    ]


def _write_log(tmp_path: Path, ruleset: str, players: int, actions: int, seed: int = 4) -> Path:
    game = load_game(ruleset, players)
    state = game.new_initial_state(seed)
    bot = RandomBot(seed)
    header = {
        "rulekit_log": 1,
        "ruleset": ruleset,
        "modules": [],
        "variants": [],
        "fingerprint": load_program(ruleset).fingerprint,
        "players": players,
        "seed": seed,
    }
    lines = [header]
    for _ in range(actions):
        if state.is_terminal():
            break
        player = state.current_player()
        action = bot.choose(state)
        lines.append({"player": f"P{player + 1}", "action": game.action_to_string(action)})
        state.apply_action(action)
    path = tmp_path / f"{ruleset}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_the_replay_viewer_steps_through_a_game_with_keys_buttons_and_the_log(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    log = _write_log(tmp_path, "tic_tac_toe", 2, 9, seed=11)
    page = tmp_path / "ttt.html"
    assert main(["replay", str(log), "--html", str(page)]) == 0
    browser.get(page.as_uri())
    body = browser.find_element(By.TAG_NAME, "body")
    _wait(browser, lambda b: body.get_attribute("data-step") == "0")
    assert _texts(browser, "marks") == []
    for _ in range(3):
        body.send_keys(Keys.ARROW_RIGHT)
    _wait(browser, lambda b: body.get_attribute("data-step") == "3")
    assert _texts(browser, "marks") == _svg_texts(replay_to(str(log), 3), "marks")
    assert len(_texts(browser, "marks")) == 3
    browser.find_element(By.ID, "prev").click()
    _wait(browser, lambda b: body.get_attribute("data-step") == "2")
    body.send_keys(Keys.END)
    final = replay_to(str(log), None)
    last = str(final.moves())
    _wait(browser, lambda b: body.get_attribute("data-step") == last)
    assert _texts(browser, "marks") == _svg_texts(final, "marks")
    assert _texts(browser, "status") == _svg_texts(final, "status")
    info = browser.find_element(By.ID, "step-info").text
    assert f"Step {last}:" in info and "action place" in info
    if final.winners() != [0, 1]:
        assert "trigger three_in_a_row" in info
    browser.find_element(By.CSS_SELECTOR, '#log li[data-step="1"]').click()
    _wait(browser, lambda b: body.get_attribute("data-step") == "1")
    jump = browser.find_element(By.ID, "jump")
    jump.clear()
    jump.send_keys("4", Keys.ENTER)
    _wait(browser, lambda b: body.get_attribute("data-step") == "4")
    assert _texts(browser, "marks") == _svg_texts(replay_to(str(log), 4), "marks")
    # the chart's cursor stands at step 4 of `last` (the plot spans x 40 .. width - 12)
    cursor = browser.find_element(By.ID, "cursor")
    width = float(browser.find_element(By.ID, "chart").get_attribute("width")) - 52
    assert float(cursor.get_attribute("x1")) == pytest.approx(40 + width * 4 / int(last))
    browser.save_screenshot(str(artifacts / "replay_tic_tac_toe.png"))


def test_the_el_capitan_replay_shows_the_engines_state_at_every_step_asked(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    log = _write_log(tmp_path, "el_capitan", 3, 80)
    page = tmp_path / "el_capitan.html"
    assert main(["replay", str(log), "--html", str(page)]) == 0
    browser.get(page.as_uri())
    body = browser.find_element(By.TAG_NAME, "body")
    for step in (0, 10, 45, 80):
        jump = browser.find_element(By.ID, "jump")
        jump.clear()
        jump.send_keys(str(step), Keys.ENTER)
        _wait(browser, lambda b, s=str(step): body.get_attribute("data-step") == s)
        state = replay_to(str(log), step)
        for layer in ("heading", "player_lines", "city_values", "tracks"):
            assert _texts(browser, layer) == _svg_texts(state, layer), (step, layer)
        scores = browser.find_element(By.ID, "scores").text
        assert scores == ", ".join(f"P{p + 1} {s}" for p, s in enumerate(state.scores()))
    browser.save_screenshot(str(artifacts / "replay_el_capitan.png"))


def test_a_served_tic_tac_toe_game_is_played_by_clicking_the_board(
    browser: Any, tmp_path: Path, artifacts: Path, serve: Callable[[Any], str]
) -> None:
    from selenium.webdriver.common.by import By

    session = Session(
        load_game("tic_tac_toe", 2), 0, {0}, [FirstLegalBot(), FirstLegalBot()], str(tmp_path / "t.jsonl")
    )
    browser.get(serve(session) + f"?token={session.seat_tokens[0]}")
    _wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, '#board rect.clickable[data-ref="b2"]'))
    assert "token" not in browser.current_url  # the page took it out of the address bar
    browser.find_element(By.CSS_SELECTOR, '#board rect[data-ref="b2"]').click()
    _wait(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, "#log li")) == 2)
    assert session.state.value("b2", "mark") == 0 and session.state.value("a1", "mark") == 1
    assert _texts(browser, "marks") == _svg_texts(session.state, "marks", 0) == ["O", "X"]
    assert not browser.find_elements(By.CSS_SELECTOR, '#board rect.clickable[data-ref="b2"]')
    browser.find_element(By.CSS_SELECTOR, '#board rect[data-ref="b2"]').click()
    # the message of the first click ("you played place(b2)") is still shown until the answer comes
    message = _wait(browser, lambda b: _message_after(b, "you played place(b2)"))
    assert "b2 is not a possible 'cell' now" in message
    browser.find_element(By.CSS_SELECTOR, '#actions button[data-action="place(c3)"]').click()
    _wait(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, "#log li")) == 4)
    assert session.state.value("c3", "mark") == 0
    browser.save_screenshot(str(artifacts / "serve_tic_tac_toe.png"))


def test_a_served_el_capitan_game_explains_a_rejected_action_with_its_citation(
    browser: Any, tmp_path: Path, artifacts: Path, serve: Callable[[Any], str]
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    game = load_game("el_capitan", 3)
    session = Session(game, 2, {0}, [FirstLegalBot() for _ in range(3)], str(tmp_path / "c.jsonl"))
    browser.get(serve(session) + f"?token={session.seat_tokens[0]}")
    box = _wait(browser, lambda b: b.find_element(By.ID, "action-text"))
    _wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#actions button"))
    box.send_keys("take_loan(10)", Keys.ENTER)
    message = _wait(browser, lambda b: b.find_element(By.ID, "message").text)
    assert "no loans in the first round of the game [§4.5, R1]" in message
    browser.save_screenshot(str(artifacts / "serve_el_capitan_rejected.png"))
    card = session.state.value("game", "route_display")[0]
    money = session.state.value(0, "money")
    browser.find_element(By.CSS_SELECTOR, f'#board rect[data-ref="{card}"]').click()
    # the card is in one legal action only (buy it), so the click plays it
    _wait(browser, lambda b: b.find_element(By.ID, "message").text == f"you played buy_card({card})")
    assert session.state.value(0, "money") < money
    assert card in session.state.value(0, "hand")
    _wait(browser, lambda b: _texts(b, "player_lines") == _svg_texts(session.state, "player_lines", 0))
    # sail to the card's city from the list, then build by clicking site 1 of its U-track
    browser.find_element(By.CSS_SELECTOR, f'#actions button[data-action="sail_to({card})"]').click()
    _wait(browser, lambda b: b.find_element(By.ID, "message").text == f"you played sail_to({card})")
    city = session.state.value(0, "ship")
    assert city is not None
    site = _wait(
        browser, lambda b: b.find_element(By.CSS_SELECTOR, '#board rect.layer-tracks.clickable[data-ref="1"]')
    )
    assert (
        len(browser.find_elements(By.CSS_SELECTOR, "#board rect.layer-tracks.clickable")) == 2
    )  # sites 1, 2
    site.click()
    _wait(browser, lambda b: b.find_element(By.ID, "message").text == "you played build_warehouse(1)")
    assert session.state.value(city, "sites")[0] is not None
    _wait(browser, lambda b: _texts(b, "player_lines") == _svg_texts(session.state, "player_lines", 0))
    browser.save_screenshot(str(artifacts / "serve_el_capitan.png"))


def _hand(browser: Any) -> list[str]:
    script = (
        "return Array.from(document.querySelectorAll('#board rect.layer-own_hand')).map(e => e.dataset.ref)"
    )
    return list(browser.execute_script(script))


def test_a_served_el_caballero_game_shows_the_own_hand_and_plays_a_power_card(
    browser: Any, tmp_path: Path, artifacts: Path, serve: Callable[[Any], str]
) -> None:
    from selenium.webdriver.common.by import By

    game = load_game("el_caballero", 3)
    session = Session(game, 1, {0}, [FirstLegalBot() for _ in range(3)], str(tmp_path / "b.jsonl"))
    url = serve(session) + f"?token={session.seat_tokens[0]}"
    browser.get(url + "&seat=P2")  # a bot's seat: its picture (its hand) is not shown
    _wait(browser, lambda b: "neither shows nor plays P2" in b.find_element(By.ID, "message").text)
    assert browser.find_element(By.ID, "board").get_attribute("innerHTML").strip() == ""
    browser.get(url)
    _wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, '#board rect.clickable[data-ref="7"]'))
    assert _hand(browser) == [str(v) for v in session.state.value(0, "hand")]
    browser.find_element(By.CSS_SELECTOR, '#board rect[data-ref="7"]').click()
    _wait(browser, lambda b: session.state.value(0, "power") == 7)
    _wait(browser, lambda b: "7" not in _hand(b))
    assert _hand(browser) == [str(v) for v in session.state.value(0, "hand")]
    # now P1 places area cards: the power cards (action: play_power) are no longer clickable,
    # although supply(1..5) takes the same numbers
    assert any(a.name == "supply" for a in session.state.legal_actions())
    assert not browser.find_elements(By.CSS_SELECTOR, "#board rect.layer-own_hand.clickable")
    browser.save_screenshot(str(artifacts / "serve_el_caballero.png"))


@pytest.mark.parametrize(
    ("shot", "ruleset", "options"),
    [
        ("render_el_capitan", "el_capitan", []),
        ("render_el_capitan_modules", "el_capitan", ["--with", "porto,lisboa,islas_canarias"]),
        ("render_el_caballero", "el_caballero", []),
    ],
)
def test_a_picture_in_the_browser_has_the_size_the_view_declares(
    browser: Any, tmp_path: Path, artifacts: Path, shot: str, ruleset: str, options: list[str]
) -> None:
    """The standalone SVG opens in the browser at its declared size (a screenshot for review)."""
    from selenium.webdriver.common.by import By

    out = tmp_path / f"{shot}.svg"
    assert main(["render", ruleset, "--players", "3", "--step", "30", *options, "-o", str(out)]) == 0
    browser.get(out.as_uri())
    svg = browser.find_element(By.TAG_NAME, "svg")
    assert int(svg.get_attribute("width")) == svg.size["width"]
    browser.save_screenshot(str(artifacts / f"{shot}.png"))
