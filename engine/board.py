r"""Board grids and board text.

A :class:`Board` is what is on each square: a :class:`Colour`, ``None`` for an
empty square, or :data:`UNKNOWN` for a square that could not be seen (only in
observations). Board text has one line per row, top row first: ``.`` empty,
``?`` unknown, ``R Y G B`` for the classic colours and ``E`` for Junior's grey.
Blank lines separate boards in a file and ``#`` starts a comment.

>>> board = Board.from_text("....\n.RY.\n.BG.\n....")
>>> board.size, board[parse_square("b2")]
(4, <Colour.RED: 0>)
>>> board.text().splitlines()
['....', '.RY.', '.BG.', '....']
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Sequence

from .colours import Colour
from .errors import BoardTextError
from .squares import Square, parse_square, square, square_name, squares_of
from .variants import Variant

__all__ = ["Board", "Cell", "UNKNOWN", "Unknown", "parse_boards", "parse_board"]


class Unknown(enum.Enum):
    """The type of :data:`UNKNOWN`."""

    UNKNOWN = "?"

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = Unknown.UNKNOWN
Cell = Colour | None | Unknown

_SIZES = (4, 6, 8)
_OTHELLO_LETTERS = "XO"


def cell_letter(cell: Cell) -> str:
    """The board-text letter of a cell."""
    if cell is None:
        return "."
    if cell is UNKNOWN:
        return "?"
    assert isinstance(cell, Colour)
    return cell.letter


class Board:
    """An immutable n x n grid of cells, indexed by square.

    Squares use the engine's numbering (``row * 8 + col``), so ``board[sq]``
    works on every size.
    """

    __slots__ = ("_cells", "_hash", "size")

    def __init__(self, size: int, cells: Iterable[Cell]) -> None:
        if size not in _SIZES:
            raise BoardTextError(f"a board is 4x4, 6x6 or 8x8, not {size}x{size}")
        cell_tuple = tuple(cells)
        if len(cell_tuple) != size * size:
            raise BoardTextError(f"a {size}x{size} board has {size * size} cells, not {len(cell_tuple)}")
        self.size = size
        self._cells = cell_tuple
        self._hash = hash((size, cell_tuple))

    # Construction -----------------------------------------------------------

    @classmethod
    def empty(cls, size: int) -> Board:
        """A board with every square empty."""
        return cls(size, [None] * (size * size))

    @classmethod
    def from_rows(cls, rows: Sequence[str], first_line: int | None = None) -> Board:
        """A board from rows of board text (top row first).

        ``first_line`` is the 1-based line number of the first row in a file,
        used in error messages.
        """
        size = len(rows)

        def where(i: int) -> int | None:
            return None if first_line is None else first_line + i

        if size not in _SIZES:
            raise BoardTextError(
                f"a board has 4, 6 or 8 rows, this one has {size}", first_line
            )
        cells: list[Cell] = []
        for i, row in enumerate(rows):
            text = "".join(row.split())  # Spaces between letters are allowed.
            if len(text) != size:
                raise BoardTextError(
                    f"row {i + 1} has {len(text)} cells but the board has {size} rows; "
                    "every row needs one cell per column",
                    where(i),
                )
            for j, ch in enumerate(text):
                cells.append(_parse_cell(ch, where(i), square_name(square(j, i))))
        return cls(size, cells)

    @classmethod
    def from_text(cls, text: str) -> Board:
        """The one board in ``text``; an error if there are none or several."""
        boards = parse_boards(text)
        if len(boards) != 1:
            raise BoardTextError(f"expected one board, found {len(boards)}")
        return boards[0]

    @classmethod
    def from_grid(cls, grid: Sequence[Sequence[Cell]]) -> Board:
        """A board from a list of rows of cells (top row first)."""
        size = len(grid)
        cells: list[Cell] = []
        for row in grid:
            if len(row) != size:
                raise BoardTextError(f"every row needs {size} cells, one row has {len(row)}")
            cells.extend(row)
        return cls(size, cells)

    # Access -------------------------------------------------------------------

    def _index(self, sq: Square) -> int:
        row, col = divmod(sq, 8)
        if not (0 <= row < self.size and 0 <= col < self.size):
            raise IndexError(f"square {sq} is not on a {self.size}x{self.size} board")
        return row * self.size + col

    def __getitem__(self, sq: Square) -> Cell:
        return self._cells[self._index(sq)]

    def cell(self, name: str) -> Cell:
        """The cell on the square called ``name`` (``"d4"``)."""
        return self[parse_square(name, self.size)]

    def replace(self, changes: dict[Square, Cell]) -> Board:
        """A copy with some cells changed."""
        cells = list(self._cells)
        for sq, cell in changes.items():
            cells[self._index(sq)] = cell
        return Board(self.size, cells)

    @property
    def squares(self) -> tuple[Square, ...]:
        """Every square of the board, in row order."""
        return squares_of(self.size)

    def items(self) -> Iterator[tuple[Square, Cell]]:
        """``(square, cell)`` pairs, in row order."""
        return zip(squares_of(self.size), self._cells, strict=True)

    def rows(self) -> list[list[Cell]]:
        """The cells as a list of rows, top row first."""
        n = self.size
        return [list(self._cells[r * n : (r + 1) * n]) for r in range(n)]

    def unknown_squares(self) -> list[Square]:
        """The squares that could not be seen."""
        return [sq for sq, cell in self.items() if cell is UNKNOWN]

    @property
    def is_complete(self) -> bool:
        """True when no cell is unknown."""
        return UNKNOWN not in self._cells

    def count(self, colour: Colour) -> int:
        """How many balls of ``colour`` are on the board."""
        return self._cells.count(colour)

    def colours(self) -> set[Colour]:
        """The colours that appear on the board."""
        return {c for c in self._cells if isinstance(c, Colour)}

    def check_variant(self, variant: Variant) -> None:
        """Raise :class:`BoardTextError` unless the board fits ``variant``."""
        if self.size != variant.size:
            raise BoardTextError(
                f"{variant.name} is played on {variant.size}x{variant.size}, "
                f"this board is {self.size}x{self.size}"
            )
        for sq, cell in self.items():
            if isinstance(cell, Colour) and cell not in variant.colours:
                names = ", ".join(f"{c.label} ({c.letter})" for c in variant.colours)
                raise BoardTextError(
                    f"{square_name(sq)} holds a {cell.label} ball, but {variant.name} has {names}"
                )

    # Text -----------------------------------------------------------------------

    def text(self) -> str:
        """Board text, one line per row, no trailing newline."""
        return "\n".join("".join(cell_letter(c) for c in row) for row in self.rows())

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Board.from_text({self.text()!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return self.size == other.size and self._cells == other._cells

    def __hash__(self) -> int:
        return self._hash


def _parse_cell(ch: str, line: int | None, where: str) -> Cell:
    if ch == ".":
        return None
    if ch == "?":
        return UNKNOWN
    if ch.upper() in _OTHELLO_LETTERS:
        raise BoardTextError(
            f"{ch!r} on {where} is an Othello letter; Rolit boards use R, Y, G, B or E", line
        )
    try:
        return Colour.from_letter(ch)
    except ValueError:
        raise BoardTextError(
            f"{ch!r} on {where} is not a cell letter (use . ? R Y G B E)", line
        ) from None


def parse_boards(text: str) -> list[Board]:
    """Every board in ``text``: blank lines separate boards, ``#`` starts a comment.

    >>> text = "# two boards\\n....\\n.RY.\\n.BG.\\n....\\n\\n....\\n.RY.\\n.RG.\\n.R..\\n"
    >>> [board.count(Colour.RED) for board in parse_boards(text)]
    [1, 3]
    """
    boards: list[Board] = []
    rows: list[str] = []
    first = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            if raw.strip().startswith("#") and rows:
                continue  # A comment line inside a board does not end it.
            if rows:
                boards.append(Board.from_rows(rows, first))
                rows = []
            continue
        if not rows:
            first = number
        rows.append(line)
    if rows:
        boards.append(Board.from_rows(rows, first))
    return boards


def parse_board(text: str) -> Board:
    """The one board in ``text`` (see :meth:`Board.from_text`)."""
    return Board.from_text(text)
