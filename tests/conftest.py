"""Shared test helpers."""

from __future__ import annotations

import sys
from pathlib import Path

# The reference implementation lives beside the tests, not in the package.
sys.path.insert(0, str(Path(__file__).parent))
