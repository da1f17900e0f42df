"""Fixtures for the view tests: a browser (headless Chromium via Selenium) and a served game.

Browser tests need Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package;
served games need the ``web`` extra. On a developer's machine without them these tests are
skipped with the reason and how to install; in CI (``CI=true``) they fail instead.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

INSTALL_BROWSER = (
    "apt-get install -y chromium chromium-driver && pip install -e '.[test]' (.ci/run does both)"
)
INSTALL_WEB = "pip install -e '.[web]' (Starlette and uvicorn)"


def missing(what: str, how: str) -> None:
    """Skip on a developer's machine, fail in CI: CI must run every test."""
    message = f"{what} is not installed, so this test did not run; install it with: {how}"
    if os.environ.get("CI", "").lower() in ("true", "1"):  # as tests/ecosystem/extras.py
        pytest.fail(f"CI must run this test, but {message}", pytrace=False)
    pytest.skip(message)


def need_web() -> None:
    for module in ("starlette", "uvicorn"):
        if importlib.util.find_spec(module) is None:
            missing(f"the web extra ({module})", INSTALL_WEB)


def web_client(app: Any, base_url: str = "http://127.0.0.1") -> Any:
    """Starlette's TestClient for ``app`` (the web extra must be there: :func:`need_web`),
    without the warning Starlette gives on import when it finds httpx rather than httpx2
    (httpx is what the test extra installs, and what the hostile request tests catch)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    return TestClient(app, base_url=base_url)


def chromium_paths() -> tuple[str, str] | None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        return None
    return browser, driver


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: $RULEKIT_ARTIFACTS, else a temporary directory (never the repository)."""
    where = os.environ.get("RULEKIT_ARTIFACTS")
    directory = Path(where) if where else tmp_path_factory.getbasetemp() / "screenshots"
    directory.mkdir(parents=True, exist_ok=True)
    return directory


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """A headless Chromium driven by Selenium (one per test session)."""
    if importlib.util.find_spec("selenium") is None:
        missing("selenium", INSTALL_BROWSER)
    paths = chromium_paths()
    if paths is None:
        missing("Chromium with chromedriver", INSTALL_BROWSER)
    assert paths is not None
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = paths[0]
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1500,1100",
        "--hide-scrollbars",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(paths[1]), options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def serve() -> Iterator[Callable[[Any], str]]:
    """``serve(session)`` runs the session's web app on 127.0.0.1 (a free port) and returns its URL."""
    need_web()
    from rulekit.tools.serve import bind, make_app, make_server

    servers: list[tuple[Any, threading.Thread]] = []

    def start(session: Any) -> str:
        sock = bind(0)
        server = make_server(make_app(session))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        servers.append((server, thread))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/"

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(timeout=10)
