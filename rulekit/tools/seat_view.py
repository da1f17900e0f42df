"""What one seat is shown of a state, built in one place for every channel.

``serve``'s ``/api/state``, each step of ``replay --html --seat`` and ``render --seat`` all
call :func:`seat_view`, so they show a seat the same things, each computed from what the
engine's information model lets it see: the picture (drawn from the masked fields), the
ruleset's text panels (evaluated on the masked fields too), the decision line, the scores
as the seat may know them (:func:`rulekit.engine.information.known_scores`; ``None`` where
masked, shown as ``?``), the final standings once the game is over, and the notes told to
the seat alone.  ``seat`` None is a spectator.
"""

from __future__ import annotations

from typing import Any

from attrs import frozen

from rulekit.engine.game import State
from rulekit.engine.information import known_scores
from rulekit.tools.render import describe_decision, render_panels
from rulekit.tools.svg import to_svg
from rulekit.tools.view import Picture, caption, draw


@frozen
class SeatView:
    """A seat's view of a state: the picture with its caption, and the rest as JSON-ready data."""

    picture: Picture
    caption: str
    data: dict[str, Any]

    def svg(self) -> str:
        return to_svg(self.picture, caption=self.caption)

    def payload(self) -> dict[str, Any]:
        """Everything, the picture as an SVG document under ``svg``."""
        return {**self.data, "svg": self.svg()}


def seat_view(state: State, seat: int | None) -> SeatView:
    """What ``seat`` (None: a spectator) is shown of ``state``.

    Raises:
        RulesetError: the ruleset's view does not compile (a ruleset without one gets the default view).
    """
    picture = draw(state, seat)
    terminal = state.is_terminal()
    data: dict[str, Any] = {
        "seat": None if seat is None else f"P{seat + 1}",
        "moves": state.moves(),
        "terminal": terminal,
        "decision": describe_decision(state),
        "scores": known_scores(state, seat),
        "standings": [[f"P{p + 1}", list(key)] for p, key in state.standings()] if terminal else [],
        "panels": seat_panels(state, seat),
        "told": list(state.told(seat)),
        "errors": list(picture.errors),
    }
    return SeatView(picture, caption(state, seat), data)


def seat_panels(state: State, seat: int | None) -> list[str]:
    """The ruleset's display panels evaluated on what ``seat`` may see (hidden values read
    as none); a panel that fails says so instead of its lines (:func:`render_panels`)."""
    return render_panels(state, seat)
