"""``verify --suggest``: who sees each field, mined from the information model.

In every state watched, each seat's unseen places are asked of the engine's information model
(:func:`rulekit.engine.information.unseen`, which every channel is computed from), and for each
field that is not public it is recorded who saw its contents: its owner, another player, a
spectator. A field nobody was seen to see, or only its owner, or only the players but its
owner, is proposed as a ``visibility:`` expectation (``seen_by: nobody``, ``owner``,
``others``): who may see it at most, which a later edit or variant that shows it to more seats
breaks (a card set aside face down declared public, a hand shown to everybody).
"""

from __future__ import annotations

from attrs import define, field

from rulekit.compiler.program import Program
from rulekit.engine.game import State
from rulekit.engine.information import unseen
from rulekit.tools.verify.suggest_action import Confidence
from rulekit.tools.verify.suggest_model import Suggestion

#: The words of who saw a field: its owner, another player, a spectator.
OWNER, OTHERS, SPECTATOR = "owner", "others", "spectator"


@define
class Sight:
    """Who was seen to see each non-public field's contents in the states watched."""

    program: Program
    states: int = 0
    #: (scope, field) -> who saw it (:data:`OWNER`, :data:`OTHERS`, :data:`SPECTATOR`).
    seen: dict[tuple[str, str], set[str]] = field(factory=dict)

    def __attrs_post_init__(self) -> None:
        for scope, fields in self.program.rules.fields.items():
            for name, decl in fields.items():
                if decl.visibility != "public":
                    self.seen[(scope, name)] = set()

    def look(self, state: State) -> None:
        """Record who sees each watched field in ``state``."""
        if not self.seen:
            return
        self.states += 1
        game = state.game
        for seat in [*range(game.num_players), None]:
            hidden = unseen(state, seat)
            for (scope, name), who in self.seen.items():
                for owner in game.owners(scope):
                    if (owner, name) not in hidden:
                        who.add(SPECTATOR if seat is None else OWNER if owner == seat else OTHERS)

    def suggestions(self, confidence: Confidence) -> list[Suggestion]:
        """The expectations of who may see each field, at most, that held in every state."""
        if self.states < confidence.support:
            return []
        found = []
        said = f"in all {self.states} states watched"
        for (scope, name), who in self.seen.items():
            text = f"{scope}.{name}"
            if not who:
                seen_by, what = "nobody", f"no seat sees {text}"
            elif who == {OWNER} and scope == "player":
                seen_by, what = "owner", f"only its owner sees {text}"
            elif who == {OTHERS} and scope == "player":
                seen_by, what = "others", f"every player but its owner sees {text}, its owner does not"
            else:
                continue
            found.append(
                Suggestion(
                    None,
                    text,
                    f"suggested: {what} ({said})",
                    self.states,
                    relation="visibility",
                    seen_by=seen_by,
                )
            )
        return found
