"""Static evaluation of Rolit positions for the search.

The classic rule book's figure 8 grades the squares: corners "very high", the
other edge squares "high", the middle "medium", the ring next to the edge
"low" and the squares beside a corner "very low" (while that corner is empty:
a ball there lets someone take the corner). On top of the square values the
evaluation counts stable balls (corners and the edge runs they anchor can
never be rolled again), frontier balls (next to an empty square, so open to
capture) and, more and more as the board fills, the plain ball count.

Everything works on the fast core's lists of per-colour-slot bitboards
(:mod:`rolit.engine.bitboard`), for 2-4 colours in play and every board size.
Values are in points: 10 points are one ball at the end of the game.

>>> from rolit.engine import Position
>>> pos = Position.start("classic", players=2)
>>> ev = Evaluator.for_position(pos)
>>> ev.value(list(pos.bitboards), pos.variant.slot(pos.turn))
0
>>> ev.square_class(0), ev.square_class(9), ev.square_class(1), ev.square_class(27)
('corner', 'x', 'c', 'middle')
"""

from __future__ import annotations

import logging
from functools import cache

from .bitboard import Geometry, geometry

__all__ = ["BALL", "WIN", "Evaluator", "terminal_value"]

log = logging.getLogger(__name__)

#: Points for one ball in the final count.
BALL = 10
#: Bonus for a won (or lost) finished game, far above any static value.
WIN = 10_000

# Figure 8's grades as points (per ball on such a square). Tuned by hand
# against the greedy player; the order of the grades is the book's.
W_CORNER = 70  # very high
W_EDGE = 12  # high
W_MIDDLE = 0  # medium
W_RING = -4  # low
W_C = -18  # low: on the edge beside an empty corner
W_X = -40  # very low: diagonally beside an empty corner
W_STABLE = 12  # per stable ball that is not a corner (a corner is stable already)
W_FRONTIER = -3  # per ball touching an empty square


class Evaluator:
    """Evaluation tables for one board size and set of colour slots in play.

    ``in_play`` are the colour slots of the players (neutral colours count for
    nobody). :meth:`scores` gives each slot's standing, :meth:`value` one
    player's view: its score minus the best opponent's, since only beating the
    leader wins.
    """

    def __init__(self, geom: Geometry, in_play: tuple[int, ...]) -> None:
        self.geom = geom
        self.in_play = in_play
        n = geom.size
        bit = geom.bit
        self.full = geom.full
        self.squares = n * n

        def b(c: int, r: int) -> int:
            return bit[r * 8 + c]

        last = n - 1
        corner_list = [(0, 0), (last, 0), (0, last), (last, last)]
        self.corners = sum(b(c, r) for c, r in corner_list)
        edges = 0
        ring = 0
        for r in range(n):
            for c in range(n):
                if r in (0, last) or c in (0, last):
                    edges |= b(c, r)
                elif r in (1, last - 1) or c in (1, last - 1):
                    ring |= b(c, r)
        # Per corner: its bit, the squares beside it on the edges (C) and on
        # the diagonal (X), and its two edge rays for the stable-ball walk.
        self.corner_info: list[tuple[int, int, int, tuple[tuple[int, ...], ...]]] = []
        x_all = c_all = 0
        for c, r in corner_list:
            dc = 1 if c == 0 else -1
            dr = 1 if r == 0 else -1
            cb = b(c, r)
            csq = b(c + dc, r) | b(c, r + dr)
            xsq = b(c + dc, r + dr)
            rays = (
                tuple(b(c + dc * i, r) for i in range(1, n)),
                tuple(b(c, r + dr * i) for i in range(1, n)),
            )
            self.corner_info.append((cb, csq, xsq, rays))
            x_all |= xsq
            c_all |= csq
        self.edges = edges & ~self.corners & ~c_all
        self.ring = ring & ~x_all
        # Square values for move ordering and the reasons (corner empty).
        self.static: dict[int, int] = {}
        for r in range(n):
            for c in range(n):
                sb = b(c, r)
                if sb & self.corners:
                    w = W_CORNER
                elif sb & x_all:
                    w = W_X
                elif sb & c_all:
                    w = W_C
                elif sb & self.edges:
                    w = W_EDGE
                elif sb & self.ring:
                    w = W_RING
                else:
                    w = W_MIDDLE
                self.static[sb] = w
        self._x_all = x_all
        self._c_all = c_all

    @classmethod
    def for_position(cls, position: object) -> Evaluator:
        """The evaluator for a :class:`~rolit.engine.Position`'s size and colours in play."""
        from .position import Position

        assert isinstance(position, Position)
        slots = tuple(position.variant.slot(c) for c in position.order)
        return evaluator(position.size, slots)

    def square_class(self, sq: int) -> str:
        """The book's grade of square ``sq``: corner, x, c, edge, ring or middle."""
        sb = self.geom.bit[sq]
        if sb & self.corners:
            return "corner"
        if sb & self._x_all:
            return "x"
        if sb & self._c_all:
            return "c"
        if sb & self.edges:
            return "edge"
        if sb & self.ring:
            return "ring"
        return "middle"

    def stable(self, own: int, occupied: int) -> int:
        """Balls of ``own`` that can never be rolled: own corners and the
        unbroken runs of own balls along the edges from them.

        An edge ball can only be rolled along its edge, and not while every
        ball between it and a corner is its own colour.
        """
        stable = own & self.corners
        if not stable:
            return 0
        for cb, _, _, rays in self.corner_info:
            if not own & cb:
                continue
            for ray in rays:
                for rb in ray:
                    if not own & rb:
                        break
                    stable |= rb
        return stable

    def scores(self, boards: list[int]) -> list[int]:
        """Each slot's standing in points (slots not in play score 0)."""
        occupied = 0
        for bb in boards:
            occupied |= bb
        balls = occupied.bit_count()
        empty = self.full & ~occupied
        # The ball count matters more and more as the board fills; early on
        # many balls mostly mean many targets.
        fill = balls / self.squares
        material = int(1 + 9 * fill * fill)
        frontier_zone = self.geom.neighbours(empty) if empty else 0
        # Squares beside an empty corner are the dangerous ones.
        danger_x = danger_c = 0
        for cb, csq, xsq, _ in self.corner_info:
            if not occupied & cb:
                danger_x |= xsq
                danger_c |= csq
        corners = self.corners
        edges = self.edges | (self._c_all & ~danger_c)
        ring = self.ring | (self._x_all & ~danger_x)
        out = [0] * len(boards)
        for s in self.in_play:
            own = boards[s]
            if not own:
                continue
            v = own.bit_count() * material
            v += W_CORNER * (own & corners).bit_count()
            v += W_EDGE * (own & edges).bit_count()
            v += W_RING * (own & ring).bit_count()
            if danger_x & own:
                v += W_X * (own & danger_x).bit_count()
            if danger_c & own:
                v += W_C * (own & danger_c).bit_count()
            if own & corners:
                v += W_STABLE * (self.stable(own, occupied) & ~corners).bit_count()
            if frontier_zone:
                v += W_FRONTIER * (own & frontier_zone).bit_count()
            out[s] = v
        return out

    def value(self, boards: list[int], root: int) -> int:
        """Slot ``root``'s view: its score minus the best other player's.

        On a full board this is :func:`terminal_value`.
        """
        occupied = 0
        for bb in boards:
            occupied |= bb
        if occupied == self.full:
            return terminal_value(boards, self.in_play, root)
        sc = self.scores(boards)
        best = max(sc[s] for s in self.in_play if s != root)
        return sc[root] - best


def terminal_value(boards: list[int], in_play: tuple[int, ...], root: int) -> int:
    """Exact value of a finished game for ``root``: the ball lead over the best
    other player, plus :data:`WIN` for a win (minus for a loss; a shared win
    counts 0).

    >>> terminal_value([0b111, 0b1, 0, 0], (0, 1), 0)
    10020
    """
    own = boards[root].bit_count()
    best = max(boards[s].bit_count() for s in in_play if s != root)
    diff = own - best
    if diff > 0:
        return WIN + diff * BALL
    if diff < 0:
        return -WIN + diff * BALL
    return 0


@cache
def evaluator(size: int, in_play: tuple[int, ...]) -> Evaluator:
    """The shared :class:`Evaluator` for a board size and slots in play."""
    return Evaluator(geometry(size), in_play)
