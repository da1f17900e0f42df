"""Print AST nodes as canonical DSL text (for debugging, goldens and round-trip tests).

The output parses back to an equal tree: ``parse_expression(print_expr(e)) == e`` for every
tree the parser produces.  Parentheses are added only where precedence needs them.
"""

from __future__ import annotations

import json

from rulekit.dsl import ast

# Binding strength, loosest first; mirrors the expression rules of grammar.lark.
_LET = 0
_WHERE = 1
_CONDITIONAL = 2
_OR = 3
_AND = 4
_NOT = 5
_COMPARE = 6
_SUM = 7
_PRODUCT = 8
_UNARY = 9
_WITH = 10
_POSTFIX = 11

_BINARY_LEVEL = {
    "or": _OR,
    "and": _AND,
    "==": _COMPARE,
    "!=": _COMPARE,
    "<": _COMPARE,
    "<=": _COMPARE,
    ">": _COMPARE,
    ">=": _COMPARE,
    "in": _COMPARE,
    "not in": _COMPARE,
    "+": _SUM,
    "-": _SUM,
    "*": _PRODUCT,
    "//": _PRODUCT,
    "%": _PRODUCT,
}
_INDENT = "    "


def print_expr(node: ast.Expr) -> str:
    """The canonical DSL text of an expression."""
    return _expr(node, _LET)


def print_block(block: ast.Block | tuple[ast.Stmt, ...]) -> str:
    """The canonical DSL text of a block of statements, one per line (no final newline)."""
    statements = block.statements if isinstance(block, ast.Block) else block
    return "\n".join(_stmt(s, 0) for s in statements) if statements else "pass"


def _level(node: ast.Expr) -> int:
    if isinstance(node, ast.LetIn):
        return _LET
    if isinstance(node, ast.With):
        return _WITH
    if isinstance(node, ast.Where):
        return _WHERE
    if isinstance(node, ast.Conditional):
        return _CONDITIONAL
    if isinstance(node, ast.Binary):
        return _BINARY_LEVEL[node.op]
    if isinstance(node, ast.Unary):
        return _NOT if node.op == "not" else _UNARY
    if isinstance(node, ast.Literal) and type(node.value) is int and node.value < 0:
        return _UNARY  # printed as "-3"
    return _POSTFIX


def _expr(node: ast.Expr, needed: int) -> str:
    text = _bare(node)
    return f"({text})" if _level(node) < needed else text


def _bare(node: ast.Expr) -> str:
    if isinstance(node, ast.Literal):
        return _literal(node.value)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_expr(node.subject, _POSTFIX)}.{node.name}"
    if isinstance(node, ast.Index):
        return f"{_expr(node.subject, _POSTFIX)}[{_expr(node.key, _LET)}]"
    if isinstance(node, ast.Call):
        return _call(node)
    if isinstance(node, ast.Aggregate):
        return f"{node.function}({_comprehension(node.comprehension)})"
    if isinstance(node, ast.ListExpr):
        return "[" + ", ".join(_expr(item, _LET) for item in node.items) + "]"
    if isinstance(node, ast.ListComprehension):
        return f"[{_comprehension(node.comprehension)}]"
    if isinstance(node, ast.TupleExpr):
        items = [_expr(item, _LET) for item in node.items]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(node, ast.Unary):
        if node.op == "not":
            return f"not {_expr(node.operand, _NOT)}"
        return f"-{_expr(node.operand, _UNARY)}"
    if isinstance(node, ast.Binary):
        level = _BINARY_LEVEL[node.op]
        # Left-associative operators accept their own level on the left; comparisons
        # do not chain, so both of their sides must bind tighter.
        left = level + 1 if level == _COMPARE else level
        return f"{_expr(node.left, left)} {node.op} {_expr(node.right, level + 1)}"
    if isinstance(node, ast.Conditional):
        return (
            f"{_expr(node.then, _OR)} if {_expr(node.condition, _OR)} "
            f"else {_expr(node.otherwise, _CONDITIONAL)}"
        )
    if isinstance(node, ast.Where):
        return f"{_expr(node.body, _WHERE)} where {node.name} = {_expr(node.value, _CONDITIONAL)}"
    if isinstance(node, ast.LetIn):
        return f"let {node.name} = {_expr(node.value, _SUM)} in {_expr(node.body, _LET)}"
    if isinstance(node, ast.Record):
        return "{" + ", ".join(f"{f.name}: {_expr(f.value, _LET)}" for f in node.fields) + "}"
    if isinstance(node, ast.With):
        return f"{_expr(node.subject, _WITH)} with {_bare(node.changes)}"
    raise TypeError(f"not a DSL expression: {node!r}")  # pragma: no cover


def _literal(value: int | str | bool | None) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    # JSON escapes (\", \\, \n, \uXXXX) are valid in DSL strings, which read Python escapes.
    return json.dumps(value, ensure_ascii=False)


def _call(node: ast.Call) -> str:
    args = [_expr(a, _LET) for a in node.args]
    args += [f"{k.name}={_expr(k.value, _LET)}" for k in node.keywords]
    return f"{node.function}({', '.join(args)})"


def loop_target(var: str | tuple[str, ...]) -> str:
    """A comprehension's loop target as written: ``x`` or ``(cell, part)``."""
    return var if isinstance(var, str) else "(" + ", ".join(var) + ")"


def loop_names(var: str | tuple[str, ...]) -> tuple[str, ...]:
    """The names a comprehension's loop target binds."""
    return (var,) if isinstance(var, str) else var


def _comprehension(comp: ast.Comprehension) -> str:
    parts = [_expr(comp.element, _LET)]
    parts += [f"for {loop_target(var)} in {_expr(iterable, _OR)}" for var, iterable in comp.loops]
    parts += [f"where {name} = {_expr(value, _OR)}" for name, value in comp.bindings]
    if comp.condition is not None:
        parts.append(f"if {_expr(comp.condition, _OR)}")
    if comp.key is not None:
        parts.append(f"by {_expr(comp.key, _OR)}")
    return " ".join(parts)


def _stmt(node: ast.Stmt, depth: int) -> str:
    pad = _INDENT * depth
    if isinstance(node, ast.Assign):
        return f"{pad}{_bare(node.target)} {node.op} {print_expr(node.value)}"
    if isinstance(node, ast.Let):
        return f"{pad}let {node.name} = {print_expr(node.value)}"
    if isinstance(node, ast.Emit):
        args = ", ".join(f"{k.name}={print_expr(k.value)}" for k in node.args)
        return f"{pad}emit {node.event}({args})"
    if isinstance(node, ast.Fail):
        return f"{pad}fail {print_expr(node.message)}"
    if isinstance(node, ast.Pass):
        return f"{pad}pass"
    if isinstance(node, ast.CallStatement):
        return f"{pad}{_call(node.call)}"
    if isinstance(node, ast.If):
        lines = []
        for i, (condition, body) in enumerate(node.branches):
            keyword = "if" if i == 0 else "elif"
            lines.append(f"{pad}{keyword} {print_expr(condition)}:")
            lines.append(_suite(body, depth + 1))
        if node.otherwise:
            lines.append(f"{pad}else:")
            lines.append(_suite(node.otherwise, depth + 1))
        return "\n".join(lines)
    if isinstance(node, ast.For):
        return f"{pad}for {node.var} in {print_expr(node.iterable)}:\n{_suite(node.body, depth + 1)}"
    raise TypeError(f"not a DSL statement: {node!r}")  # pragma: no cover


def _suite(body: tuple[ast.Stmt, ...], depth: int) -> str:
    if not body:
        return _INDENT * depth + "pass"
    return "\n".join(_stmt(s, depth) for s in body)
