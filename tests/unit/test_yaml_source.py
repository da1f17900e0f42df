"""Located YAML: values remember their spans, and DSL in each scalar style gets the right origin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from rulekit.dsl import Origin, ast, parse_expression
from rulekit.errors import RulesetError, Span
from rulekit.rules import yaml_source
from rulekit.rules.yaml_source import LocDict, LocList, LocStr, load_file, load_text

TEXT = """\
plain: a + b
quoted: "a + b"
single: 'a + b'
block: |
  x.a = 1
  x.b = 2
number: 3
flag: true
empty:
items:
  - one
  - {k: v}
"""


def test_mappings_lists_and_strings_carry_spans() -> None:
    """Mappings, sequences and strings come back located; other scalars are plain values."""
    data = load_text(TEXT, "t.yaml")
    assert isinstance(data, LocDict)
    assert data.key_spans["quoted"] == Span("t.yaml", 2, 1, 2, 7)
    assert isinstance(data["items"], LocList)
    assert data["items"].span.line == 11
    assert isinstance(data["plain"], LocStr)
    assert data["plain"].span == Span("t.yaml", 1, 8, 1, 13)
    assert data["number"] == 3 and type(data["number"]) is int
    assert data["flag"] is True
    assert data["empty"] is None


@pytest.mark.parametrize(
    ("key", "origin"),
    [
        ("plain", Origin("t.yaml", 1, 8, 8)),
        ("quoted", Origin("t.yaml", 2, 10, 10)),
        ("single", Origin("t.yaml", 3, 10, 10)),
        ("block", Origin("t.yaml", 5, 3, 3)),
    ],
)
def test_each_scalar_style_gets_the_origin_of_its_first_character(key: str, origin: Origin) -> None:
    """Plain: the scalar's column; quoted: one more for the quote; block: next line, its indentation."""
    value = load_text(TEXT, "t.yaml")[key]
    assert value.origin == origin


def test_dsl_in_a_quoted_scalar_reports_positions_in_the_yaml_file() -> None:
    """A name inside a quoted scalar is located at its own column of the YAML line."""
    value = load_text(TEXT, "t.yaml")["quoted"]
    tree = parse_expression(str(value), value.origin)
    assert tree.span.line == 2
    assert isinstance(tree, ast.Binary)
    assert tree.right.span.column == 14


def test_duplicate_keys_are_an_error_at_the_second_key() -> None:
    """YAML silently keeps the last duplicate; rulekit reports it."""
    with pytest.raises(RulesetError) as caught:
        load_text("a: 1\nb: 2\na: 3\n", "d.yaml")
    diagnostic = caught.value.diagnostics[0]
    assert diagnostic.message == "duplicate key 'a'"
    assert diagnostic.span == Span("d.yaml", 3, 1, 3, 2)


def test_invalid_yaml_is_a_located_ruleset_error() -> None:
    """A YAML syntax problem is a RulesetError where the author made it: the unclosed bracket."""
    with pytest.raises(RulesetError) as caught:
        load_text("a: [1, 2\nb: 3\n", "bad.yaml")
    diagnostic = caught.value.diagnostics[0]
    assert diagnostic.message == "this '[' is never closed"
    assert diagnostic.span == Span("bad.yaml", 1, 4, 1, 5)


def test_a_file_that_is_not_utf8_is_a_ruleset_error_at_the_first_bad_byte(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 are reported at their line and column, not as a traceback."""
    path = tmp_path / "latin1.yaml"
    path.write_bytes("ruleset: g\ntitle: caf\u00e9\n".encode("latin-1"))
    with pytest.raises(RulesetError) as caught:
        load_file(path, "latin1.yaml")
    diagnostic = caught.value.diagnostics[0]
    assert diagnostic.message == "not UTF-8 text: byte 0xe9 cannot be decoded"
    assert diagnostic.span == Span("latin1.yaml", 2, 11)


def test_only_safe_yaml_is_loaded() -> None:
    """Python-specific and other explicit tags are refused, with their position, not constructed."""
    with pytest.raises(RulesetError) as caught:
        load_text("a: !!python/object/apply:os.system ['true']\n", "evil.yaml")
    diagnostic = caught.value.diagnostics[0]
    assert diagnostic.message.startswith("unsupported YAML tag '!!python/object/apply:os.system'")
    assert diagnostic.span is not None and (diagnostic.span.line, diagnostic.span.column) == (1, 4)


@pytest.mark.parametrize("text", ["a: !foo bar\n", "<<: {a: 1}\n", "a: !!binary aGVsbG8=\n"])
def test_unsupported_tags_are_ruleset_errors_not_crashes(text: str) -> None:
    """Custom tags, merge keys and binary data are reported as user errors."""
    with pytest.raises(RulesetError, match="unsupported YAML tag"):
        load_text(text, "t.yaml")


def test_a_bare_date_stays_text() -> None:
    """YAML's implicit timestamps are read as strings, not dates."""
    assert load_text("version: 2024-01-31\n", "t.yaml")["version"] == "2024-01-31"


FOLDED = """\
folded: >
  a +
  bb
plain: a and
    b and
  c
"""


@pytest.mark.parametrize(("key", "name", "line", "column"), [("folded", "bb", 3, 3), ("plain", "c", 6, 3)])
def test_folded_and_multi_line_plain_scalars_map_positions_to_their_lines(
    key: str, name: str, line: int, column: int
) -> None:
    """YAML joins such scalars into one line; spans still point at the line the name was written on."""
    value = load_text(FOLDED, "f.yaml")[key]
    tree = parse_expression(str(value), value.origin)
    assert isinstance(tree, ast.Binary)
    assert tree.right == ast.Name(name)
    assert (tree.right.span.line, tree.right.span.column) == (line, column)


_SAMPLES = [
    "a: 1\nb: [x, 'y', \"z\"]\nc: {d: e}\n",
    'name: café — ünïcode\nrule: "ça va" \nnext: é\n',
    "effect: |\n  if x:\n      y = 1\n  z = 2\nafter: ok\n",
    "doc: >\n  folded text\n  over lines\n\n  and a paragraph\nk: v\n",
    "plain: a plain scalar\n  over two lines\nq: 'it''s'\n",
    "list:\n  - one\n  - {two: 2, three: [3]}\n  - |\n    block ✓ in a list\n",
    "date: 2024-01-02\nnull_value: ~\nflag: yes\nnumber: 0x1F\n",
    "escapes: \"a\\tb\\n  c \\\"d\\\"\n  e\n\n  f\"\nsingle: 'it''s\n  g'\n",
]


def _shape(value: Any) -> Any:
    """Everything a loaded value carries: values, types, spans, key spans and origins."""
    if isinstance(value, dict):
        return ("map", value.span, [(k, value.key_spans[k], _shape(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", value.span, [_shape(v) for v in value])
    if isinstance(value, LocStr):
        return ("str", str(value), value.span, value.origin)
    return (type(value).__name__, value)


@pytest.mark.skipif(yaml_source._FAST_LOADER is None, reason="PyYAML was built without libyaml")
@pytest.mark.parametrize("text", _SAMPLES)
def test_libyaml_and_the_pure_loader_give_identical_values_and_spans(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Values, spans, key spans and DSL origins do not depend on which YAML loader read the text."""
    fast = _shape(load_text(text, "f.yaml"))
    monkeypatch.setattr(yaml_source, "_FAST_LOADER", None)
    assert _shape(load_text(text, "f.yaml")) == fast


def test_errors_are_the_pure_loaders_even_with_libyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    """A YAML error renders the same whether or not libyaml is available."""
    bad = "a: [1, 2\nb: 3\n"
    with pytest.raises(RulesetError) as fast:
        load_text(bad, "f.yaml")
    monkeypatch.setattr(yaml_source, "_FAST_LOADER", None)
    with pytest.raises(RulesetError) as pure:
        load_text(bad, "f.yaml")
    assert fast.value.render() == pure.value.render()


@pytest.mark.parametrize(
    ("text", "message", "where"),
    [
        ("a:\n\tb: 1\n", "a tab character in the indentation", (2, 1)),
        ("a: x: y\n", "the value of 'a' contains ': '", (1, 5)),
        ("a:\n  e: |\n    x\n   y\n", "indented less than the first line of its block (line 3)", (4, 4)),
        ("a:\n  e: |\n  x\n  y: 1\n", "the block scalar of 'e' (line 2) is empty", (3, 3)),
        ("a: 'x\nb: 1\n", "this ' is never closed", (1, 4)),
        ("a: [1, 2\nb: 3\n", "this '[' is never closed", (1, 4)),
        ("a:\n  b: 1\n  - c\n", "a list item ('- ') among the keys of a mapping", (3, 3)),
        ("a: @x\n", "a YAML value cannot start with '@'", (1, 4)),
        ("a: *x\n", "'*x' refers to an anchor '&x' that is not defined", (1, 4)),
        ("a: [1]]\n", "']' closes nothing", (1, 7)),
    ],
)
def test_yaml_mistakes_are_reported_where_they_were_made_with_a_hint(
    text: str, message: str, where: tuple[int, int]
) -> None:
    """Each common YAML mistake gets its own message, a hint, and the author's line and column."""
    with pytest.raises(RulesetError) as caught:
        load_text(text, "m.yaml")
    diagnostic = caught.value.diagnostics[0]
    assert message in diagnostic.message
    assert diagnostic.hint
    assert diagnostic.span is not None and (diagnostic.span.line, diagnostic.span.column) == where
    assert "<" not in diagnostic.message  # no parser token names such as '<block end>'


QUOTED = """\
escaped: "a + \\"x\\" +\\tb\\nc + dd"
joined: "aa +
  \\ bb +

  cc"
single: 'a + ''x'' +
  bb'
"""


@pytest.mark.parametrize(
    ("key", "names"),
    [("escaped", [("a", 1, 11), ("b", 1, 24), ("c", 1, 27), ("dd", 1, 31)]),
     ("joined", [("aa", 2, 10), ("bb", 3, 5), ("cc", 5, 3)]),
     ("single", [("a", 6, 10), ("bb", 7, 3)])],
)  # fmt: skip
def test_names_in_quoted_scalars_with_escapes_and_breaks_are_located_where_written(
    key: str, names: list[tuple[str, int, int]]
) -> None:
    """``\\"``, ``\\t``, ``\\n``, an escaped line break, folded and empty lines, ``''``: each
    name's span is where it is written, not where it would be if the text followed its source."""
    value = load_text(QUOTED, "q.yaml")[key]
    spans = {}
    for name, _, _ in names:
        snippet_line = 1 + str(value)[: str(value).index(name)].count("\n")
        snippet_column = len(str(value)[: str(value).index(name)].rsplit("\n", 1)[-1]) + 1
        spans[name] = value.origin.locate(snippet_line, snippet_column)
    assert spans == {name: (line, column) for name, line, column in names}


#: What may come between two words: spaces, breaks, empty lines, and characters PyYAML escapes.
_BETWEEN = [" ", "  ", "\n", "\t", '"', "\\", "'", "é", " \n ", "\n\n", "\x07", "\u2028", "  \n\n  "]


@given(
    words=st.lists(st.text("abcdxyz", min_size=1, max_size=6), min_size=1, max_size=12),
    separators=st.lists(st.sampled_from(_BETWEEN), min_size=12, max_size=12),
    style=st.sampled_from(['"', "'"]),
    width=st.integers(8, 60),
)
def test_every_letter_of_a_quoted_scalar_is_located_at_that_letter_in_the_file(
    words: list[str], separators: list[str], style: str, width: int
) -> None:
    """Whatever PyYAML's emitter makes of a text (escapes, folding at its width, escaped breaks),
    every letter of the loaded value maps back to the same letter in the file."""
    pairs = zip(words, separators, strict=False)
    value = "".join(word + separator for word, separator in pairs).strip(" \t\n")
    text = yaml.safe_dump({"k": value}, default_style=style, width=width, allow_unicode=False)
    loaded = load_text(text, "p.yaml")["k"]
    assert str(loaded) == value
    lines = text.splitlines()
    for snippet_line, line_text in enumerate(str(loaded).split("\n"), start=1):
        for offset, char in enumerate(line_text):
            if char in "abcdxyz":
                file_line, file_column = loaded.origin.locate(snippet_line, offset + 1)
                assert lines[file_line - 1][file_column - 1] == char, (text, snippet_line, offset)


@pytest.mark.parametrize("key", ["escaped", "joined", "single"])
def test_a_prefixed_origin_locates_the_snippet_after_its_prefix_as_before(key: str) -> None:
    """``emit `` put before a scenario's ``event:`` text shifts its first line only."""
    value = load_text(QUOTED, "q.yaml")[key]
    prefixed = value.origin.prefixed(len("emit "))
    for number, line_text in enumerate(str(value).split("\n"), start=1):
        shift = len("emit ") if number == 1 else 0
        for column in range(1, len(line_text) + 1):
            assert prefixed.locate(number, column + shift) == value.origin.locate(number, column)


MORE_INDENTED = """\
k: >-
  [c for c in cells
    if c.mark == none
  and c.mark == none
  and c.mrak == none]
"""


def test_a_name_after_a_more_indented_line_of_a_folded_block_is_located_on_its_line() -> None:
    """A more-indented line keeps its line breaks, so the lines after it fold into one snippet
    line that starts a line earlier in the file: each name is still found where written."""
    loaded = load_text(MORE_INDENTED, "m.yaml")["k"]
    snippet = str(loaded).split("\n")
    line = next(n for n, text in enumerate(snippet, start=1) if "mrak" in text)
    assert loaded.origin.locate(line, snippet[line - 1].index("mrak") + 1) == (5, 9)


@given(
    words=st.lists(st.text("abcdxyz", min_size=1, max_size=6), min_size=1, max_size=12),
    separators=st.lists(
        st.sampled_from([" ", "\n", "\n\n", "\n  ", "\n\n   ", " "]), min_size=12, max_size=12
    ),
    width=st.integers(8, 60),
)
def test_every_letter_of_a_folded_block_scalar_is_located_at_that_letter_in_the_file(
    words: list[str], separators: list[str], width: int
) -> None:
    """Whatever PyYAML's emitter makes of a text as a ``>`` block (folding, empty and
    more-indented lines), every letter of the loaded value maps back to that letter."""
    pairs = zip(words, separators, strict=False)
    value = "".join(word + separator for word, separator in pairs).strip(" \t\n")
    text = yaml.safe_dump({"k": value}, default_style=">", width=width, allow_unicode=False)
    loaded = load_text(text, "p.yaml")["k"]  # (the emitter does not always give ``value`` back)
    lines = text.splitlines()
    for snippet_line, line_text in enumerate(str(loaded).split("\n"), start=1):
        for offset, char in enumerate(line_text):
            if char in "abcdxyz":
                file_line, file_column = loaded.origin.locate(snippet_line, offset + 1)
                assert lines[file_line - 1][file_column - 1] == char, (text, snippet_line, offset)
