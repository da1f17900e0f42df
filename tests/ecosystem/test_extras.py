"""An integration's tests never skip silently in CI."""

from __future__ import annotations

import pytest

from tests.ecosystem.extras import require

MISSING = "rulekit_no_such_package"


def test_a_missing_extra_fails_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """With CI=true a missing integration fails the run instead of skipping."""
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must run the openspiel tests"):
        require(MISSING, "openspiel")


def test_a_missing_extra_skips_with_the_reason_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """Off CI a missing integration skips, saying what to install."""
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"pip install -e '\.\[pettingzoo\]'"):
        require(MISSING, "pettingzoo")


def test_an_installed_module_is_returned() -> None:
    """require() returns the module when it is installed."""
    assert require("json", "none").dumps([1]) == "[1]"
