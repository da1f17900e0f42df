"""Hypothesis strategies shared by the property tests: DSL text drawn from the grammar."""

from __future__ import annotations

from functools import cache

from hypothesis import strategies as st
from hypothesis.extra.lark import LarkStrategy
from lark import Lark

from rulekit.dsl.parser import grammar_text

KEYWORDS = frozenset(
    ["let", "emit", "fail", "pass", "if", "elif", "else", "for", "in", "where", "or", "and", "not", "with"]
) | {"true", "false", "none", "by"}


@cache
def _generation_grammar(start: str) -> Lark:
    # The real parser runs an indenter post-lexer; generation needs only the plain grammar.
    return Lark(grammar_text(), start=start, parser="lalr")


def _spaced(strategy: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    # Spaces around every token keep neighbours apart ("not" "x" must not become "notx").
    return strategy.map(lambda token: f" {token} ")


def _explicit(grammar: Lark) -> dict[str, st.SearchStrategy[str]]:
    names = st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,6}\Z").filter(lambda n: n not in KEYWORDS)
    strings = st.text(alphabet="abc XYZ_-019", max_size=8).map(lambda s: f'"{s}"')
    explicit: dict[str, st.SearchStrategy[str]] = {
        "NAME": _spaced(names),
        "INT": _spaced(st.integers(0, 10_000).map(str)),
        "STRING": _spaced(strings),
        "COMMENT": st.just(""),
        "WS_INLINE": st.just(" "),
        "LINE_CONT": st.just(""),
        "_NL": st.just("\n"),
        "_INDENT": st.just(""),
        "_DEDENT": st.just(""),
    }
    for terminal in grammar.terminals:
        if terminal.name not in explicit:
            pattern = terminal.pattern
            if pattern.type == "str":
                explicit[terminal.name] = _spaced(st.just(pattern.value))
            else:
                explicit[terminal.name] = _spaced(st.from_regex(pattern.to_regexp(), fullmatch=True))
    return explicit


class _ShallowLarkStrategy(LarkStrategy):  # type: ignore[misc]
    """``from_lark`` with a bias towards one-symbol expansions, so that derivations stay small.

    Plain ``from_lark`` picks a rule's expansions uniformly; with a dozen precedence levels, each
    able to branch, most draws grow until they overrun and are discarded.
    """

    def __init__(self, grammar: Lark, start: str, explicit: dict[str, st.SearchStrategy[str]]) -> None:
        super().__init__(grammar, start, explicit, st.characters())
        biased = {}
        for name, strategy in self.nonterminal_strategies.items():
            expansions = list(getattr(strategy, "elements", ()))  # a sampled_from of expansions
            if not expansions:  # another Hypothesis version: keep its uniform choice
                biased[name] = strategy
                continue
            short = [e for e in expansions if len(e) == 1] or expansions[:1]
            biased[name] = st.sampled_from(short * _SHORT_WEIGHT + expansions)
        self.nonterminal_strategies = biased


_SHORT_WEIGHT = 8


def dsl_expressions() -> st.SearchStrategy[str]:
    """Expression text drawn from the grammar (start rule ``expression``)."""
    grammar = _generation_grammar("expression")
    return _ShallowLarkStrategy(grammar, "expression", _explicit(grammar))


#: Characters that make up most DSL text, plus a few that never do.
DSL_ALPHABET = "abcxyz_019 .,:()[]=<>!+-*/%'\"#\\\n\tifornotandwhere$@{}"
