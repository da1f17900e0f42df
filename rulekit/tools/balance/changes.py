"""What a variant changes, in rule terms (the computation of ``rulekit diff``), and which
rules a balance run must see fire before it may judge the change.

A change to an action or a trigger is *watched* directly: the report counts how often that
rule fired on each side.  A change to data (a constant, a component, a function, a state
field, an event) is watched through the actions and triggers that read it (``used_by`` of
the diff): their firing shows that the game came near the change, not that it used the
changed value (an action that reads every city's harbor costs fires whether or not anyone
builds in the changed city), so such rows are marked *reads the change*.  Setup, flow and
scoring run in every game.
"""

from __future__ import annotations

from typing import Any

from attrs import define, field

from rulekit.tools.diff import Change, RulesDiff, Side, diff_sides
from rulekit.tools.diff_text import fits_inline, inline
from rulekit.tools.simulate.play import Config

#: Parts of the rules that run in every game (what reads a change there is always reached).
ALWAYS = ("setup", "flow", "scoring")


@define
class Watched:
    """A rule whose firing a balance run counts: ``key`` as the runtime's ``fired`` hook names
    it (``action:NAME``, ``trigger:NAME``)."""

    key: str
    #: True when the variant changes this rule itself; False when it reads changed data.
    direct: bool
    #: The changes (``section name``) that make it watched.
    because: list[str] = field(factory=list)

    @property
    def label(self) -> str:
        kind, _, name = self.key.partition(":")
        return f"{kind} {name}"


@define
class VariantChanges:
    """The diff of the variant against the base, and the rules a run must see fire."""

    diff: RulesDiff
    watched: list[Watched]
    #: Changes read by a part of the rules that runs in every game (setup, flow, scoring).
    always: list[str]
    #: Changes no action, trigger or always-run part reads (e.g. an invariant's text).
    unplayed: list[str]

    @property
    def changes(self) -> list[Change]:
        return self.diff.changes

    def direct(self) -> list[Watched]:
        return [w for w in self.watched if w.direct]

    def to_json(self) -> dict[str, Any]:
        return {
            "changes": [c.to_json() for c in self.changes],
            "watched": [{"rule": w.key, "direct": w.direct, "because": w.because} for w in self.watched],
            "always_run": self.always,
            "not_played": self.unplayed,
        }


def change_name(change: Change) -> str:
    """A change in rule terms: ``trigger pig_out``, ``constant START_MONEY``."""
    singular = {
        "constants": "constant",
        "components": "component",
        "functions": "function",
        "events": "event",
        "actions": "action",
        "triggers": "trigger",
        "invariants": "invariant",
        "ruleset": "ruleset",
    }
    if change.section in ALWAYS:
        return change.section
    return f"{singular.get(change.section, change.section)} {change.name}"


def describe_change(change: Change) -> str:
    """One line: what changed, old → new when short, and where the new side wrote it."""
    name = change_name(change)
    if change.kind == "added":
        text = f"{name} added"
        if fits_inline(change.new, change.new) and not isinstance(change.new, dict):
            text += f": {inline(change.new)}"
        where = change.new_at
    elif change.kind == "removed":
        text, where = f"{name} removed", change.old_at
    elif not change.diff:
        text, where = f"{name}: {inline(change.old)} → {inline(change.new)}", change.new_at
    else:
        text, where = f"{name} changed", change.new_at
    if where:
        text += f" (at {where})"
    return text


def variant_changes(a: Config, b: Config, players: int) -> VariantChanges:
    """Compare the two sides of a balance run as ``rulekit diff`` does.

    Raises:
        RulesetError: either side does not compose (it already composed to be played).
    """
    diff = diff_sides(
        Side(a.ruleset, list(a.modules), list(a.variants), players),
        Side(b.ruleset, list(b.modules), list(b.variants), players),
    )
    watched: dict[str, Watched] = {}
    always: list[str] = []
    unplayed: list[str] = []

    def watch(key: str, direct: bool, because: str) -> None:
        entry = watched.setdefault(key, Watched(key, direct))
        entry.direct = entry.direct or direct
        if because not in entry.because:
            entry.because.append(because)

    for change in diff.changes:
        name = change_name(change)
        if change.section in ("actions", "triggers"):
            watch(f"{change.section[:-1]}:{change.name}", True, name)
        if change.section in ALWAYS:
            always.append(name)
            continue
        reached = change.section in ("actions", "triggers")
        for label in change.used_by:
            rule = label.partition(" (via ")[0]
            kind, _, rule_name = rule.partition(" ")
            if kind in ("action", "trigger"):
                watch(f"{kind}:{rule_name}", False, name)
                reached = True
            elif rule in ALWAYS or kind == "state":  # a field's initial value is set in every game
                if name not in always:
                    always.append(name)
                reached = True
        if change.section == "ruleset":  # players, money: the whole game
            always.append(name)
            reached = True
        if not reached:
            unplayed.append(name)
    ordered = sorted(watched.values(), key=lambda w: (not w.direct, w.key))
    return VariantChanges(diff, ordered, always, unplayed)
