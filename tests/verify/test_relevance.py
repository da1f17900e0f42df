"""What a failed check reads and which actions write it: the targeted search of shrinking."""

from __future__ import annotations

import time
from pathlib import Path

from rulekit.load import load_program
from rulekit.tools.verify.checker import Checker
from rulekit.tools.verify.failures import PropertyFailure
from rulekit.tools.verify.options import Stats
from rulekit.tools.verify.relevance import condition_of, names_read, progress, writers
from rulekit.tools.verify.search import TargetedSearch
from rulekit.tools.verify.shrink import Shrinker, play_sequence

TALLY = """
ruleset: tally
players: {min: 1, max: 2}
state:
  game:
    n: {type: int}
    marks: {type: int}
    who: {type: player, initial: "player_at(1)"}
actions:
  step:
    effect: game.n += 1
  mark:
    effect: game.marks += 1
flow:
  - repeat:
      until: game.n >= 200
      steps:
        - for_each:
            in: players
            as: who
            steps:
              - turn: game.who
invariants:
  few_marks:
    holds: game.marks < 3
    message: at most two marks
properties:
  n_counts_up:
    holds: after.game.n >= before.game.n
    message: the counter never goes back
"""


def _program(tmp_path: Path):  # type: ignore[no-untyped-def]
    (tmp_path / "ruleset.yaml").write_text(TALLY, encoding="utf-8")
    return load_program(str(tmp_path))


def test_names_read_follow_the_condition_of_invariants_and_properties(tmp_path: Path) -> None:
    rules = _program(tmp_path).rules
    assert "marks" in names_read(rules, "invariant:few_marks")
    assert "n" not in names_read(rules, "invariant:few_marks")
    assert "n" in names_read(rules, "property:n_counts_up")
    assert condition_of(rules, "engine:replay") is None
    assert names_read(rules, "engine:replay") == frozenset()


def test_names_read_follow_the_rules_functions_called() -> None:
    rules = load_program("el_caballero").rules
    # courts_within_capacity calls capacity(p), whose body reads the stock of caballero cards
    assert {"court", "stock"} <= names_read(rules, "invariant:courts_within_capacity")


def _long_failure(program, checker: Checker) -> PropertyFailure:  # type: ignore[no-untyped-def]
    texts = ["step"] * 40 + ["mark"] + ["step"] * 40 + ["mark"] + ["step"] * 40 + ["mark"]
    try:
        play_sequence(checker, 1, 7, texts)
    except PropertyFailure as failure:
        return failure
    raise AssertionError("the sequence should fail")


def test_writers_are_the_action_kinds_that_changed_what_the_check_reads(tmp_path: Path) -> None:
    program = _program(tmp_path)
    checker = Checker(program, Stats(), focus="invariant:few_marks")
    failure = _long_failure(program, checker)
    assert writers(checker, failure, names_read(program.rules, failure.key)) == {"mark"}


def test_a_long_counterexample_is_shrunk_to_the_relevant_actions(tmp_path: Path) -> None:
    program = _program(tmp_path)
    checker = Checker(program, Stats(), focus="invariant:few_marks")
    failure = _long_failure(program, checker)
    assert len(failure.history) == 123
    shrinker = Shrinker(checker, 30.0, 1)
    best = shrinker.shrink(failure)
    assert [text for _, text in best.history] == ["mark", "mark", "mark"]
    assert shrinker.minimal


def test_the_targeted_search_goes_for_the_kinds_that_led_to_the_failure(tmp_path: Path) -> None:
    program = _program(tmp_path)
    checker = Checker(program, Stats(), focus="invariant:few_marks")
    failure = _long_failure(program, checker)
    reads = names_read(program.rules, failure.key)
    gains = progress(checker, failure, reads)
    assert gains == {"mark": 3.0}  # each mark took game.marks one closer to its failing value
    found: list[int] = []
    search = TargetedSearch(
        checker, failure.key, 1, 1, gains, reads, on_better=lambda f: found.append(len(f.history))
    )
    best = search.run(failure, time.perf_counter() + 30.0, patience=200)
    assert found and found == sorted(found, reverse=True)
    assert len(best.history) < 10  # with 'mark' preferred, three marks come within a few actions


CHARGER = """
ruleset: charger
players: {min: 1, max: 1}
state:
  game:
    n: {type: int}
    energy: {type: int}
    sparks: {type: int}
    who: {type: player, initial: "player_at(1)"}
events:
  moved: {}
actions:
  step:
    effect: |
      game.n += 1
      emit moved()
    ends_turn: true
  charge:
    effect: |
      game.n += 1
      game.energy += 1
      emit moved()
    ends_turn: true
triggers:
  spark:
    after: moved
    when: game.energy >= 50
    effect: game.sparks += 1
flow:
  - repeat:
      until: game.n >= 40
      steps:
        - turn: game.who
"""


def test_exploration_prefers_the_kinds_that_write_what_a_never_true_condition_reads(tmp_path: Path) -> None:
    from rulekit.tools.verify import VerifyOptions
    from rulekit.tools.verify.coverage import Coverage
    from rulekit.tools.verify.explore import Explorer

    (tmp_path / "ruleset.yaml").write_text(CHARGER, encoding="utf-8")
    program = load_program(str(tmp_path))
    coverage = Coverage(program)
    checker = Checker(coverage.instrument(), Stats())
    checker.fired, checker.branch = coverage.fire, coverage.branch
    explorer = Explorer(VerifyOptions(str(tmp_path), out=None), checker, [1], coverage)
    assert explorer.run(range(3)) is None
    assert explorer.writes["charge"] >= {"energy", "n"} and "energy" not in explorer.writes["step"]
    # 'when: game.energy >= 50' was never true: charging feeds it, stepping does not
    assert explorer._feeders() == {"charge"}


def test_the_targeted_search_prefers_instances_that_alias_what_the_actor_holds() -> None:
    import random

    from rulekit.engine.game import Action
    from rulekit.tools.verify.search import pick

    legal = [Action("move", (n,)) for n in range(1, 21)] + [Action("stop", ())]
    rng = random.Random(0)
    moves = [pick(rng, legal, {}, 1.0) for _ in range(2000)]
    aliased = [pick(rng, legal, {}, 1.0, held=frozenset({7})) for _ in range(2000)]
    share = lambda draws: sum(a.args == (7,) for a in draws) / len(draws)  # noqa: E731
    assert share(moves) < 0.05  # a kind first (1/2), then one of 20 instances
    assert share(aliased) > 0.07  # the instance aliasing a held value: four times as likely (4/23)


def test_the_flow_gates_are_what_the_flows_own_conditions_read(tmp_path: Path) -> None:
    from rulekit.tools.verify.relevance import flow_gates

    gates = flow_gates(_program(tmp_path).rules)
    assert "n" in gates  # the repeat's until: game.n >= 200 decides when the game ends
    assert "marks" not in gates


def test_a_swarm_factor_makes_a_kind_likelier_or_rarer_in_the_targeted_search() -> None:
    import random

    from rulekit.engine.game import Action
    from rulekit.tools.verify.search import pick

    legal = [Action("step", ()), Action("mark", ())]
    rng = random.Random(0)
    plain = [pick(rng, legal, {}, 1.0).name for _ in range(2000)]
    swarmed = [pick(rng, legal, {}, 1.0, swarm={"step": 5.0, "mark": 0.2}).name for _ in range(2000)]
    assert 0.4 < plain.count("mark") / 2000 < 0.6
    assert swarmed.count("mark") / 2000 < 0.1  # 0.2 / 5.2


def test_an_extreme_instance_is_the_smallest_or_largest_value_of_one_whole_number_argument() -> None:
    from rulekit.engine.game import Action
    from rulekit.tools.verify.search import extreme

    legal = [Action("add", ((x, 0), side, n)) for x in range(2) for side in range(4) for n in range(1, 9)]
    # two whole-number arguments (the cell is a pair): side least/most, strength least/most, or none
    assert {a.args[1] for a in extreme(legal, 0.0)} == {0}
    assert {a.args[1] for a in extreme(legal, 0.3)} == {3}
    assert {a.args[2] for a in extreme(legal, 0.5)} == {1}
    assert {a.args[2] for a in extreme(legal, 0.7)} == {8}
    assert extreme(legal, 0.9) == []
    assert extreme([Action("flag", (True,)), Action("flag", (False,))], 0.0) == []


def test_the_targeted_search_prefers_the_extreme_instance_a_kind_drew() -> None:
    import random

    from rulekit.engine.game import Action
    from rulekit.tools.verify.search import pick

    legal = [Action("supply", (n,)) for n in range(1, 8)]
    rng = random.Random(0)
    plain = [pick(rng, legal, {}, 1.0).args[0] for _ in range(2000)]
    most = [pick(rng, legal, {}, 1.0, extremes={"supply": 0.5}).args[0] for _ in range(2000)]
    assert plain.count(7) / 2000 < 0.2  # one of seven
    assert most.count(7) / 2000 > 0.85  # eight times as likely as the others together, and 1/7 of the rest
