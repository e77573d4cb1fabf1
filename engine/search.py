"""Alpha-beta search for 2-4 players: best-reply search (BRS) and paranoid.

Both search the tree of one player, the *root*, who maximises its
:meth:`~rolit.engine.evaluate.Evaluator.value` (its score minus the best other
player's) while everyone else minimises it.

- **Paranoid** follows the real turn order: every opponent move is a
  minimising ply.
- **Best-reply search** (Schadd & Winands, 2011, tested on Rolit) lets only the
  single strongest reply of *any* opponent be played between two root moves,
  the others skipping their turn. The root sees further ahead for the same
  work; with two players it is plain alpha-beta.

Iterative deepening, a transposition table keyed by Zobrist hashes that are
updated incrementally on make/unmake, move ordering (table move, then square
values and a history score) and a hard deadline checked inside the tree. When a
search reaches the end of the game the scores are exact.

The search works on a list of per-colour-slot bitboards made and unmade in
place, as :func:`rolit.engine.bitboard.perft` does.

>>> from rolit.engine import Position
>>> pos = Position.start("classic", players=2)
>>> result = Searcher.for_position(pos, "brs").search(pos, time_limit=0.2, max_depth=3)
>>> result.depth, len(result.moves), result.moves[0].square in (29, 43, 45)
(3, 3, True)
"""

from __future__ import annotations

import gc
import logging
import random
import time
from dataclasses import dataclass, field
from typing import Literal

from .bitboard import Geometry, geometry
from .evaluate import Evaluator, evaluator
from .position import Position

__all__ = ["ALGORITHMS", "Algorithm", "RootMove", "SearchResult", "Searcher", "SearchTimeout"]

log = logging.getLogger(__name__)

Algorithm = Literal["brs", "paranoid"]
ALGORITHMS: tuple[Algorithm, ...] = ("brs", "paranoid")

INF = 1 << 30
# Root moves within this many points of the best get exact scores (a narrow
# multi-move window) so that the suggestions below the best are ranked too.
ROOT_MARGIN = 60
# Table flags.
EXACT, LOWER, UPPER = 0, 1, 2
# The deadline is checked every this many nodes plus one (a power of two minus
# one); an evaluated node costs about 20-40 microseconds.
CHECK_MASK = 15
# The transposition table is cleared when it grows beyond this many entries,
# which keeps memory (and the garbage collector's work) bounded.
TT_LIMIT = 400_000


class SearchTimeout(Exception):
    """Raised inside the tree when the deadline passes; the search catches it."""


@dataclass
class RootMove:
    """A root move's result: its ``square``, ``score`` in points for the root
    player, and whether the score is ``exact`` (else it is an upper bound: the
    move is at least that much worse than the best)."""

    square: int
    score: int
    exact: bool = True


@dataclass
class SearchResult:
    """What a search found: root moves best first, the depth of the last
    completed iteration, nodes searched, seconds used, and whether the scores
    are the game's exact result (the search reached every end)."""

    moves: list[RootMove]
    depth: int
    nodes: int
    elapsed: float
    solved: bool = False
    algorithm: str = "brs"
    pv: list[tuple[int, int]] = field(default_factory=list)  # (slot, square) of the expected line

    @property
    def best(self) -> RootMove:
        """The best root move."""
        return self.moves[0]


class Searcher:
    """A BRS or paranoid searcher for one board size and seating.

    Keep one per player and game: the transposition table carries over from
    move to move.
    """

    def __init__(self, size: int, order: tuple[int, ...], slots: int, algorithm: Algorithm = "brs",
                 seed: int = 0) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}")
        self.algorithm: Algorithm = algorithm
        self.geom: Geometry = geometry(size)
        self.order = order
        self.in_play = tuple(sorted(order))
        self.evaluator: Evaluator = evaluator(size, self.in_play)
        rng = random.Random(0x5EED + seed)
        bits = list(self.geom.bit.values())
        self.zobrist: list[dict[int, int]] = [{b: rng.getrandbits(64) for b in bits} for _ in range(slots)]
        # Turn keys: one per turn index, and one for BRS's opponents' layer.
        self.turn_keys = [rng.getrandbits(64) for _ in range(len(order) + 1)]
        self.tt: dict[int, tuple[int, int, int, int]] = {}
        self.history: dict[int, int] = {}
        self.nodes = 0
        self.deadline = float("inf")
        self.root = order[0]
        self.boards: list[int] = []
        self.key = 0
        self.static = self.evaluator.static
        self._partial: list[RootMove] = []

    @classmethod
    def for_position(cls, position: Position, algorithm: Algorithm = "brs", seed: int = 0) -> Searcher:
        """A searcher for ``position``'s board size and turn order."""
        order = tuple(position.variant.slot(c) for c in position.order)
        return cls(position.size, order, len(position.variant.colours), algorithm, seed)

    # Keys ------------------------------------------------------------------

    def hash_boards(self, boards: list[int]) -> int:
        """The Zobrist key of the balls (without the turn)."""
        key = 0
        for slot, bb in enumerate(boards):
            z = self.zobrist[slot]
            while bb:
                b = bb & -bb
                key ^= z[b]
                bb ^= b
        return key

    # Make / unmake -----------------------------------------------------------

    def _make(self, slot: int, bit: int, occupied: int) -> list[tuple[int, int]]:
        """Place a ball of ``slot`` on ``bit`` in :attr:`boards` and update the
        key; returns what each other slot lost, for :meth:`_unmake`."""
        boards = self.boards
        own = boards[slot]
        flipped = self.geom.flips(bit, own, occupied)
        zs = self.zobrist
        zm = zs[slot]
        key = self.key ^ zm[bit]
        lost = []
        if flipped:
            for s in range(len(boards)):
                if s == slot:
                    continue
                taken = boards[s] & flipped
                if taken:
                    boards[s] ^= taken
                    lost.append((s, taken))
                    zo = zs[s]
                    while taken:
                        b = taken & -taken
                        key ^= zo[b] ^ zm[b]
                        taken ^= b
        boards[slot] = own | bit | flipped
        self.key = key
        lost.append((slot, own))  # last entry: the mover's board before the move
        return lost

    def _unmake(self, lost: list[tuple[int, int]], key: int) -> None:
        boards = self.boards
        slot, own = lost[-1]
        boards[slot] = own
        for i in range(len(lost) - 1):
            s, taken = lost[i]
            boards[s] |= taken
        self.key = key

    # Ordering ------------------------------------------------------------------

    def _ordered(self, moves: int, first: int) -> list[int]:
        static = self.static
        history = self.history
        out = []
        while moves:
            b = moves & -moves
            moves ^= b
            out.append(b)
        if len(out) > 1:
            out.sort(key=lambda b: -(INF if b == first else static[b] * 4 + history.get(b, 0)))
        return out

    # The trees -------------------------------------------------------------------

    def _occupied(self) -> int:
        occ = 0
        for b in self.boards:
            occ |= b
        return occ

    def _paranoid(self, depth: int, alpha: int, beta: int, t: int) -> int:
        self.nodes += 1
        if not self.nodes & CHECK_MASK and time.perf_counter() > self.deadline:
            raise SearchTimeout
        occ = self._occupied()
        ev = self.evaluator
        if occ == ev.full or depth <= 0:
            return ev.value(self.boards, self.root)
        key = self.key ^ self.turn_keys[t]
        # The table probe is written out in both searches rather than shared:
        # it runs at every node, where a function call costs a tenth of the time.
        entry = self.tt.get(key)
        tt_move = 0
        if entry is not None:
            e_depth, e_flag, e_value, tt_move = entry
            if e_depth >= depth:
                if e_flag == EXACT:
                    return e_value
                if e_flag == LOWER and e_value >= beta:
                    return e_value
                if e_flag == UPPER and e_value <= alpha:
                    return e_value
        slot = self.order[t]
        moves, _ = self.geom.legal_moves(self.boards[slot], occ)
        nt = t + 1 if t + 1 < len(self.order) else 0
        maximise = slot == self.root
        a0, b0 = alpha, beta
        best = -INF if maximise else INF
        best_move = 0
        key0 = self.key
        for bit in self._ordered(moves, tt_move):
            lost = self._make(slot, bit, occ)
            try:
                v = self._paranoid(depth - 1, alpha, beta, nt)
            finally:
                self._unmake(lost, key0)
            if maximise:
                if v > best:
                    best, best_move = v, bit
                    if v > alpha:
                        alpha = v
            elif v < best:
                best, best_move = v, bit
                if v < beta:
                    beta = v
            if alpha >= beta:
                self.history[bit] = self.history.get(bit, 0) + depth * depth
                break
        flag = UPPER if best <= a0 else LOWER if best >= b0 else EXACT
        self._store(key, depth, flag, best, best_move)
        return best

    def _brs(self, depth: int, alpha: int, beta: int, root_turn: bool) -> int:
        self.nodes += 1
        if not self.nodes & CHECK_MASK and time.perf_counter() > self.deadline:
            raise SearchTimeout
        occ = self._occupied()
        ev = self.evaluator
        if occ == ev.full or depth <= 0:
            return ev.value(self.boards, self.root)
        key = self.key ^ self.turn_keys[0 if root_turn else -1]
        entry = self.tt.get(key)
        tt_move = 0
        if entry is not None:
            e_depth, e_flag, e_value, tt_move = entry
            if e_depth >= depth:
                if e_flag == EXACT:
                    return e_value
                if e_flag == LOWER and e_value >= beta:
                    return e_value
                if e_flag == UPPER and e_value <= alpha:
                    return e_value
        a0, b0 = alpha, beta
        key0 = self.key
        legal = self.geom.legal_moves
        boards = self.boards
        if root_turn:
            slot = self.root
            best, best_move = -INF, 0
            moves, _ = legal(boards[slot], occ)
            for bit in self._ordered(moves, tt_move >> 3):
                lost = self._make(slot, bit, occ)
                try:
                    v = self._brs(depth - 1, alpha, beta, False)
                finally:
                    self._unmake(lost, key0)
                if v > best:
                    best, best_move = v, bit
                    if v > alpha:
                        alpha = v
                if alpha >= beta:
                    self.history[bit] = self.history.get(bit, 0) + depth * depth
                    break
            stored = best_move << 3 | slot
        else:
            best, stored = INF, 0
            # Every opponent's moves in one minimising layer; the table move
            # (with its slot in the low bits) goes first.
            candidates: list[tuple[int, int]] = []
            first: tuple[int, int] | None = None
            for slot in self.order:
                if slot == self.root:
                    continue
                moves, _ = legal(boards[slot], occ)
                for bit in self._ordered(moves, 0):
                    if tt_move and slot == tt_move & 7 and bit == tt_move >> 3:
                        first = (slot, bit)
                    else:
                        candidates.append((slot, bit))
            if first is not None:
                candidates.insert(0, first)
            for slot, bit in candidates:
                lost = self._make(slot, bit, occ)
                try:
                    v = self._brs(depth - 1, alpha, beta, True)
                finally:
                    self._unmake(lost, key0)
                if v < best:
                    best, stored = v, bit << 3 | slot
                    if v < beta:
                        beta = v
                if alpha >= beta:
                    break
        flag = UPPER if best <= a0 else LOWER if best >= b0 else EXACT
        self._store(key, depth, flag, best, stored)
        return best

    def _store(self, key: int, depth: int, flag: int, value: int, move: int) -> None:
        tt = self.tt
        if len(tt) >= TT_LIMIT:
            tt.clear()
        tt[key] = (depth, flag, value, move)

    # Root ------------------------------------------------------------------------

    def _root(self, depth: int, moves: list[int], t: int, full_window: bool = False) -> list[RootMove]:
        """Search every root move to ``depth``; exact scores near the best (for
        every move with ``full_window``)."""
        occ = self._occupied()
        slot = self.root
        key0 = self.key
        results: list[RootMove] = []
        self._partial = results  # read by search() when the deadline interrupts
        best = -INF
        nt = t + 1 if t + 1 < len(self.order) else 0
        for bit in moves:
            alpha = best - ROOT_MARGIN if best > -INF and not full_window else -INF
            lost = self._make(slot, bit, occ)
            try:
                if self.algorithm == "paranoid":
                    v = self._paranoid(depth - 1, alpha, INF, nt)
                else:
                    v = self._brs(depth - 1, alpha, INF, False)
            finally:
                self._unmake(lost, key0)
            results.append(RootMove(self.geom.square_of[bit], v, v > alpha))
            if v > best:
                best = v
        results.sort(key=lambda m: -m.score)
        return results

    def search(self, position: Position, time_limit: float = 1.0, max_depth: int = 64,
               deadline: float | None = None) -> SearchResult:
        """Search ``position`` (the colour to move is the root) by iterative
        deepening until ``time_limit`` seconds pass or ``max_depth`` plies (or
        the end of the game) are done. Never overruns the limit by more than a
        few milliseconds: the clock is read inside the tree.
        """
        start = time.perf_counter()
        end = deadline if deadline is not None else start + time_limit
        self.deadline = end
        root = position.variant.slot(position.turn)
        if root != self.root:
            self.tt.clear()
            self.history.clear()
            self.root = root
        self.boards = list(position.bitboards)
        self.key = self.hash_boards(self.boards)
        self.nodes = 0
        t = self.order.index(root)
        occ = self._occupied()
        empties = (self.geom.full & ~occ).bit_count()
        if empties == 0:
            return SearchResult([], 0, 0, 0.0, True, self.algorithm)
        legal, _ = self.geom.legal_moves(self.boards[root], occ)
        order = self._ordered(legal, 0)
        results = [RootMove(self.geom.square_of[b], self.evaluator.static[b], False) for b in order]
        depth_done = 0
        solved = False
        # The tree holds many small objects; a collection pass in the middle
        # of a search would cost the time limit tens of milliseconds.
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            limit = min(max_depth, empties)
            for depth in range(1, limit + 1):
                try:
                    # The last iteration of an endgame solve scores every move
                    # exactly: "wins by 2" and "loses by 4" both help a player.
                    results = self._root(depth, order, t, full_window=depth >= empties)
                except SearchTimeout:
                    # The unfinished iteration still counts when it searched the
                    # previous best move and found a better one.
                    partial = self._partial
                    if depth_done and len(partial) >= 2 and partial[0].square == results[0].square:
                        top = max(partial, key=lambda m: m.score)
                        if top.exact and top.score > partial[0].score:
                            rest = [m for m in results if m.square != top.square]
                            results = [top, *rest]
                    break
                depth_done = depth
                bit_of = self.geom.bit
                order = [bit_of[m.square] for m in results]
                if depth >= empties and (self.algorithm == "paranoid" or len(self.order) == 2):
                    solved = True
                    break
                # An iteration costs several times the one before: do not
                # start one that cannot finish.
                elapsed = time.perf_counter() - start
                if elapsed > 0.45 * (end - start):
                    break
        finally:
            if gc_was_enabled:
                gc.enable()
        elapsed = time.perf_counter() - start
        if depth_done == 0 and len(results) > 1:
            log.debug("no iteration finished in %.3f s; ordering by square values", elapsed)
        pv = self._pv(results[0].square, t) if results else []
        log.debug("%s depth %d nodes %d in %.3f s", self.algorithm, depth_done, self.nodes, elapsed)
        return SearchResult(results, depth_done, self.nodes, elapsed, solved, self.algorithm, pv)

    def _pv(self, square: int, t: int, plies: int = 8) -> list[tuple[int, int]]:
        """The expected line after the root move, in real turn order, from the
        table where it knows a legal move for the player to move."""
        boards = list(self.boards)
        geom = self.geom
        bit = geom.bit[square]
        slot = self.order[t]
        line = [(slot, square)]
        saved_boards, saved_key = self.boards, self.key
        self.boards = boards
        try:
            occ = self._occupied()
            self._make(slot, bit, occ)
            for _ in range(plies - 1):
                t = t + 1 if t + 1 < len(self.order) else 0
                slot = self.order[t]
                occ = self._occupied()
                if occ == geom.full:
                    break
                legal, _ = geom.legal_moves(boards[slot], occ)
                move = 0
                if self.algorithm == "paranoid":
                    entry = self.tt.get(self.key ^ self.turn_keys[t])
                    move = entry[3] if entry else 0
                else:
                    entry = self.tt.get(self.key ^ self.turn_keys[0 if slot == self.root else -1])
                    if entry and entry[3] & 7 == slot:
                        move = entry[3] >> 3
                if not move & legal:
                    break
                line.append((slot, geom.square_of[move]))
                self._make(slot, move, occ)
        finally:
            self.boards, self.key = saved_boards, saved_key
        return line
