"""Perft: count the leaves of the move tree, the standard check of a move generator.

>>> perft(Position.start("classic", players=4), 3)
136
>>> perft_counts(Position.start("classic", players=2), 3)
[3, 24, 114]
"""

from __future__ import annotations

from . import bitboard
from .position import Position

__all__ = ["perft", "perft_counts"]


def perft(position: Position, depth: int) -> int:
    """Leaves of the move tree ``depth`` plies below ``position``.

    A full board is a leaf (the game ends there), so a depth beyond the end of
    the game counts each finished game once.
    """
    if depth < 0:
        raise ValueError("depth must be 0 or more")
    v = position.variant
    slots = tuple(v.slot(c) for c in position.order)
    boards = list(position.bitboards)
    turn = position.order.index(position.turn)
    return bitboard.perft(position.geometry, boards, slots, turn, depth)


def perft_counts(position: Position, depth: int) -> list[int]:
    """``[perft(position, 1), ..., perft(position, depth)]``."""
    return [perft(position, d) for d in range(1, depth + 1)]
