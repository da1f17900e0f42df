"""``verify --suggest`` on hidden hands: the sums and values of the components players hold, the
conditions that compare two players' cards or look for a guess in a hand, and who sees each
field (``visibility:`` expectations). Each is proposed on a small ruleset with hidden hands and
broken by a planted change of the rules."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from rulekit.load import load_program
from rulekit.tools.verify import VerifyOptions, verify
from rulekit.tools.verify.suggest import suggest

DUEL = """
ruleset: duel
players: {min: 2, max: 3}
enums:
  suit: [red, blue, green]
constants:
  SUITS: {type: "list[suit]", value: [red, blue, green]}
components:
  card:
    attributes: {suit: suit, value: int}
    items:
      - {id: "red_{copy_number}", suit: red, value: 1, copies: 5}
      - {id: "blue_{copy_number}", suit: blue, value: 2, copies: 5}
      - {id: "green_{copy_number}", suit: green, value: 3, copies: 5}
state:
  game:
    deck: {type: "list[card]", initial: cards, visibility: hidden}
    set_aside: {type: "list[card]", visibility: hidden}
    current: {type: player, initial: "player_at(1)"}
  player:
    hand: {type: "list[card]", visibility: owner}
    discards: {type: "list[card]"}
    out: {type: bool}
functions:
  rivals:
    body: "[p for p in players if p != me and not p.out]"
  in_round:
    body: "[p for p in players if not p.out]"
  next_in:
    params: {p: player}
    body: first(q for q in players_from(next_player(p)) if not q.out)
procedures:
  knock:
    params: {who: player}
    body: |
      for c in who.hand:
          move(c, who.hand, who.discards)
      who.out = true
actions:
  duel:
    params: {target: rivals()}
    effect: |
      let mine = sum(c.value for c in me.hand)
      let theirs = sum(c.value for c in target.hand)
      if mine > theirs:
          knock(target)
      elif theirs > mine:
          knock(me)
    ends_turn: true
  guess:
    params: {target: rivals(), named: SUITS}
    effect: |
      if any(c.suit == named for c in target.hand):
          knock(target)
    ends_turn: true
  swap:
    require:
      - {if: "len(game.deck) > 0", else: the deck is empty}
    effect: |
      move(first(me.hand), me.hand, me.discards)
      draw(game.deck, me.hand, 1)
    ends_turn: true
setup: |
  shuffle(game.deck)
  draw(game.deck, game.set_aside, 1)
  for p in players:
      draw(game.deck, p.hand, 1)
flow:
  - repeat:
      until: len(in_round()) <= 1 or len(game.deck) == 0
      steps:
        - turn: {player: game.current}
        - do: game.current = next_in(game.current)
scoring:
  score: "0 if player.out else 1"
"""

NOBODY_OUT = "all(after(p.out) == before(p.out) for p in players)"
#: the frame of one side: no hand, discard pile or player out changes
NOTHING = (
    "all(after(len(p.hand)) == before(len(p.hand)) for p in players) and "
    f"all(after(len(p.discards)) == before(len(p.discards)) for p in players) and {NOBODY_OUT}"
)
MINE, THEIRS = "sum(c.value for c in me.hand)", "sum(c.value for c in target.hand)"
TIE_NOTHING = f"not (before({MINE}) == before({THEIRS})) or ({NOTHING})"
HIGHER_WINS = f"not (before({MINE}) > before({THEIRS})) or (after(target.out) == true)"
WRONG_GUESS_NOTHING = f"not (not before(any(c.suit == named for c in target.hand))) or ({NOTHING})"
RIGHT_GUESS_OUT = "not (before(any(c.suit == named for c in target.hand))) or (after(target.out) == true)"


@pytest.fixture(scope="module")
def duel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, set[str]], dict[str, str]]:
    directory = tmp_path_factory.mktemp("duel")
    (directory / "ruleset.yaml").write_text(DUEL, encoding="utf-8")
    mined = suggest(VerifyOptions(str(directory), examples=200, out=None))
    found: dict[str, set[str]] = {}
    seen: dict[str, str] = {}
    for s in mined.suggestions:
        if s.relation == "visibility":
            seen[s.holds] = s.seen_by
        else:
            found.setdefault(s.action or f"over:{s.over}", set()).add(s.holds)
    return directory, found, seen


def _verify(
    directory: Path, tmp_path: Path, added: dict[str, object], plant: dict[str, object]
) -> str | None:
    """Verify the rules (changed by ``plant``) with ``added`` (a variant's operations): the
    failing check's key, or ``None``."""
    variant = {"variant": "checked", "title": "t", "description": "d", "ruleset": "duel", **added}
    if plant:
        variant["set"] = plant
    path = tmp_path / "variant.yaml"
    path.write_text(yaml.safe_dump(variant), encoding="utf-8")
    options = VerifyOptions(
        str(directory), variants=(str(path),), examples=60, out=tmp_path / "ce", workers=1
    )
    result = verify(options)
    return None if result.counterexample is None else result.counterexample.key


def test_the_components_a_player_holds_are_observed_by_sum_and_by_values(tmp_path: Path) -> None:
    from rulekit.tools.verify.observe import held_observables

    (tmp_path / "ruleset.yaml").write_text(DUEL, encoding="utf-8")
    held = {o.key: o for o in held_observables(load_program(str(tmp_path)))}
    assert set(held) == {
        "sum:hand.value",
        "values:hand.suit",
        "values:hand.value",
        "sum:discards.value",
        "values:discards.suit",
        "values:discards.value",
    }
    fields = {(0, "hand"): ("green_1", "red_2"), (1, "hand"): ()}
    assert held["sum:hand.value"].read(fields, 0) == 4 and held["sum:hand.value"].read(fields, 1) == 0
    assert held["values:hand.suit"].read(fields, 0) == ("green", "red")
    assert held["sum:hand.value"].text("target") == THEIRS


def test_two_players_hidden_cards_compared_split_the_action(
    duel: tuple[Path, dict[str, set[str]], dict[str, str]],
) -> None:
    _, found, _ = duel
    assert TIE_NOTHING in found["duel"] and HIGHER_WINS in found["duel"]
    # over all duels someone may be knocked out: only the split says when
    assert NOBODY_OUT not in found["duel"] and NOTHING not in found["duel"]


def test_a_guess_looked_for_in_a_hand_splits_the_action(
    duel: tuple[Path, dict[str, set[str]], dict[str, str]],
) -> None:
    _, found, _ = duel
    assert WRONG_GUESS_NOTHING in found["guess"] and RIGHT_GUESS_OUT in found["guess"]


@pytest.mark.parametrize(
    ("action", "holds", "effect"),
    [
        (
            "duel",
            TIE_NOTHING,
            "let mine = sum(c.value for c in me.hand)\nlet theirs = sum(c.value for c in target.hand)\n"
            "if mine >= theirs:\n    knock(target)\nelse:\n    knock(me)\n",
        ),
        (
            "duel",
            HIGHER_WINS,
            "let mine = sum(c.value for c in me.hand)\nlet theirs = sum(c.value for c in target.hand)\n"
            "if mine > theirs:\n    knock(me)\nelif theirs > mine:\n    knock(target)\n",
        ),
        (
            "guess",
            WRONG_GUESS_NOTHING,
            "if any(c.suit == named for c in me.hand):\n    knock(target)\n",
        ),
    ],
    ids=["tie-knocks-out", "higher-card-loses", "guess-checked-against-the-wrong-hand"],
)
def test_a_planted_change_breaks_the_mined_relation_on_hidden_cards(
    duel: tuple[Path, dict[str, set[str]], dict[str, str]],
    tmp_path: Path,
    action: str,
    holds: str,
    effect: str,
) -> None:
    directory, found, _ = duel
    assert holds in found[action]  # mined
    added: dict[str, object] = {"extend": {"actions": {action: {"ensures": [{"holds": holds}]}}}}
    assert _verify(directory, tmp_path, added, {}) is None  # the rules keep it
    key = _verify(directory, tmp_path, added, {f"actions.{action}.effect": effect})
    assert key == f"property:{action}.ensures[1]"


def test_who_sees_each_hidden_field_is_mined(duel: tuple[Path, dict[str, set[str]], dict[str, str]]) -> None:
    _, _, seen = duel
    assert seen == {"game.deck": "nobody", "game.set_aside": "nobody", "player.hand": "owner"}


@pytest.mark.parametrize(
    ("field", "seen_by", "plant"),
    [
        ("game.set_aside", "nobody", {"state.game.set_aside.visibility": "public"}),
        ("player.hand", "owner", {"state.player.hand.visibility": "public"}),
        ("player.hand", "owner", {"state.player.hand.visibility": "others"}),
    ],
    ids=["set-aside-face-up", "hands-face-up", "hands-held-the-wrong-way"],
)
def test_a_field_shown_to_more_seats_breaks_the_visibility_expectation(
    duel: tuple[Path, dict[str, set[str]], dict[str, str]],
    tmp_path: Path,
    field: str,
    seen_by: str,
    plant: dict[str, object],
) -> None:
    directory, _, seen = duel
    assert seen[field] == seen_by  # mined
    added: dict[str, object] = {"add": {"visibility": {"secret": {"field": field, "seen_by": seen_by}}}}
    assert _verify(directory, tmp_path, added, {}) is None
    assert _verify(directory, tmp_path, added, plant) == "visibility:secret"


def test_a_card_revealed_to_another_player_breaks_an_owner_only_expectation(
    duel: tuple[Path, dict[str, set[str]], dict[str, str]], tmp_path: Path
) -> None:
    directory, _, _ = duel
    added: dict[str, object] = {
        "add": {"visibility": {"secret": {"field": "player.hand", "seen_by": "owner"}}}
    }
    shown = 'reveal(target, "hand", me)\n' + DUEL_GUESS
    assert _verify(directory, tmp_path, added, {"actions.guess.effect": shown}) == "visibility:secret"


DUEL_GUESS = "if any(c.suit == named for c in target.hand):\n    knock(target)\n"


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"field": "game.sett_aside", "seen_by": "nobody"}, "game has no field 'sett_aside'"),
        ({"field": "gam.deck", "seen_by": "nobody"}, "no state scope or component kind 'gam'"),
        ({"field": "game.deck", "seen_by": "owner"}, "only a player's field has an owner"),
        ({"field": "player.hand", "seen_by": "everyone"}, "seen_by"),
        ({"seen_by": "nobody"}, "field"),
    ],
    ids=["unknown-field", "unknown-scope", "owner-of-a-game-field", "unknown-word", "no-field"],
)
def test_a_wrong_visibility_expectation_is_an_error_with_its_position(
    write_ruleset: Callable[..., Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    entry: dict[str, str],
    message: str,
) -> None:
    from rulekit.tools.verify import main

    text = DUEL + yaml.safe_dump({"visibility": {"secret": entry}})
    directory = write_ruleset(text)
    code = main([str(directory), "--examples", "2", "--out", str(tmp_path / "o"), "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "ruleset.yaml:" in err and message in err and "Traceback" not in err
