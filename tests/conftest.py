"""Shared test helpers."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _without_avx512() -> None:
    """Run numpy's and OpenBLAS's AVX2 code where the CPU has AVX-512 (before either is imported).

    The vision tests pin what the grid finder does on particular scenes, measured on CPUs with AVX2 and no
    AVX-512. numpy's AVX-512 paths round differently, and the finder, a chain of fits, then ends elsewhere on a
    few scenes: on an AVX-512 EPYC four such tests failed (scenes 45, 122, 155, 317), and pass so. OpenCV keeps
    its AVX-512 code: turned off too (OPENCV_CPU_DISABLE=AVX512-SKX), two other tests failed (scene 122 still and
    bumped). Set the variables beforehand to test other paths.
    """
    try:
        cpu = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return
    if " avx512f" in cpu:
        os.environ.setdefault("NPY_DISABLE_CPU_FEATURES", "X86_V4 AVX512_ICL AVX512_SPR")
        os.environ.setdefault("OPENBLAS_CORETYPE", "Haswell")


_without_avx512()

# The reference implementation lives beside the tests, not in the package.
sys.path.insert(0, str(Path(__file__).parent))


# Lines a test wants shown in the run's summary (figures such as the referee's
# mistake counts), printed once at the end by pytest_terminal_summary below.
REPORT_LINES: list[str] = []


def pytest_terminal_summary(terminalreporter) -> None:  # type: ignore[no-untyped-def]
    if REPORT_LINES:
        terminalreporter.section("figures")
        for line in REPORT_LINES:
            terminalreporter.write_line(line)


# --- The table page (rolit.webui): apps and clients for the Flask test client --------------

import pytest  # noqa: E402


@pytest.fixture
def make_app(tmp_path):  # type: ignore[no-untyped-def]
    """A factory of table-page apps with a temporary instance folder; closed after the test."""
    from rolit.webui import create_app

    apps = []

    def make(**config):  # type: ignore[no-untyped-def]
        settings = {"TESTING": True, "INSTANCE_PATH": str(tmp_path / "instance"), "SOURCE": "manual", **config}
        app = create_app(settings)
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["rolit"].close()


@pytest.fixture
def app(make_app):  # type: ignore[no-untyped-def]
    """A table page in manual mode (no camera), quick6 with four players."""
    return make_app(VARIANT="quick6")


@pytest.fixture
def client(app):  # type: ignore[no-untyped-def]
    """The Flask test client of :func:`app` (sending the page's CSRF token)."""
    from helpers import make_client

    return make_client(app)
