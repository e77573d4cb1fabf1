"""Perft: the move generator against DESIGN.md's cross-checked table and an independent reference."""

from __future__ import annotations

import pytest

from rolit.engine import Position, perft, perft_counts

import reference_rules as ref

# DESIGN.md, agreed by three independent implementations (8x8, red first).
TABLE = {
    4: [3, 20, 136, 1366, 7427, 44154, 343639, 2792637, 18761513],
    3: [3, 20, 136, 630, 3956, 27778, 161368, 1163254],
    2: [3, 24, 114, 649, 3220, 22138, 118490, 915382],
}


@pytest.mark.parametrize("players", [4, 3, 2])
def test_classic_table_to_depth_6(players: int) -> None:
    assert perft_counts(Position.start("classic", players=players), 6) == TABLE[players][:6]


@pytest.mark.slow
@pytest.mark.parametrize("players", [4, 3, 2])
def test_classic_table_deep(players: int) -> None:
    start = Position.start("classic", players=players)
    for depth in range(7, len(TABLE[players]) + 1):
        assert perft(start, depth) == TABLE[players][depth - 1]


# Smaller boards: values from this engine, each confirmed by tests/reference_rules.py below.
SMALL = {
    ("quick6", 4): [3, 20, 135, 1296, 6519, 32716],
    ("quick6", 3): [3, 20, 135, 592, 3108, 17968],
    ("quick6", 2): [3, 24, 109, 515, 2438, 13872],
    ("junior", 4): [3, 20, 135, 1296, 6519, 32716],
    # The whole 4x4 game tree: 12 placements fill the board, 87,794 games.
    ("quick4", 2): [3, 17, 60, 168, 490, 1330, 4296, 10818, 27254, 54866, 87794, 87794],
}


@pytest.mark.parametrize(("variant", "players"), list(SMALL))
def test_small_boards(variant: str, players: int) -> None:
    start = Position.start(variant, players=players)
    assert perft_counts(start, len(SMALL[(variant, players)])) == SMALL[(variant, players)]


@pytest.mark.parametrize(
    ("variant", "players", "depth"),
    [("quick6", 4, 4), ("quick6", 2, 4), ("quick4", 2, 8), ("classic", 4, 4), ("classic", 2, 4)],
)
def test_matches_reference_implementation(variant: str, players: int, depth: int) -> None:
    start = Position.start(variant, players=players)
    order = [start.variant.slot(c) for c in start.turn_order()]
    expected = [ref.perft(ref.start_grid(start.size), order, 0, d) for d in range(1, depth + 1)]
    assert perft_counts(start, depth) == expected


def test_other_first_player_and_custom_order() -> None:
    from rolit.engine import BLUE, GREEN, RED, YELLOW

    # The Spanish book's order: red, blue, green, yellow. Starting elsewhere
    # changes the tree, and the reference agrees.
    for kwargs in ({"order": [RED, BLUE, GREEN, YELLOW]}, {"players": 4, "first": GREEN}, {"players": 3, "first": YELLOW}):
        start = Position.start("classic", **kwargs)  # type: ignore[arg-type]
        order = [start.variant.slot(c) for c in start.turn_order()]
        expected = [ref.perft(ref.start_grid(8), order, 0, d) for d in range(1, 5)]
        assert perft_counts(start, 4) == expected


def test_perft_restores_nothing_changed() -> None:
    start = Position.start("classic")
    before = start.bitboards
    perft(start, 3)
    assert start.bitboards == before
    assert perft(start, 0) == 1
    with pytest.raises(ValueError):
        perft(start, -1)
