"""A deliberately simple, independent implementation of the rules for cross-checks.

It works on a plain list-of-lists grid with no bit tricks, so it shares no code
(and no bugs) with rolit.engine's bitboards.
"""

from __future__ import annotations

DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]

Grid = list[list[int | None]]  # colour slot 0..3 or None


def start_grid(n: int) -> Grid:
    grid: Grid = [[None] * n for _ in range(n)]
    lo = n // 2 - 1
    grid[lo][lo], grid[lo][lo + 1], grid[lo + 1][lo + 1], grid[lo + 1][lo] = 0, 1, 2, 3
    return grid


def flips(grid: Grid, r: int, c: int, colour: int) -> list[tuple[int, int]]:
    n = len(grid)
    out = []
    for dr, dc in DIRECTIONS:
        run = []
        rr, cc = r + dr, c + dc
        while 0 <= rr < n and 0 <= cc < n and grid[rr][cc] is not None and grid[rr][cc] != colour:
            run.append((rr, cc))
            rr, cc = rr + dr, cc + dc
        if run and 0 <= rr < n and 0 <= cc < n and grid[rr][cc] == colour:
            out.extend(run)
    return sorted(out)


def touches(grid: Grid, r: int, c: int) -> bool:
    n = len(grid)
    return any(
        0 <= r + dr < n and 0 <= c + dc < n and grid[r + dr][c + dc] is not None for dr, dc in DIRECTIONS
    )


def legal(grid: Grid, colour: int) -> list[tuple[int, int]]:
    n = len(grid)
    empties = [(r, c) for r in range(n) for c in range(n) if grid[r][c] is None]
    capturing = [(r, c) for r, c in empties if flips(grid, r, c, colour)]
    if capturing:
        return capturing
    return [(r, c) for r, c in empties if touches(grid, r, c)]


def play(grid: Grid, r: int, c: int, colour: int) -> Grid:
    new = [row[:] for row in grid]
    for rr, cc in flips(grid, r, c, colour):
        new[rr][cc] = colour
    new[r][c] = colour
    return new


def perft(grid: Grid, order: list[int], turn: int, depth: int) -> int:
    if depth == 0:
        return 1
    moves = legal(grid, order[turn])
    if not moves:
        return 1  # full board
    nxt = (turn + 1) % len(order)
    return sum(perft(play(grid, r, c, order[turn]), order, nxt, depth - 1) for r, c in moves)
