"""The facts of a generated expression read back off its Python syntax tree: the analysis
the compiler made before it recorded facts where it writes code (rulekit.compiler.facts),
kept as the reference the recorded facts are checked against.

* a field read is ``F[(owner, 'field')]`` whose owner is a literal, a name or another field
  read (then: that field of any owner, ``None``);
* a rules function call is ``fn_name(F, R, me, ...)``;
* any other use of ``F``, or of a rules function, makes the reads unknown (``opaque``).
"""

from __future__ import annotations

import ast

from rulekit.compiler.facts import Facts, Read


def of_code(code: str) -> Facts:
    """The facts of the generated expression ``code``."""
    tree = ast.parse(code, mode="eval").body
    reads: set[Read] = set()
    calls: set[str] = set()
    builtins: set[str] = set()
    runtime: set[str] = set()
    counted = 0
    passed: set[int] = set()  # ids of the F, R, me names a read or a call accounts for
    opaque = False

    def field_read(node: ast.AST) -> Read | None:
        """``node`` as a field read (recording the reads inside its owner), or None."""
        if not (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == "F"
            and isinstance(node.slice, ast.Tuple)
            and len(node.slice.elts) == 2
        ):
            return None
        owner, field = node.slice.elts
        if not (isinstance(field, ast.Constant) and type(field.value) is str):
            return None
        if isinstance(owner, ast.Constant) and type(owner.value) is str:
            key: Read = (owner.value, field.value)
        elif isinstance(owner, ast.Name) or field_read(owner) is not None:
            key = (None, field.value)
        else:
            return None
        passed.add(id(node.value))
        reads.add(key)
        return key

    nodes = list(ast.walk(tree))
    for node in nodes:
        if isinstance(node, ast.Subscript) and field_read(node) is not None:
            counted += 1
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            if name.startswith("fn_"):
                head = [a.id if isinstance(a, ast.Name) else "" for a in node.args[:3]]
                if head == ["F", "R", "me"]:
                    calls.add(name)
                    passed.update(id(a) for a in node.args[:3])
                    passed.add(id(node.func))
            elif name.startswith(("B_", "E_", "BC_")):
                builtins.add(name)
                if name.startswith("B_"):
                    counted += 1
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "R":
            runtime.add(node.attr)
    me = charges = False
    for node in nodes:
        if not isinstance(node, ast.Name):
            continue
        if node.id == "R" or node.id.startswith("fn_"):
            charges = True
        if id(node) in passed:
            continue
        if node.id == "F" or node.id.startswith("fn_"):
            opaque = True
        elif node.id == "me":
            me = True
    collection = tree.id[2:] if isinstance(tree, ast.Name) and tree.id.startswith("C_") else None
    return Facts(
        frozenset(reads),
        opaque,
        frozenset(calls),
        frozenset(builtins),
        frozenset(runtime),
        me,
        charges,
        counted,
        collection,
    )


Found = frozenset[Read]


def of_block(function: ast.FunctionDef) -> tuple[Found, Found, frozenset[str], frozenset[str]]:
    """What a generated function that is a statement block (an effect, a procedure, an
    enumerator, a decision) does, read back off its syntax tree: the fields it reads and
    the fields it assigns (``F[(owner, 'field')]``, owner as in :func:`of_code`), the rules
    functions it calls and its exits (``return``, ``continue``, ``break``, ``raise`` as
    ``fail``), leaving out the statements of the functions and lambdas inside it."""
    reads: set[Read] = set()
    writes: set[Read] = set()
    calls: set[str] = set()
    exits: set[str] = set()
    kinds = {ast.Return: "return", ast.Continue: "continue", ast.Break: "break", ast.Raise: "fail"}
    for node in ast.walk(ast.Module(body=function.body, type_ignores=[])):
        key = _key(node)
        if key is not None:
            (writes if isinstance(node.ctx, ast.Store) else reads).add(key)  # type: ignore[attr-defined]
        elif type(node) in kinds:
            exits.add(kinds[type(node)])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            calls.add(node.func.id)
    calls = {name for name in calls if name.startswith("fn_")}
    return frozenset(reads), frozenset(writes), frozenset(calls), frozenset(exits)


def _key(node: ast.AST) -> Read | None:
    """``node`` as ``F[(owner, 'field')]``: (the literal owner, else None, 'field')."""
    if not (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "F"
        and isinstance(node.slice, ast.Tuple)
        and len(node.slice.elts) == 2
    ):
        return None
    owner, field = node.slice.elts
    if not (isinstance(field, ast.Constant) and type(field.value) is str):
        return None
    literal = isinstance(owner, ast.Constant) and type(owner.value) is str
    return (owner.value if literal else None, field.value)  # type: ignore[union-attr]
