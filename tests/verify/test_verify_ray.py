"""``verify --executor ray``: the lanes as Ray tasks give the result of a local run."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import pytest

from rulekit.tools.verify import main
from tests.ecosystem.extras import require
from tests.verify.test_verify_run import STREAK, _options, _outcome


class _Remote:
    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function

    def remote(self, *args: Any) -> Any:
        return self.function(*args)


def _stub_ray(calls: list[tuple[Any, ...]]) -> types.ModuleType:
    """A stand-in for Ray that runs each task at once in this process (no cluster)."""
    ray = types.ModuleType("ray")

    def remote(function: Callable[..., Any]) -> _Remote:
        def record(*args: Any) -> Any:
            calls.append(args)
            return function(*args)

        return _Remote(record)

    ray.is_initialized = lambda: True  # type: ignore[attr-defined]
    ray.remote = remote  # type: ignore[attr-defined]
    ray.get = lambda refs: list(refs)  # type: ignore[attr-defined]
    return ray


@pytest.mark.parametrize("case", ["clean", "planted"])
def test_lanes_as_ray_tasks_give_the_local_result(
    case: str, write_ruleset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setitem(sys.modules, "ray", _stub_ray(calls))
    if case == "planted":  # game 12 fails; the lanes without a shared bound play on past it
        options = _options(write_ruleset(STREAK), None, examples=100, seed=1, shrink=False)
    else:
        options = _options("tic_tac_toe", None, examples=40)
    local = _outcome(attrs.evolve(options, workers=2))
    on_ray = _outcome(attrs.evolve(options, executor="ray"))
    assert on_ray == local
    assert sorted(lane for _, lane in calls) == [0, 1, 2, 3]  # a task per lane
    assert all(Path(o.ruleset).is_absolute() or o.ruleset == "tic_tac_toe" for o, _ in calls)
    if case == "planted":
        assert local[1] == 13 and local[3] is not None


def test_address_without_ray_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tic_tac_toe", "--address", "10.0.0.1:6379", "--quiet"]) == 2
    assert "--address is for --executor ray" in capsys.readouterr().err


def test_ray_missing_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    assert main(["tic_tac_toe", "--executor", "ray", "--examples", "4", "--quiet"]) == 2
    assert "--executor ray needs Ray" in capsys.readouterr().err


@pytest.mark.slow  # a local Ray takes half a minute to start on a small machine
def test_a_real_local_ray_gives_the_local_result(write_ruleset: Callable[..., Path]) -> None:
    require("ray", "ray")
    options = _options(write_ruleset(STREAK), None, examples=100, seed=1, shrink=False)
    assert _outcome(attrs.evolve(options, executor="ray")) == _outcome(attrs.evolve(options, workers=1))
