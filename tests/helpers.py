"""Small builders for test positions."""

from __future__ import annotations

from rolit.engine import Board, Colour, Position, parse_square


def board_with(size: int = 8, **balls: str) -> Board:
    """A board from colour letters to square lists: ``board_with(R="a1 b2", G="c3")``."""
    cells: dict[int, Colour | None] = {}
    for letter, names in balls.items():
        for name in names.split():
            cells[parse_square(name, size)] = Colour.from_letter(letter)
    return Board.empty(size).replace(cells)  # type: ignore[arg-type]


def position_with(turn: Colour, size: int = 8, variant: str | None = None, players: int = 4, **balls: str) -> Position:
    """A position with the given balls and ``turn`` to move."""
    v = variant or {8: "classic", 6: "quick6", 4: "quick4"}[size]
    return Position.from_board(board_with(size, **balls), v, turn=turn, players=players)


def names(squares: list[int]) -> list[str]:
    from rolit.engine import square_name

    return sorted(square_name(s) for s in squares)


# Positions the search tests share: a corner to take on 8x8, a forced win on 4x4,
# and a corner two players fight over.
CORNER = """
........
.G......
..R.....
...RY...
...BG...
........
........
........
"""

FORCED_WIN = """
.GGG
.GRR
GGRR
.R.R
"""

CONTESTED_CORNER = """
........
GR......
R.G.....
...RY...
...BG...
........
........
........
"""


def make_client(app):  # type: ignore[no-untyped-def]
    """A Flask test client of a table-page ``app`` that acts like the page: it sends the CSRF token."""
    client = app.test_client()
    token = app.config.get("CSRF_TOKEN")
    if token:
        client.environ_base["HTTP_X_CSRF_TOKEN"] = token
    return client
