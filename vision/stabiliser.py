"""The stabiliser: report a board only once it has settled.

A camera sees hands come and go, balls half-rolled, motion blur and the odd
misread frame. As live chess readers do (igoki, CameraChessWeb), a change is
believed only when it holds: each cell takes the value most of the last
``window`` seconds of frames agree on (a misread frame is outvoted), and the
board is reported once every cell has such a clear majority, none of them
hidden, and the majority board has stayed the same for ``hold`` seconds and at
least ``min_frames`` frames. Each settled board is reported once.

>>> from rolit.engine import Position
>>> s = Stabiliser(hold=0.2, min_frames=3)
>>> board = Position.start("quick4").board()
>>> obs = Observation(board, status="ok", quality=1.0)
>>> [s.push(obs, t) is not None for t in (0.0, 0.1, 0.2, 0.3)]
[False, False, True, False]
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass

from rolit.engine import UNKNOWN, Board, Cell

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

    Defaults suit 10-30 frames per second. ``majority`` is the share of the
    window's readings a cell's value needs. ``allow_unknown`` lets boards with
    hidden cells settle too (the referee waits on unknown cells itself); by
    default a settled board is unoccluded.
    """

    def __init__(
        self,
        hold: float = 0.4,
        min_frames: int = 3,
        allow_unknown: bool = False,
        window: float = 0.6,
        majority: float = 0.6,
    ) -> None:
        self.hold = hold
        self.min_frames = min_frames
        self.allow_unknown = allow_unknown
        self.window = window
        self.majority = majority
        self._frames: deque[tuple[float, Board]] = deque()
        self._candidate: Board | None = None
        self._since = 0.0
        self._count = 0
        self._reported: Board | None = None
        self.last: Settled | None = None

    def reset(self) -> None:
        """Forget everything (a new game, or the board was moved)."""
        self._frames.clear()
        self._candidate = None
        self._count = 0
        self._reported = None
        self.last = None

    @property
    def settling(self) -> bool:
        """True while a board different from the last settled one is being watched."""
        return self._candidate is not None and self._candidate != self._reported

    def _majority_board(self) -> Board | None:
        boards = [b for _, b in self._frames]
        size = boards[0].size
        if any(b.size != size for b in boards):
            return None
        # A cell the reader is unsure of in some frames is decided by the frames that
        # saw it: "unknown" abstains rather than votes. It still needs to be seen in
        # enough of the window, and those frames must clearly agree.
        seen_enough = max(1.0, (1.0 - self.majority) * len(boards))
        cells: list[Cell] = []
        for sq in boards[0].squares:
            known = Counter(b[sq] for b in boards if b[sq] is not UNKNOWN)
            total = sum(known.values())
            if total < seen_enough:
                if not self.allow_unknown:
                    return None
                cells.append(UNKNOWN)
                continue
            value, votes = known.most_common(1)[0]
            if votes < self.majority * total:
                return None
            cells.append(value)
        return Board(size, cells)

    def push(self, observation: Observation, t: float) -> Settled | None:
        """Add a frame's observation at time ``t``; returns a newly settled board or ``None``."""
        board = observation.board
        if board is None:
            # A hand or a blur can hide the board for a frame or two; only when
            # it stays lost does what was settling start again.
            if self._frames and t - self._frames[-1][0] > self.window:
                self._frames.clear()
                self._candidate = None
                self._count = 0
            return None
        self._frames.append((t, board))
        while self._frames and self._frames[0][0] < t - self.window:
            self._frames.popleft()
        current = self._majority_board()
        if current is None or current != self._candidate:
            self._candidate = current
            self._since = t
            self._count = 1 if current is not None else 0
            return None
        self._count += 1
        if current == self._reported:
            return None
        if self._count >= self.min_frames and t - self._since >= self.hold:
            self._reported = current
            self.last = Settled(current, self._since, t)
            return self.last
        return None
