"""A person plays one seat in the terminal (``rulekit play --human SEAT``).

Everything printed is what that seat may see: the state through its view, the
actions played (they are public), and its own options only.  Options keep their
number for the whole game (the same action text always has the same number, so a
list that shrinks never shifts them), the action notation is accepted at every
prompt, and each choice is echoed before it is played.
"""

from __future__ import annotations

from collections.abc import Callable

from attrs import define, field

from rulekit.engine.game import Action, Game, State
from rulekit.engine.information import seat_explanation
from rulekit.errors import Diagnostic, IllegalActionError, RulekitError
from rulekit.tools.bots import Bot
from rulekit.tools.log import GameRecorder
from rulekit.tools.log.seat import write_seat_log
from rulekit.tools.render import render_standings, render_state


def help_text(example: str | None = None) -> str:
    """How to answer; the example is one of the seat's own options (never another seat's)."""
    shown = f" (e.g. {example})" if example else ""
    return f"type an option's number or the action itself{shown}; 's' shows the state, 'q' quits"


@define
class HumanSeat:
    """The terminal side of one seat: numbering, prompts and echo."""

    game: Game
    seat: int
    read: Callable[[str], str] = input
    write: Callable[[str], None] = print
    numbers: dict[str, int] = field(factory=dict)

    def number(self, text: str) -> int:
        """The option number of an action text: given on first sight, kept for the whole game."""
        return self.numbers.setdefault(text, len(self.numbers) + 1)

    def options(self, legal: list[Action]) -> dict[int, Action]:
        shown = {self.number(self.game.action_to_string(a)): a for a in legal}
        return dict(sorted(shown.items()))

    def show_options(self, options: dict[int, Action]) -> None:
        self.write("your options:")
        for number, action in options.items():
            self.write(f"  {number:>3}. {self.game.action_to_string(action)}")

    def choose(self, state: State) -> Action | None:
        """Show the seat's view and options; the chosen action, or None to quit."""
        self.write("")
        self.write(render_state(state, self.seat))
        options = self.options(state.legal_actions())
        self.show_options(options)
        while True:
            try:
                answer = self.read(f"P{self.seat + 1}> ").strip()
            except EOFError:
                return None
            if answer in ("q", "quit", "exit"):
                return None
            if answer in ("", "?", "h", "help"):
                first = next(iter(options.values()), None)
                self.write(help_text(None if first is None else self.game.action_to_string(first)))
                self.show_options(options)
                continue
            if answer in ("s", "state"):
                self.write(render_state(state, self.seat))
                continue
            action = self.read_answer(state, answer, options)
            if action is not None:
                self.write(f"-> {self.game.action_to_string(action)}")
                return action

    def read_answer(self, state: State, answer: str, options: dict[int, Action]) -> Action | None:
        if answer.isascii() and answer.isdigit() and len(answer) < 10:
            number = int(answer)
            if number in options:
                return options[number]
            known = {n: t for t, n in self.numbers.items()}
            if number in known:
                self.write(f"option {number} ({known[number]}) is not possible now; see the options above")
            else:
                self.write(f"there is no option {number}; the options are listed above")
            return None
        try:
            action = self.game.parse_action(answer)
        except IllegalActionError as error:
            self.write(error.render())
            return None
        if action in options.values():
            return action
        self.write(IllegalActionError(seat_explanation(state, action, self.seat)).render())
        return None


def play_human(
    game: Game,
    seat: int,
    bots: list[Bot],
    *,
    seed: int,
    max_actions: int,
    source: str | None = None,
    log: str | None = None,
    seat_log: str | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> int:
    """Play a game with a person in ``seat`` and bots elsewhere; 0 when it ended or she quit.
    ``log`` is the referee's log (it holds the seed), ``seat_log`` the log of what she saw."""
    recorder = GameRecorder(game.new_initial_state(seed), seed, source, log_path=log)
    try:
        return _play(game, seat, bots, recorder, max_actions, read, write)
    finally:
        recorder.close()  # also after a rule error or Ctrl-C: the actions so far are kept
        if seat_log is not None:
            write_seat_log(seat_log, game, seed, recorder.played(), seat)
        # only now: knowing the seed during play would tell the deal
        write(f"the game's seed was {seed} (play it again with --seed {seed})")


def _play(
    game: Game,
    seat: int,
    bots: list[Bot],
    recorder: GameRecorder,
    max_actions: int,
    read: Callable[[str], str],
    write: Callable[[str], None],
) -> int:
    state = recorder.state
    human = HumanSeat(game, seat, read, write)
    # No example here: the first legal action may be another seat's, and show its hidden hand.
    write(f"{game.program.rules.title}: you are P{seat + 1}. {help_text()}")
    quit_ = False
    while not state.is_terminal() and len(recorder.actions) < max_actions:
        player = state.current_player()
        if player != seat:
            action = bots[player].choose(state)
            recorder.apply_action(action)
            if state.chosen(player):  # a choice in a simultaneous step, hidden until it resolves
                write(f"P{player + 1} has chosen (shown when everyone has)")
            else:
                write(f"P{player + 1} plays {game.action_to_string(action)}")
            continue
        chosen = human.choose(state)
        if chosen is None:
            quit_ = True
            break
        recorder.apply_action(chosen)
    write("")
    write(render_state(state, seat))
    write("")
    if quit_:
        write("you quit the game")
        return 0
    if not state.is_terminal():
        raise RulekitError(Diagnostic(f"the game did not end within {max_actions} actions"))
    write(f"final standings after {len(recorder.actions)} actions:")
    write(render_standings(state))
    return 0
