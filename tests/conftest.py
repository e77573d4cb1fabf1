"""Shared test helpers."""

from __future__ import annotations

import sys
from pathlib import Path

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
