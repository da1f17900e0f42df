"""The shipped rulesets, found by looking in ``rulesets/``: a new directory is covered by every
test that uses these helpers (the contract test, the playthrough goldens, the soundness property).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from attrs import frozen

from rulekit.load import load_program
from rulekit.rules.compose import load_source
from rulekit.tools.scenario import find_scenarios

ROOT = Path(__file__).resolve().parent.parent
RULESETS_DIR = ROOT / "rulesets"


def shipped_rulesets() -> list[Path]:
    """Every directory of ``rulesets/`` that holds a ``ruleset.yaml``."""
    return sorted(p.parent for p in RULESETS_DIR.glob("*/ruleset.yaml"))


@frozen
class Setup:
    """One way to play a shipped ruleset: its directory, modules and player count."""

    ruleset: Path
    modules: tuple[str, ...]
    players: int

    @property
    def name(self) -> str:
        """A short id such as ``el_capitan+lisboa+porto-3p``."""
        return "+".join((self.ruleset.name, *self.modules)) + f"-{self.players}p"


@cache
def module_names(ruleset: Path) -> tuple[str, ...]:
    """The modules the ruleset ships, by name."""
    return tuple(sorted(load_source(str(ruleset)).modules))


@cache
def player_range(ruleset: Path, modules: tuple[str, ...] = ()) -> tuple[int, int]:
    """The fewest and most players the ruleset (with those modules) allows."""
    rules = load_program(str(ruleset), modules).rules
    return rules.min_players, rules.max_players


def setups(ruleset: Path) -> list[Setup]:
    """The base game and the game with all its modules, each with its fewest and most players."""
    combos = [()] + ([module_names(ruleset)] if module_names(ruleset) else [])
    found = []
    for modules in combos:
        low, high = player_range(ruleset, modules)
        found.extend(Setup(ruleset, modules, players) for players in sorted({low, high}))
    return found


def scenario_files(ruleset: Path) -> list[Path]:
    """Every scenario the ruleset ships (its own, its modules' and its variants'), as ``rulekit
    scenario RULESET_DIR`` finds them."""
    return find_scenarios([ruleset])
