"""The referee: a scenario per event type, unknown cells, who starts, live play."""

from __future__ import annotations

import pytest

from rolit.engine import (
    BLUE,
    GREEN,
    RED,
    UNKNOWN,
    YELLOW,
    Board,
    Event,
    Position,
    Referee,
    SetupError,
    parse_square,
)

from helpers import board_with


def sq(name: str) -> int:
    return parse_square(name)


def after(*moves: str, players: int = 4) -> Position:
    pos = Position.start("classic", players=players)
    for m in moves:
        pos = pos.play(m)
    return pos


def types(events: list[Event]) -> list[str]:
    return [e.type for e in events]


def play_through(ref: Referee, *moves: str) -> None:
    """Show the referee the board after each move, as a table would."""
    for i in range(1, len(moves) + 1):
        assert types(ref.observe(after(*moves[:i]).board())) == ["move"]


def test_move() -> None:
    ref = Referee("classic", players=4, first=RED)
    assert ref.observe(Position.start("classic").board()) == []  # the start: nothing to say
    (event,) = ref.observe(after("f4").board())
    assert event.to_json() == {
        "type": "move", "move_number": 1, "message": "Red plays f4 and rolls e4.",
        "player": "red", "square": "f4", "flipped": ["e4"],
    }
    (event,) = ref.observe(after("f4", "f3").board())
    assert event.message == "Yellow plays f3." and event["flipped"] == []
    assert ref.game.ply == 2 and ref.turn == GREEN and ref.state == "synced"


def test_the_same_board_again_says_nothing() -> None:
    ref = Referee("classic", first=RED)
    board = after("f4").board()
    assert types(ref.observe(board)) == ["move"]
    assert ref.observe(board) == []


def test_missed_capture_then_taken_back() -> None:
    ref = Referee("classic", first=RED)
    play_through(ref, "f4", "f3")
    wrong = after("f4", "f3").board().replace({sq("d6"): GREEN})
    (event,) = ref.observe(wrong)
    assert event.type == "missed_capture" and event.move_number == 3
    assert event["capturing_moves"] == ["c3", "e3", "g3", "c5"] and event["square"] == "d6"
    assert event.message == "Green must capture when it can: take the ball on d6 back and play c3, e3, g3 or c5."
    assert ref.game.ply == 2  # nothing recorded
    (fixed,) = ref.observe(after("f4", "f3").board())
    assert fixed.type == "board_fixed" and fixed.message == "The board is right again: it is Green's turn."
    assert types(ref.observe(after("f4", "f3", "c3").board())) == ["move"]


def test_missed_capture_corrected_by_moving_the_ball() -> None:
    ref = Referee("classic", first=RED)
    play_through(ref, "f4", "f3")
    ref.observe(after("f4", "f3").board().replace({sq("d6"): GREEN}))
    # The player lifts the ball straight to e3 and rolls e4: a good move.
    (event,) = ref.observe(after("f4", "f3", "e3").board())
    assert event.type == "move" and event["square"] == "e3"


def test_wrong_flips_missing_diagonal() -> None:
    ref = Referee("classic", first=RED)
    play_through(ref, "f4", "f3")
    (event,) = ref.observe(after("f4", "f3").board().replace({sq("c3"): GREEN}))
    assert event.type == "wrong_flips" and event["missing"] == ["d4"] and event["extra"] == []
    assert event.message == "Roll d4 to green too: it is trapped on the diagonal between c3 and e5."
    assert ref.game.ply == 3 and ref.state == "fixing"  # the move stands; the board must be fixed
    (fixed,) = ref.observe(after("f4", "f3", "c3").board())
    assert fixed.type == "board_fixed" and "Blue's turn" in fixed.message


def test_wrong_flips_keeps_saying_what_to_fix() -> None:
    # Red on f4 traps e4 (row), e5 (diagonal) and f5 (column).
    start = Position.from_board(board_with(R="d4 f6 d6", Y="e4", G="e5 f5", B="d5"), "classic", turn=RED)
    ref = Referee(start=start)
    right = start.play("f4").board()
    only_row = right.replace({sq("e5"): GREEN, sq("f5"): GREEN})
    (event,) = ref.observe(only_row)
    assert event["missing"] == ["e5", "f5"]
    assert event["reasons"]["e5"] == "It is trapped on the diagonal between f4 and d6, and every trapped line is rolled."
    assert event["reasons"]["f5"] == "It is trapped on the column between f4 and f6, and every trapped line is rolled."
    assert event.message == (
        "Roll e5 to red too: it is trapped on the diagonal between f4 and d6; "
        "roll f5 to red too: it is trapped on the column between f4 and f6."
    )
    (again,) = ref.observe(right.replace({sq("f5"): GREEN}))
    assert again.type == "wrong_flips" and again["missing"] == ["f5"]
    everything_forgotten = start.play("f4").board().replace({sq("e4"): YELLOW, sq("e5"): GREEN, sq("f5"): GREEN})
    (third,) = ref.observe(everything_forgotten)
    assert third["reasons"]["e4"] == "It is trapped on the row between f4 and d4."
    assert types(ref.observe(right)) == ["board_fixed"]


def test_one_of_several_lines_forgotten() -> None:
    start = Position.from_board(board_with(R="d4 f6 d6", Y="e4", G="e5 f5", B="d5"), "classic", turn=RED)
    ref = Referee(start=start)
    (event,) = ref.observe(start.play("f4").board().replace({sq("f5"): GREEN}))
    assert event["reasons"]["f5"] == "It is trapped on the column between f4 and f6, and every trapped line is rolled."


def test_extra_rolls_with_the_books_reasons() -> None:
    # Row 4: a4 R, b4 Y, c4 R, d4 Y, e4 Y; red on f4 rolls d4 and e4 only.
    start = Position.from_board(board_with(R="a4 c4 a6", Y="b4 d4 e4 b5", G="e5 c5", B="d5"), "classic", turn=RED)
    ref = Referee(start=start)
    assert start.flips("f4") == [sq("d4"), sq("e4")]
    wrong = start.play("f4").board().replace({sq("b4"): RED, sq("c5"): RED, sq("e5"): RED})
    (event,) = ref.observe(wrong)
    assert event["missing"] == [] and event["extra"] == ["b4", "c5", "e5"]
    assert event["reasons"] == {
        "b4": "The red ball on c4 closes the line first, so b4 is beyond it.",  # rolled past the nearest own ball
        "c5": "It is not on a straight line from f4, so the ball on f4 cannot trap it.",
        "e5": "No red ball closes the line behind it.",  # nothing traps it
    }
    assert event.message.startswith("Roll b4 back to yellow: the red ball on c4 closes the line first")
    assert "roll e5 back to green: no red ball closes the line behind it." in event.message


def test_extra_roll_across_an_empty_square() -> None:
    # From f4 up-left: e3 Y, d2 empty, c1 Y. Red on f4 rolls e4 only; c1 is beyond the gap.
    start = Position.from_board(board_with(R="d4", Y="e4 e3 d3 c2 c1", G="e5", B="d5"), "classic", turn=RED)
    assert start.flips("f4") == [sq("e4")]
    ref = Referee(start=start)
    (event,) = ref.observe(start.play("f4").board().replace({sq("c1"): RED}))
    assert event["extra"] == ["c1"]
    assert event["reasons"]["c1"] == "The empty square d2 breaks the line between f4 and c1."


def test_own_ball_rolled_away() -> None:
    start = Position.from_board(board_with(R="a4 c4 a6", Y="b4 d4 e4 b5", G="e5 c5", B="d5"), "classic", turn=RED)
    ref = Referee(start=start)
    (event,) = ref.observe(start.play("f4").board().replace({sq("a4"): YELLOW}))
    assert event["reasons"]["a4"] == "It is red already and stays red."


def test_out_of_turn() -> None:
    ref = Referee("classic", first=RED)
    ref.observe(after("f4").board())
    (event,) = ref.observe(after("f4").board().replace({sq("c3"): GREEN}))
    assert event.to_json() == {
        "type": "out_of_turn", "move_number": 2,
        "message": "It is Yellow's turn, not Green's: take the green ball on c3 back.",
        "player": "yellow", "placed": "green", "square": "c3",
    }
    assert types(ref.observe(after("f4").board())) == ["board_fixed"]


def test_out_of_turn_with_a_neutral_colour() -> None:
    ref = Referee("classic", players=2, first=RED)
    (event,) = ref.observe(Position.start("classic", players=2).board().replace({sq("f4"): YELLOW}))
    assert event.type == "out_of_turn" and "nobody plays yellow" in event.message


def test_not_adjacent() -> None:
    ref = Referee("classic", first=RED)
    ref.observe(after("f4").board())
    (event,) = ref.observe(after("f4").board().replace({sq("a8"): YELLOW}))
    assert event.type == "not_adjacent" and event["square"] == "a8" and event["player"] == "yellow"
    assert event.message == "A ball must touch another ball: take the yellow ball on a8 back."


def test_several_balls() -> None:
    ref = Referee("classic", first=RED)
    (event,) = ref.observe(after().board().replace({sq("f4"): RED, sq("c3"): RED}))
    assert event.type == "several_balls" and event["squares"] == ["c3", "f4"]
    assert ref.game.ply == 0


def test_ball_removed() -> None:
    ref = Referee("classic", first=RED)
    ref.observe(after("f4").board())
    (event,) = ref.observe(after("f4").board().replace({sq("d5"): None}))
    assert event.to_json() == {
        "type": "ball_removed", "move_number": 2,
        "message": "A ball has gone from d5: put the blue ball back.", "squares": ["d5"],
    }
    assert types(ref.observe(after("f4").board())) == ["board_fixed"]


def test_takeback_rewinds_history() -> None:
    ref = Referee("classic", first=RED)
    play_through(ref, "f4", "f3")
    (event,) = ref.observe(after("f4").board())
    assert event.to_json() == {
        "type": "takeback", "move_number": 2,
        "message": "Yellow took back the ball on f3: it is Yellow's turn again.",
        "square": "f3", "player": "yellow",
    }
    assert ref.game.ply == 1 and ref.turn == YELLOW
    assert types(ref.observe(after("f4", "e3").board())) == ["move"]


def test_takeback_of_a_wrongly_rolled_move() -> None:
    ref = Referee("classic", first=RED)
    play_through(ref, "f4", "f3")
    ref.observe(after("f4", "f3").board().replace({sq("c3"): GREEN}))  # wrong flips
    (event,) = ref.observe(after("f4", "f3").board())
    assert event.type == "takeback" and ref.game.ply == 2 and ref.state == "synced"


def test_game_over() -> None:
    rows = ["RRGG", "RRGG", "RRGG", "YYB."]
    start = Position.from_board(Board.from_text("\n".join(rows)), "quick4", turn=GREEN, players=2)
    ref = Referee(start=start)
    final = start.play("d4").board()
    events = ref.observe(final)
    assert types(events) == ["move", "game_over"]
    over = events[1]
    assert over["winners"] == ["green"] and over["scores"] == {"red": 6, "yellow": 2, "green": 7, "blue": 1}
    assert over.message == "The board is full: Green wins with 7 balls."
    assert ref.observe(Board.empty(4)) == []  # clearing the board after the game says nothing


def test_shared_win_message() -> None:
    rows = ["RRGG", "RRGG", "RRGG", "YY.B"]
    start = Position.from_board(Board.from_text("\n".join(rows)), "quick4", turn=GREEN, players=2)
    ref = Referee(start=start)
    move = start.legal_moves()[0]
    end = start.play(move)
    outcome = end.outcome()
    assert outcome is not None
    events = ref.observe(end.board())
    assert events[-1]["winners"] == [c.label for c in outcome.winners]


def test_first_ball_decides_who_starts() -> None:
    ref = Referee("classic", players=4)
    assert ref.turn is None
    start = Position.start("classic")
    green_first = start.with_turn(GREEN).play("c3")
    (event,) = ref.observe(green_first.board())
    assert event.type == "move" and event["player"] == "green"
    assert ref.turn == BLUE and ref.game.order == (GREEN, BLUE, RED, YELLOW)
    # A takeback to the start makes it open again.
    assert types(ref.observe(start.board())) == ["takeback"] and ref.turn is None
    assert types(ref.observe(start.play("f4").board())) == ["move"] and ref.turn == YELLOW


def test_first_ball_of_a_colour_nobody_plays() -> None:
    ref = Referee("classic", players=2)
    (event,) = ref.observe(Position.start("classic", players=2).board().replace({sq("c6"): BLUE}))
    assert event.type == "out_of_turn" and event["player"] is None and "nobody plays blue" in event.message.lower()


def test_unknown_cells_never_decide_alone() -> None:
    ref = Referee("classic", first=RED)
    right = after("f4").board()
    hand = right.replace({sq("e4"): UNKNOWN, sq("e3"): UNKNOWN})  # the roll is hidden
    assert ref.observe(hand) == [] and ref.game.ply == 0
    only_hand = after().board().replace({sq(n): UNKNOWN for n in ("a1", "b1", "a2", "b2")})
    assert Referee("classic", first=RED).observe(only_hand) == []
    assert types(ref.observe(right)) == ["move"]
    # A far-away hidden cell does not stop a move whose cells are all seen.
    ref2 = Referee("classic", first=RED)
    far = right.replace({sq("a8"): UNKNOWN})
    assert types(ref2.observe(far)) == ["move"]


def test_impossible_board_is_refused_loudly() -> None:
    ref = Referee("classic", first=RED)
    with pytest.raises(SetupError, match="8x8"):
        ref.observe(Board.empty(6))
    from rolit.engine import BoardTextError

    with pytest.raises(BoardTextError, match="grey"):
        ref.observe(after().board().replace({sq("f4"): Position.start("junior").colour_at("c4")}))


def test_recoloured_ball_without_a_new_ball() -> None:
    ref = Referee("classic", first=RED)
    ref.observe(after("f4").board())
    (event,) = ref.observe(after("f4").board().replace({sq("e5"): RED}))
    assert event.type == "wrong_flips" and event["extra"] == ["e5"] and event["player"] == "red"
    (start_event,) = Referee("classic", first=RED).observe(after().board().replace({sq("e5"): RED}))
    assert start_event.type == "wrong_flips" and start_event["extra"] == ["e5"]


# --- Live play: rolls in progress --------------------------------------------------


def _three_line_start() -> Position:
    return Position.from_board(board_with(R="d4 f6 d6", Y="e4", G="e5 f5", B="d5"), "classic", turn=RED)


def test_live_rolls_in_progress_then_done() -> None:
    start = _three_line_start()
    ref = Referee(start=start, grace=3.0)
    right = start.play("f4").board()
    placed = right.replace({sq("e4"): YELLOW, sq("e5"): GREEN, sq("f5"): GREEN})
    assert ref.observe(placed, now=0.0) == []
    assert ref.pending is not None and ref.pending.to_json()["to_roll"] == ["e4", "e5", "f5"]
    assert ref.observe(placed.replace({sq("e4"): RED}), now=1.0) == []
    assert ref.pending is not None and ref.pending.to_json()["to_roll"] == ["e5", "f5"]
    assert types(ref.observe(right, now=2.0)) == ["move"] and ref.pending is None


def test_live_rolls_stalled_past_the_grace_time() -> None:
    start = _three_line_start()
    ref = Referee(start=start, grace=3.0)
    partial = start.play("f4").board().replace({sq("f5"): GREEN})
    assert ref.observe(partial, now=10.0) == []
    assert ref.tick(12.0) == []
    (event,) = ref.tick(13.5)
    assert event.type == "wrong_flips" and event["missing"] == ["f5"] and ref.game.ply == 1


def test_live_next_ball_ends_the_rolls() -> None:
    start = _three_line_start()
    ref = Referee(start=start, grace=30.0)
    partial = start.play("f4").board().replace({sq("f5"): GREEN})
    ref.observe(partial, now=0.0)
    with_next = partial.replace({sq("g7"): YELLOW})
    (event,) = ref.observe(with_next, now=1.0)
    assert event.type == "wrong_flips" and event["missing"] == ["f5"]
    # Once f5 is rolled, the yellow ball is judged as the next move.
    events = ref.observe(with_next.replace({sq("f5"): RED}), now=2.0)
    assert types(events)[0] == "board_fixed" and len(events) == 2


def test_live_extra_roll_is_flagged_at_once() -> None:
    start = _three_line_start()
    ref = Referee(start=start, grace=30.0)
    wrong = start.play("f4").board().replace({sq("d5"): RED, sq("f5"): GREEN})
    (event,) = ref.observe(wrong, now=0.0)
    assert event.type == "wrong_flips" and event["extra"] == ["d5"]


def test_new_ball_turned_to_another_colour() -> None:
    ref = Referee("classic", first=RED)
    play_through(ref, "f4")
    (event,) = ref.observe(after("f4").board().replace({sq("f4"): BLUE}))
    assert event.type == "wrong_flips" and event["extra"] == ["f4"]
    assert event.message == "Turn the ball on f4 back to red: it is Red's new ball."


def test_hidden_empty_square_may_explain_colour_changes() -> None:
    ref = Referee("classic", first=RED)
    # e4 rolled to red, but f4 (where the red ball went) is under a hand: wait.
    hidden = after("f4").board().replace({sq("f4"): UNKNOWN})
    assert ref.observe(hidden) == []
    assert types(ref.observe(after("f4").board())) == ["move"]


def test_takeback_after_the_last_move() -> None:
    rows = ["RRGG", "RRGG", "RRGG", "YYB."]
    start = Position.from_board(Board.from_text("\n".join(rows)), "quick4", turn=GREEN, players=2)
    ref = Referee(start=start)
    assert types(ref.observe(start.play("d4").board())) == ["move", "game_over"]
    assert types(ref.observe(start.board())) == ["takeback"]
    assert types(ref.observe(start.play("d4").board())) == ["move", "game_over"]


def test_balls_to_fix_must_be_seen_before_the_board_counts_as_fixed() -> None:
    ref = Referee("classic", first=RED)
    play_through(ref, "f4", "f3")
    ref.observe(after("f4", "f3").board().replace({sq("c3"): GREEN}))  # d4 not rolled
    hidden = after("f4", "f3", "c3").board().replace({sq("d4"): UNKNOWN, sq("c4"): UNKNOWN})
    assert ref.observe(hidden) == [] and ref.state == "fixing"
    assert types(ref.observe(after("f4", "f3", "c3").board())) == ["board_fixed"]
