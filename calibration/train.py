"""Build the default colour model's training data from synthetic renders.

``python -m rolit.calibration.train [SCENES] [-o calibration/data/default_cells.npz]``
renders scenes with small seeds (the accuracy benchmark uses seeds from
1,000,000 up, which this never sees), reads them with the live pipeline and
saves every cell's features with what is truly there.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rolit.vision.dataset import LABELS, scenes
from rolit.vision.features import features_from_lab

__all__ = ["build", "main"]

log = logging.getLogger(__name__)


def build(seeds: range, output: Path) -> Counter[str]:
    """Render, read and label the scenes; save the features (float32) and labels."""
    xs, ys = [], []
    found = 0
    for scene in scenes(seeds):
        if scene.samples is None or scene.labels is None:
            continue
        found += 1
        keep = scene.labels >= 0
        xs.append(features_from_lab(scene.samples)[keep])
        ys.append(scene.labels[keep])
    x = np.vstack(xs).astype(np.float32)
    y = np.concatenate(ys).astype(np.int8)
    output.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(output, X=x, Y=y)
    log.info("%d of %d scenes found; %d cells", found, len(seeds), len(y))
    return Counter(LABELS[int(v)] for v in y)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rolit.calibration.train", description=__doc__)
    parser.add_argument("scenes", nargs="?", type=int, default=600)
    parser.add_argument("-o", "--output", default=str(Path(__file__).parent / "data" / "default_cells.npz"))
    parser.add_argument("--first-seed", type=int, default=100)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    t0 = time.perf_counter()
    counts = build(range(args.first_seed, args.first_seed + args.scenes), Path(args.output))
    print(f"{sum(counts.values())} cells in {time.perf_counter() - t0:.0f} s: {dict(counts)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
