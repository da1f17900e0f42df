"""Compiling a ruleset's flow (seq, do, repeat, for_each, turn, simultaneous, if) into :class:`FlowNode`s."""

from __future__ import annotations

from rulekit.compiler.build_base import BuildBase
from rulekit.compiler.program import FlowNode
from rulekit.dsl import ast
from rulekit.dsl import types as t
from rulekit.dsl.types import Type
from rulekit.errors import Span, did_you_mean
from rulekit.rules import model as m


class FlowBuilder(BuildBase):
    """Compiles the flow steps into the node table the engine's flow interpreter walks."""

    def steps(self, steps: tuple[m.FlowStep, ...]) -> int:
        children = tuple(self.step(s) for s in steps)
        self.flow.append(FlowNode("seq", None, children))
        return len(self.flow) - 1

    def flow_expr(
        self, expr: ast.Expr | None, expected: Type | None, what: str, *, me: bool = False
    ) -> str | None:
        # Flow steps run for nobody in particular; only a turn's 'until' has a 'me'.
        if expr is None:
            return None
        return self.define_expr("flow", expr, [], me=me, expected=expected, what=what)

    def flow_field(self, name: str | None, span: Span | None) -> None:
        if name is not None and name not in self.rules.fields["game"]:
            self.bag.error(
                f"flow variable '{name}' must be a game field",
                span,
                hint=did_you_mean(name, self.rules.fields["game"]) or f"declare it under state.game.{name}",
            )

    def offered(self, names: tuple[str, ...] | None, span: Span | None, what: str) -> tuple[str, ...]:
        """The actions a decision step offers: those it lists (unknown ones reported) and the
        actions that ask to join them (``offered_with``); without a list, every action that
        is not ``prompt: true``."""
        if names is None:
            return tuple(a for a, d in self.rules.actions.items() if not d.prompt_only)
        for name in names:
            if name not in self.rules.actions:
                hint = did_you_mean(name, self.rules.actions)
                self.bag.error(f"{what} lists unknown action '{name}'", span, hint=hint)
        return (
            *names,
            *(
                a
                for a, d in self.rules.actions.items()
                if a not in names and any(w in names for w in d.offered_with)
            ),
        )

    def step(self, step: m.FlowStep) -> int:
        if isinstance(step, m.DoStep):
            node = FlowNode(
                "do", step.span, data={"effect": self.define_block("do", step.effect, [], me=False)}
            )
        elif isinstance(step, m.RepeatStep):
            self.flow_field(step.counter, step.span)
            node = FlowNode(
                "repeat",
                step.span,
                (self.steps(step.steps),),
                data={
                    "times": self.flow_expr(step.times, t.INT, "repeat times"),
                    "while": self.flow_expr(step.while_, t.BOOL, "a while condition"),
                    "until": self.flow_expr(step.until, t.BOOL, "an until condition"),
                    "counter": step.counter,
                },
            )
        elif isinstance(step, m.ForEachStep):
            self.flow_field(step.var, step.span)
            node = FlowNode(
                "for_each",
                step.span,
                (self.steps(step.steps),),
                data={"items": self.flow_expr(step.items, t.ANY_LIST, "for_each in"), "var": step.var},
            )
        elif isinstance(step, m.SimultaneousStep):
            players = step.players
            node = FlowNode(
                "simultaneous",
                step.span,
                data={
                    "players": None
                    if players is None
                    else self.flow_expr(players, t.list_of(t.PLAYER), "the players who choose"),
                    "actions": self.offered(step.actions, step.span, "simultaneous step"),
                },
            )
        elif isinstance(step, m.TurnStep):
            offered = self.offered(step.actions, step.span, "turn")
            node = FlowNode(
                "turn",
                step.span,
                data={
                    "player": self.flow_expr(step.player, t.PLAYER, "the turn's player"),
                    "until": self.flow_expr(step.until, t.BOOL, "an until condition", me=True),
                    "on_start": self.define_block("turn_start", step.on_start, []) if step.on_start else None,
                    "on_end": self.define_block("turn_end", step.on_end, []) if step.on_end else None,
                    "actions": offered,
                    "once": step.once,
                },
            )
        else:
            node = FlowNode(
                "if",
                step.span,
                (self.steps(step.then), self.steps(step.otherwise)),
                data={"condition": self.flow_expr(step.condition, t.BOOL, "an if condition")},
            )
        self.flow.append(node)
        return len(self.flow) - 1
