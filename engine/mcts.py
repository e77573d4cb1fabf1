"""Monte-Carlo tree search for 2-4 players with max^n backups.

Every node keeps, for each player, the sum of that player's rewards over the
playouts through it; at a node the player to move picks the child that is best
*for itself* (UCT on its own reward), which is the max^n rule Nijssen and
Winands found strongest for multi-player MCTS. A playout plays the game to the
end with a light policy a family would recognise: take a corner when you can,
avoid the squares beside an empty corner, otherwise any legal move. The
reward of a finished game is a share of the win (1, or 1/k on a k-way tie)
plus a little for the share of the balls, so that lost games still prefer
losing by less.

Small progressive bias from the book's square values steers the first visits.

>>> from rolit.engine import Position
>>> pos = Position.start("classic", players=2)
>>> result = MCTS.for_position(pos, seed=1).search(pos, time_limit=0.1)
>>> len(result.moves), result.nodes > 0
(3, True)
"""

from __future__ import annotations

import gc
import logging
import math
import random
import time

from .bitboard import Geometry, geometry
from .evaluate import Evaluator, evaluator
from .position import Position
from .search import RootMove, SearchResult

__all__ = ["MCTS"]

log = logging.getLogger(__name__)

# UCT's exploration constant for rewards in [0, 1].
EXPLORATION = 0.6
# Weight of the square values' progressive bias (points to reward units).
BIAS = 1 / 400
# Share of the reward that follows the ball count rather than the win.
BALL_SHARE = 0.1


class _Node:
    __slots__ = ("bit", "children", "reward", "slot", "t", "untried", "visits")

    def __init__(self, bit: int, slot: int, t: int, untried: list[int], players: int) -> None:
        self.bit = bit  # the move that led here (0 at the root)
        self.slot = slot  # the colour slot that played it
        self.t = t  # turn index of the player to move here
        self.untried = untried  # legal moves not expanded yet, best guess last
        self.children: list[_Node] = []
        self.visits = 0
        self.reward = [0.0] * players  # by turn index


class MCTS:
    """A max^n UCT searcher for one board size and seating."""

    def __init__(self, size: int, order: tuple[int, ...], seed: int | None = None) -> None:
        self.geom: Geometry = geometry(size)
        self.order = order
        self.in_play = tuple(sorted(order))
        self.evaluator: Evaluator = evaluator(size, self.in_play)
        self.rng = random.Random(seed)
        self.playouts = 0
        self.algorithm = "mcts"

    @classmethod
    def for_position(cls, position: Position, seed: int | None = None) -> MCTS:
        """An MCTS searcher for ``position``'s board size and turn order."""
        return cls(position.size, tuple(position.variant.slot(c) for c in position.order), seed)

    def _moves(self, boards: list[int], t: int, occ: int) -> list[int]:
        moves, _ = self.geom.legal_moves(boards[self.order[t]], occ)
        out = []
        while moves:
            b = moves & -moves
            out.append(b)
            moves ^= b
        static = self.evaluator.static
        # Expanded from the end: the best-looking square first.
        out.sort(key=lambda b: static[b])
        return out

    def _play(self, boards: list[int], slot: int, bit: int, occ: int) -> None:
        flipped = self.geom.flips(bit, boards[slot], occ)
        if flipped:
            keep = ~flipped
            for s in range(len(boards)):
                boards[s] &= keep
        boards[slot] |= bit | flipped

    def _playout(self, boards: list[int], t: int) -> list[float]:
        geom = self.geom
        ev = self.evaluator
        full = geom.full
        legal = geom.legal_moves
        flips = geom.flips
        order = self.order
        k = len(order)
        rng = self.rng
        corners = ev.corners
        corner_info = ev.corner_info
        occ = 0
        for bb in boards:
            occ |= bb
        while occ != full:
            slot = order[t]
            own = boards[slot]
            moves, _ = legal(own, occ)
            pick = moves & corners
            if not pick:
                pick = moves
                if occ & corners != corners:
                    danger = 0
                    for cb, csq, xsq, _ in corner_info:
                        if not occ & cb:
                            danger |= csq | xsq
                    if moves & ~danger:
                        pick = moves & ~danger
            n = pick.bit_count()
            if n > 1:
                i = rng.randrange(n)
                while i:
                    pick &= pick - 1
                    i -= 1
            bit = pick & -pick
            flipped = flips(bit, own, occ)
            if flipped:
                keep = ~flipped
                for s in range(len(boards)):
                    boards[s] &= keep
            boards[slot] = own | bit | flipped
            occ |= bit
            t = t + 1 if t + 1 < k else 0
        counts = [boards[s].bit_count() for s in order]
        best = max(counts)
        winners = counts.count(best)
        total = sum(counts) or 1
        return [
            (1 - BALL_SHARE) * ((1 / winners) if c == best else 0.0) + BALL_SHARE * c / total for c in counts
        ]

    def search(self, position: Position, time_limit: float = 1.0, max_playouts: int = 10**9,
               deadline: float | None = None) -> SearchResult:
        """Run playouts until ``time_limit`` seconds pass; root moves come back
        most visited first, each scored by the mover's mean reward x 1000."""
        start = time.perf_counter()
        end = deadline if deadline is not None else start + time_limit
        geom = self.geom
        order = self.order
        k = len(order)
        t0 = order.index(position.variant.slot(position.turn))
        root_boards = list(position.bitboards)
        occ0 = 0
        for bb in root_boards:
            occ0 |= bb
        if occ0 == geom.full:
            return SearchResult([], 0, 0, 0.0, True, "mcts")
        root = _Node(0, -1, t0, self._moves(root_boards, t0, occ0), k)
        static = self.evaluator.static
        playouts = 0
        log_cache = [0.0] + [math.log(i) for i in range(1, 1024)]
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            while playouts < max_playouts and time.perf_counter() < end:
                boards = list(root_boards)
                node = root
                path = [node]
                occ = occ0
                # Selection: each player picks its own best child (max^n).
                while not node.untried and node.children:
                    t = node.t
                    lv = node.visits
                    log_n = log_cache[lv] if lv < 1024 else math.log(lv)
                    best_child = node.children[0]
                    best_value = -1.0
                    for child in node.children:
                        cv = child.visits
                        value = (child.reward[t] / cv + EXPLORATION * math.sqrt(log_n / cv)
                                 + BIAS * static[child.bit] / (cv + 1))
                        if value > best_value:
                            best_value, best_child = value, child
                    node = best_child
                    self._play(boards, node.slot, node.bit, occ)
                    occ |= node.bit
                    path.append(node)
                # Expansion.
                if node.untried:
                    bit = node.untried.pop()
                    slot = order[node.t]
                    self._play(boards, slot, bit, occ)
                    occ |= bit
                    nt = node.t + 1 if node.t + 1 < k else 0
                    child = _Node(bit, slot, nt, [] if occ == geom.full else self._moves(boards, nt, occ), k)
                    node.children.append(child)
                    node = child
                    path.append(node)
                # Simulation and the max^n backup of the whole reward vector.
                reward = self._playout(boards, node.t)
                for n in path:
                    n.visits += 1
                    r = n.reward
                    for i in range(k):
                        r[i] += reward[i]
                playouts += 1
        finally:
            if gc_was_enabled:
                gc.enable()
        self.playouts = playouts
        children = sorted(root.children, key=lambda c: (-c.visits, -c.reward[t0]))
        moves = [RootMove(geom.square_of[c.bit], int(1000 * c.reward[t0] / max(1, c.visits)), False)
                 for c in children]
        seen = {m.square for m in moves}
        for bit in root.untried:
            if geom.square_of[bit] not in seen:
                moves.append(RootMove(geom.square_of[bit], 0, False))
        pv: list[tuple[int, int]] = []
        node = children[0] if children else root
        while node is not root:
            pv.append((node.slot, geom.square_of[node.bit]))
            if not node.children or node.visits < 8:
                break
            node = max(node.children, key=lambda c: c.visits)
        elapsed = time.perf_counter() - start
        log.debug("mcts %d playouts in %.3f s", playouts, elapsed)
        return SearchResult(moves, 0, playouts, elapsed, False, "mcts", pv)
