"""The docs/ tutorial and the examples in every Python module's docstrings, run as doctests."""

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import strided

DOCS = Path(__file__).resolve().parent.parent / "docs"
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _python_modules():
    """Every Python module of the package (its examples are doctests, wherever they are; a
    hand-kept list let the linalg examples drift from what they print)."""
    names = []
    for info in pkgutil.walk_packages(strided.__path__, "strided."):
        spec = importlib.util.find_spec(info.name)
        if spec is not None and (spec.origin or "").endswith(".py"):
            names.append(info.name)
    return sorted(names)


MODULES = _python_modules()


@pytest.mark.parametrize("name", sorted(p.name for p in DOCS.glob("*.md")))
def test_tutorial_runs_as_doctests(name):
    result = doctest.testfile(
        str(DOCS / name), module_relative=False, optionflags=FLAGS, verbose=False
    )
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} example(s) failed in docs/{name}"


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    module = importlib.import_module(name)
    try:
        result = doctest.testmod(module, optionflags=FLAGS, verbose=False)
    finally:
        strided.set_default_dtype(strided.float64)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
