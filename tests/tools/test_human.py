"""Human play in the terminal shows a seat only what it may see."""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from rulekit.cli import main
from rulekit.engine.game import Game
from rulekit.load import load_program
from rulekit.tools.bots import make_bots
from rulekit.tools.human import play_human
from rulekit.tools.render import render_state

SECRETS = """\
ruleset: secrets
title: Secrets
players: {min: 2, max: 2}
state:
  game:
    table: "list[str]"
  player:
    hand:
      type: "list[str]"
      visibility: owner
      initial: '["ace_of_p1", "king_of_p1"] if me == player_at(1) else ["two_of_p2", "three_of_p2"]'
actions:
  play:
    params:
      card: me.hand
    effect: |
      me.hand = without(me.hand, card)
      game.table = append(game.table, card)
    ends_turn: true
flow:
  - turn: player_at(1)
  - turn: player_at(2)
display:
  panels:
    - title: Your hand
      lines: '[join(me.hand, " ") if me != none else "(spectator)"]'
"""


def _game(write_ruleset: Callable[..., Path]) -> Game:
    return Game(load_program(str(write_ruleset(SECRETS, name="secrets"))), 2)


def test_every_line_printed_to_a_seat_shows_only_what_it_may_see(write_ruleset: Callable[..., Path]) -> None:
    game = _game(write_ruleset)
    printed: list[str] = []
    answers = iter(["?", "s", "1"])
    status = play_human(
        game,
        1,
        make_bots(game, "first", 0),
        seed=0,
        max_actions=10,
        read=lambda prompt: next(answers),
        write=printed.append,
    )
    assert status == 0
    lines = "\n".join(printed).splitlines()
    assert lines[0].startswith("Secrets: you are P2.") and "e.g." not in lines[0]
    # P1 plays her first card in public; her other card must never reach P2's screen.
    assert "P1 plays play(ace_of_p1)" in lines
    assert not [line for line in lines if "king_of_p1" in line]
    assert any("two_of_p2" in line for line in lines)  # P2 sees her own hand
    assert "(e.g. play(two_of_p2))" in "\n".join(lines)  # help uses P2's own option


def test_a_spectator_is_nobody_for_the_display_panels(write_ruleset: Callable[..., Path]) -> None:
    state = _game(write_ruleset).new_initial_state(0)
    spectator = render_state(state, None)
    assert "(spectator)" in spectator and "ace_of_p1" not in spectator and "panel failed" not in spectator
    assert "ace_of_p1 king_of_p1" in render_state(state, 0)


def test_the_seat_view_hides_the_other_hand(write_ruleset: Callable[..., Path]) -> None:
    state = _game(write_ruleset).new_initial_state(0)
    assert json.dumps(state.view(1)["P1.hand"]) == '{"hidden": 2}'


@pytest.mark.parametrize("seed", range(4))
def test_the_terminal_game_never_prints_the_other_hand(
    write_ruleset: Callable[..., Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    seed: int,
) -> None:
    """Through `rulekit play --human 2`: every line printed is checked against P2's view.

    P1 (a random bot) plays one of her two cards in public; the other one is in no view
    of P2's, so no line may show it (the old opening help used P1's first option as its example).
    """
    directory = write_ruleset(SECRETS, name="secrets")
    monkeypatch.setattr(sys, "stdin", io.StringIO("?\ns\nplay(three_of_p2)\n"))
    status = main(["play", str(directory), "--human", "2", "--bot", "random", "--seed", str(seed)])
    assert status == 0
    lines = capsys.readouterr().out.splitlines()
    played = next(line.split("(")[1].rstrip(")") for line in lines if line.startswith("P1 plays "))
    state = Game(load_program(str(directory)), 2).new_initial_state(seed)
    hidden = set(state.fields[(0, "hand")]) - {played}
    assert hidden and not hidden & set(json.dumps(state.view(1)).split('"'))
    for line in lines:
        assert not any(card in line for card in hidden), line
    assert any(line.endswith("-> play(three_of_p2)") for line in lines)


# Answers a person might give at every prompt: help, the state, actions that are illegal or
# name another player's card (their explanations must not reveal it), a bad number; then the
# first option listed.
PROBES = ["?", "s", "prince(P1)", "guard(P1, princess)", "priest(P2)", "99"]


class Person:
    """Stdin for `rulekit play --human`: reads what was printed so far, answers like a person."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys
        self.out = ""
        self.answers: list[str] = []

    def readline(self) -> str:
        self.out += self.capsys.readouterr().out
        if not self.answers:
            options = self.out[self.out.rindex("your options:") :].splitlines()[1:]
            self.answers = [*PROBES, options[0].split(".")[0].strip()]
        return self.answers.pop(0) + "\n"


def _words(data: object) -> set[str]:
    return set(re.findall(r"\w+", data if isinstance(data, str) else json.dumps(data)))


def _played(line: str) -> str | None:
    """The action of a line that reports one (a bot's move or the person's echoed choice)."""
    line = re.sub(r"^(P\d+> )+", "", line)  # the prompts, answered without a newline
    if line.startswith("-> "):
        return line[3:]
    match = re.fullmatch(r"P\d+ plays (.+)", line)
    return match.group(1) if match else None


@pytest.mark.parametrize(("players", "seat", "seed"), [(2, 2, 0), (2, 1, 1), (3, 2, 2), (3, 3, 3), (4, 1, 4)])
def test_a_royal_letter_game_in_the_terminal_prints_only_cards_of_the_seats_view(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], players: int, seat: int, seed: int
) -> None:
    """The shipped hidden-hand game through `rulekit play --human`: every line printed is checked
    against the seat's view at that moment.  Hands, the deck and the set-aside card are hidden, so
    a card may be printed only once the seat's view (or an action played in public) shows it, and
    an action only once it is played, as the person typed it, or once it has been one of the
    seat's own options (another seat's options tell what she holds)."""
    person = Person(capsys)
    monkeypatch.setattr(sys, "stdin", person)
    argv = ["play", "royal_letter", "--players", str(players), "--human", str(seat), "--bot", "random"]
    assert main([*argv, "--seed", str(seed)]) == 0
    lines = (person.out + capsys.readouterr().out).splitlines()
    game = Game(load_program("royal_letter"), players)
    cards = {item.id for item in game.program.rules.kinds["card"].items}
    state = game.new_initial_state(seed)
    public: set[str] = set()  # the words of the actions played so far
    said = set(PROBES)  # the actions played, those the person typed, and her own options
    action_text = re.compile(rf"\b(?:{'|'.join(game.program.actions)})\([^()]*\)")
    hidden_at_some_line = 0
    for line in lines:
        played = _played(line)
        if played is not None:
            state.apply_action(played)
            public |= _words(played)
            said.add(played)
            continue
        visible = _words(state.view(seat - 1)) | public
        shown = cards & _words(line)
        assert shown <= visible, f"{line!r} shows {sorted(shown - visible)}, hidden from P{seat}"
        if state.current_player() == seat - 1:
            said |= set(state.legal_action_strings())  # her options (the numbers name old ones too)
        unknown = set(action_text.findall(line)) - said
        assert not unknown, f"{line!r} shows {sorted(unknown)}: options that are not P{seat}'s"
        hidden_at_some_line += bool(cards & _words(state.to_json()) - visible)
    # the game was played to its end as printed, and many lines had something to hide
    assert state.is_terminal() and "final standings" in "\n".join(lines)
    assert hidden_at_some_line > 10


STEPS = """\
ruleset: steps
title: Steps
players: {min: 2, max: 2}
state:
  game:
    path: "list[int]"
actions:
  advance:
    params:
      steps: "[[11], [3, 4]]"
    effect: game.path = steps
    ends_turn: true
flow:
  - turn: player_at(1)
"""


def test_a_list_parameter_is_offered_as_it_is_typed_back(
    write_ruleset: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """advance([3, 4]), not advance((3, 4)): the option as printed is a valid answer."""
    directory = write_ruleset(STEPS, name="steps")
    monkeypatch.setattr(sys, "stdin", io.StringIO("advance([3, 4])\n"))
    assert main(["play", str(directory), "--human", "1"]) == 0
    out = capsys.readouterr().out
    assert "1. advance([11])" in out and "2. advance([3, 4])" in out and "((" not in out
    assert "-> advance([3, 4])" in out


def test_human_play_deals_from_a_fresh_seed_shown_only_when_the_game_ends(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Without --seed two games with a person are dealt from different seeds; the seed is
    printed only in the last line, after the game, and the referee's log holds it."""
    seeds = []
    for n in range(2):
        monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 5))
        log = tmp_path / f"g{n}.jsonl"
        assert main(["play", "royal_letter", "--human", "1", "--log", str(log)]) == 0
        out = capsys.readouterr().out
        header = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
        seeds.append(header["seed"])
        last = out.rstrip().splitlines()[-1]
        assert last == f"the game's seed was {header['seed']} (play it again with --seed {header['seed']})"
        assert out.count(str(header["seed"])) == 2  # in the last line only
    assert seeds[0] != seeds[1]


def test_the_text_panels_are_evaluated_on_what_the_seat_may_see(write_ruleset: Callable[..., Path]) -> None:
    """A panel that lists every hand shows a seat only its own cards (it used to read the true state)."""
    text = SECRETS.replace(
        """      lines: '[join(me.hand, " ") if me != none else "(spectator)"]'""",
        '      lines: \'[concat(p, " holds ", len([c for c in p.hand if c != none]), " known")'
        " for p in players]'",
    )
    game = Game(load_program(str(write_ruleset(text, name="panels"))), 2)
    state = game.new_initial_state(0)
    shown = "\n".join(render_state(state, 0).splitlines())
    assert "P1 holds 2 known" in shown
    assert "P2 holds 0 known" in shown


def test_a_bots_pending_simultaneous_choice_is_not_printed_to_the_person() -> None:
    """Goofspiel with the person as P2: P1's bot bids first, and P2 must not read its bid
    before bidding; once both have bid, the result is on the screen."""
    from rulekit.load import load_game

    game = load_game("goofspiel", 2)
    answers = iter(["1", "q"])
    printed: list[str] = []
    play_human(
        game,
        1,
        make_bots(game, "first", 0),
        seed=0,
        max_actions=4,
        read=lambda prompt: next(answers),
        write=printed.append,
    )
    text = "\n".join(printed)
    before = text.split("-> ")[0]  # everything shown before P2 chose
    assert "P1 has chosen" in before
    assert not re.search(r"P1 plays bid", text)
