"""Property tests: random chains of view ops on strided and on NumPy must agree.

The NumPy side runs the chain on an array of *cell ids* (``np.arange`` in the base's shape):
whatever it does (views, or copies for a reshape), each element of its result names the base
element that the strided result should hold. So one chain checks, after every step:

- shape, and values (``base.flat[ids]``);
- memory: a view op's result lives on the same storage as the chain's current storage; a
  reshape either views (and then ``view`` agrees) or copies (and then ``view`` refuses);
- at the end, writing through the result (when its elements do not share memory) changes
  exactly the base cells the ids name; when they do share memory, writing raises.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from layouts import has_exact_overlap, make_values

import strided

DTYPES = (strided.int16, strided.float64, strided.complex64, strided.bool, strided.uint8)
MAX_DIMS = 6
MAX_NUMEL = 2000


def _shapes():
    return st.lists(st.integers(0, 5), min_size=0, max_size=4).map(tuple)


def _slice(draw, n):
    step = draw(st.sampled_from([None, 1, 2, 3, -1, -2, -3]))
    start = draw(st.one_of(st.none(), st.integers(-n - 2, n + 2)))
    stop = draw(st.one_of(st.none(), st.integers(-n - 2, n + 2)))
    return slice(start, stop, step)


def _draw_index(draw, shape):
    items = []
    for n in shape[: draw(st.integers(0, len(shape)))]:
        if n and draw(st.booleans()):
            items.append(draw(st.integers(-n, n - 1)))
        else:
            items.append(_slice(draw, n))
    out_dims = sum(not isinstance(i, int) for i in items) + len(shape) - len(items)
    for _ in range(draw(st.integers(0, 2))):
        if out_dims < MAX_DIMS:
            items.insert(draw(st.integers(0, len(items))), None)
            out_dims += 1
    if draw(st.booleans()):
        # after every int and slice, so that they keep naming the leading dims
        last = max([i + 1 for i, x in enumerate(items) if x is not None], default=0)
        items.insert(draw(st.integers(last, len(items))), Ellipsis)
    return tuple(items)


def _reshape_targets(draw, shape):
    n = math.prod(shape)
    cands = [(-1,), (n,), tuple(reversed(shape)), shape + (1,)]
    if n:
        # a random factorisation of n into up to 4 dims
        dims = [1] * draw(st.integers(1, 4))
        m = n
        for p in (2, 3, 5, 7):
            while m % p == 0:
                m //= p
                dims[draw(st.integers(0, len(dims) - 1))] *= p
        dims[0] *= m
        cands.append(tuple(draw(st.permutations(dims))))
    else:
        cands.append((0, 3))
    return draw(st.sampled_from([c for c in cands if len(c) <= MAX_DIMS]))


def _draw_step(draw, shape):
    """One op for an input of ``shape``: (description, strided fn, NumPy fn, kind)."""
    nd = len(shape)
    n = math.prod(shape)
    names = ["getitem", "flip", "reshape", "view"]
    if nd:
        names += ["transpose", "permute", "narrow"]
    if nd < MAX_DIMS:
        names.append("unsqueeze")
    if 1 in shape or nd == 0:
        names.append("squeeze")
    if nd < MAX_DIMS and n * 3 <= MAX_NUMEL:
        names.append("expand")
    if nd >= 2:
        names.append("diagonal")
    name = draw(st.sampled_from(names))
    dim = st.integers(-nd, nd - 1) if nd else st.just(0)

    if name == "getitem":
        index = _draw_index(draw, shape)
        return (
            f"[{index!r}]",
            lambda t: t[index],
            lambda a: a[index + (Ellipsis,)] if Ellipsis not in index else a[index],
            "view",
        )
    if name == "flip":
        dims = tuple(draw(st.sets(st.integers(0, nd - 1), max_size=nd))) if nd else ()
        return f"flip{dims}", lambda t: t.flip(dims), lambda a: np.flip(a, dims)[...], "view"
    if name in ("reshape", "view"):
        target = _reshape_targets(draw, shape)
        f_t = (
            (lambda t: t.reshape(target))
            if name == "reshape"
            else (lambda t: _view_or_reshape(t, target))
        )
        return f"{name}{target}", f_t, lambda a: a.reshape(target), "reshape"
    if name == "transpose":
        d0, d1 = draw(dim), draw(dim)
        return (
            f"transpose({d0}, {d1})",
            lambda t: t.swapaxes(d0, d1),
            lambda a: np.swapaxes(a, d0, d1),
            "view",
        )
    if name == "permute":
        perm = tuple(draw(st.permutations(range(nd))))
        return f"permute{perm}", lambda t: t.permute(perm), lambda a: a.transpose(perm), "view"
    if name == "narrow":
        d = draw(dim)
        size = shape[d]
        start = draw(st.integers(0, size))
        length = draw(st.integers(0, size - start))
        return (
            f"narrow({d}, {start}, {length})",
            lambda t: t.narrow(d, start, length),
            lambda a: np.moveaxis(np.moveaxis(a, d, 0)[start : start + length], 0, d),
            "view",
        )
    if name == "unsqueeze":
        d = draw(st.integers(-nd - 1, nd))
        return (f"unsqueeze({d})", lambda t: t.unsqueeze(d), lambda a: np.expand_dims(a, d), "view")
    if name == "squeeze":
        ones = [d for d in range(nd) if shape[d] == 1]
        d = draw(st.sampled_from([None] + ones))
        return (f"squeeze({d})", lambda t: t.squeeze(d), lambda a: np.squeeze(a, d)[...], "view")
    if name == "expand":
        target = tuple(draw(st.integers(0, 3)) if s == 1 else s for s in shape)
        if draw(st.booleans()) and math.prod(target) * 3 <= MAX_NUMEL:
            target = (draw(st.integers(0, 3)),) + target
        spelled = tuple(
            -1 if s == t and draw(st.booleans()) else t
            for s, t in zip((None,) * (len(target) - nd) + shape, target, strict=True)
        )
        return (
            f"expand{spelled}",
            lambda t: t.expand(spelled),
            lambda a: np.broadcast_to(a, target),
            "view",
        )
    if name == "diagonal":
        d1 = draw(st.integers(0, nd - 1))
        d2 = draw(st.sampled_from([d for d in range(nd) if d != d1]))
        off = draw(st.integers(-3, 3))
        return (
            f"diagonal({off}, {d1}, {d2})",
            lambda t: t.diagonal(off, d1, d2),
            lambda a: np.diagonal(a, off, d1, d2),
            "view",
        )
    raise AssertionError(name)


def _view_or_reshape(t, shape):
    """``t.view(shape)``, or, when view refuses (saying why and naming reshape), the copy that
    reshape makes."""
    try:
        return t.view(shape)
    except RuntimeError as e:
        assert "reshape" in str(e)
        out = t.reshape(shape)
        assert out.untyped_storage() is not t.untyped_storage()
        return out


@settings(max_examples=1000, deadline=None)
@given(
    data=st.data(),
    shape=_shapes(),
    dtype=st.sampled_from(DTYPES),
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(1, 6),
)
def test_random_view_chains(data, shape, dtype, seed, steps):
    base = make_values(shape, dtype, np.random.default_rng(seed))
    flat = base.reshape(-1)
    x = strided.tensor(base)
    t, ids = x, np.arange(base.size).reshape(shape)
    storage = x.untyped_storage()
    chain = []
    for _ in range(steps):
        desc, f_t, f_a, kind = _draw_step(data.draw, t.shape)
        chain.append(desc)
        where = " -> ".join(chain)
        out = f_t(t)
        ids = f_a(ids)
        assert out.shape == ids.shape, where
        np.testing.assert_array_equal(np.asarray(out), flat[ids], err_msg=where)
        if kind == "view":
            assert out.untyped_storage() is storage, where
        elif out.untyped_storage() is storage:
            # reshape gave a view: view() must agree and give the same geometry
            v = t.view(ids.shape)
            assert v.stride() == out.stride() and v.storage_offset() == out.storage_offset()
        else:
            assert out.is_contiguous(), where
            with pytest.raises(RuntimeError, match="reshape"):
                t.view(ids.shape)
            storage = out.untyped_storage()
        t = out
    if t.numel() == 0 or storage is not x.untyped_storage():
        return
    new = make_values(t.shape, dtype, np.random.default_rng(seed + 1))
    if has_exact_overlap(t):
        with pytest.raises(RuntimeError, match="share memory"):
            t[...] = strided.asarray(new)
        return
    try:
        t[...] = strided.asarray(new)
    except RuntimeError:  # the conservative overlap test: see Note [Internal overlap]
        assert strided._core._has_internal_overlap(t), where
        return
    expected = base.copy().reshape(-1)
    expected[ids] = new
    np.testing.assert_array_equal(np.asarray(x).reshape(-1), expected, err_msg=where)


@settings(max_examples=500, deadline=None)
@given(data=st.data(), n=st.integers(1, 40), dtype=st.sampled_from(DTYPES))
def test_random_as_strided_matches_numpy(data, n, dtype):
    base = make_values((n,), dtype, np.random.default_rng(n))
    x = strided.tensor(base)
    nd = data.draw(st.integers(0, 3))
    size = tuple(data.draw(st.lists(st.integers(0, 4), min_size=nd, max_size=nd)))
    stride = tuple(data.draw(st.lists(st.integers(-5, 5), min_size=nd, max_size=nd)))
    offset = data.draw(st.integers(0, n + 1))
    lo = hi = offset
    for s, k in zip(size, stride, strict=True):
        if k < 0:
            lo += (s - 1) * k
        else:
            hi += (s - 1) * k
    inside = offset <= n if math.prod(size) == 0 else (lo >= 0 and hi < n)
    if not inside:
        with pytest.raises(ValueError, match="storage|offset"):
            strided.as_strided(x, size, stride, offset)
        return
    out = strided.as_strided(x, size, stride, offset)
    assert out.untyped_storage() is x.untyped_storage()
    if math.prod(size):
        ref = np.lib.stride_tricks.as_strided(
            base[offset:], size, [k * base.itemsize for k in stride]
        )
        np.testing.assert_array_equal(np.asarray(out), ref)
    assert out.shape == size
