"""Tests for strided/_explain.py: the view arithmetic helpers and explain.

The module is loaded from its file and fed a small fake tensor (tests/fake_tensor.py), so these
tests run before, and independently of, the compiled package.
"""

import doctest

import numpy as np
import pytest
from fake_tensor import FakeTensor, arange, load

exp = load("_explain")


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def test_element_offset():
    assert exp.element_offset((1, 2), (3, 1), 0) == 5
    assert exp.element_offset((1, 2), (1, 2), 1) == 6
    assert exp.element_offset((3,), (-1,), 3) == 0
    assert exp.element_offset((5, 1), (0, 1), 2) == 3
    assert exp.element_offset((), (), 4) == 4


def test_element_offset_length_mismatch():
    with pytest.raises(ValueError, match="has 1 entries but strides"):
        exp.element_offset((1,), (3, 1), 0)


@pytest.mark.parametrize(
    "shape, strides",
    [((), ()), ((5,), (1,)), ((2, 3, 4), (12, 4, 1)), ((2, 0, 3), (3, 3, 1)), ((1, 1), (1, 1))],
)
def test_contiguous_strides(shape, strides):
    assert exp.contiguous_strides(shape) == strides


@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (3, 1, 2)])
def test_contiguous_strides_match_numpy(shape):
    itemsize = 8
    expected = np.empty(shape).strides
    assert tuple(s * itemsize for s in exp.contiguous_strides(shape)) == expected


def test_cell_span():
    assert exp.cell_span((2, 3), (3, 1), 0) == (0, 5)
    assert exp.cell_span((2, 3), (1, 2), 1) == (1, 6)
    assert exp.cell_span((4,), (-1,), 3) == (0, 3)
    assert exp.cell_span((2, 3), (0, 1), 0) == (0, 2)
    assert exp.cell_span((), (), 7) == (7, 7)
    assert exp.cell_span((0, 3), (3, 1), 0) is None


def test_cells_touched():
    assert exp.cells_touched((2, 2), (1, 2), 0) == {
        0: [(0, 0)],
        1: [(1, 0)],
        2: [(0, 1)],
        3: [(1, 1)],
    }
    assert exp.cells_touched((3,), (-2,), 4) == {0: [(2,)], 2: [(1,)], 4: [(0,)]}
    assert exp.cells_touched((2, 3), (0, 1), 0)[1] == [(0, 1), (1, 1)]
    assert exp.cells_touched((), (), 5) == {5: [()]}
    assert exp.cells_touched((0, 3), (3, 1), 0) == {}


def test_cells_touched_is_bounded():
    cells = exp.cells_touched((100, 100), (100, 1), 0)
    assert sum(len(v) for v in cells.values()) == 4096
    assert list(cells) == list(range(4096))
    assert len(exp.cells_touched((10,), (1,), 0, limit=3)) == 3


def test_window_hits_agree_with_cells_touched():
    # The pruned search behind the picture finds exactly what brute force finds.
    cases = [
        ((2, 3), (3, 1), 0),
        ((2, 3), (1, 2), 1),
        ((3, 4), (-4, 1), 8),
        ((4, 3), (1, 4), 0),
        ((3, 3), (1, 1), 0),
        ((2, 2, 3), (6, -3, 2), 3),
        ((5,), (-3,), 14),
    ]
    for shape, strides, offset in cases:
        for lo, hi in [(0, 32), (2, 5), (7, 40)]:
            brute = {c: sorted(v) for c, v in exp.cells_touched(shape, strides, offset).items()}
            brute = {c: v for c, v in brute.items() if lo <= c < hi}
            hits, complete = exp._window_hits(shape, strides, offset, lo, hi)
            assert complete
            assert {c: sorted(v) for c, v in hits.items()} == brute, (shape, strides, lo)


# ---------------------------------------------------------------------------------------------
# explain
# ---------------------------------------------------------------------------------------------


def picture_rows(text):
    """The labels of the picture, cell by cell, as a dict cell -> label."""
    cells, labels = [], []
    for line in text.splitlines():
        if line.startswith("cells:"):
            cells += [int(c) for c in line.split()[1:]]
        elif line.startswith("index:"):
            labels += line.split()[1:]
    assert len(cells) == len(labels)
    return dict(zip(cells, labels, strict=True))


def test_explain_contiguous():
    x = FakeTensor.of(np.arange(6, dtype=np.float32).reshape(2, 3))
    text = exp.explain(x)
    assert text.splitlines()[0] == (
        "tensor of shape (2, 3), dtype float32 (4 bytes per element) on cpu"
    )
    assert "storage: 6 cells (24 bytes); this tensor is not a view" in text
    assert "element [i, j] lives at storage cell 0 + 3*i + 1*j" in text
    assert picture_rows(text) == {0: "00", 1: "01", 2: "02", 3: "10", 4: "11", 5: "12"}
    assert "contiguous: yes (row-major: strides (3, 1))" in text
    assert "footprint: spans cells 0..5, 24 of the storage's 24 bytes; 6 elements x 4 = 24" in text
    assert all(len(line) <= 96 for line in text.splitlines())
    assert not any(line != line.rstrip() for line in text.splitlines())


def docstring_output(example):
    """The expected output of the doctest ``>>> print(explain(<example>))`` in explain."""
    lines = exp.explain.__doc__.splitlines()
    first = lines.index(f"    >>> print(explain({example}))") + 1
    last = next((i for i in range(first, len(lines)) if not lines[i].strip()), len(lines))
    return "\n".join(line[4:] for line in lines[first:last])


def test_explain_transposed_offset_view():
    # strided.arange(8, dtype=strided.float32)[1:7].reshape(3, 2).T, as in the docstring
    x = arange(8, "float32")
    y = x.view((2, 3), (1, 2), 1)
    text = exp.explain(y)
    assert text == docstring_output("y")
    assert picture_rows(text) == {
        0: ".", 1: "00", 2: "10", 3: "01", 4: "11", 5: "02", 6: "12", 7: ".",
    }  # fmt: skip
    assert "(index 12 = element [1, 2]; . = not in this view)" in text
    assert "contiguous: no (row-major strides would be (3, 1)); .permute(1, 0) of it is" in text


def test_explain_expanded_matches_docstring():
    y = arange(3, "int64").view((2, 3), (0, 1), 0)
    example = "strided.broadcast_to(strided.arange(3), (2, 3))"
    assert exp.explain(y) == docstring_output(example)


def test_explain_stepped():
    y = arange(10).view((2, 2), (5, 2), 0)  # x.reshape(2, 5)[:, ::2][:, :2]
    text = exp.explain(y)
    assert picture_rows(text) == {
        0: "00", 1: ".", 2: "01", 3: ".", 4: ".",
        5: "10", 6: ".", 7: "11", 8: ".", 9: ".",
    }  # fmt: skip
    assert "contiguous: no (row-major strides would be (2, 1))" in text
    assert "permute" not in text
    assert "spans cells 0..7, 64 of the storage's 80 bytes" in text
    assert "gaps: 4 cells inside that span are not in the view" in text


def test_explain_negative_stride():
    y = arange(4).view((4,), (-1,), 3)
    text = exp.explain(y)
    assert "element [i] lives at storage cell 3 - 1*i" in text
    assert picture_rows(text) == {0: "3", 1: "2", 2: "1", 3: "0"}
    assert "stride -1 along dim 0: walking backwards, as x[::-1] does" in text
    z = FakeTensor.of(np.zeros((2, 3))).view((2, 3), (3, -1), 2)
    assert "stride -1 along dim 1: walking backwards, as x[:, ::-1] does" in exp.explain(z)


def test_explain_expanded():
    y = arange(3, "int64").view((2, 3), (0, 1), 0)
    text = exp.explain(y)
    assert picture_rows(text) == {0: "*0", 1: "*1", 2: "*2"}
    assert "* = every position along a stride-0 dim" in text
    assert "stride 0 along dim 0: its 2 positions share the same cells" in text
    assert "3 cells are shared by several elements (stride 0: an expanded view, read-only)" in text
    assert "6 elements x 8 = 48 bytes" in text


def test_explain_overlapping_strides():
    y = arange(6).view((3, 3), (1, 1), 0)  # as_strided: a sliding window
    text = exp.explain(y)
    rows = picture_rows(text)
    assert rows == {0: "00", 1: "2x", 2: "3x", 3: "2x", 4: "22", 5: "."}
    assert "3 cells are shared by several elements (overlapping strides" in text


def test_explain_size_one_dims():
    y = arange(3).view((3, 1), (1, 7), 0)
    text = exp.explain(y)
    assert "dim 1 has size 1: its index is always 0, so its stride 7 is unused" in text
    assert "contiguous: yes" in text


def test_explain_0d():
    y = arange(5).view((), (), 3)
    text = exp.explain(y)
    assert "offset 3, 0-d (no strides): its one element lives at storage cell 3" in text
    assert picture_rows(text) == {0: ".", 1: ".", 2: ".", 3: "()", 4: "."}
    assert "() = the one element of a 0-d tensor" in text


def test_explain_empty():
    y = FakeTensor.of(np.zeros((0, 3)))
    text = exp.explain(y)
    assert "it has no elements, so it uses no cells" in text
    assert "cells:" not in text
    assert "footprint: no elements" in text


def test_explain_large_storage_shows_a_window():
    x = arange(1000)
    text = exp.explain(x)
    rows = picture_rows(text)
    assert list(rows) == list(range(32))
    assert rows[31] == "31"
    assert "showing cells 0..31 of 1000; the other 968 are left out" in text
    assert all(len(line) <= 96 for line in text.splitlines())
    # A view far into the storage is drawn from its first cell.
    far = x.view((10, 10), (10, 1), 500)
    rows = picture_rows(exp.explain(far))
    assert rows[500] == "00" and rows[531] == "31"


def test_explain_huge_view_is_fast_and_compact():
    buffer = np.zeros(1, dtype=np.float32)
    big = FakeTensor(buffer, (10**6, 10**6), (0, 0), 0)  # one cell, 10**12 elements
    text = exp.explain(big)
    assert picture_rows(text) == {0: "*,*"}
    many = FakeTensor(np.zeros(10**6), (1000, 1000), (1000, 1), 0)
    rows = picture_rows(exp.explain(many))
    assert rows[0] == "0,0" and rows[31] == "0,31"
    assert "index 0,31 = element [0, 31]" in exp.explain(many)


def test_explain_many_dims_keeps_index_compact():
    y = FakeTensor.of(np.zeros((2,) * 6))
    text = exp.explain(y)
    assert "element [i0, i1, i2, i3, i4, i5] lives at storage" in text
    assert "\n    cell 0 + 32*i0 + 16*i1 + 8*i2 + 4*i3 + 2*i4 + 1*i5\n" in text  # wrapped
    assert picture_rows(text)[5] == "000101"


def test_explain_provenance_and_autograd():
    y = FakeTensor.of(np.zeros(4))
    y._provenance = "reshape copied: the strides (1, 3) cannot be viewed as shape (6,)"
    y.requires_grad = True
    text = exp.explain(y)
    assert "made by: reshape copied: the strides (1, 3)" in text
    assert "autograd: a leaf that requires grad" in text


def test_explain_never_reads_data():
    y = arange(6).view((2, 3), (3, 1), 0)
    y.numpy = None  # explain must work from shape, strides and offset alone
    y.device = "cuda:0"
    assert "on cuda:0" in exp.explain(y)


@pytest.mark.parametrize(
    "shape, strides, offset, ncells",
    [
        ((2, 3), (3, 1), 0, 6),
        ((2, 3), (1, 2), 1, 8),
        ((3, 4), (-4, 1), 8, 12),
        ((3, 3), (1, 1), 0, 6),
        ((2, 3), (0, 1), 0, 3),
        ((2,) * 8, tuple(2**d for d in range(8)), 0, 256),
        ((30, 40, 50), (1, 30, 1200), 0, 60000),
        ((), (), 0, 1),
    ],
)
def test_explain_lines_are_short_and_clean(shape, strides, offset, ncells):
    y = arange(ncells).view(shape, strides, offset)
    for line in exp.explain(y).splitlines():
        assert len(line) <= (88 if line.startswith(("cells:", "index:")) else 92), line
        assert line == line.rstrip()
        assert not line.endswith(","), "wrapping split a tuple"


@pytest.mark.parametrize(
    "name", ["element_offset", "contiguous_strides", "cell_span", "cells_touched"]
)
def test_helper_doctests(name):
    func = getattr(exp, name)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for test in finder.find(func, name, globs={name: func}):
        runner.run(test)
    assert runner.failures == 0 and runner.tries > 0
