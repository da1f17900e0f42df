"""An integration's tests never skip silently in CI."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

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


def test_ci_installs_both_extras_and_runs_their_slow_tests_with_ci_set() -> None:
    """.ci/run sets CI and runs both steps; make installs the test extra, which holds both adapters."""
    root = Path(__file__).resolve().parents[2]
    run = (root / ".ci" / "run").read_text(encoding="utf-8")
    assert 'export CI="${CI:-true}"' in run
    assert re.search(r"^make test$", run, re.MULTILINE) and re.search(r"^make test-slow$", run, re.MULTILINE)
    makefile = (root / "Makefile").read_text(encoding="utf-8")
    assert "pip install --quiet -e '.[dev,test]'" in makefile
    assert re.search(r"^test-slow:.*\n\t.*pytest -q -m slow( -n auto)?$", makefile, re.MULTILINE)
    extras = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    test_extra = " ".join(extras["optional-dependencies"]["test"])
    assert re.search(r"rulekit\[[^\]]*\bopenspiel\b", test_extra)
    assert re.search(r"rulekit\[[^\]]*\bpettingzoo\b", test_extra)
