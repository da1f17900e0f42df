"""The shipped games' pictures show what the issue asks for, each piece where the state has it.

El Capitan: warehouses in their owner's colour on their site, the shut-down picture, built
fortresses, ships in the harbors. El Caballero: caballero cards with their number in their
owner's colour, ships and castillos. The states are real games, changed only where a random
game rarely gets (a shut-down, a fortress), with values taken from the game itself.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from rulekit.engine.game import State
from rulekit.load import load_game
from rulekit.tools.view import Picture, Shape, draw


def _shapes(picture: Picture, layer: str, kind: str) -> list[Shape]:
    return [s for s in picture.shapes if s.layer == layer and s.kind == kind]


def _legend(picture: Picture) -> list[str]:
    """The colour of each player, as the picture's own legend (one square per player) gives it."""
    return [s.props["fill"] for s in _shapes(picture, "player_colours", "rect")]


def _inside(shape: Shape, box: Shape) -> bool:
    x, y = shape.props["x"], shape.props["y"]
    left, top = box.props["x"], box.props["y"]
    return left <= x <= left + box.props["w"] and top <= y <= top + box.props["h"]


def _random_until(state: State, done: Callable[[State], bool], seed: int, limit: int = 3000) -> State:
    rng = random.Random(seed)
    for _ in range(limit):
        if state.is_terminal() or done(state):
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def _capitan_with_a_warehouse() -> tuple[State, str, int]:
    game = load_game("el_capitan", 3)
    cities = game.owners("city")

    def built(state: State) -> bool:
        return any(w is not None for c in cities for w in state.value(c, "sites"))

    state = _random_until(game.new_initial_state(2), built, 2)
    city, site = next((c, i) for c in cities for i, w in enumerate(state.value(c, "sites")) if w is not None)
    return state, city, site


def test_el_capitan_draws_a_warehouse_on_its_site_in_its_owners_colour() -> None:
    state, city, site = _capitan_with_a_warehouse()
    picture = draw(state)
    name = next(s for s in _shapes(picture, "cities", "rect") if s.props["ref"] == city).props["title"]
    name = name.split(":")[0]
    track = [s for s in _shapes(picture, "tracks", "rect") if s.props["title"].startswith(f"{name} site ")]
    assert len(track) == 12 + 1  # 12 sites and the final space
    title = track[site].props["title"]
    assert title.startswith(f"{name} site {site + 1}: ") and ", warehouse of " in title
    assert track[site].props["fill"] in _legend(picture)
    empty = [t for i, t in enumerate(track[:12]) if state.value(city, "sites")[i] is None]
    assert all(t.props["fill"] not in _legend(picture) for t in empty)


def test_el_capitan_draws_shut_down_warehouses_fortresses_and_ships_where_the_state_has_them() -> None:
    state, city, site = _capitan_with_a_warehouse()
    warehouse = state.value(city, "sites")[site]
    other = next(c for c in state.game.owners("city") if c != city)
    before = draw(state)
    colour = next(
        s for s in _shapes(before, "tracks", "rect") if ", warehouse of " in s.props["title"]
    ).props["fill"]
    changed = state.clone()
    changed.fields[(other, "closed")] = (warehouse, warehouse)  # two of them on the city picture
    changed.fields[(other, "fortresses")] = (1, None)  # P2 built on the first fortress space
    changed.fields[(0, "ship")] = other  # P1's ship on the first harbor space
    changed.fields[(0, "berth")] = 1
    changed.fields[(0, "at_bank")] = False
    picture = draw(changed)
    assert picture.errors == ()
    legend = _legend(picture)
    box = next(s for s in _shapes(picture, "cities", "rect") if s.props["ref"] == other)
    name = box.props["title"].split(":")[0]

    closed = _shapes(picture, "shut_down", "rect") + _shapes(picture, "shut_down", "circle")
    assert len(closed) == 2 and all(_inside(s, box) and s.props["fill"] == colour for s in closed)
    assert [s.props["text"] for s in _shapes(picture, "shut_down_labels", "text")] == ["shut down"]
    assert _shapes(before, "shut_down_labels", "text") == []

    forts = [s for s in _shapes(picture, "fortresses", "rect") if s.props["title"].startswith(f"{name} ")]
    assert [s.props["fill"] == legend[1] for s in forts] == [True, False]
    assert "F" in [s.props["text"] for s in _shapes(picture, "fortresses", "text") if _inside(s, box)]

    berths = [s for s in _shapes(picture, "harbors", "circle") if s.props["title"].startswith(f"{name} ")]
    assert berths[0].props["fill"] == legend[0] and berths[1].props["fill"] not in legend
    assert "P1" in [s.props["text"] for s in _shapes(picture, "harbors", "text") if _inside(s, box)]
    offboard = [s.props["text"] for s in _shapes(picture, "offboard_ships", "text")]
    bank = [s.props["text"] for s in _shapes(picture, "bank_ships", "text")]
    assert "P1" not in offboard + bank


def test_el_caballero_draws_caballero_cards_with_their_number_owner_ships_and_castillos() -> None:
    game = load_game("el_caballero", 3)

    def cards(state: State) -> list[dict[str, object]]:
        return [r for r in state.value("game", "map").values() if r["kind"] == "caballero"]

    def rich(state: State) -> bool:
        found = cards(state)
        return any(r["ship"] for r in found) and any(r["castillo"] for r in found)

    state = _random_until(game.new_initial_state(3), rich, 3)
    assert rich(state), "a random game built no ship and castillo: pick another seed"
    picture = draw(state)
    legend = _legend(picture)
    on_map = cards(state)
    drawn = _shapes(picture, "caballero_cards", "rect")
    numbers = [s.props["text"] for s in _shapes(picture, "caballero_cards", "text")]
    assert sorted((s.props["fill"], n) for s, n in zip(drawn, numbers, strict=True)) == sorted(
        (legend[int(str(r["owner"]))], str(r["strength"])) for r in on_map
    )
    assert len(_shapes(picture, "ships", "circle")) == sum(1 for r in on_map if r["ship"])
    assert len(_shapes(picture, "castillos", "rect")) == sum(1 for r in on_map if r["castillo"])


def test_the_heading_of_a_finished_game_says_so_instead_of_naming_a_player_to_act() -> None:
    """``game_over`` is true in a view only when the state is terminal."""
    for ruleset in ("el_capitan", "el_caballero"):
        state = _random_until(load_game(ruleset, 3).new_initial_state(1), lambda s: False, 1, limit=5000)
        assert state.is_terminal()
        (heading,) = [s.props["text"] for s in _shapes(draw(state), "heading", "text")]
        assert " · game over" in heading and " to " not in heading, heading
        (during,) = [
            s.props["text"]
            for s in _shapes(draw(load_game(ruleset, 3).new_initial_state(1)), "heading", "text")
        ]
        assert "game over" not in during and "P1 " in during, during


def test_el_caballero_shades_an_island_or_sea_in_one_colour_across_its_cards() -> None:
    """Two triangles of neighbouring area cards that share an edge belong to one region (the
    cards match land to land, water to water), so they have one colour; several islands and
    several seas get several shades."""
    game = load_game("el_caballero", 3)
    for seed in (3, 4, 5):
        state = _random_until(game.new_initial_state(seed), lambda s: False, seed, limit=60)
        picture = draw(state)
        triangles = _shapes(picture, "areas", "polygon")
        by_edge: dict[frozenset[tuple[float, float]], list[str]] = {}
        for triangle in triangles:
            corners = frozenset(tuple(point) for point in triangle.props["points"][:2])
            by_edge.setdefault(corners, []).append(triangle.props["fill"])
        shared = [fills for fills in by_edge.values() if len(fills) == 2]
        assert shared, "no two area cards touch"
        assert all(a == b for a, b in shared), shared
        assert len({s.props["fill"] for s in triangles}) >= 3  # more than one green or blue


def test_el_capitan_sites_and_fortress_spaces_are_clickable_only_in_the_city_of_the_seats_ship() -> None:
    """Their ref is the site (fortress space) number, for build_warehouse (build_fortress)."""
    state = load_game("el_capitan", 3).new_initial_state(2)
    card = state.value("game", "route_display")[0]
    state.apply_action(f"buy_card({card})")
    state.apply_action(f"sail_to({card})")
    city = state.value(0, "ship")
    mine = draw(state, 0)
    refs = [s.props.get("ref") for s in _shapes(mine, "tracks", "rect")]
    assert [r for r in refs if r is not None] == [str(n) for n in range(1, 13)]
    in_city = [s for s in _shapes(mine, "tracks", "rect") if "ref" in s.props]
    assert all(s.props["title"].startswith(city.capitalize()) for s in in_city)
    assert all(s.props["action"] == "build_warehouse build_neutral" for s in in_city)
    forts = [s.props["ref"] for s in _shapes(mine, "fortresses", "rect") if "ref" in s.props]
    assert forts == ["1", "2"]
    for seat in (None, 1):  # a spectator, and a player whose ship is elsewhere
        other = draw(state, seat)
        assert all(
            "ref" not in s.props
            for s in _shapes(other, "tracks", "rect") + _shapes(other, "fortresses", "rect")
        )


def test_el_caballero_heading_names_the_player_choosing_a_power_card_in_every_round() -> None:
    """From round 2 on the last round's active player is still recorded: the heading must name
    the player who chooses now, not her."""
    game = load_game("el_caballero", players=3)
    state = game.new_initial_state(seed=3)
    rng = random.Random(1)
    rounds_seen: set[str] = set()
    while not state.is_terminal():
        if any(a.name == "play_power" for a in state.legal_actions()):
            heading = _shapes(draw(state), "heading", "text")[0].props["text"]
            assert f"P{state.current_player() + 1} chooses a power card" in heading, heading
            rounds_seen.add(heading.split(" of ")[0])
        state.apply_action(rng.choice(state.legal_actions()))
    assert len(rounds_seen) > 1  # the choice was seen in more than the first round
