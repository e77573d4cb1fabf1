"""Positions: the rules of the books as worked examples, and the Position API."""

from __future__ import annotations

import pytest

from rolit.engine import (
    BLUE,
    GREEN,
    GREY,
    RED,
    YELLOW,
    Board,
    GameOverError,
    IllegalMoveError,
    Move,
    Position,
    SetupError,
    parse_square,
)

from helpers import board_with, names, position_with

# --- The start ---------------------------------------------------------------


def test_start_position_is_the_centre_clockwise_from_top_left() -> None:
    pos = Position.start("classic")
    assert pos.board_text().splitlines()[3:5] == ["...RY...", "...BG..."]
    assert [c.label for c in pos.order] == ["red", "yellow", "green", "blue"]
    assert pos.turn == RED and pos.ply == 0 and pos.balls == 4


def test_start_places_all_four_balls_whatever_the_seating() -> None:
    for players in (2, 3, 4):
        pos = Position.start("classic", players=players)
        assert pos.counts() == {RED: 1, YELLOW: 1, GREEN: 1, BLUE: 1}
    junior = Position.start("junior", players=2)
    assert junior.board_text().splitlines()[2:4] == ["..RY..", "..EG.."]
    assert junior.colour_at("c3") == RED and junior.colour_at("c4") == GREY
    assert Position.start("quick4").board_text() == "....\n.RY.\n.BG.\n...."


def test_seatings() -> None:
    assert Position.start("classic", players=2).order == (RED, GREEN)
    assert Position.start("classic", players=3).order == (RED, YELLOW, GREEN)
    assert Position.start("classic", players=4, first=GREEN).turn_order() == (GREEN, BLUE, RED, YELLOW)
    assert Position.start("classic", solo=True).order == (RED, GREEN)
    assert Position.start("junior", solo=True).order == (RED, GREY)
    spanish = Position.start("classic", order=[RED, BLUE, GREEN, YELLOW], first=BLUE)
    assert spanish.turn_order() == (BLUE, GREEN, YELLOW, RED) and spanish.turn == BLUE
    assert spanish.order == (RED, BLUE, GREEN, YELLOW)
    assert Position.start("classic", players=2).neutral == (YELLOW, BLUE)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 5}, "2, 3 or 4 players"),
        ({"players": 3, "first": BLUE}, "blue is not in play"),
        ({"order": [RED, RED]}, "only once"),
        ({"order": [RED]}, "at least two"),
        ({"order": [RED, GREY]}, "no grey"),
    ],
)
def test_bad_seatings(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(SetupError, match=message):
        Position.start("classic", **kwargs)  # type: ignore[arg-type]


def test_quick4_is_for_two() -> None:
    with pytest.raises(SetupError, match="2 players"):
        Position.start("quick4", players=4)
    with pytest.raises(SetupError, match="unknown variant"):
        Position.start("chess")


# --- Placing and capturing: the books' rules -----------------------------------


def test_first_moves_must_capture() -> None:
    pos = Position.start("classic")
    assert [m.name for m in pos.legal_moves()] == ["f4", "d6", "f6"]
    assert pos.has_capture()
    with pytest.raises(IllegalMoveError, match=r"must capture when it can.*f4 d6 f6"):
        pos.play("c3")


def test_capture_along_a_diagonal() -> None:
    pos = position_with(RED, R="c3", Y="d4", G="e5", B="e4 d5")
    assert names(pos.flips("f6")) == ["d4", "e5"]
    after = pos.play("f6")
    assert after.count(RED) == 4 and after.count(YELLOW) == 0 and after.count(GREEN) == 0


def test_capture_stops_at_the_nearest_own_ball() -> None:
    # Row 4: R Y R Y Y . -> red on f4 rolls d4 and e4, not b4 beyond the nearer red on c4.
    pos = position_with(RED, R="a4 c4", Y="b4 d4 e4", G="e5", B="d5")
    assert names(pos.flips("f4")) == ["d4", "e4"]


def test_every_trapped_line_is_rolled() -> None:
    # Red on f4 traps along the row (e4), the column (f5) and the diagonal (e5).
    pos = position_with(RED, R="d4 f6 d6", Y="e4", G="e5 f5", B="d5")
    assert names(pos.flips("f4")) == ["e4", "e5", "f5"]


def test_no_rolling_across_an_empty_square() -> None:
    # a3 R, b3 empty, c3 Y: a red ball on d3 traps nothing along row 3.
    pos = position_with(RED, R="a3 a4", Y="c3 d4 b4 c4", G="e4 e5", B="d5")
    assert pos.flips("d3") == []
    assert pos.colour_at("b3") is None


def test_no_cascades() -> None:
    # Red on f4 rolls e4; that new red e4 would trap e5 against e6, but only the
    # new ball captures, so e5 stays green.
    pos = position_with(RED, R="d4 e6", Y="e4", G="e5", B="d5")
    after = pos.play("f4")
    assert after.colour_at("e4") == RED and after.colour_at("e5") == GREEN


def test_neutral_colours_are_captured_too() -> None:
    pos = Position.start("classic", players=2)
    assert pos.neutral == (YELLOW, BLUE)
    assert names(pos.flips("f4")) == ["e4"]  # e4 is yellow, which nobody plays
    assert pos.play("f4").count(YELLOW) == 0


def test_a_colour_with_no_ball_left_may_play_any_touching_square() -> None:
    pos = position_with(YELLOW, R="d4 e4", G="e5", B="d5")
    assert pos.count(YELLOW) == 0 and not pos.has_capture()
    assert pos.capturing_moves() == []
    assert len(pos.legal_moves()) == 12  # every empty square around the 2x2 block
    after = pos.play("c3")
    assert after.count(YELLOW) == 1 and after.count(RED) == 2


def test_without_a_capture_any_touching_square_is_legal() -> None:
    pos = position_with(RED, R="d4 e4 e5 d5")  # nothing for red to trap
    assert not pos.has_capture()
    assert names([m.square for m in pos.legal_moves()]) == [
        "c3", "c4", "c5", "c6", "d3", "d6", "e3", "e6", "f3", "f4", "f5", "f6",
    ]
    with pytest.raises(IllegalMoveError, match="does not touch any ball"):
        pos.play("a1")


def test_illegal_moves_say_why() -> None:
    pos = Position.start("classic")
    with pytest.raises(IllegalMoveError, match="d4 is not empty"):
        pos.play("d4")
    with pytest.raises(IllegalMoveError, match="Red's turn, not Green's"):
        pos.play("G:f6")
    with pytest.raises(IllegalMoveError, match="not a square name"):
        pos.play("z9")
    with pytest.raises(IllegalMoveError, match="not on a 8x8 board"):
        pos.play(99)
    assert not pos.is_legal("d4") and pos.is_legal("f4")


def test_full_board_outcome_and_shared_win() -> None:
    rows = ["RRGG", "RRGG", "RRGG", "YYBB"]
    pos = Position.from_board(Board.from_text("\n".join(rows)), "quick4", turn=RED, players=2)
    outcome = pos.outcome()
    assert outcome is not None and pos.is_game_over()
    assert outcome.winners == (RED, GREEN) and outcome.shared
    assert outcome.scores == {RED: 6, YELLOW: 2, GREEN: 6, BLUE: 2}
    assert outcome.result() == "red, green"
    assert pos.legal_moves() == []
    with pytest.raises(GameOverError):
        pos.play("a1")


def test_neutral_colours_never_win() -> None:
    rows = ["YYYY", "YRYY", "YYGY", "YYYY"]
    pos = Position.from_board(Board.from_text("\n".join(rows)), "quick4", turn=RED, players=2)
    outcome = pos.outcome()
    assert outcome is not None and outcome.winners == (RED, GREEN)


# --- The Position API ----------------------------------------------------------


def test_positions_are_immutable_values() -> None:
    a = Position.start("classic")
    b = a.play("f4")
    assert a == Position.start("classic") and a.ply == 0 and b.ply == 1
    assert b == Position.start("classic").play("f4")
    assert hash(b) == hash(Position.start("classic").play(Move(RED, parse_square("f4"))))
    assert len({a, b, a.play("f4")}) == 2
    assert a != a.with_turn(YELLOW)
    assert "ply 1" in repr(b)


def test_from_board_round_trip() -> None:
    pos = Position.start("classic", players=3).play("f4").play("f3")
    again = Position.from_board(pos.board(), "classic", players=3, turn=pos.turn)
    assert again == pos
    assert str(again) == pos.board_text()


def test_from_board_refuses_impossible_boards() -> None:
    with pytest.raises(SetupError, match="d4 is empty"):
        Position.from_board(board_with(R="e4", G="e5", B="d5"), "classic", turn=RED)
    with pytest.raises(SetupError, match="a1 touch no other ball"):
        Position.from_board(board_with(R="d4 a1", Y="e4", G="e5", B="d5"), "classic", turn=RED)
    with pytest.raises(SetupError, match="unknown squares"):
        Position.from_board(Board.from_text("....\n.R?.\n.BG.\n...."), "quick4", turn=RED)
    from rolit.engine import BoardTextError

    with pytest.raises(BoardTextError, match="junior has"):
        Position.from_board(board_with(6, R="c3", Y="d3", G="d4", B="c4"), "junior", turn=RED)
    with pytest.raises(BoardTextError, match="played on 8x8"):
        Position.from_board(Board.empty(6), "classic", turn=RED)


def test_flips_of_any_colour_and_occupied_square() -> None:
    pos = Position.start("classic")
    assert names(pos.flips("G:c3")) == ["d4"]
    with pytest.raises(IllegalMoveError, match="not empty"):
        pos.flips("e5")
