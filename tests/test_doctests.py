"""The examples in the docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import rolit.engine

MODULES = [*sorted(f"rolit.engine.{info.name}" for info in pkgutil.iter_modules(rolit.engine.__path__)), "rolit.engine"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
