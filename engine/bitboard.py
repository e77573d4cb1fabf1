"""Bitboard arithmetic: the fast core of the rules.

A board of size n is held in Python ints with one bit per square, laid out row by
row with one spare (always clear) bit after each row: bit ``row * (n + 1) + col``.
The spare column stops horizontal and diagonal shifts from wrapping from one row
into the next, so a shift needs no file mask; masking with the empty or occupied
set afterwards drops whatever was shifted off the board.

A position is a list of per-colour bitboards ("slots", in the variant's colour
order). Nothing here knows colours, players or names; :mod:`rolit.engine.position`
builds the public API on top.
"""

from __future__ import annotations

from functools import cache

from .squares import Square, square, squares_of

__all__ = ["Geometry", "geometry", "iter_bits", "popcount"]


class Geometry:
    """Bit layout of an ``size`` x ``size`` board.

    >>> g = geometry(8)
    >>> g.square_of[g.bit[27]] == 27
    True
    """

    def __init__(self, size: int) -> None:
        if size not in (4, 6, 8):
            raise ValueError(f"board size must be 4, 6 or 8, not {size}")
        self.size = size
        self.width = width = size + 1
        self.squares: tuple[Square, ...] = squares_of(size)
        self.bit: dict[Square, int] = {}
        self.square_of: dict[int, Square] = {}
        for r in range(size):
            for c in range(size):
                b = 1 << (r * width + c)
                self.bit[square(c, r)] = b
                self.square_of[b] = square(c, r)
        self.full = sum(self.bit.values())
        # Positive shift amounts; each is also used as a right shift for the
        # opposite direction: east, south-west, south, south-east.
        self.shifts = (1, width - 1, width, width + 1)
        # For each square (as a bit), the rays in the 8 directions that are long
        # enough to capture (two squares or more), as tuples of bits, nearest first.
        self.rays: dict[int, tuple[tuple[int, ...], ...]] = {}
        for r in range(size):
            for c in range(size):
                rays = []
                for dr in (-1, 0, 1):
                    for dc in (-1, 0, 1):
                        if dr == dc == 0:
                            continue
                        ray = []
                        rr, cc = r + dr, c + dc
                        while 0 <= rr < size and 0 <= cc < size:
                            ray.append(1 << (rr * width + cc))
                            rr, cc = rr + dr, cc + dc
                        if len(ray) >= 2:
                            rays.append(tuple(ray))
                self.rays[1 << (r * width + c)] = tuple(rays)

    def to_squares(self, bits: int) -> list[Square]:
        """The squares of the set bits of ``bits``, in square order."""
        square_of = self.square_of
        out = []
        while bits:
            b = bits & -bits
            out.append(square_of[b])
            bits ^= b
        out.sort()
        return out

    def from_squares(self, squares: list[Square] | tuple[Square, ...] | set[Square]) -> int:
        """The bitboard of ``squares``."""
        bit = self.bit
        bits = 0
        for sq in squares:
            bits |= bit[sq]
        return bits

    def neighbours(self, bits: int) -> int:
        """Every square that touches a square of ``bits`` (8 directions), on the board."""
        out = 0
        for s in self.shifts:
            out |= (bits << s) | (bits >> s)
        return out & self.full

    def capture_moves(self, own: int, opp: int, empty: int) -> int:
        """Empty squares from which a ball of ``own`` traps a run of ``opp`` balls.

        A run grows one step at a time and stops as soon as it meets a square that
        is not ``opp``, so the loop runs as often as the longest run, not n times.
        """
        moves = 0
        for s in self.shifts:
            x = (own << s) & opp
            while x:
                x <<= s
                moves |= x & empty
                x &= opp
            x = (own >> s) & opp
            while x:
                x >>= s
                moves |= x & empty
                x &= opp
        return moves

    def legal_moves(self, own: int, occupied: int) -> tuple[int, bool]:
        """The legal placements as a bitboard, and whether they capture.

        Capturing is compulsory: when any placement captures, only capturing
        placements are legal; otherwise every empty square touching a ball is.
        """
        empty = self.full & ~occupied
        moves = self.capture_moves(own, occupied & ~own, empty)
        if moves:
            return moves, True
        return self.neighbours(occupied) & empty, False

    def flips(self, bit: int, own: int, occupied: int) -> int:
        """The balls a new ball on ``bit`` rolls: every run of other colours that
        ends at the nearest own ball, with no empty square between."""
        flipped = 0
        for ray in self.rays[bit]:
            run = 0
            for b in ray:
                if own & b:
                    flipped |= run
                    break
                if not occupied & b:
                    break
                run |= b
        return flipped


@cache
def geometry(size: int) -> Geometry:
    """The shared :class:`Geometry` for boards of ``size`` x ``size``."""
    return Geometry(size)


def iter_bits(bits: int) -> list[int]:
    """The set bits of ``bits`` as single-bit ints, lowest first."""
    out = []
    while bits:
        b = bits & -bits
        out.append(b)
        bits ^= b
    return out


def popcount(bits: int) -> int:
    """The number of set bits."""
    return bits.bit_count()


def perft(geom: Geometry, boards: list[int], order: tuple[int, ...], turn: int, depth: int) -> int:
    """Leaf count of the move tree, making and unmaking every move in place.

    ``boards`` holds one bitboard per colour slot and is restored on return;
    ``order`` is the slot turn order and ``turn`` the index in it of the mover.
    """
    if depth == 0:
        return 1
    occupied = 0
    for b in boards:
        occupied |= b
    if occupied == geom.full:
        return 1  # A full board ends the game: the leaf is counted here.
    mover = order[turn]
    own = boards[mover]
    moves, _ = geom.legal_moves(own, occupied)
    nxt = turn + 1 if turn + 1 < len(order) else 0
    flips_of = geom.flips
    slots = range(len(boards))
    total = 0
    while moves:
        bit = moves & -moves
        moves ^= bit
        flipped = flips_of(bit, own, occupied)
        # Make: remember what each other colour lost, so unmake is exact.
        lost = []
        if flipped:
            for s in slots:
                taken = boards[s] & flipped
                if taken and s != mover:
                    boards[s] ^= taken
                    lost.append((s, taken))
        boards[mover] = own | bit | flipped
        if depth == 1:
            total += 1
        else:
            total += perft(geom, boards, order, nxt, depth - 1)
        # Unmake.
        boards[mover] = own
        for s, taken in lost:
            boards[s] |= taken
    return total
