"""Building the colour models' readings from renders (``python -m rolit.calibration.train``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rolit.calibration.train import add_readings, main


def test_new_readings_are_added_to_those_kept(tmp_path: Path) -> None:
    kept, new = tmp_path / "cells.npz", tmp_path / "cells.new.npz"
    np.savez_compressed(kept, X=np.zeros((3, 4), np.float32), Y=np.array([0, 1, 2], np.int8))
    np.savez_compressed(new, X=np.ones((2, 4), np.float32), Y=np.array([3, 4], np.int8))
    assert add_readings(kept, new) == 5
    assert not new.exists()
    with np.load(kept) as data:
        assert data["X"].shape == (5, 4) and data["X"][3:].min() == 1.0
        assert data["Y"].tolist() == [0, 1, 2, 3, 4]


def test_the_training_command_adds_the_scenes_it_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cells = tmp_path / "cells.npz"
    with pytest.raises(SystemExit):
        main(["1", "-o", str(cells), "--add"])  # nothing to add to yet
    assert "does not exist" in capsys.readouterr().err
    assert main(["1", "--first-seed", "100", "-o", str(cells), "--jobs", "1"]) == 0
    with np.load(cells) as data:
        first = len(data["Y"])
    assert first > 0
    assert main(["1", "--first-seed", "101", "-o", str(cells), "--jobs", "1", "--add"]) == 0
    with np.load(cells) as data:
        assert len(data["Y"]) > first
    assert not (tmp_path / "cells.new.npz").exists()
