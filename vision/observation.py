"""What the board reader saw in one frame: a domain object, not pixels.

An :class:`Observation` holds the observed :class:`~rolit.engine.Board` (cells
may be :data:`~rolit.engine.UNKNOWN`), where the grid was found, and how sure
the reader is. Its JSON form is DESIGN.md's ``rolit recognize --json`` contract.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rolit.engine import UNKNOWN, Board, Cell, Colour, Square, square_name

__all__ = ["Observation", "Point"]

Point = tuple[float, float]


@dataclass(frozen=True)
class Observation:
    """One frame's reading.

    ``corners`` are the image pixels of the grid's outer corners: top-left,
    top-right, bottom-right, bottom-left (beside a1 first). ``cell_points`` is
    where each cell was read (the ball's top, parallax included);
    ``cell_confidence`` is 0..1 per cell. ``quality`` scores the grid fit.
    ``status`` is ``"ok"``, ``"no_board"`` or ``"occluded"`` (some cells hidden,
    typically by a hand). ``moved`` is true when the board had to be found
    again because it (or the camera) moved since the last frame.
    ``cell_guess`` is the reader's best answer for every cell it could see,
    trusted or not (hidden cells have none).
    """

    board: Board | None
    corners: tuple[Point, Point, Point, Point] | None = None
    cell_points: Mapping[Square, Point] = field(default_factory=dict)
    cell_confidence: Mapping[Square, float] = field(default_factory=dict)
    quality: float = 0.0
    status: str = "no_board"
    moved: bool = False
    timings: Mapping[str, float] = field(default_factory=dict)
    cell_guess: Mapping[Square, Cell] = field(default_factory=dict)

    @property
    def found(self) -> bool:
        """True when a board was located."""
        return self.board is not None

    @property
    def unknown(self) -> list[Square]:
        """Cells that could not be read."""
        return self.board.unknown_squares() if self.board is not None else []

    def filled_from(self, likely: Sequence[Board], floor: float = 0.5) -> Board | None:
        """The board with unsure cells filled where the best guess is what one of the ``likely``
        boards holds there (the game's position, the last settled board) and at least ``floor`` sure.

        The reader alone answers "unknown" below its threshold rather than guess;
        with the game as a prior, a guess that agrees with what the rules expect
        is taken. A cell that changed in a way nobody expects stays unknown.

        >>> from rolit.engine import Position, parse_square
        >>> board = Position.start("quick4").board()
        >>> b2 = parse_square("b2", 4)
        >>> seen = Observation(board.replace({b2: UNKNOWN}), cell_confidence={b2: 0.7}, cell_guess={b2: board[b2]})
        >>> seen.filled_from([board]) == board, seen.filled_from([board], floor=0.8) == board
        (True, False)
        """
        board = self.board
        if board is None:
            return None
        fills: dict[Square, Cell] = {}
        for sq in board.unknown_squares():
            if sq not in self.cell_guess or self.cell_confidence.get(sq, 0.0) < floor:
                continue
            guess = self.cell_guess[sq]
            if any(b.size == board.size and b[sq] == guess for b in likely):
                fills[sq] = guess
        return board.replace(fills) if fills else board

    @property
    def confidence(self) -> float:
        """Overall confidence: the least sure known cell times the grid quality (0 when not found)."""
        if self.board is None:
            return 0.0
        known = [c for sq, c in self.cell_confidence.items() if self.board[sq] is not UNKNOWN]
        return round(min(known, default=0.0) * self.quality, 4)

    def to_json(self) -> dict[str, Any]:
        """DESIGN.md's ``recognize`` JSON (plus ``status`` and ``quality``)."""
        if self.board is None:
            return {"n": None, "rows": [], "board": [], "corners": None, "unknown": [], "confidence": 0.0,
                    "status": self.status, "quality": 0.0}
        board = self.board
        grid: list[list[str | None]] = []
        for row in board.rows():
            grid.append([c.label if isinstance(c, Colour) else ("?" if c is UNKNOWN else None) for c in row])
        return {
            "n": board.size,
            "rows": board.text().splitlines(),
            "board": grid,
            "corners": [[round(x, 2), round(y, 2)] for x, y in self.corners] if self.corners else None,
            "unknown": [square_name(s) for s in self.unknown],
            "confidence": self.confidence,
            "status": self.status,
            "quality": round(self.quality, 4),
        }
