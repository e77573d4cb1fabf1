"""The static evaluation: the book's square values, stable balls, the final count."""

from __future__ import annotations

import pytest

from rolit.engine import GREEN, RED, Position
from rolit.engine.evaluate import BALL, WIN, Evaluator, evaluator, terminal_value

from helpers import position_with


@pytest.mark.parametrize(("variant", "players"), [("classic", 2), ("classic", 3), ("classic", 4), ("quick6", 4),
                                                  ("junior", 3), ("quick4", 2)])
def test_start_is_level_for_everybody(variant: str, players: int) -> None:
    pos = Position.start(variant, players=players)
    ev = Evaluator.for_position(pos)
    scores = ev.scores(list(pos.bitboards))
    assert len({scores[pos.variant.slot(c)] for c in pos.order}) == 1
    assert ev.value(list(pos.bitboards), pos.variant.slot(RED)) == 0


def test_square_grades_follow_the_book() -> None:
    ev = evaluator(8, (0, 2))
    grades = {name: ev.square_class(sq) for name, sq in [("a1", 0), ("h8", 63), ("b2", 9), ("b1", 1), ("a2", 8),
                                                         ("d1", 3), ("c3", 18), ("d4", 27)]}
    assert grades == {"a1": "corner", "h8": "corner", "b2": "x", "b1": "c", "a2": "c", "d1": "edge",
                      "c3": "middle", "d4": "middle"}
    assert ev.static[ev.geom.bit[0]] > ev.static[ev.geom.bit[3]] > ev.static[ev.geom.bit[27]]
    assert ev.static[ev.geom.bit[27]] > ev.static[ev.geom.bit[1]] > ev.static[ev.geom.bit[9]]
    small = evaluator(6, (0, 1, 2, 3))
    assert small.square_class(5 * 8 + 5) == "corner" and small.square_class(4 * 8 + 4) == "x"


def test_a_corner_is_worth_more_than_the_square_beside_it() -> None:
    # Same balls except one red ball: on the a1 corner or on b2 beside it.
    corner = position_with(GREEN, players=2, R="a1 c3 d4 e5", G="b2 e4 d5")
    beside = position_with(GREEN, players=2, R="b2 c3 d4 e5", G="a1 e4 d5")
    ev = Evaluator.for_position(corner)
    assert ev.value(list(corner.bitboards), 0) > ev.value(list(beside.bitboards), 0) + 50


def test_stable_balls_run_from_own_corners_along_the_edges() -> None:
    pos = position_with(RED, players=2, R="a1 b1 c1 a2 b2 c3 d4 e5", G="d1 e4 d5 b3 a3")
    ev = Evaluator.for_position(pos)
    occupied = 0
    for b in pos.bitboards:
        occupied |= b
    stable = ev.geom.to_squares(ev.stable(pos.bitboards[0], occupied))
    assert stable == [0, 1, 2, 8]  # a1 b1 c1 a2; b2 is not on an edge
    assert ev.stable(pos.bitboards[2], occupied) == 0  # green has no corner


def test_terminal_value_is_the_lead_over_the_best_other_player() -> None:
    assert terminal_value([0b1111, 0b11, 0b111, 0], (0, 1, 2), 0) == WIN + 1 * BALL
    assert terminal_value([0b1111, 0b11, 0b111, 0], (0, 1, 2), 1) == -WIN - 2 * BALL
    assert terminal_value([0b11, 0b11, 0, 0b1111], (0, 1), 0) == 0  # neutral blue does not count
