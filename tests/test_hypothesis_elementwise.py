"""Property tests: elementwise ops on random broadcastable shapes and random strided views,
NumPy as the oracle.

Each example draws a result shape (0-size dims and 0-d included), then for every operand a
shape that broadcasts to it (a suffix of its dims, some of them 1) and a layout for it: a view
of a bigger base array through random steps (negative ones included), a random permutation of
the dims, and sometimes an ``expand`` to the full result shape (stride 0). The same view ops
build the strided tensor and the NumPy array, from the same base values (the row's value
makers: finite complex values where C99 and NumPy differ on purpose at infinities). Sometimes
an operand is a weak Python scalar instead, and sometimes the result goes into a randomly
strided ``out=``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from layouts import make_values, to_numpy_dtype
from opinfo_elementwise import EW_OPS_BY_NAME, check, fits, quiet, reference, supports

import strided

OPS = {
    "add": (strided.int16, strided.uint8, strided.float64, strided.complex64, strided.bool),
    "multiply": (strided.int8, strided.uint32, strided.float32, strided.complex128),
    "less": (strided.int64, strided.uint16, strided.float64, strided.bool),
    "maximum": (strided.int32, strided.float32, strided.float64, strided.bool),
    "exp": (strided.float32, strided.float64, strided.complex128, strided.int16),
}
SCALARS = (2, -1, True, 0.5, -2.5)


def _result_shape():
    return st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


@st.composite
def _operand_shape(draw, result):
    """A shape that broadcasts to ``result``: some trailing dims, each kept or made 1."""
    k = draw(st.integers(0, len(result)))
    dims = result[len(result) - k :]
    return tuple(1 if draw(st.booleans()) else n for n in dims)


@st.composite
def _view(draw, shape, dtype, seed, full_shape=None, make=make_values):
    """(tensor, array) of ``shape`` with random steps and dim order over a bigger base of
    values from ``make``; or that, expanded to ``full_shape``."""
    rng = np.random.default_rng(seed)
    nd = len(shape)
    perm = draw(st.permutations(range(nd))) if nd else []
    steps = [draw(st.sampled_from([1, 1, 2, -1, -2, 3])) for _ in range(nd)]
    base_shape, index = [], []
    for d, step in zip(perm, steps, strict=True):
        n = shape[d]
        size = max(n * abs(step), 1)
        base_shape.append(size)
        if n == 0:
            index.append(slice(0, 0))
        elif step > 0:
            index.append(slice(0, n * step, step))
        else:
            index.append(slice(size - 1, None, step))
    base = make(tuple(base_shape), dtype, rng)
    index = tuple(index)
    inverse = tuple(int(i) for i in np.argsort(perm)) if nd else ()
    t = strided.tensor(base)[index].permute(inverse) if nd else strided.tensor(base)
    a = base[index].transpose(inverse) if nd else base
    assert t.shape == a.shape == tuple(shape), (t.shape, a.shape, shape)
    if full_shape is not None and draw(st.booleans()):
        t = t.expand(full_shape)
        a = np.broadcast_to(a, full_shape)
    return t, a


@settings(max_examples=400, deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(OPS)), seed=st.integers(0, 2**32 - 1))
def test_random_shapes_and_strides_match_numpy(data, name, seed):
    op = EW_OPS_BY_NAME[name]
    dtype = data.draw(st.sampled_from(OPS[name]), label="dtype")
    result = data.draw(_result_shape(), label="result shape")
    tensors, arrays = [], []
    for k in range(op.nargs):
        if op.nargs > 1 and k == 1 and data.draw(st.integers(0, 4)) == 0:
            nd = to_numpy_dtype(dtype)
            s = data.draw(st.sampled_from([s for s in SCALARS if fits(s, nd)]), label="scalar")
            tensors.append(s)
            arrays.append(s)
            continue
        shape = result if op.nargs == 1 else data.draw(_operand_shape(result), label=f"shape {k}")
        expand_to = result if len(shape) == len(result) else None
        view = _view(shape, dtype, seed + k, expand_to, op.domains[k])
        t, a = data.draw(view, label=f"operand {k}")
        tensors.append(t)
        arrays.append(a)
    if not supports(op, np.result_type(*arrays)):
        return  # e.g. less on complex: the generic tests check the TypeError
    exp = reference(op, *arrays)
    with quiet():
        got = op.op(*tensors)
    check(op, got, exp, f"{name} on {[getattr(a, 'shape', a) for a in arrays]}")
    assert got.shape == np.broadcast_shapes(*[np.shape(a) for a in arrays])

    if data.draw(st.booleans(), label="out="):
        out, _ = data.draw(_view(exp.shape, got.dtype, seed + 7), label="out")
        with quiet():
            assert op.op(*tensors, out=out) is out
        check(op, out, exp, f"{name} into a strided out=")
    for t, a in zip(tensors, arrays, strict=True):  # the inputs are left alone
        if isinstance(t, strided.Tensor):
            np.testing.assert_array_equal(np.asarray(t), a)


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from((strided.int32, strided.float64, strided.uint8)),
    n=st.integers(2, 30),
)
def test_random_partial_overlap_matches_numpy(data, dtype, n):
    # out= and an input are two windows of one buffer: NumPy buffers, and so must strided
    rng = np.random.default_rng(n)
    base = make_values((n,), dtype, rng) if to_numpy_dtype(dtype).kind == "f" else None
    if base is None:
        base = rng.integers(0, 50, n).astype(to_numpy_dtype(dtype))
    k = data.draw(st.integers(1, n - 1), label="window")
    i = data.draw(st.integers(0, n - k), label="out start")
    j = data.draw(st.integers(0, n - k), label="in start")
    flip = data.draw(st.booleans(), label="reverse the input")
    x = strided.asarray(base.copy())
    a = base.copy()
    src = x[j : j + k].flip(0) if flip else x[j : j + k]
    a_src = a[j : j + k][::-1] if flip else a[j : j + k]
    strided.add(x[i : i + k], src, out=x[i : i + k])
    with np.errstate(all="ignore"):
        np.add(a[i : i + k], a_src, out=a[i : i + k])
    np.testing.assert_array_equal(np.asarray(x), a)
