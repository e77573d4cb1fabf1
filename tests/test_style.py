"""The code is ruff- and mypy-clean (the project's style gate, run with the tests)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["engine", "vision", "calibration", "webui"]


def test_ruff() -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    proc = subprocess.run([ruff, "check", *PACKAGES, "tests"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict(tmp_path: Path) -> None:
    # mypy cannot follow setuptools' package-dir mapping of an editable install,
    # so give it the installed layout (rolit/engine, ...) as links to the folders.
    (tmp_path / "rolit").mkdir()
    for package in PACKAGES:
        (tmp_path / "rolit" / package).symlink_to(ROOT / package, target_is_directory=True)
    args = [arg for package in PACKAGES for arg in ("-p", f"rolit.{package}")]
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), *args],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(tmp_path)},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
