"""Squares and their names.

Columns are lettered ``a``.. from left to right and rows numbered ``1``.. from top
to bottom, as the camera's default side sees the board. A square is an ``int``
``row * 8 + col`` whatever the board size, so ``a1`` is 0 and ``h8`` is 63 on every
board, and a 6x6 board simply uses the squares whose row and column are below 6.

>>> parse_square("f4")
29
>>> square_name(29)
'f4'
>>> square_name(square(col=5, row=3))
'f4'
"""

from __future__ import annotations

import re
from functools import cache

from .errors import SquareError

__all__ = [
    "MAX_SIZE",
    "Square",
    "square",
    "square_col",
    "square_row",
    "square_name",
    "parse_square",
    "squares_of",
    "square_names",
]

MAX_SIZE = 8
Square = int

_FILES = "abcdefgh"
_SQUARE_RE = re.compile(r"^([a-hA-H])([1-8])$")


def square(col: int, row: int) -> Square:
    """The square at 0-based column ``col`` and row ``row``."""
    return row * MAX_SIZE + col


def square_col(sq: Square) -> int:
    """The 0-based column of ``sq``."""
    return sq % MAX_SIZE


def square_row(sq: Square) -> int:
    """The 0-based row of ``sq``."""
    return sq // MAX_SIZE


def square_name(sq: Square) -> str:
    """The name of ``sq``, such as ``"d4"``."""
    return _FILES[sq % MAX_SIZE] + str(sq // MAX_SIZE + 1)


def parse_square(name: str, size: int = MAX_SIZE) -> Square:
    """The square named ``name`` on a ``size`` x ``size`` board.

    Raises :class:`SquareError` when the name is malformed or off the board.

    >>> parse_square("a1")
    0
    >>> parse_square("g7", size=6)
    Traceback (most recent call last):
    ...
    rolit.engine.errors.SquareError: g7 is not on a 6x6 board (a1 to f6)
    """
    match = _SQUARE_RE.match(name.strip())
    if not match:
        raise SquareError(f"{name!r} is not a square name (a column letter and a row number, like d4)")
    col = _FILES.index(match.group(1).lower())
    row = int(match.group(2)) - 1
    if col >= size or row >= size:
        last = _FILES[size - 1] + str(size)
        raise SquareError(f"{name.strip()} is not on a {size}x{size} board (a1 to {last})")
    return square(col, row)


@cache
def squares_of(size: int) -> tuple[Square, ...]:
    """Every square of a ``size`` x ``size`` board, row by row from a1."""
    return tuple(square(c, r) for r in range(size) for c in range(size))


def square_names(squares: list[Square] | tuple[Square, ...]) -> list[str]:
    """The names of ``squares``, in order."""
    return [square_name(sq) for sq in squares]
