"""Hints for Python habits the DSL spells otherwise (``True``, ``x.append(y)``, ``&&``, ``else if``).

Each function looks at what the parser or the checker refused and, when it recognises a Python
spelling, says what the DSL writes instead.  None of them changes what is accepted.
"""

from __future__ import annotations

import re

#: Python's (and YAML's, JSON's) constants, by the DSL's literal.
LITERALS = {
    "True": "true",
    "False": "false",
    "None": "none",
    "null": "none",
    "TRUE": "true",
    "FALSE": "false",
}

#: Characters the DSL has no use for, by the word it writes instead.
_OPERATORS = {
    "!": "write 'not x' ('!=' is 'not equal')",
    "&": "write 'and' ('&&' and '&' are not DSL operators)",
    "|": "write 'or' ('||' and '|' are not DSL operators)",
    "/": "use '//' for division rounded down, or half(x)",
}

#: Python methods (and attributes) by the DSL built-in that does the same, as a format of the subject.
_METHODS = {
    "append": "append({0}, item), a new list (in an effect, to change the field: {0} += [item])",
    "extend": "{0} + more, a new list (in an effect, to change the field: {0} += more)",
    "count": "count_of({0}, item)",
    "index": "index_of({0}, item)",
    "remove": "without({0}, item), a new list",
    "sort": "sort({0})",
    "reverse": "reversed({0})",
    "get": "get({0}, key)",
    "len": "len({0})",
    "length": "len({0})",
    "size": "len({0})",
    "__len__": "len({0})",
}

#: Python built-ins and other languages' names of a DSL built-in.
FUNCTIONS = {
    "length": "len(items)",
    "size": "len(items)",
    "count": "len(items) for a list's length, count_of(items, item) for how often item occurs",
    "print": "note(text)",
    "max": "greatest(a, b) for the larger of two values, max(x for x in items) for a list's largest",
    "min": "least(a, b) for the smaller of two values, min(x for x in items) for a list's smallest",
}

_NAME_AT_END = re.compile(r"[A-Za-z_]\w*$")
_SUBJECT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")


def operator_hint(char: str) -> str | None:
    """The hint for a character the DSL does not know (``!``, ``&``, ``|``)."""
    return _OPERATORS.get(char)


def method_hint(before: str) -> tuple[str, int] | None:
    """For a ``(`` refused right after ``before`` (the text of its line up to it), when
    ``before`` ends in ``subject.method``: the hint and how many characters back the method's
    name starts.  Linear in the line's length (the text may be hostile)."""
    text = before.rstrip()
    name = _NAME_AT_END.search(text[-200:])
    if name is None:
        return None
    method = name.group()
    head = text[: len(text) - len(method)].rstrip()
    if not head.endswith("."):
        return None
    subject = _subject(head[:-1].rstrip()) or "x"
    back = len(before) - (len(text) - len(method))
    spelling = _METHODS.get(method)
    if spelling is None:
        return f"the DSL has no methods: call a built-in with the value first, {method}({subject}, ...)", back
    return f"the DSL has no methods: write {spelling.format(subject)}", back


def _subject(head: str, longest: int = 60) -> str | None:
    """The expression ``head`` ends with (``me.hand``, ``f(x, y)``, ``cards[0]``), if it is at
    most ``longest`` characters long: names, dots and balanced brackets, read backwards."""
    depth = 0
    start = len(head)
    while start > 0 and len(head) - start < longest:
        char = head[start - 1]
        if char in ")]":
            depth += 1
        elif char in "([":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and char not in _SUBJECT_CHARS:
            break
        start -= 1
    subject = head[start:]
    if depth or not subject or subject[0] in "." or (start > 0 and len(head) - start >= longest):
        return None
    return subject


def attribute_hint(name: str, subject: str) -> str | None:
    """The hint for ``subject.name`` on a list (``.length``, ``.size``, ``.count``)."""
    if name in ("len", "length", "size", "count", "__len__"):
        return f"the DSL has no methods or properties: write len({subject}) for the list's length"
    if name in _METHODS:
        return "the DSL has no methods: write " + _METHODS[name].format(subject)
    return None


def literal_hint(name: str) -> str | None:
    """``write 'true'`` for ``True`` (and so for ``False``, ``None``, ``null``)."""
    spelling = LITERALS.get(name)
    return None if spelling is None else f"write '{spelling}' (the DSL's literals are lower case)"


def else_if_hint(before: str) -> str | None:
    """For an ``if`` refused after ``before`` (the text of its line up to it): ``else if``."""
    if re.search(r"(?:^|\s)else\s*$", before):
        return "write 'elif condition:' (the DSL has no 'else if')"
    return None


def function_hint(name: str) -> str | None:
    """The hint for a call of an unknown function ``name`` (``length(x)``, ``size(x)``)."""
    if name in FUNCTIONS:
        return f"the DSL writes {FUNCTIONS[name]}"
    return None
