"""Labelled cell readings from synthetic renders, for training and measuring the colour model.

Each scene is a random position of a random edition under random conditions
(:meth:`RenderParams.random`), sometimes with a hand over the board. The grid
is found by the same :class:`~rolit.vision.locate.Locator` the live reader
uses, and each cell it reads is labelled with what is truly under it (found
through the render's exact ground truth), so the model learns from readings as
they really come out of the pipeline, misalignments included.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from rolit.engine import Board, Colour, Game, Position

from .features import CellSamples, sample_cells
from .locate import GridFit, Locator, apply_homography, grid_homography
from .synthetic.geometry import BoardGeometry
from .synthetic.hand import Hand, random_hand
from .synthetic.params import RenderParams
from .synthetic.renderer import GroundTruth, render

__all__ = ["EMPTY", "HIDDEN", "LABELS", "Scene", "label_of", "random_board", "random_hand_over", "scenes",
           "true_labels"]

log = logging.getLogger(__name__)

F64 = npt.NDArray[np.float64]
U8 = npt.NDArray[np.uint8]

EMPTY = 0
HIDDEN = 6
# Label -> what it means: 0 empty, 1..5 the colours by Colour value + 1, 6 hidden by a hand.
LABELS = ("empty", "red", "yellow", "green", "blue", "grey", "hidden")


def label_of(cell: Colour | None) -> int:
    """The label of a board cell."""
    return EMPTY if cell is None else int(cell) + 1


@dataclass(frozen=True)
class Scene:
    """One render with what the pipeline made of it."""

    seed: int
    variant: str
    image: U8
    truth: GroundTruth
    params: RenderParams
    fit: GridFit | None
    samples: CellSamples | None
    labels: npt.NDArray[np.int64] | None  # per detected cell (row-major), or None when not found


def true_labels(fit: GridFit, truth: GroundTruth, n: int) -> npt.NDArray[np.int64]:
    """What is truly under each cell the fit reads (row-major in the fit's own orientation)."""
    g = np.arange(n, dtype=np.float64) + 0.5
    cu, cv = np.meshgrid(g, g)
    image_pts = apply_homography(fit.homography, np.c_[cu.ravel(), cv.ravel()])
    true_h = grid_homography(np.asarray(truth.corners, np.float64), n)
    uv = apply_homography(np.linalg.inv(true_h), image_pts)
    out = np.empty(len(uv), np.int64)
    for i, (u, v) in enumerate(uv):
        col, row = int(np.floor(u)), int(np.floor(v))
        if not (0 <= col < n and 0 <= row < n):
            out[i] = -1  # read off the board: the fit is wrong there
            continue
        sq = row * 8 + col
        cell = truth.board[sq]
        out[i] = HIDDEN if sq in truth.hidden else label_of(cell if isinstance(cell, Colour) else None)
    return out


def random_hand_over(size: int, rng: random.Random, nrng: np.random.Generator) -> Hand:
    """A hand reaching for a random cell of a ``size`` x ``size`` board from any side."""
    target = BoardGeometry(size).cell_centre(rng.randrange(size) * 8 + rng.randrange(size))
    return random_hand(nrng, target, float(nrng.uniform(0, 360)))


def random_board(rng: random.Random, variant: str) -> Board:
    """A position from a random game of ``variant``, anywhere from the start to the end."""
    game = Game(variant)
    for _ in range(rng.randint(0, game.variant.moves_per_game)):
        game.push(rng.choice(game.legal_moves()))
    return game.position.board()


def scenes(
    seeds: range | list[int],
    size: tuple[int, int] = (960, 540),
    hand_rate: float = 0.25,
    variants: tuple[str, ...] = ("classic", "classic", "quick6", "junior"),
    start_rate: float = 0.1,
) -> Iterator[Scene]:
    """Render and read one scene per seed."""
    for seed in seeds:
        rng = random.Random(seed)
        nrng = np.random.default_rng(seed)
        variant = rng.choice(variants)
        board = Position.start(variant).board() if rng.random() < start_rate else random_board(rng, variant)
        params = RenderParams.random(nrng, size=size, scene_seed=seed)
        hand = random_hand_over(board.size, rng, nrng) if rng.random() < hand_rate else None
        image, truth = render(board, params, variant=variant, hand=hand)
        n = board.size
        fit = Locator(n).locate(image)
        if fit is None:
            yield Scene(seed, variant, image, truth, params, None, None, None)
            continue
        samples = sample_cells(image, fit.homography, n)
        yield Scene(seed, variant, image, truth, params, fit, samples, true_labels(fit, truth, n))

