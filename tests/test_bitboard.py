"""The bitboard core against plain square-by-square logic."""

from __future__ import annotations

import random

from rolit.engine.bitboard import geometry, iter_bits, popcount


def test_layout_has_a_spare_column_so_shifts_never_wrap() -> None:
    g = geometry(8)
    assert g.width == 9 and len(g.bit) == 64 and popcount(g.full) == 64
    h1 = g.bit[7]  # right edge of the top row
    assert g.neighbours(h1) == g.bit[6] | g.bit[14] | g.bit[15]


def test_neighbours_and_rays_match_coordinates() -> None:
    for size in (4, 6, 8):
        g = geometry(size)
        for sq, bit in g.bit.items():
            r, c = divmod(sq, 8)
            expected = {
                (r + dr) * 8 + (c + dc)
                for dr in (-1, 0, 1)
                for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= r + dr < size and 0 <= c + dc < size
            }
            assert set(g.to_squares(g.neighbours(bit))) == expected
            for ray in g.rays[bit]:
                assert len(ray) >= 2


def test_capture_moves_match_flips_on_random_boards() -> None:
    rng = random.Random(7)
    for size in (4, 6, 8):
        g = geometry(size)
        for _ in range(300):
            boards = [0, 0, 0, 0]
            for bit in g.bit.values():
                k = rng.randrange(6)
                if k < 4:
                    boards[k] |= bit
            occ = boards[0] | boards[1] | boards[2] | boards[3]
            own = boards[rng.randrange(4)]
            captures = g.capture_moves(own, occ & ~own, g.full & ~occ)
            slow = 0
            for b in iter_bits(g.full & ~occ):
                if g.flips(b, own, occ):
                    slow |= b
            assert captures == slow
            moves, capturing = g.legal_moves(own, occ)
            assert capturing == bool(slow)
            assert moves == (slow or g.neighbours(occ) & g.full & ~occ)
