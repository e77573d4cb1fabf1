"""Build the colour models' training data from synthetic renders.

``python -m rolit.calibration.train [SCENES] [-o calibration/data/default_cells.npz]``
renders scenes with small seeds (the accuracy benchmark uses seeds from
1,000,000 up, which this never sees), reads them with the live pipeline and
saves every cell's features with what is truly there.

``python -m rolit.calibration.train --camera [SCENES]`` does the same for the
calibrated model (``data/camera_cells.npz``): each scene is rendered twice
under the same conditions, first the start position, which calibrates a
profile, then a game position (sometimes with a hand), whose cells are read
against that profile.

Either then fits its model on the readings and stores it beside them
(``data/default_model.npz``, ``data/camera_model.npz``), which is what the
reader loads; ``--fit-only`` fits again on the readings already there, and
``--add`` (with ``--first-seed`` past the seeds already read) adds new readings to them.
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from rolit.engine import Position
from rolit.vision.dataset import HIDDEN, LABELS, random_board, random_hand_over, scenes, true_labels
from rolit.vision.features import features_from_lab
from rolit.vision.synthetic.params import RenderParams
from rolit.vision.synthetic.renderer import GroundTruth, render

from .bench import _truth_cells
from .camera_model import camera_features
from .errors import CalibrationError
from .model import ColourModel, training_data
from .reader import BoardReader, board_square, calibrate

__all__ = ["build", "build_camera", "camera_scene", "default_scene", "fit_shipped", "main"]

F64 = npt.NDArray[np.float64]

log = logging.getLogger(__name__)


def default_scene(seed: int) -> tuple[F64, npt.NDArray[np.int64]] | None:
    """One scene's features and true labels for the default model (``None`` when the board is not found)."""
    for scene in scenes([seed]):
        if scene.samples is None or scene.labels is None:
            return None
        return features_from_lab(scene.samples), _off_board_hidden(scene.labels)
    return None


def build(seeds: range, output: Path, jobs: int = 2) -> Counter[str]:
    """Render, read and label the scenes for the default model; save the features (float32) and labels."""
    return _build(default_scene, seeds, output, jobs)


def _build(
    scene: Callable[[int], tuple[F64, npt.NDArray[np.int64]] | None], seeds: range, output: Path, jobs: int
) -> Counter[str]:
    """Run ``scene`` on every seed in ``jobs`` processes; save the features (float32) and labels of those it read."""
    xs, ys = [], []
    with Pool(jobs) as pool:
        for result in pool.imap(scene, seeds, chunksize=4):
            if result is not None:
                xs.append(result[0])
                ys.append(result[1])
    x = np.vstack(xs).astype(np.float32)
    y = np.concatenate(ys).astype(np.int8)
    output.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(output, X=x, Y=y)
    log.info("%d of %d scenes read; %d cells", len(xs), len(seeds), len(y))
    return Counter(LABELS[int(v)] for v in y)


def _off_board_hidden(labels: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Cells a slipped grid reads off the board are labelled hidden: the model must not call the frame a cup."""
    return np.where(labels < 0, HIDDEN, labels)


CAMERA_SIZES = ((640, 360), (960, 540), (1280, 720))


def camera_scene(seed: int) -> tuple[F64, npt.NDArray[np.int64]] | None:
    """One calibrated scene's camera features and true labels (``None`` when the board is not found).

    The profile is calibrated in the true orientation: training must not learn
    from colour references a wrongly guessed turn would mislabel.
    """
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    variant = rng.choice(("classic", "classic", "quick6", "junior"))
    board = random_board(rng, variant)
    params = RenderParams.random(nrng, size=CAMERA_SIZES[rng.randrange(len(CAMERA_SIZES))], scene_seed=seed)
    hand = random_hand_over(board.size, rng, nrng) if rng.random() < 0.25 else None
    start_image, start_truth = render(Position.start(variant).board(), params, variant=variant)
    n = board.size
    finder = BoardReader(variant)
    found = finder.readings(start_image)
    if found is None:
        return None
    under = true_labels(found[0], start_truth, n)  # only to check the fit is on the board
    if np.any(under < 0):
        return None
    rotation = _true_rotation(found[0].corners, start_truth, n)
    try:
        profile = calibrate(start_image, variant, rotation=rotation)
    except CalibrationError:
        return None
    image, truth = render(board, params, variant=variant, hand=hand)
    reader = BoardReader(variant, profile=profile)
    found = reader.readings(image)
    if found is None:
        return None
    fit, samples, features, _ = found
    labels = true_labels(fit, truth, n)
    return camera_features(features, samples.top, profile), _off_board_hidden(labels)


def _true_rotation(corners: F64, truth: GroundTruth, n: int) -> int:
    """The quarter turns that map the found grid's cells onto the true board's squares."""
    under = _truth_cells(corners, truth, n)
    hits = [sum(board_square(i % n, i // n, n, r) == sq for i, sq in enumerate(under)) for r in range(4)]
    return int(np.argmax(hits))


def build_camera(seeds: range, output: Path, jobs: int = 2) -> Counter[str]:
    """Render, calibrate, read and label the scenes for the calibrated model; save features and labels."""
    return _build(camera_scene, seeds, output, jobs)


def add_readings(output: Path, new: Path) -> int:
    """Append the readings in ``new`` to those in ``output`` (which keeps them; ``new`` is removed); returns
    how many cells ``output`` then holds."""
    with np.load(output) as old, np.load(new) as more:
        x = np.vstack([old["X"], more["X"]]).astype(np.float32)
        y = np.concatenate([old["Y"], more["Y"]]).astype(np.int8)
    np.savez_compressed(output, X=x, Y=y)
    new.unlink()
    return len(y)


DATA = Path(__file__).parent / "data"
DEFAULT_OUTPUT = str(DATA / "default_cells.npz")
# How each shipped model is fitted. Early stopping (on a tenth of the cells held out at random) stopped the
# calibrated model at about 100 rounds; fitted for 400, and trusted from 99.5% (on 2,699 pairs; 99% on 3,806:
# reader.THRESHOLD_CALIBRATED), it left fewer cells unknown on development scenes and no more wrong.
FIT: dict[str, dict[str, Any]] = {
    "default": {"max_iter": 250, "early_stopping": "auto"},
    "camera": {"max_iter": 400, "early_stopping": False},
}


def fit_shipped(name: str, output: Path | None = None) -> Path:
    """Fit the model ``name`` (``default`` or ``camera``) on its shipped readings and store it (by default
    beside them); returns where."""
    x, y = training_data(f"{name}_cells.npz")
    t0 = time.perf_counter()
    model = ColourModel.fit(x, y, **FIT[name])
    out = output or DATA / f"{name}_model.npz"
    model.save(out)
    log.info("%s model fitted on %d cells in %.0f s, stored in %s", name, len(y), time.perf_counter() - t0, out)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rolit.calibration.train", description=__doc__)
    parser.add_argument("scenes", nargs="?", type=int, default=600)
    parser.add_argument("-o", "--output", default=DEFAULT_OUTPUT)
    parser.add_argument("--first-seed", type=int, default=None, help="default: 100, or 20000 with --camera")
    parser.add_argument("--camera", action="store_true", help="build the calibrated model's data (camera_cells.npz)")
    parser.add_argument("--jobs", type=int, default=2, help="processes rendering at once")
    parser.add_argument("--fit-only", action="store_true", help="only fit the model again on the shipped readings")
    parser.add_argument("--add", action="store_true", help="add the new readings to those in the output file")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    name = "camera" if args.camera else "default"
    if args.fit_only:
        print(f"stored in {fit_shipped(name)}")
        return 0
    t0 = time.perf_counter()
    if args.camera:
        first = 20_000 if args.first_seed is None else args.first_seed
        camera_output = DATA / "camera_cells.npz"
        output = Path(args.output) if args.output != DEFAULT_OUTPUT else camera_output
    else:
        first = 100 if args.first_seed is None else args.first_seed
        output = Path(args.output)
    if args.add and not output.exists():
        parser.error(f"--add: {output} does not exist")
    built = output.with_name(output.stem + ".new.npz") if args.add else output
    counts = (build_camera if args.camera else build)(range(first, first + args.scenes), built, args.jobs)
    print(f"{sum(counts.values())} cells in {time.perf_counter() - t0:.0f} s: {dict(counts)}")
    if args.add:
        print(f"{add_readings(output, built)} cells in {output}")
    if output.resolve() == (DATA / f"{name}_cells.npz").resolve():
        print(f"stored in {fit_shipped(name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
