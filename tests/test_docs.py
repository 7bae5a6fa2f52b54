"""The docs/ tutorial run as doctests (every module's examples: tests/test_doctests.py)."""

import doctest
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


@pytest.mark.parametrize("name", sorted(p.name for p in DOCS.glob("*.md")))
def test_tutorial_runs_as_doctests(name):
    result = doctest.testfile(
        str(DOCS / name), module_relative=False, optionflags=FLAGS, verbose=False
    )
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} example(s) failed in docs/{name}"
