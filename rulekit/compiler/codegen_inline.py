"""Calls of small rules functions written out in place (inlined).

A call of a generated rules function costs more than a small body: the call itself, the
step charged on entry.  A function the planner computes rather than memoizes
(``planner.cheap``: no loop, only calls of such functions and of built-ins that walk no
collection) and that does not read ``me`` is written out where it is called: its body,
generated again with each parameter standing for the argument's code.  An argument that
is a plain name or number is used as is; any other is evaluated once, first, into a
local of its own (``:=``, as ``where`` does), so the arguments are evaluated once each,
left to right, before the body, as in a call.  In a comprehension's iterable, where
Python refuses ``:=``, such a call stays a call.

Such a body has no loop, so it is bounded by its own size: the step budget still bounds
every evaluation (it charges loops and the calls that stay).  An error inside an inlined
body is reported at the rule text of the call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rulekit.compiler import emit
from rulekit.compiler.codegen_support import MAX_NESTING, bound_names
from rulekit.compiler.scope import Context, Symbol
from rulekit.rules import model as m

if TYPE_CHECKING:
    from rulekit.compiler.codegen_base import CodeGenBase


def _plain(code: str) -> bool:
    """Argument code used as is: a Python name (v_x, me, w3_n, K_LIMIT, None) or a whole
    number (at most 18 digits)."""
    if not code.isascii():
        return False
    if code.isidentifier():
        return True
    digits = code[1:] if code.startswith("-") else code
    return 1 <= len(digits) <= 18 and digits.isdigit()


#: Inlined bodies nest at most this deep (each adds the callee's own nesting).
MAX_INLINE_DEPTH = 3


def inline_call(gen: CodeGenBase, decl: m.FunctionDecl, args: list[str], ctx: Context) -> str | None:
    """The code of ``decl``'s body in place of a call with the argument codes ``args``; None
    when it stays a call."""
    if (
        len(args) != len(decl.params)
        or gen.inlining >= MAX_INLINE_DEPTH
        or gen.depth > MAX_NESTING // 2
        or gen.bag.items
    ):
        return None
    shadowed = {emit.name("v_", n) for n in bound_names(decl.body)}
    inner = Context(me=ctx.me)
    first: list[tuple[str, str]] = []  # (local, argument code): evaluated first, in order
    for (pname, declared), code in zip(decl.params, args, strict=True):
        if _plain(code) and code not in shadowed:
            inner.scopes[-1][pname] = Symbol("local", declared.type, code)
            continue
        if gen.in_iterable:
            return None
        gen.bindings += 1
        local = emit.name(f"w{gen.bindings}_", pname)
        inner.scopes[-1][pname] = Symbol("local", declared.type, local)
        first.append((local, code))
    gen.inlining += 1
    try:
        code, _ = gen.expr(decl.body, inner)
    finally:
        gen.inlining -= 1
    code = f"({code})"
    for local, value in reversed(first):
        code = f"({code} if (({local} := {value}) is {local}) else None)"
    return code
