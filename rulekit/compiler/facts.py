"""What a generated expression does, as a record: the facts the planner works on.

The code generator hands every expression it generates to :func:`of_code` once, when it
is generated, and keeps the :class:`Facts` with the code; the planner
(:mod:`rulekit.compiler.planner`: which fields a memoized function depends on, whether it
depends on the acting player), the enumerator planner (a domain that is a whole
collection, a test that charges no step) and the fusion of a decision's enumerators
(:mod:`rulekit.compiler.planner_decisions`: which first tests are worth sharing) read
those records, never the generated text.

The facts are read off the expression's Python syntax tree (so a string literal that
happens to spell a field read or a name is left alone):

* a field read is ``F[(owner, 'field')]`` whose owner is a literal (``'game'``: that
  owner's field), a name (``me``, a parameter) or another field read (then: that field of
  any owner, ``None``);
* a rules function call is ``fn_name(F, R, me, ...)``;
* any other use of ``F`` (the whole state), or of a rules function, makes the reads
  unknown (``opaque``).
"""

from __future__ import annotations

import ast

from attrs import frozen

#: (owner, field): owner a literal owner ("game", "turn", a component id), None for a
#: computed one (that field of any owner).
Read = tuple[str | None, str]


@frozen
class Facts:
    """The facts of one generated expression (or function body)."""

    #: The fields it reads directly (see :data:`Read`).
    reads: frozenset[Read]
    #: It uses the state otherwise than by such reads (or a rules function otherwise than
    #: by such a call): what it reads is unknown.
    opaque: bool
    #: The rules functions (``fn_name``) it calls as ``fn_name(F, R, me, ...)``.
    calls: frozenset[str]
    #: The built-ins it calls (``B_name``, ``E_name``, ``BC_name``), by generated name.
    builtins: frozenset[str]
    #: The attributes of the runtime ``R`` it uses (``steps``, ``left``, ``num_players``...).
    runtime: frozenset[str]
    #: It names the acting player ``me`` other than to pass it on to a rules function.
    me: bool
    #: It may charge the step budget: it calls a rules function or uses the runtime ``R``.
    charges: bool
    #: Field reads plus built-in calls, counted (each occurrence): what asking it costs.
    work: int
    #: It is a whole collection of components (``C_kind``): the kind, else None.
    collection: str | None = None


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
