"""The docs/ tutorial and the doctested examples of nn, optim, save/load and the bench CLI."""

import doctest
import importlib
from pathlib import Path

import pytest

import strided

DOCS = Path(__file__).resolve().parent.parent / "docs"
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS

MODULES = [
    "strided.nn.module",
    "strided.nn.parameter",
    "strided.nn.layers",
    "strided.nn.container",
    "strided.nn.init",
    "strided.nn.functional.activation",
    "strided.nn.functional.conv",
    "strided.nn.functional.linear",
    "strided.nn.functional.loss",
    "strided.nn.functional.normalization",
    "strided.optim.sgd",
    "strided.optim.adam",
    "strided.serialization",
]


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
