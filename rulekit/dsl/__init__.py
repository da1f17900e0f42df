"""The rulekit DSL: grammar, AST and parser."""

from rulekit.dsl.parser import Origin, parse_block, parse_expression

__all__ = ["Origin", "parse_block", "parse_expression"]
