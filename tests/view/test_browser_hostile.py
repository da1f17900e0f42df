"""Pages built from a hostile ruleset in a real browser: no script from the ruleset runs, and the
pages still work (their own script and style run by the policy's hash or nonce).

Every payload would set ``window.pwned`` or ``document.title`` if it ran.  Skipped without
Chromium on a developer's machine, failed in CI (tests/view/conftest.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rulekit.cli import main
from rulekit.load import load_game
from rulekit.tools.bots import FirstLegalBot
from rulekit.tools.serve import Session
from tests.hostile.html_checks import PLACES, hostile_ruleset

TIMEOUT = 15
PAYLOADS = [
    "</title><script>window.pwned=1</script>",
    "%DATA%",
    "<img src=x onerror=window.pwned=2>",
    "<svg onload=window.pwned=3>",
    "<!--",
    "<img src=x onerror=\"document.title='pwned'\">",
    "</script><script>window.pwned=4</script>",
    '"><iframe srcdoc="<script>parent.pwned=5</script>"></iframe>',
    "\u2028`${window.pwned=6}`",
]


def _texts(index: int) -> dict[str, str]:
    """Every place gets payloads; the title only printable ones (check refuses the others)."""
    places = [place for place in PLACES if not place.startswith("variant")]
    texts = {place: " ".join(PAYLOADS[(index + k) % len(PAYLOADS)] for k in range(3)) for place in places}
    texts["title"] = "".join(c for c in texts["title"] if c.isprintable())
    return texts


def _wait(browser: Any, condition: Callable[[Any], Any]) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(browser, TIMEOUT).until(condition)


def _nothing_ran(browser: Any, title: str) -> None:
    assert browser.execute_script("return window.pwned === undefined && window.parent.pwned === undefined")
    assert browser.execute_script("return document.title") == title
    assert (
        browser.execute_script("return document.querySelectorAll('iframe, img, foreignObject').length") == 0
    )
    # our own style ran (by its hash or nonce): the header is dark blue
    assert (
        browser.execute_script("return getComputedStyle(document.querySelector('header')).backgroundColor")
        == "rgb(44, 62, 80)"
    )


def test_a_replay_page_of_a_hostile_ruleset_runs_no_script_of_it_and_still_steps(
    browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    for index in range(0, len(PAYLOADS), 3):
        directory = hostile_ruleset(tmp_path / f"rs{index}", _texts(index))
        log, page = tmp_path / f"g{index}.jsonl", tmp_path / f"g{index}.html"
        assert main(["play", str(directory), "--quiet", "--seed", "3", "--log", str(log)]) == 0
        assert main(["replay", str(log), "--ruleset", str(directory), "--html", str(page)]) == 0
        browser.get(page.as_uri())
        body = browser.find_element(By.TAG_NAME, "body")
        _wait(browser, lambda b, body=body: body.get_attribute("data-step") == "0")
        body.send_keys(Keys.ARROW_RIGHT)
        _wait(browser, lambda b, body=body: body.get_attribute("data-step") == "1")
        info = browser.find_element(By.ID, "step-info").text
        note = _texts(index)["note"]
        assert note.split("\u2028")[0].strip() in info  # the note, as text
        assert browser.execute_script("return DATA.rules['action:place'].doc") == _texts(index)["action doc"]
        body.send_keys(Keys.END)
        _wait(browser, lambda b, body=body: body.get_attribute("data-step") not in ("0", "1"))
        _nothing_ran(browser, f"{_texts(index)['title']} · replay")


def test_the_served_page_of_a_hostile_ruleset_runs_no_script_of_it_and_lists_the_actions(
    browser: Any, serve: Callable[[Any], str], tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    for index in range(0, len(PAYLOADS), 3):
        directory = hostile_ruleset(tmp_path / f"rs{index}", _texts(index))
        game = load_game(str(directory), 2)
        session = Session(game, 0, {0}, [FirstLegalBot(), FirstLegalBot()], str(tmp_path / f"s{index}.jsonl"))
        browser.get(serve(session) + f"?token={session.seat_tokens[0]}")
        _wait(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, "#actions li button")) == 9)
        browser.find_element(By.CSS_SELECTOR, '#actions button[data-action="place(b2)"]').click()
        _wait(browser, lambda b: "you played place(b2)" in b.find_element(By.ID, "message").text)
        _wait(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, "#log li")) == 2)
        _nothing_ran(browser, f"{_texts(index)['title']} · rulekit")
