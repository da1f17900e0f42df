"""The step charge and the memo of generated rules functions, and the tables that keep their
results across listings: the run-time helpers behind every rules function.

The code generator writes a rules function's body once and hands it to :func:`memoized`
(``P_memo`` in the generated module), which returns the function the rules call: it charges
the step of entering the function and, while legal actions are listed (``R.memo`` is a dict),
answers a call it has seen in this listing from the memo.  A function whose fields are known
(``reads``) also keeps its results across listings in a table per function
(:func:`persistent_table`) while those fields hold the same values; a result taken from an
earlier listing charges the steps computing it took, so the budget counts as if it had been
computed again.  :func:`kept_value` and :func:`keep_value` do the same for a parameter's domain
in a generated enumerator.
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

from rulekit.limits import LIMITS
from rulekit.runtime.errors import RuleFailure

#: A value not memoized yet (``P_miss`` in generated code).
MISSING: Any = object()
#: In ``R.memo``: a function or domain whose table is not kept (given up); ``P_off``.
OFF: Any = object()

#: A table kept across listings is given up (its function memoized per listing only) when,
#: after this many listings, fewer than one in KEPT_AT_LEAST found its fields unchanged:
#: comparing the fields then costs more than the kept results save.
KEPT_TRIAL = 128
KEPT_AT_LEAST = 4

Reads = tuple[tuple[str | None, str], ...]


def memoized(body: Callable[..., Any], key: int, reads: Reads | None, mine: bool) -> Callable[..., Any]:
    """The rules function whose value is ``body(F, R, me, *args)``, charging one step when it
    is entered (on a memo hit too) and memoized while legal actions are listed.

    ``key`` tells the functions apart in ``R.memo``; ``reads`` (the fields it reads, when that
    is all it depends on) keeps its results across listings (:func:`persistent_table`); a
    function that does not depend on the acting player (``mine`` false) shares its results
    between players.  An argument that cannot key a memo (a map) computes the value again.
    The function has the body's parameters (``F, R, me`` and as many more).
    """
    code = body.__code__
    arity = code.co_argcount - 3
    variant = "listed" if reads is None else "kept" if mine else "shared"
    spelled = arity <= _SPELLED_OUT and not code.co_flags & inspect.CO_VARARGS
    make = _MAKERS[variant][arity] if spelled else _MAKERS[variant][-1]
    made: Callable[..., Any] = make(body, key, reads, persistent_table)
    return made


#: The memoized function's code, for each variant: ``listed`` (memoized per listing), ``kept``
#: (kept across listings, keyed by the acting player too) and ``shared`` (kept, the same for
#: every player); ``{args}`` is the parameters after ``me`` (``, a, b``), or ``, *args``.
_CODE = MappingProxyType(
    {
        "listed": """
def make(body, key, reads, persistent_table):
    def listed(F, R, me{args}):
        R.left -= 1
        if R.left < 0:
            R.over_budget()
        M = R.memo
        if M is None:
            return body(F, R, me{args})
        K = (key, me{args})
        try:
            v = M.get(K, MISSING)
        except TypeError:  # an unhashable argument: no memo
            return body(F, R, me{args})
        if v is MISSING:
            v = M[K] = body(F, R, me{args})
        return v
    return listed
""",
        "kept": """
def make(body, key, reads, persistent_table):
    def kept(F, R, me{args}):
        R.left -= 1
        if R.left < 0:
            R.over_budget()
        M = R.memo
        if M is None:
            return body(F, R, me{args})
        K = ({key})
        try:
            v = M.get(K, MISSING)
        except TypeError:  # an unhashable argument: no memo
            return body(F, R, me{args})
        if v is not MISSING:
            return v
        T = M.get(key)
        if T is None:
            T = persistent_table(F, R, key, reads)
        if T is OFF:
            v = M[K] = body(F, R, me{args})
            return v
        E = T.get(K)
        if E is not None:  # computed in an earlier listing: charge what it cost
            R.left -= E[1]
            if R.left < 0:
                R.over_budget()
            v = M[K] = E[0]
            return v
        S = R.left
        v = M[K] = body(F, R, me{args})
        T[K] = (v, S - R.left)
        return v
    return kept
""",
    }
)

#: Parameters after ``me`` written out up to this many (faster than ``*args``).
_SPELLED_OUT = 6


def _makers(variant: str) -> tuple[Callable[..., Any], ...]:
    """The factories of ``variant`` for 0.._SPELLED_OUT parameters after ``me``, then any."""
    code = _CODE["listed" if variant == "listed" else "kept"]
    makers = []
    for arity in [*range(_SPELLED_OUT + 1), -1]:
        args = "".join(f", a{i}" for i in range(arity)) if arity >= 0 else ", *args"
        key = f"key{args}," if variant == "shared" else f"key, me{args}"
        source = code.replace("{key}", key).replace("{args}", args)
        namespace: dict[str, Any] = {"MISSING": MISSING, "OFF": OFF}
        exec(compile(source, f"<rulekit.runtime.memo {variant}/{arity}>", "exec"), namespace)
        makers.append(namespace["make"])
    return tuple(makers)


def persistent_table(F: dict[Any, Any], R: Any, key: int | str, reads: Reads) -> dict:
    """The results of the memoized rules function ``key`` for this listing (stored in
    ``R.memo[key]``): its table from earlier listings if the fields it ``reads`` hold the
    same values as when the table was started (compared by value: state values are
    immutable), else a new one.  ``R.persist`` holds one entry per function: the size of
    the field dictionary its keys were resolved for, their getter (None once given up, see
    KEPT_TRIAL), the values, the table, listings seen, listings that kept the table; None
    (the reference enumerator) keeps nothing across listings.  A table given up is ``OFF``."""
    persist = R.persist
    table: dict[Any, Any]
    if persist is None:
        table = R.memo[key] = {}
        return table
    entry = persist.get(key)
    if entry is None or entry[0] != len(F):
        keys = [k for k in F if k in reads or (type(k) is tuple and len(k) == 2 and (None, k[1]) in reads)]
        getter = operator.itemgetter(*keys) if keys else _no_reads
        entry = persist[key] = [len(F), getter, MISSING, None, 0, 0]
    getter = entry[1]
    if getter is None:  # (not reached while R.memo starts from R.off; kept for safety)
        R.memo[key] = OFF
        return OFF
    values = getter(F)
    table = entry[3]
    entry[4] += 1
    if table is None or values != entry[2]:
        entry[2] = values
        table = entry[3] = {}
        if entry[4] >= KEPT_TRIAL and entry[5] * KEPT_AT_LEAST < entry[4]:
            entry[1] = entry[2] = entry[3] = None  # rarely kept: not worth comparing
            R.off[key] = OFF  # every listing's memo starts with it: no call here any more
            R.memo[key] = OFF
            return OFF
    else:
        entry[5] += 1
    R.memo[key] = table
    return table


def kept_value(F: dict[Any, Any], R: Any, me: Any, key: str, reads: Reads) -> Any:
    """A parameter's domain that reads no earlier parameter, as kept from an earlier listing
    in the table of ``key`` (:func:`persistent_table`) while the fields it reads hold the
    same values, per acting player ``me`` (None: the same for every player); charges the
    steps computing it took.  ``MISSING`` if there is none: the enumerator computes it
    and hands it to :func:`keep_value`."""
    table = R.memo.get(key)
    if table is None:
        table = persistent_table(F, R, key, reads)
    if table is OFF:
        return MISSING
    entry = table.get(me)
    if entry is None:
        return MISSING
    R.left -= entry[1]
    if R.left < 0:
        R.over_budget()
    return entry[0]


def keep_value(R: Any, key: str, me: Any, value: Any, start: int) -> None:
    """Keep a domain just computed (from step budget ``start``), see :func:`kept_value`."""
    table = R.memo[key]
    if table is not OFF:
        table[me] = (value, start - R.left)


def _no_reads(F: dict[Any, Any]) -> tuple[()]:
    return ()


def too_many_candidates() -> None:
    """Raised by a generated enumerator whose listing grew beyond the limit."""
    raise RuleFailure(f"more than {LIMITS.max_candidates} legal actions at once (limit max_candidates)")


#: The memoized functions' factories, by variant and number of parameters after ``me``
#: (fixed code, written once when this module is imported).
_MAKERS = MappingProxyType({variant: _makers(variant) for variant in ("listed", "kept", "shared")})
