"""The engine's exceptions.

Every error carries one plain sentence that says what is wrong; parse errors
also name the line or move number where it went wrong.
"""

from __future__ import annotations

__all__ = [
    "RolitError",
    "SquareError",
    "IllegalMoveError",
    "BoardTextError",
    "RecordError",
    "SetupError",
    "GameOverError",
]


class RolitError(Exception):
    """Base class of every error the project raises on purpose."""


class SquareError(RolitError, ValueError):
    """A square name that is malformed or off the board."""


class SetupError(RolitError, ValueError):
    """A variant, seating or position that cannot be set up."""


class IllegalMoveError(RolitError, ValueError):
    """A move the rules do not allow in the position; the message says why."""


class GameOverError(RolitError):
    """A move was asked for after the board is full."""


class BoardTextError(RolitError, ValueError):
    """Board text that cannot be read. ``line`` is 1-based, or ``None``."""

    def __init__(self, message: str, line: int | None = None) -> None:
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)


class RecordError(RolitError, ValueError):
    """A game record that cannot be read or replayed.

    ``line`` is the 1-based line of the text, ``move_number`` the 1-based number of
    the placement (ball) in the game, when known.
    """

    def __init__(self, message: str, line: int | None = None, move_number: int | None = None) -> None:
        self.reason = message
        self.line = line
        self.move_number = move_number
        where = []
        if move_number is not None:
            where.append(f"move {move_number}")
        if line is not None:
            where.append(f"line {line}")
        prefix = (", ".join(where) + ": ") if where else ""
        super().__init__(prefix + message)
