"""Physical sizes of the board and balls, and where each square is in the world.

Sizes are millimetres, measured from a classic set: balls a little over 2 cm
across sitting in cups 3 cm apart, the board a stiff plastic tray with a
raised frame.

>>> geo = BoardGeometry(8)
>>> geo.cell_centre(0)      # a1: the far left corner seen from the default side
(-105.0, 105.0)
>>> geo.grid_corners()[0]   # the outer corner of the grid beside a1
(-120.0, 120.0, 0.0)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BoardGeometry"]


@dataclass(frozen=True)
class BoardGeometry:
    """Sizes of an ``size`` x ``size`` board and its balls."""

    size: int
    pitch: float = 30.0
    ball_radius: float = 11.5
    # The ball's centre stands this high above the board's top surface: it
    # sits in a cup, so it stands proud and shows parallax.
    ball_height: float = 7.0
    cup_radius: float = 11.0
    cup_depth: float = 4.5
    margin: float = 20.0
    thickness: float = 14.0

    @property
    def half_grid(self) -> float:
        """Half the width of the grid of cells."""
        return self.size * self.pitch / 2

    @property
    def half_board(self) -> float:
        """Half the width of the whole board, frame included."""
        return self.half_grid + self.margin

    def cell_centre(self, sq: int) -> tuple[float, float]:
        """World ``x, y`` of a square's centre on the board's surface."""
        row, col = divmod(sq, 8)
        h = (self.size - 1) / 2
        return ((col - h) * self.pitch, (h - row) * self.pitch)

    def ball_centre(self, sq: int) -> tuple[float, float, float]:
        """World position of the centre of a ball on ``sq``."""
        x, y = self.cell_centre(sq)
        return (x, y, self.ball_height)

    def ball_top(self, sq: int) -> tuple[float, float, float]:
        """World position of the top of a ball on ``sq``."""
        x, y = self.cell_centre(sq)
        return (x, y, self.ball_height + self.ball_radius)

    def grid_corners(self) -> list[tuple[float, float, float]]:
        """The grid's outer corners: beside a1, beside the last column of row 1, then clockwise."""
        h = self.half_grid
        return [(-h, h, 0.0), (h, h, 0.0), (h, -h, 0.0), (-h, -h, 0.0)]

    def board_corners(self, z: float = 0.0) -> list[tuple[float, float, float]]:
        """The outline of the whole board at height ``z``, in the same order."""
        h = self.half_board
        return [(-h, h, z), (h, h, z), (h, -h, z), (-h, -h, z)]
