"""The browser tests never skip in CI: .ci/run installs Chromium and its driver, and CI=true turns a
missing browser into a failure (on a developer's machine it is a skip that says how to install)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.view.conftest import INSTALL_BROWSER, missing

CI_RUN = Path(__file__).parents[2] / ".ci" / "run"


@pytest.mark.parametrize("value", ["true", "1"])
def test_a_missing_browser_fails_in_ci(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception, match="CI must run this test, but Chromium is not installed"):
        missing("Chromium", INSTALL_BROWSER)


def test_elsewhere_a_missing_browser_is_a_skip_with_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install -y chromium chromium-driver"):
        missing("Chromium", INSTALL_BROWSER)


def test_ci_installs_the_browser_and_keeps_the_screenshots() -> None:
    script = CI_RUN.read_text(encoding="utf-8")
    assert "apt-get install -y -qq chromium chromium-driver" in script
    assert 'export CI="${CI:-true}"' in script
    assert "RULEKIT_ARTIFACTS=" in script
    assert script.index("chromium-driver") < script.index("make test")
