"""The run-time helper every memoized rules function is made with (rulekit/runtime/memo.py)."""

from __future__ import annotations

from typing import Any

import pytest

from rulekit.runtime.context import Runtime
from rulekit.runtime.memo import memoized


def _counted(arity: int) -> tuple[list[tuple[Any, ...]], Any]:
    calls: list[tuple[Any, ...]] = []
    params = ", ".join(f"a{i}" for i in range(arity))
    namespace: dict[str, Any] = {"calls": calls}
    head = f"def body(F, R, me{', ' if arity else ''}{params}):"
    value = f"({params}{',' if arity else ''})"
    exec(f"{head}\n    calls.append((me, {params}))\n    return {value}", namespace)
    return calls, namespace["body"]


@pytest.mark.parametrize("arity", [0, 1, 2, 6, 7, 9])
@pytest.mark.parametrize("reads", [None, (("game", "x"),)])
def test_a_memoized_function_charges_every_call_and_computes_once_per_listing(arity: int, reads: Any) -> None:
    calls, body = _counted(arity)
    fn = memoized(body, 7, reads, True)
    R = Runtime(2, None)
    F = {("game", "x"): 1}
    args = tuple(range(arity))
    start = R.left
    assert fn(F, R, 0, *args) == args and fn(F, R, 0, *args) == args  # not listing: no memo
    assert len(calls) == 2 and start - R.left == 2
    R.memo = {}
    assert [fn(F, R, 0, *args) for _ in range(3)] == [args] * 3
    assert len(calls) == 3 and start - R.left == 5  # one computation, three steps
    fn(F, R, 1, *args)
    assert len(calls) == 4  # keyed by the acting player


def test_a_shared_function_serves_every_player_and_a_map_argument_computes_again() -> None:
    calls, body = _counted(2)
    fn = memoized(body, 3, (("game", "x"),), False)
    R = Runtime(2, None)
    R.memo = {}
    F = {("game", "x"): 1}
    fn(F, R, 0, 1, 2)
    fn(F, R, 1, 1, 2)
    assert len(calls) == 1
    fn(F, R, 0, {"a": 1}, 2)
    fn(F, R, 0, {"a": 1}, 2)
    assert len(calls) == 3


def test_a_body_taking_any_number_of_arguments_gets_them_all() -> None:
    def body(F: Any, R: Any, me: Any, *args: Any) -> tuple[Any, ...]:
        return args

    R = Runtime(2, None)
    R.memo = {}
    assert memoized(body, 1, None, True)({}, R, 0, 1, 2, 3) == (1, 2, 3)
