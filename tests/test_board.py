"""Board text: parse, print, and every error naming its line."""

from __future__ import annotations

import pytest

from rolit.engine import GREY, RED, UNKNOWN, Board, BoardTextError, Colour, parse_boards, parse_square


def test_parse_and_print_round_trip() -> None:
    text = "........\n........\n..?.....\n...RY...\n...BG...\n........\n........\n........"
    board = Board.from_text(text)
    assert board.size == 8 and board.text() == text
    assert board[parse_square("d4")] == RED and board.cell("c3") is UNKNOWN
    assert board.unknown_squares() == [parse_square("c3")] and not board.is_complete
    assert Board.from_text(board.text()) == board and hash(Board.from_text(text)) == hash(board)


def test_several_boards_comments_and_spaces() -> None:
    text = """
    # first board
    . . . .
    . R Y .
    . B G .   # trailing comment
    . . . .

    ....
    .RY.
    # a comment inside a board does not split it
    .RG.
    .R..
    """
    boards = parse_boards(text)
    assert [b.count(RED) for b in boards] == [1, 3]
    assert parse_boards("# nothing here\n\n") == []


def test_junior_grey_letter() -> None:
    board = Board.from_text("......\n......\n..RY..\n..EG..\n......\n......")
    assert board.cell("c4") is GREY and board.colours() == {Colour.RED, Colour.YELLOW, Colour.GREEN, GREY}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("...\n...\n...", "line 1: a board has 4, 6 or 8 rows, this one has 3"),
        ("....\n.RY.\n.BG\n....", "line 3: row 3 has 3 cells"),
        ("....\n.RZ.\n.BG.\n....", "line 2: 'Z' on c2 is not a cell letter"),
        ("# header\n....\n.XO.\n.BG.\n....", "line 3: 'X' on b2 is an Othello letter"),
    ],
)
def test_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(BoardTextError) as info:
        parse_boards(text)
    assert message in str(info.value)


def test_from_text_wants_exactly_one_board() -> None:
    with pytest.raises(BoardTextError, match="expected one board, found 2"):
        Board.from_text("....\n.RY.\n.BG.\n....\n\n....\n.RY.\n.BG.\n....")
    with pytest.raises(BoardTextError, match="found 0"):
        Board.from_text("")


def test_grid_and_replace() -> None:
    grid = [[None] * 4 for _ in range(4)]
    grid[1][1] = RED
    grid[2][3] = UNKNOWN
    board = Board.from_grid(grid)
    assert board.cell("b2") == RED and board.cell("d3") is UNKNOWN and board.rows() == grid
    with pytest.raises(BoardTextError, match="every row needs"):
        Board.from_grid([[None, None, None, None]] * 3 + [[None]])
    empty = Board.empty(4)
    changed = empty.replace({parse_square("a1"): RED})
    assert changed.cell("a1") == RED and empty.cell("a1") is None
    assert changed.rows()[0] == [RED, None, None, None]
    with pytest.raises(IndexError):
        empty[parse_square("e5")]
