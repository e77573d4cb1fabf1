"""Compare two per-scene runs of the vision bench, for development.

``python tools/compare_scenes.py BEFORE AFTER``: each is one or more files
(comma-separated) written by ``rolit bench vision --per-scene ... --json``,
e.g. the two halves of a range run on two cores. Prints, per reader, the
boards found and the summed counts before and after, then every scene whose
read changed: ``[cells wrong, unknown, grid error]`` or ``None`` (not found).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from rolit.calibration.bench import MODES, compare_scenes


def _load(spec: str) -> list[dict[str, Any]]:
    scenes: list[dict[str, Any]] = []
    for name in spec.split(","):
        with open(name, encoding="utf-8") as f:
            scenes.extend(json.load(f)["scenes"])
    return scenes


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    diff = compare_scenes(_load(argv[0]), _load(argv[1]))
    print(f"{diff['scenes']} scenes; calibrations refused {diff['calibration_refused'][0]} -> "
          f"{diff['calibration_refused'][1]}")  # fmt: skip
    for mode in MODES:
        if mode in diff:
            print(f"{mode:13s} " + ", ".join(f"{key} {a} -> {b}" for key, (a, b) in diff[mode].items()))
    for scene, modes in diff["changed"].items():
        for mode, (a, b) in modes.items():
            print(f"  scene {scene} {mode}: {a} -> {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
