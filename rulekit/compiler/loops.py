"""``return any(...)`` / ``return all(...)`` over a generator written out as plain loops.

A generated function whose body is ``return any(e for x in xs if c)`` (a trigger's ``when``,
an invariant, a rules function) spends much of its time creating and resuming generators.
The same test as loops in the function itself, with an early ``return``, is the same
computation: the iterables are evaluated (and charged to the step budget by ``R.steps``) at
the same moments and in the same order, the conditions and elements likewise, and it stops
at the same element.  Only the whole return value is rewritten; every sub-expression keeps
its generated text, so facts, coverage reports and step charges are those of the
expression (:attr:`rulekit.compiler.build._Compiler.codes` keeps the expression itself).

An element that is itself ``any``/``all`` over a one-loop generator becomes a nested loop
(``for ... else``).  Nothing else is rewritten: a generator whose loop variables would
become locals shared with a parameter or another such loop stays a generator.
"""

from __future__ import annotations

import ast


def _aggregate(node: ast.expr) -> tuple[str, ast.GeneratorExp] | None:
    """(``any``/``all``, the generator) of ``any(<generator>)``, else None."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("any", "all")
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.GeneratorExp)
        and all(not g.is_async for g in node.args[0].generators)
    ):
        return node.func.id, node.args[0]
    return None


def _targets(node: ast.expr) -> list[str] | None:
    """The names a loop target binds (a name or a tuple of names), else None."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Tuple) and all(isinstance(e, ast.Name) for e in node.elts):
        return [e.id for e in node.elts if isinstance(e, ast.Name)]
    return None


class _Writer:
    def __init__(self, code: str, mark: str, taken: set[str]) -> None:
        self.code = code
        self.mark = mark
        self.taken = taken  # names bound as function locals so far (parameters, loop targets)
        self.lines: list[str] = []

    def text(self, node: ast.AST) -> str:
        segment = ast.get_source_segment(self.code, node)
        assert segment is not None
        return f"({segment})"

    def line(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text + self.mark)

    def bindable(self, gen: ast.GeneratorExp, single: bool) -> bool:
        if single and len(gen.generators) != 1:
            return False
        names: list[str] = []
        for comp in gen.generators:
            bound = _targets(comp.target)
            if bound is None:
                return False
            names.extend(bound)
        if len(set(names)) != len(names) or self.taken & set(names):
            return False
        self.taken.update(names)
        return True

    def loops(self, gen: ast.GeneratorExp, indent: int) -> int:
        """The ``for`` and ``if`` lines of ``gen``; the indent of its element."""
        for comp in gen.generators:
            target = ast.get_source_segment(self.code, comp.target)
            self.line(indent, f"for {target} in {self.text(comp.iter)}:")
            indent += 1
            for cond in comp.ifs:
                self.line(indent, f"if {self.text(cond)}:")
                indent += 1
        return indent

    def when_true(self, node: ast.expr, indent: int, hit: str, nested: bool) -> None:
        """Lines that run ``hit`` if ``node`` is true, and fall through otherwise."""
        found = _aggregate(node) if nested else None
        if found is not None and found[0] == "any" and self.bindable(found[1], single=False):
            inner = self.loops(found[1], indent)
            self.when_true(found[1].elt, inner, hit, nested=hit != "break")
            return
        if found is not None and found[0] == "all" and self.bindable(found[1], single=True):
            inner = self.loops(found[1], indent)
            self.when_false(found[1].elt, inner, "break", nested=False)
            self.line(indent, "else:")
            self.line(indent + 1, hit)
            return
        self.line(indent, f"if {self.text(node)}:")
        self.line(indent + 1, hit)

    def when_false(self, node: ast.expr, indent: int, hit: str, nested: bool) -> None:
        """Lines that run ``hit`` if ``node`` is false, and fall through otherwise."""
        found = _aggregate(node) if nested else None
        if found is not None and found[0] == "all" and self.bindable(found[1], single=False):
            inner = self.loops(found[1], indent)
            self.when_false(found[1].elt, inner, hit, nested=hit != "break")
            return
        if found is not None and found[0] == "any" and self.bindable(found[1], single=True):
            inner = self.loops(found[1], indent)
            self.when_true(found[1].elt, inner, "break", nested=False)
            self.line(indent, "else:")
            self.line(indent + 1, hit)
            return
        self.line(indent, f"if not {self.text(node)}:")
        self.line(indent + 1, hit)


def _surely_bool(node: ast.expr) -> bool:
    """Whether ``node``'s value is always True or False (a comparison, ``not``, ``any``/``all``,
    or ``and``/``or`` of such)."""
    if isinstance(node, ast.Compare) or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not)):
        return True
    if isinstance(node, ast.BoolOp):
        return all(_surely_bool(value) for value in node.values)
    return _aggregate(node) is not None


def _converted(node: ast.expr, writer: _Writer, indent: int) -> bool:
    """Write the lines returning ``node``'s value as loops; False (nothing written) when it is
    not ``any``/``all`` over a generator, or ``a or ...``/``a and ...`` ending in one whose
    other operands are surely true or false."""
    if isinstance(node, ast.BoolOp):
        *first, last = node.values
        if not all(_surely_bool(value) for value in first) or not _converted(last, writer, indent):
            return False
        body = writer.lines
        writer.lines = []
        exit_on, value = ("", "True") if isinstance(node.op, ast.Or) else ("not ", "False")
        for operand in first:  # evaluated in order, stopping at the first that decides
            writer.line(indent, f"if {exit_on}{writer.text(operand)}:")
            writer.line(indent + 1, f"return {value}")
        writer.lines.extend(body)
        return True
    found = _aggregate(node)
    if found is None or not writer.bindable(found[1], single=False):
        return False
    inner = writer.loops(found[1], indent)
    if found[0] == "any":
        writer.when_true(found[1].elt, inner, "return True", nested=True)
        writer.line(indent, "return False")
    else:
        writer.when_false(found[1].elt, inner, "return False", nested=True)
        writer.line(indent, "return True")
    return True


def return_lines(code: str, mark: str, params: list[str], indent: int = 1) -> list[str]:
    """The body lines of a function returning the expression ``code`` (each with ``mark``, the
    span comment): ``return any/all(<generator>)`` (possibly after ``or``/``and`` operands that
    are surely true or false) as loops, any other as ``return code``. ``params`` are the
    function's parameter names."""
    plain = ["    " * indent + f"return {code}{mark}"]
    try:
        tree = ast.parse(code, mode="eval")
    except SyntaxError:
        return plain
    writer = _Writer(code, mark, set(params))
    return writer.lines if _converted(tree.body, writer, indent) else plain
