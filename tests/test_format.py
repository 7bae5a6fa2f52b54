"""Tests for strided/_format.py: the view arithmetic helpers, repr and explain.

The module is loaded from its file and fed a small fake tensor (a NumPy buffer seen through
``as_strided``), so these tests run before, and independently of, the compiled package.
"""

import doctest
import importlib.util
import pathlib

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

_PATH = pathlib.Path(__file__).resolve().parents[1] / "strided" / "_format.py"
_spec = importlib.util.spec_from_file_location("_format_under_test", _PATH)
fmt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fmt)


# ---------------------------------------------------------------------------------------------
# A fake tensor: the attributes _format reads, and nothing else
# ---------------------------------------------------------------------------------------------


class FakeDType:
    def __init__(self, name):
        self.numpy = np.dtype(name)
        self.name = name
        self.itemsize = self.numpy.itemsize
        self.kind = self.numpy.kind


class FakeStorage:
    def __init__(self, nbytes):
        self.nbytes = nbytes


class FakeGradFn:
    def __init__(self, name):
        self._name = name

    def name(self):
        return self._name


class FakeTensor:
    """A view (shape, strides, offset) onto ``buffer``, a 1-d NumPy array standing for storage."""

    def __init__(self, buffer, shape, strides, offset=0, base=None, device="cpu"):
        self._buffer = buffer
        self.shape = tuple(shape)
        self.ndim = len(self.shape)
        self._strides = tuple(strides)
        self._offset = offset
        self._base = base
        self.dtype = FakeDType(buffer.dtype.name)
        self.device = device
        self.requires_grad = False
        self.grad_fn = None

    @classmethod
    def of(cls, array):
        """A contiguous tensor owning a copy of ``array``."""
        array = np.array(array, order="C")  # not ascontiguousarray: it makes 0-d 1-d
        return cls(array.reshape(-1), array.shape, fmt.contiguous_strides(array.shape))

    def view(self, shape, strides, offset=0):
        return FakeTensor(self._buffer, shape, strides, offset, base=self._base or self)

    def stride(self):
        return self._strides

    def storage_offset(self):
        return self._offset

    def untyped_storage(self):
        return FakeStorage(self._buffer.nbytes)

    def numel(self):
        return int(np.prod(self.shape))

    def is_contiguous(self):
        # PyTorch's rule: empty tensors are contiguous, size-1 dims' strides do not matter.
        if self.numel() == 0:
            return True
        wanted = fmt.contiguous_strides(self.shape)
        return all(
            n == 1 or s == w for n, s, w in zip(self.shape, self._strides, wanted, strict=True)
        )

    def numpy(self):
        if self.device != "cpu":
            raise TypeError("can't convert a cuda tensor to numpy: use .cpu() first")
        itemsize = self._buffer.itemsize
        return as_strided(
            self._buffer[self._offset :],
            shape=self.shape,
            strides=[s * itemsize for s in self._strides],
        )

    def cpu(self):
        return FakeTensor(self._buffer, self.shape, self._strides, self._offset, self._base)


@pytest.fixture(autouse=True)
def default_float64(monkeypatch):
    monkeypatch.setattr(fmt, "_default_float_name", lambda: "float64")


def arange(n, dtype="float64"):
    return FakeTensor.of(np.arange(n, dtype=dtype))


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def test_element_offset():
    assert fmt.element_offset((1, 2), (3, 1), 0) == 5
    assert fmt.element_offset((1, 2), (1, 2), 1) == 6
    assert fmt.element_offset((3,), (-1,), 3) == 0
    assert fmt.element_offset((5, 1), (0, 1), 2) == 3
    assert fmt.element_offset((), (), 4) == 4


def test_element_offset_length_mismatch():
    with pytest.raises(ValueError, match="has 1 entries but strides"):
        fmt.element_offset((1,), (3, 1), 0)


@pytest.mark.parametrize(
    "shape, strides",
    [((), ()), ((5,), (1,)), ((2, 3, 4), (12, 4, 1)), ((2, 0, 3), (3, 3, 1)), ((1, 1), (1, 1))],
)
def test_contiguous_strides(shape, strides):
    assert fmt.contiguous_strides(shape) == strides


@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (3, 1, 2)])
def test_contiguous_strides_match_numpy(shape):
    itemsize = 8
    expected = np.empty(shape).strides
    assert tuple(s * itemsize for s in fmt.contiguous_strides(shape)) == expected


def test_cell_span():
    assert fmt.cell_span((2, 3), (3, 1), 0) == (0, 5)
    assert fmt.cell_span((2, 3), (1, 2), 1) == (1, 6)
    assert fmt.cell_span((4,), (-1,), 3) == (0, 3)
    assert fmt.cell_span((2, 3), (0, 1), 0) == (0, 2)
    assert fmt.cell_span((), (), 7) == (7, 7)
    assert fmt.cell_span((0, 3), (3, 1), 0) is None


def test_cells_touched():
    assert fmt.cells_touched((2, 2), (1, 2), 0) == {
        0: [(0, 0)],
        1: [(1, 0)],
        2: [(0, 1)],
        3: [(1, 1)],
    }
    assert fmt.cells_touched((3,), (-2,), 4) == {0: [(2,)], 2: [(1,)], 4: [(0,)]}
    assert fmt.cells_touched((2, 3), (0, 1), 0)[1] == [(0, 1), (1, 1)]
    assert fmt.cells_touched((), (), 5) == {5: [()]}
    assert fmt.cells_touched((0, 3), (3, 1), 0) == {}


def test_cells_touched_is_bounded():
    cells = fmt.cells_touched((100, 100), (100, 1), 0)
    assert sum(len(v) for v in cells.values()) == 4096
    assert list(cells) == list(range(4096))
    assert len(fmt.cells_touched((10,), (1,), 0, limit=3)) == 3


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
            brute = {c: sorted(v) for c, v in fmt.cells_touched(shape, strides, offset).items()}
            brute = {c: v for c, v in brute.items() if lo <= c < hi}
            hits, complete = fmt._window_hits(shape, strides, offset, lo, hi)
            assert complete
            assert {c: sorted(v) for c, v in hits.items()} == brute, (shape, strides, lo)


# ---------------------------------------------------------------------------------------------
# repr
# ---------------------------------------------------------------------------------------------


def test_repr_int_matrix():
    x = FakeTensor.of(np.arange(6).reshape(2, 3))
    assert fmt.format_repr(x) == "tensor([[0, 1, 2],\n        [3, 4, 5]])"
    assert fmt.format_str(x) == fmt.format_repr(x)


def test_repr_default_float_and_bool_have_no_dtype():
    assert (
        fmt.format_repr(FakeTensor.of(np.array([1.0, 2.5]))) == "tensor([1. , 2.5])"
    )  # NumPy's formatting
    assert fmt.format_repr(FakeTensor.of(np.array([1.0, 2.0]))) == "tensor([1., 2.])"
    assert fmt.format_repr(FakeTensor.of(np.array([True, False]))) == "tensor([ True, False])"


def test_repr_other_dtypes_say_so():
    x = FakeTensor.of(np.array([1.0, 2.0], dtype=np.float32))
    assert fmt.format_repr(x) == "tensor([1., 2.], dtype=strided.float32)"
    x = FakeTensor.of(np.array([1, 2], dtype=np.int32))
    assert fmt.format_repr(x) == "tensor([1, 2], dtype=strided.int32)"


def test_repr_follows_default_dtype(monkeypatch):
    monkeypatch.setattr(fmt, "_default_float_name", lambda: "float32")
    assert fmt.format_repr(FakeTensor.of(np.ones(2, np.float32))) == "tensor([1., 1.])"
    x = FakeTensor.of(np.ones(2))
    assert fmt.format_repr(x) == "tensor([1., 1.], dtype=strided.float64)"


def test_repr_0d():
    assert fmt.format_repr(FakeTensor.of(np.array(3.0))) == "tensor(3.)"
    assert fmt.format_repr(FakeTensor.of(np.array(7))) == "tensor(7)"
    assert fmt.format_repr(FakeTensor.of(np.array(True))) == "tensor(True)"


def test_repr_empty():
    assert fmt.format_repr(FakeTensor.of(np.zeros(0))) == "tensor([])"
    assert fmt.format_repr(FakeTensor.of(np.zeros((0, 3)))) == "tensor([], size=(0, 3))"
    x = FakeTensor.of(np.zeros((2, 0), dtype=np.int64))
    assert fmt.format_repr(x) == "tensor([], size=(2, 0), dtype=strided.int64)"
    x = FakeTensor.of(np.zeros(0, dtype=np.float32))
    assert fmt.format_repr(x) == "tensor([], dtype=strided.float32)"


def test_repr_of_views_shows_view_values():
    x = arange(6)
    transposed = x.view((3, 2), (1, 3))
    assert fmt.format_repr(transposed) == "tensor([[0., 3.],\n        [1., 4.],\n        [2., 5.]])"
    assert fmt.format_repr(x.view((3,), (2,), 0)) == "tensor([0., 2., 4.])"
    assert fmt.format_repr(x.view((3,), (-1,), 5)) == "tensor([5., 4., 3.])"
    assert fmt.format_repr(x.view((2, 2), (0, 1), 1)) == "tensor([[1., 2.],\n        [1., 2.]])"


def test_repr_large_is_summarised():
    x = FakeTensor.of(np.arange(2000).reshape(40, 50))
    text = fmt.format_repr(x)
    assert text.startswith("tensor([[   0,    1,    2, ...,   47,   48,   49],\n")
    assert "        ...,\n" in text
    assert text.endswith("[1950, 1951, 1952, ..., 1997, 1998, 1999]])")
    assert len(text.splitlines()) == 7
    assert all(len(line) <= 80 for line in text.splitlines())


def test_repr_autograd_suffixes():
    x = FakeTensor.of(np.array([1.0, 2.0]))
    x.requires_grad = True
    assert fmt.format_repr(x) == "tensor([1., 2.], requires_grad=True)"
    x.grad_fn = FakeGradFn("MulBackward0")
    assert fmt.format_repr(x) == "tensor([1., 2.], grad_fn=<MulBackward0>)"


def test_repr_device_uses_cpu_copy():
    x = FakeTensor.of(np.array([1.0, 2.0], dtype=np.float32))
    x.device = "cuda:0"
    assert fmt.format_repr(x) == "tensor([1., 2.], device='cuda:0', dtype=strided.float32)"


def test_repr_wraps_long_suffixes():
    x = FakeTensor.of(np.arange(12.0, dtype=np.float32))
    x.grad_fn = FakeGradFn("SomeVeryLongBackwardNameForWrapping0")
    text = fmt.format_repr(x)
    assert text == (
        "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11.],\n"
        "       dtype=strided.float32, grad_fn=<SomeVeryLongBackwardNameForWrapping0>)"
    )


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
    text = fmt.explain(x)
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
    lines = fmt.explain.__doc__.splitlines()
    first = lines.index(f"    >>> print(explain({example}))") + 1
    last = next((i for i in range(first, len(lines)) if not lines[i].strip()), len(lines))
    return "\n".join(line[4:] for line in lines[first:last])


def test_explain_transposed_offset_view():
    # strided.arange(8, dtype=strided.float32)[1:7].reshape(3, 2).T, as in the docstring
    x = arange(8, "float32")
    y = x.view((2, 3), (1, 2), 1)
    text = fmt.explain(y)
    assert text == docstring_output("y")
    assert picture_rows(text) == {
        0: ".", 1: "00", 2: "10", 3: "01", 4: "11", 5: "02", 6: "12", 7: ".",
    }  # fmt: skip
    assert "(index 12 = element [1, 2]; . = not in this view)" in text
    assert "contiguous: no (row-major strides would be (3, 1)); .permute(1, 0) of it is" in text


def test_explain_expanded_matches_docstring():
    y = arange(3, "int64").view((2, 3), (0, 1), 0)
    example = "strided.broadcast_to(strided.arange(3), (2, 3))"
    assert fmt.explain(y) == docstring_output(example)


def test_explain_stepped():
    y = arange(10).view((2, 2), (5, 2), 0)  # x.reshape(2, 5)[:, ::2][:, :2]
    text = fmt.explain(y)
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
    text = fmt.explain(y)
    assert "element [i] lives at storage cell 3 - 1*i" in text
    assert picture_rows(text) == {0: "3", 1: "2", 2: "1", 3: "0"}
    assert "stride -1 along dim 0: walking backwards, as x[::-1] does" in text
    z = FakeTensor.of(np.zeros((2, 3))).view((2, 3), (3, -1), 2)
    assert "stride -1 along dim 1: walking backwards, as x[:, ::-1] does" in fmt.explain(z)


def test_explain_expanded():
    y = arange(3, "int64").view((2, 3), (0, 1), 0)
    text = fmt.explain(y)
    assert picture_rows(text) == {0: "*0", 1: "*1", 2: "*2"}
    assert "* = every position along a stride-0 dim" in text
    assert "stride 0 along dim 0: its 2 positions share the same cells" in text
    assert "3 cells are shared by several elements (stride 0: an expanded view, read-only)" in text
    assert "6 elements x 8 = 48 bytes" in text


def test_explain_overlapping_strides():
    y = arange(6).view((3, 3), (1, 1), 0)  # as_strided: a sliding window
    text = fmt.explain(y)
    rows = picture_rows(text)
    assert rows == {0: "00", 1: "2x", 2: "3x", 3: "2x", 4: "22", 5: "."}
    assert "3 cells are shared by several elements (overlapping strides" in text


def test_explain_size_one_dims():
    y = arange(3).view((3, 1), (1, 7), 0)
    text = fmt.explain(y)
    assert "dim 1 has size 1: its index is always 0, so its stride 7 is unused" in text
    assert "contiguous: yes" in text


def test_explain_0d():
    y = arange(5).view((), (), 3)
    text = fmt.explain(y)
    assert "offset 3, 0-d (no strides): its one element lives at storage cell 3" in text
    assert picture_rows(text) == {0: ".", 1: ".", 2: ".", 3: "()", 4: "."}
    assert "() = the one element of a 0-d tensor" in text


def test_explain_empty():
    y = FakeTensor.of(np.zeros((0, 3)))
    text = fmt.explain(y)
    assert "it has no elements, so it uses no cells" in text
    assert "cells:" not in text
    assert "footprint: no elements" in text


def test_explain_large_storage_shows_a_window():
    x = arange(1000)
    text = fmt.explain(x)
    rows = picture_rows(text)
    assert list(rows) == list(range(32))
    assert rows[31] == "31"
    assert "showing cells 0..31 of 1000; the other 968 are left out" in text
    assert all(len(line) <= 96 for line in text.splitlines())
    # A view far into the storage is drawn from its first cell.
    far = x.view((10, 10), (10, 1), 500)
    rows = picture_rows(fmt.explain(far))
    assert rows[500] == "00" and rows[531] == "31"


def test_explain_huge_view_is_fast_and_compact():
    buffer = np.zeros(1, dtype=np.float32)
    big = FakeTensor(buffer, (10**6, 10**6), (0, 0), 0)  # one cell, 10**12 elements
    text = fmt.explain(big)
    assert picture_rows(text) == {0: "*,*"}
    many = FakeTensor(np.zeros(10**6), (1000, 1000), (1000, 1), 0)
    rows = picture_rows(fmt.explain(many))
    assert rows[0] == "0,0" and rows[31] == "0,31"
    assert "index 0,31 = element [0, 31]" in fmt.explain(many)


def test_explain_many_dims_keeps_index_compact():
    y = FakeTensor.of(np.zeros((2,) * 6))
    text = fmt.explain(y)
    assert "element [i0, i1, i2, i3, i4, i5] lives at storage" in text
    assert "\n    cell 0 + 32*i0 + 16*i1 + 8*i2 + 4*i3 + 2*i4 + 1*i5\n" in text  # wrapped
    assert picture_rows(text)[5] == "000101"


def test_explain_provenance_and_autograd():
    y = FakeTensor.of(np.zeros(4))
    y._provenance = "reshape copied: the strides (1, 3) cannot be viewed as shape (6,)"
    y.requires_grad = True
    text = fmt.explain(y)
    assert "made by: reshape copied: the strides (1, 3)" in text
    assert "autograd: a leaf that requires grad" in text


def test_explain_never_reads_data():
    y = arange(6).view((2, 3), (3, 1), 0)
    y.numpy = None  # explain must work from shape, strides and offset alone
    y.device = "cuda:0"
    assert "on cuda:0" in fmt.explain(y)


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
    for line in fmt.explain(y).splitlines():
        assert len(line) <= (88 if line.startswith(("cells:", "index:")) else 92), line
        assert line == line.rstrip()
        assert not line.endswith(","), "wrapping split a tuple"


@pytest.mark.parametrize(
    "name", ["element_offset", "contiguous_strides", "cell_span", "cells_touched"]
)
def test_helper_doctests(name):
    func = getattr(fmt, name)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for test in finder.find(func, name, globs={name: func}):
        runner.run(test)
    assert runner.failures == 0 and runner.tries > 0
