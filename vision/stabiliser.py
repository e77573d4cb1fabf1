"""The stabiliser: report a board only once it has settled.

A camera sees hands come and go, balls half-rolled and frames with motion blur.
As live chess readers do (igoki, CameraChessWeb), a change is believed only when
it holds: the stabiliser reports a board when every cell has been read the same,
unoccluded, for ``hold`` seconds and at least ``min_frames`` frames. Each settled
board is reported once.

>>> from rolit.engine import Position
>>> s = Stabiliser(hold=0.2, min_frames=3)
>>> board = Position.start("quick4").board()
>>> obs = Observation(board, status="ok", quality=1.0)
>>> [s.push(obs, t) is not None for t in (0.0, 0.1, 0.2, 0.3)]
[False, False, True, False]
"""

from __future__ import annotations

from dataclasses import dataclass

from rolit.engine import Board

from .observation import Observation

__all__ = ["Stabiliser", "Settled"]


@dataclass(frozen=True)
class Settled:
    """A board that has settled, and when it started to hold."""

    board: Board
    since: float
    at: float


class Stabiliser:
    """Turns a stream of observations into settled boards.

    Defaults suit 10-30 frames per second: a board must hold for 0.4 s and at
    least 3 frames. ``allow_unknown`` lets boards with hidden cells settle too
    (the referee waits on unknown cells itself); by default a settled board is
    unoccluded.
    """

    def __init__(self, hold: float = 0.4, min_frames: int = 3, allow_unknown: bool = False) -> None:
        self.hold = hold
        self.min_frames = min_frames
        self.allow_unknown = allow_unknown
        self._candidate: Board | None = None
        self._since = 0.0
        self._frames = 0
        self._reported: Board | None = None
        self.last: Settled | None = None

    def reset(self) -> None:
        """Forget everything (a new game, or the board was moved)."""
        self._candidate = None
        self._frames = 0
        self._reported = None
        self.last = None

    @property
    def settling(self) -> bool:
        """True while a board different from the last settled one is being watched."""
        return self._candidate is not None and self._candidate != self._reported

    def push(self, observation: Observation, t: float) -> Settled | None:
        """Add a frame's observation at time ``t``; returns a newly settled board or ``None``."""
        board = observation.board
        if board is None or (not self.allow_unknown and not board.is_complete):
            # No board or a hand over it: whatever was settling must start again.
            self._candidate = None
            self._frames = 0
            return None
        if board != self._candidate:
            self._candidate = board
            self._since = t
            self._frames = 1
            return None
        self._frames += 1
        if board == self._reported:
            return None
        if self._frames >= self.min_frames and t - self._since >= self.hold:
            self._reported = board
            self.last = Settled(board, self._since, t)
            return self.last
        return None
