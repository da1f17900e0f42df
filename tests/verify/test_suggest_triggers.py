"""Triggers' postconditions and ``verify --suggest``'s relations per trigger firing: a
trigger's ``ensures:`` is checked after each firing (located, shrunk, saved as a scenario);
the miner proposes per-player amounts, "nothing for a player whose count is 0", who a
trigger pays, set-once whole numbers, the rounds a trigger fires in and a player field set to
the player with the fewest tokens on a small ruleset, and a planted wrong rule breaks each."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from rulekit.errors import RulesetError
from rulekit.tools.verify import VerifyOptions, verify
from rulekit.tools.verify.suggest import suggest

PAYDAY = """
ruleset: payday
players: {min: 2, max: 3}
money: money
constants:
  BONUS: [0, 1, 3, 6, 10]
  DIVIDEND: 2
  ROUNDS: 4
  AUDIT_ROUNDS: [2, 4]
state:
  game:
    round: {type: int}
    audits: {type: int}
    leader: {type: "player?"}
    active: {type: "player?"}
  player:
    money: {type: int, initial: "5"}
    tokens: {type: int}
    skips: {type: int}
    first: {type: int}
events:
  payday: {round: int}
functions:
  level:
    params: {p: player}
    body: "p.tokens + p.skips"
actions:
  take:
    ends_turn: true
    effect: |
      me.tokens += 1
      if me.first == 0:
          me.first = game.round + 1
  skip:
    ends_turn: true
    effect: me.skips += 1
  rest:
    ends_turn: true
    require:
      - if: "game.round > 0"
        else: "no rest in the first round"
    effect: me.skips += 1
triggers:
  pay:
    after: payday
    effect: |
      for p in players:
          transfer(get(BONUS, level(p), 10), bank, p)
  dividend:
    after: payday
    effect: |
      for p in players:
          if p.tokens > 0:
              p.money += DIVIDEND
  tip:
    after: take
    effect: me.money += 1
  toll:
    after: take
    effect: |
      for p in players:
          if p != me:
              transfer_up_to(1, p, me)
  audit:
    after: payday
    when: "round in AUDIT_ROUNDS"
    effect: game.audits += 1
flow:
  - repeat:
      until: game.round >= ROUNDS
      steps:
        - for_each:
            in: players
            as: active
            steps:
              - turn: game.active
        - do: |
            game.leader = last(rank(p for p in players by p.tokens))
            game.round += 1
            emit payday(round=game.round)
scoring:
  score: player.money
"""

PAY_AMOUNT = (
    "all(after(p.money) == before(p.money) + get(BONUS, before(level(p)), last(BONUS)) for p in players)"
)
NO_TOKENS_NO_DIVIDEND = "all(after(p.money) == before(p.money) for p in players if before(p.tokens) == 0)"
TIP_ME_ONLY = "all(after(p.money) == before(p.money) for p in players if p != me)"
FIRST_ONCE = "all(before(p.first) == 0 or after(p.first) == before(p.first) for p in players)"
AUDIT_ROUNDS = "before(game.round) in AUDIT_ROUNDS"
REST_LATER = "before(game.round) >= 1"
TOLL_KEPT = "sum(after(p.money) for p in players) == sum(before(p.money) for p in players)"
LEADER_FEWEST = (
    "after(game.leader) == before(game.leader)"
    " or all(after(game.leader.tokens) <= after(q.tokens) for q in players)"
)


@pytest.fixture(scope="module")
def payday(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, set[str]]]:
    directory = tmp_path_factory.mktemp("payday")
    (directory / "ruleset.yaml").write_text(PAYDAY, encoding="utf-8")
    mined = suggest(VerifyOptions(str(directory), examples=40, out=None))
    found: dict[str, set[str]] = {}
    for s in mined.suggestions:
        key = f"trigger:{s.trigger}" if s.trigger else s.action or f"over:{s.over}"
        found.setdefault(key, set()).add(s.holds)
    return directory, found


def _verify(
    directory: Path, tmp_path: Path, added: dict[str, object], plant: dict[str, object]
) -> str | None:
    """Verify the rules (changed by ``plant``) with ``added`` (a variant's ``extend``/``add``):
    the failing check's key, or ``None``."""
    variant = {"variant": "checked", "title": "t", "description": "d", "ruleset": "payday", **added}
    if plant:
        variant["set"] = plant
    path = tmp_path / "variant.yaml"
    path.write_text(yaml.safe_dump(variant), encoding="utf-8")
    result = verify(
        VerifyOptions(str(directory), variants=(str(path),), examples=40, out=tmp_path / "ce", workers=1)
    )
    return None if result.counterexample is None else result.counterexample.key


def _ensures(trigger: str, holds: str) -> dict[str, object]:
    return {"extend": {"triggers": {trigger: {"ensures": [{"holds": holds}]}}}}


def test_a_trigger_postcondition_is_checked_after_each_firing_and_its_counterexample_replays(
    payday: tuple[Path, dict[str, set[str]]], tmp_path: Path
) -> None:
    from rulekit.tools.scenario import run_scenario

    directory, _ = payday
    added = _ensures("pay", PAY_AMOUNT)
    assert _verify(directory, tmp_path, added, {}) is None
    wrong = (
        "for p in players:\n    transfer(get(BONUS, level(p), 10) + (1 if p.skips == 2 else 0), bank, p)\n"
    )
    assert _verify(directory, tmp_path, added, {"triggers.pay.effect": wrong}) == "property:pay.ensures[1]"
    scenarios = list((tmp_path / "ce").glob("*.yaml"))
    assert len(scenarios) == 1
    text = scenarios[0].read_text(encoding="utf-8")
    assert "pay.ensures[1]" in text
    result = run_scenario(scenarios[0])
    assert not result.passed  # on the rules as they are, with the wrong payout
    assert "trigger pay fired during action" in result.failures[0]


def test_a_trigger_postcondition_in_the_postconditions_section_is_checked(
    write_ruleset: Callable[..., Path], tmp_path: Path
) -> None:
    text = PAYDAY.replace("me.money += 1", "me.money += 2")
    text += 'postconditions:\n  tip:\n    - holds: "after(me.money) == before(me.money) + 1"\n'
    directory = write_ruleset(text)
    result = verify(VerifyOptions(str(directory), examples=10, out=tmp_path / "ce", workers=1))
    assert result.counterexample is not None and result.counterexample.key == "property:tip.ensures[1]"


def test_me_in_a_postcondition_of_an_event_trigger_is_a_located_error(
    write_ruleset: Callable[..., Path],
) -> None:
    text = PAYDAY.replace(
        "          transfer(get(BONUS, level(p), 10), bank, p)\n",
        "          transfer(get(BONUS, level(p), 10), bank, p)\n"
        '    ensures:\n      - holds: "after(me.money) >= 0"\n',
    )
    directory = write_ruleset(text)
    with pytest.raises(RulesetError) as raised:
        verify(VerifyOptions(str(directory), examples=1, out=None, workers=1))
    assert "ruleset.yaml:" in str(raised.value) and "'me'" in str(raised.value)


def test_the_trigger_relations_are_mined_per_firing(payday: tuple[Path, dict[str, set[str]]]) -> None:
    _, found = payday
    assert PAY_AMOUNT in found["trigger:pay"]
    assert NO_TOKENS_NO_DIVIDEND in found["trigger:dividend"]
    assert TIP_ME_ONLY in found["trigger:tip"]
    assert "after(me.money) == before(me.money) + 1" in found["trigger:tip"]
    assert FIRST_ONCE in found["over:action"]
    assert AUDIT_ROUNDS in found["trigger:audit"]
    # a player field set to the player with the fewest tokens, in the rule's terms
    assert LEADER_FEWEST in found["take"] and LEADER_FEWEST in found["skip"]
    # a toll every other player pays the taker: the players' money is only moved among them
    assert TOLL_KEPT in found["trigger:toll"] and TOLL_KEPT not in found["trigger:tip"]
    # an action never taken in the first round (a requirement's bound), said of it only
    assert REST_LATER in found["rest"] and REST_LATER not in found["skip"]
    # every payday fires in every round: no "fires only when" is said of it
    assert not any(" in " in h and h.startswith("before(game.round)") for h in found["trigger:pay"])
    # the dividend is no amount of a player's own values: no per-player amount is said of it
    assert not any(h.startswith("all(after(p.money) == before(p.money) +") for h in found["trigger:dividend"])


@pytest.mark.parametrize(
    ("trigger", "holds", "plant"),
    [
        (
            "pay",
            PAY_AMOUNT,
            {"triggers.pay.effect": "for p in players:\n    transfer(get(BONUS, p.tokens, 10), bank, p)\n"},
        ),
        (
            "dividend",
            NO_TOKENS_NO_DIVIDEND,
            {"triggers.dividend.effect": "for p in players:\n    p.money += DIVIDEND\n"},
        ),
        ("tip", TIP_ME_ONLY, {"triggers.tip.effect": "for p in players:\n    p.money += 1\n"}),
        (None, FIRST_ONCE, {"actions.take.effect": "me.tokens += 1\nme.first = game.round + 1\n"}),
        ("audit", AUDIT_ROUNDS, {"triggers.audit.when": "round + 1 in AUDIT_ROUNDS"}),
        ("action:rest", REST_LATER, {"actions.rest.require": []}),
        (
            "toll",
            TOLL_KEPT,
            {
                "triggers.toll.effect": "for p in players:\n"
                "    if p != me:\n        transfer_up_to(1, p, bank)\n"
            },
        ),
        (
            None,
            LEADER_FEWEST,
            {
                "flow.0.repeat.steps.1.do": "game.leader = first(rank(p for p in players by p.tokens))\n"
                "game.round += 1\nemit payday(round=game.round)\n"
            },
        ),
    ],
    ids=[
        "every-amount",
        "every-none",
        "who",
        "set-once",
        "fires-at",
        "lower-bound",
        "conserved",
        "extreme-holder",
    ],
)
def test_a_planted_wrong_payout_breaks_the_mined_trigger_relation(
    payday: tuple[Path, dict[str, set[str]]],
    tmp_path: Path,
    trigger: str | None,
    holds: str,
    plant: dict[str, object],
) -> None:
    directory, _ = payday
    if trigger is None:
        added: dict[str, object] = {"add": {"properties": {"mined": {"holds": holds}}}}
    elif trigger.startswith("action:"):  # an action's precondition
        trigger = trigger.removeprefix("action:")
        added = {"extend": {"actions": {trigger: {"ensures": [{"holds": holds}]}}}}
    else:
        added = _ensures(trigger, holds)
    assert _verify(directory, tmp_path, added, {}) is None  # the rules keep it
    key = _verify(directory, tmp_path, added, plant)
    assert key == ("property:mined" if trigger is None else f"property:{trigger}.ensures[1]")


def test_the_suggested_file_extends_the_triggers_and_loads_as_a_variant(
    payday: tuple[Path, dict[str, set[str]]], tmp_path: Path
) -> None:
    directory, _ = payday
    mined = suggest(VerifyOptions(str(directory), examples=40, out=None))
    text = mined.variant_text("payday")
    data = yaml.safe_load(text)
    assert PAY_AMOUNT in [e["holds"] for e in data["extend"]["triggers"]["pay"]["ensures"]]
    # what it says of the triggers holds (the other suggestions may be accidental)
    kept = {k: v for k, v in data.items() if k not in ("add", "extend")}
    kept["extend"] = {"triggers": data["extend"]["triggers"]}
    path = tmp_path / "suggested.yaml"
    path.write_text(yaml.safe_dump(kept), encoding="utf-8")
    result = verify(VerifyOptions(str(directory), variants=(str(path),), examples=20, out=None, workers=1))
    assert result.counterexample is None


def test_a_trigger_postcondition_leaves_the_semantic_fingerprint_as_it_was(
    write_ruleset: Callable[..., Path],
) -> None:
    from rulekit.load import load_program

    plain = load_program(str(write_ruleset(PAYDAY, name="plain")))
    text = PAYDAY.replace(
        "    effect: me.money += 1\n", '    effect: me.money += 1\n    ensures: ["after(me.money) > 0"]\n'
    )
    assert text != PAYDAY
    checked = load_program(str(write_ruleset(text, name="checked")))
    assert checked.rules.triggers["tip"].ensures
    assert checked.fingerprint != plain.fingerprint
    assert checked.semantic_fingerprint == plain.semantic_fingerprint
