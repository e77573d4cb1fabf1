"""The examples in the docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ("rolit.engine", "rolit.vision", "rolit.vision.synthetic", "rolit.calibration", "rolit.webui",
            "rolit.webui.views")  # fmt: skip


def _modules() -> list[str]:
    """Every package above and its modules (not ``__main__``, which runs the command line)."""
    names = list(PACKAGES)
    for package in PACKAGES:
        path = importlib.import_module(package).__path__
        names += [f"{package}.{info.name}" for info in pkgutil.iter_modules(path) if info.name != "__main__"]
    return sorted(set(names))


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
