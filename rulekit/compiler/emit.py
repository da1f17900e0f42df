"""The only way author text enters generated Python: checked names and ``repr``-ed literals.

Every name the code generator writes that comes from a rules file (a variable, a
parameter, a function, a component kind, a constant, an event field) goes through
:func:`name`, which accepts only a whole ASCII name (``fullmatch``, so no trailing
newline) and always adds a prefix, so it can never be a Python keyword, a built-in
or a dunder.  Every value goes through :func:`literal`, which writes ``repr`` of
plain data only.  :func:`audit` re-reads the generated module and refuses anything
the generator never writes (defaults, dunders, imports, ...), as a second line of
defence; :func:`step_iter` and :func:`step_entry` are the hooks that charge
the step budget (with :func:`rulekit.runtime.memo.memoized`), and
:func:`checked_number` bounds numbers stored in the state (see
:mod:`rulekit.runtime.context`).
"""

from __future__ import annotations

import ast as pyast
import math
from collections import deque
from typing import Any

from rulekit.dsl.names import is_name


class UnsafeCode(Exception):
    """Author text would reach generated code unchecked: a bug in rulekit, never run."""


def name(prefix: str, text: str) -> str:
    """``prefix + text`` as a Python name, after checking that ``text`` is a whole DSL name.

    Raises:
        UnsafeCode: ``text`` is not a name (the loader should have refused it).
    """
    if not prefix or not is_name(text) or not is_name(prefix + text):
        raise UnsafeCode(f"not a name: {text!r}")
    return prefix + text


def literal(value: Any) -> str:
    """Python source for a plain value: None, bool, int, finite float, str, tuple, dict of them.

    Raises:
        UnsafeCode: any other value (e.g. ``inf``, ``nan``, an object).
    """
    if value is None or isinstance(value, bool | int | str):
        return repr(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise UnsafeCode(f"not a finite number: {value!r}")
        return repr(value)
    if isinstance(value, tuple | list):
        return "(" + "".join(literal(v) + ", " for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    raise UnsafeCode(f"not a plain value: {type(value).__name__}")


def step_iter(code: str) -> str:
    """An iterable charged to the step budget by its length before a loop runs over it."""
    return f"R.steps({code})"


def checked_number(code: str) -> str:
    """A number about to be stored in the state, refused if it exceeds the integer limit."""
    return f"R.number({code})"


def step_entry() -> str:
    """The statement that charges one step when a generated block or rules function that is
    not memoized is entered: the run-time helper ``R.tick()`` (a memoized function is charged
    by its helper, :func:`rulekit.runtime.memo.memoized`)."""
    return "R.tick()"


#: Statements and expressions generated code never contains.
_FORBIDDEN = (
    pyast.Import,
    pyast.ImportFrom,
    pyast.ClassDef,
    pyast.AsyncFunctionDef,
    pyast.Global,
    pyast.Nonlocal,
    pyast.With,
    pyast.AsyncWith,
    pyast.Await,
    pyast.Yield,
    pyast.YieldFrom,
    pyast.JoinedStr,
    pyast.Delete,
)


def audit(source: str | pyast.Module) -> None:
    """Refuse generated source that does what the code generator never does.

    No imports, classes, ``global``, default arguments, decorators or annotations,
    no name or keyword starting with ``__``, no attribute starting with ``_``, ``:=`` only
    to the names ``where`` and ``let ... in`` bind (``w<n>_name``), and only plain
    constants.  ``source`` may be the module already parsed (the compiler parses once,
    audits the tree and compiles it).

    Raises:
        UnsafeCode: naming the first offending construct.
    """
    tree = source if isinstance(source, pyast.AST) else pyast.parse(source)
    forbidden = _FORBIDDEN_TYPES
    checks = _CHECKS
    AST = pyast.AST
    queue: deque[pyast.AST] = deque(
        [tree]
    )  # breadth first, as ast.walk (the first offence is the one reported)
    pop, push = queue.popleft, queue.append
    while queue:
        node = pop()
        kind = type(node)
        if kind in forbidden:
            raise UnsafeCode(f"generated code contains {kind.__name__}")
        check = checks.get(kind)
        if check is not None:
            check(node)
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, AST):
                        push(item)
            elif isinstance(value, AST):
                push(value)


def _check_function(node: Any) -> None:
    args = node.args
    if args.defaults or any(d is not None for d in args.kw_defaults):
        raise UnsafeCode("generated code has a default argument")
    if isinstance(node, pyast.FunctionDef) and (node.decorator_list or node.returns):
        raise UnsafeCode("generated code has a decorator or annotation")


def _check_arg(node: Any) -> None:
    _check_name(node.arg)
    if node.annotation is not None:
        raise UnsafeCode("generated code has an annotation")


def _check_attribute(node: Any) -> None:
    if node.attr.startswith("_"):
        raise UnsafeCode(f"generated code reads attribute {node.attr!r}")


def _check_keyword(node: Any) -> None:
    if node.arg is not None:
        _check_name(node.arg)


def _check_constant(node: Any) -> None:
    value = node.value
    plain = value is None or isinstance(value, bool | int | str)
    if not plain and not (isinstance(value, float) and math.isfinite(value)):
        raise UnsafeCode(f"generated code has constant {value!r}")


def _check_named_expr(node: Any) -> None:
    # ':=' binds only the names of `where` and `let ... in` (codegen: w<n>_name) and the
    # first tests a decision's enumerators share (planner_decisions: G<n>)
    if not (isinstance(node.target, pyast.Name) and _generator_binding(node.target.id)):
        raise UnsafeCode("generated code assigns with ':=' to a name the generator does not bind")


def _check_name(text: str) -> None:
    # Emitted names carry a prefix (v_, fn_, ...), so none starts with "__"; a dunder inside
    # one (v_x__y) is harmless: only attribute access could reach Python's internals.
    if text.startswith("__") or not is_name(text):
        raise UnsafeCode(f"generated code uses name {text!r}")


_FORBIDDEN_TYPES = frozenset(_FORBIDDEN)


def _generator_binding(name: str) -> bool:
    """A name the generator binds with ``:=``: ``w<n>_<name>`` or ``G<n>``."""
    if not name.isascii():
        return False
    if name.startswith("G"):
        return name[1:].isdigit()
    digits, underscore, rest = name[1:].partition("_")
    return (
        name.startswith("w")
        and digits.isdigit()
        and bool(underscore)
        and bool(rest)
        and all(c.isalnum() or c == "_" for c in rest)
    )


#: What :func:`audit` checks on each kind of node (by exact type: ``ast.parse`` makes no
#: subclasses of these).
_CHECKS: dict[type, Any] = {
    pyast.FunctionDef: _check_function,
    pyast.Lambda: _check_function,
    pyast.arg: _check_arg,
    pyast.Name: lambda node: _check_name(node.id),
    pyast.Attribute: _check_attribute,
    pyast.keyword: _check_keyword,
    pyast.Constant: _check_constant,
    pyast.NamedExpr: _check_named_expr,
}
