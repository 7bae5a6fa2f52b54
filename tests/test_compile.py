"""strided.compile: guards and recompilation, fusion groups and generated C (gcc, OpenMP), the
on-disk cache, graph breaks and eager fallbacks. A compiled function never gives another answer
than the eager one: every case below is compared with eager.

One kernel cache directory serves the whole test session (the ``cache`` fixture), so a kernel
is compiled once however many tests use it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest
from devices import DEVICES, NVRTC_ONLY

import strided
from strided import _compile, library, nn
from strided._compile import cc

F = nn.functional
pytestmark = pytest.mark.skipif(cc.compiler() is None, reason="no C compiler on this machine")


@pytest.fixture(scope="session", autouse=True)
def cache(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("strided-compile-cache"))
    old = os.environ.get("STRIDED_COMPILE_CACHE")
    os.environ["STRIDED_COMPILE_CACHE"] = path
    yield path
    if old is None:
        del os.environ["STRIDED_COMPILE_CACHE"]
    else:
        os.environ["STRIDED_COMPILE_CACHE"] = old


def _t(rng, shape, dtype="float64"):
    return strided.tensor(rng.standard_normal(shape), dtype=dtype)


def _same(got, want, dtype):
    rtol = 1e-5 if dtype == "float32" else 1e-12
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=rtol)


def _twice(fn, *args):
    """The compiled function's first (capture) and second (compiled) results."""
    cf = strided.compile(fn)
    return cf, cf(*args), cf(*args)


# every elementwise primitive the C generator takes, and the reductions, against eager
UNARY = [
    "abs",
    "negative",
    "sqrt",
    "exp",
    "expm1",
    "log",
    "log1p",
    "sin",
    "cos",
    "tanh",
    "erf",
    "sigmoid",
    "relu",
    "floor",
    "ceil",
    "square",
    "reciprocal",
    "sign",
    "atan",
]
BINARY = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "maximum",
    "minimum",
    "pow",
    "atan2",
    "hypot",
    "logaddexp",
    "less",
    "greater_equal",
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_elementwise_ops_fused_match_eager(dtype):
    rng = np.random.default_rng(0)
    x = strided.abs(_t(rng, (7, 33), dtype)) + 0.5
    y = _t(rng, (33,), dtype)

    def f(x, y):
        outs = [getattr(strided, name)(x) for name in UNARY]
        outs += [getattr(strided, name)(x, y) for name in BINARY]
        return tuple(outs)

    cf, first, second = _twice(f, x, y)
    _same(first, f(x, y), dtype)
    _same(second, f(x, y), dtype)
    plan = cf.last
    assert plan.eager_reason is None
    fused = [n.target.__name__ for kind, g in plan.steps if kind == "group" for n in g.nodes]
    assert set(UNARY + BINARY) <= set(fused)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "red",
    [
        lambda v: v.sum(),
        lambda v: v.sum(axis=1),
        lambda v: v.sum(axis=0, keepdims=True),
        lambda v: strided.amax(v, axis=-1),
        lambda v: v.min(axis=(0, 2)),
        lambda v: v.mean(axis=2),
        lambda v: strided.prod(v * 0.1 + 1, axis=1),
    ],
    ids=["sum", "sum1", "sum0keep", "amax", "min02", "mean2", "prod"],
)
def test_reductions_consuming_chains_match_eager(red, dtype):
    rng = np.random.default_rng(1)
    x, y = _t(rng, (4, 5, 6), dtype), _t(rng, (5, 6), dtype)

    def f(x, y):
        return red((x * 2 + 1).exp() * y)

    cf, first, second = _twice(f, x, y)
    _same(second, f(x, y), dtype)
    groups = [g for kind, g in cf.last.steps if kind == "group"]
    assert groups[0].reduction is not None and len(groups[0].nodes) >= 4  # fused, not alone


def test_float32_sums_in_blocks():
    # Note [A float32 sum in blocks]: blocks of float, runs of them in double, the runs' totals
    # added in order: close to the double sum on every layout and size around the block's,
    # and the same bits on every call and at every thread count
    from strided._compile.codegen import SUM_BLOCK

    rng = np.random.default_rng(3)
    n = 3 * 70001  # over the grain: the threads share the runs, a tail of a part block
    base = strided.tensor(rng.standard_normal(n), dtype="float32")
    cases = {
        "contiguous": base,
        "short": base[: 2 * SUM_BLOCK - 1],  # under two blocks: one loop, as before
        "two blocks": base[: 2 * SUM_BLOCK],
        "a block and a bit": base[: 2 * SUM_BLOCK + 1],
        "stepped": base[::3],
        "negative": strided.flip(base, axis=0),
        "2-D, coalesced": base.reshape(3, 70001),
        "transposed": base.reshape(3, 70001).T,
        "expanded": strided.broadcast_to(base[:5000], (7, 5000)),
    }
    old = strided.get_num_threads()
    try:
        for name, x in cases.items():
            f = lambda x: (x * 2 + 1).sum()  # noqa: E731
            v = np.asarray(x).astype(np.float64) * 2 + 1
            tol = 1e-6 * np.abs(v).sum()
            bits = set()
            for threads in (1, 2, 3):
                strided.set_num_threads(threads)
                cf, _, second = _twice(f, x)
                got = float(np.asarray(second))
                assert abs(got - v.sum()) <= tol, name
                assert abs(got - float(np.asarray(f(x)))) <= 2 * tol, name  # eager, in double
                bits |= {np.asarray(r).tobytes() for r in (second, cf(x), cf(x))}
            # one coalesced loop of two blocks or more takes them; the expanded one is 2-D
            blocked = name not in ("short", "expanded")
            assert ("float part" in cf.last.source) == blocked, name
            if blocked:
                assert len(bits) == 1, name
    finally:
        strided.set_num_threads(old)


def test_layouts_broadcasts_and_nan():
    rng = np.random.default_rng(2)
    base = _t(rng, (6, 8))
    cases = {
        "transposed": base.T,
        "stepped": base[::2, 1::3],
        "negative": strided.flip(base, axis=1),
        "expanded": strided.broadcast_to(_t(rng, (1, 8)), (6, 8)),
        "0-d": strided.tensor(1.5),
    }
    for x in cases.values():
        f = lambda x: (strided.maximum(x, 0.1) * 3).sum(axis=0) + x.max()  # noqa: E731
        _, first, second = _twice(f, x)
        _same(second, f(x), "float64")
    for x in (base.T, strided.flip(base, axis=1), base[::2]):  # outputs keep eager's layout
        g = lambda x: (x * 2 + 1).exp()  # noqa: E731
        _, _, got = _twice(g, x)
        assert got.stride() == g(x).stride()
        _same(got, g(x), "float64")
    col = np.arange(12.0).reshape(4, 3)
    col[2, 1] = np.nan  # a column max over axis 0: accumulators along the rows
    g = lambda x: strided.amax(x * 1, axis=0) + (x * 2).sum(axis=0)  # noqa: E731
    cf, _, got = _twice(g, strided.asarray(col))
    np.testing.assert_array_equal(np.asarray(got), [9.0 + 36.0, np.nan, 11.0 + 52.0])
    assert "jb < " in cf.last.source  # the blocked column loop
    nan = strided.tensor([1.0, float("nan"), 2.0])
    _, _, got = _twice(lambda x: (x * 2).max() + strided.amin(x + 1), nan)
    assert np.isnan(float(got))


def test_softmax_layer_norm_gelu_epilogue():
    rng = np.random.default_rng(3)
    x, w, b = _t(rng, (16, 8), "float32"), _t(rng, (8, 12), "float32"), _t(rng, (12,), "float32")

    def f(x, w, b):
        h = F.gelu(x @ w + b)
        return F.softmax(h, dim=1), F.layer_norm(h, (12,)), F.log_softmax(h, 1)

    cf, first, second = _twice(f, x, w, b)
    _same(second, f(x, w, b), "float32")
    kinds = [kind for kind, _ in cf.last.steps]
    assert kinds == ["eager", "group"]  # the matmul, then one row group (Note [One pass per row])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "shape, fn",
    [
        ((6, 33), lambda x: F.softmax(x, dim=1)),
        ((6, 33), lambda x: F.log_softmax(x * 2, 1) + 1),
        ((3, 4, 9), lambda x: F.layer_norm(x, (4, 9))),
        ((5, 9000), lambda x: F.softmax(x, dim=-1)),  # a row past ROW_BUFFER: computed again
        ((5, 7), lambda x: (F.softmax(x, dim=1), x.exp().sum(axis=1, keepdims=True))),
    ],
)
def test_row_groups_run_one_pass_per_row_and_equal_eager(shape, fn, dtype):
    """Note [One pass per row]: the groups of softmax, log_softmax and layer norm become one
    row group, whose values, the row values it writes included, are eager's; a transposed
    input keeps the separate groups (its rows are not contiguous)."""
    from strided._compile.rows import RowGroup

    rng = np.random.default_rng(15)
    x = _t(rng, shape, dtype)
    x[0, 0] = float("nan") if len(shape) == 2 else x[0, 0, 0]  # amax propagates a NaN
    with np.errstate(invalid="ignore"):
        cf, first, second = _twice(fn, x)
        _same(second, fn(x), dtype)
    assert any(isinstance(g, RowGroup) for g in cf.last.forward.groups), cf.explain()
    assert "row group" in cf.explain()
    if len(shape) == 2:
        xt = _t(rng, shape[::-1], dtype).T
        ct, _, got = _twice(fn, xt)
        _same(got, fn(xt), dtype)
        assert not any(isinstance(g, RowGroup) for g in ct.last.forward.groups)


def test_gelu_epilogue_writes_into_the_matmul_result_and_equals_eager():
    # Note [The CPU loops' functions in fused C]: float32 erf is eager's strided_verff, so the
    # fused value is eager's ops' to the bit (and eager F.gelu's one loop within its few ulp,
    # Note [gelu's lanes]); Note [Writing into a dead buffer]: the epilogue writes into the
    # product's memory, unless the product is also returned
    from strided.nn.functional.activation import _gelu_ops

    rng = np.random.default_rng(4)
    x, w, b = _t(rng, (33, 8), "float32"), _t(rng, (8, 20), "float32"), _t(rng, (20,), "float32")
    x = x * 3  # erf's both pieces (|x| < 1 and beyond)

    def f(x, w, b):
        return F.gelu(x @ w + b)

    cf, _, got = _twice(f, x, w, b)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(_gelu_ops(x @ w + b, "none")))
    _same(got, f(x, w, b), "float32")
    source = cf.last.forward.program_source  # the matmul's memory, not a new allocation
    assert "written in place" in source and "empty(" not in source, source

    def g(x, w, b):
        h = x @ w
        return h, F.gelu(h + b)

    cg, _, (h, y) = _twice(g, x, w, b)
    want_h = x @ w
    np.testing.assert_array_equal(np.asarray(h), np.asarray(want_h))
    np.testing.assert_array_equal(np.asarray(y), np.asarray(_gelu_ops(want_h + b, "none")))
    assert "written in place" not in cg.last.forward.program_source
    # an input the caller passed is never written into
    x_before = np.asarray(x).copy()
    cf2, _, _ = _twice(lambda x, b: F.gelu(x + b), x, _t(rng, (8,), "float32"))
    np.testing.assert_array_equal(np.asarray(x), x_before)
    assert "written in place" not in cf2.last.forward.program_source


def test_where_selects_between_loaded_values():
    # Note [Loads before selects]: both sides of a where are read before it chooses, so the
    # loop has no branch on the mask; the values are eager's on every layout
    rng = np.random.default_rng(11)
    f = lambda m, x, y: strided.where(m > 0, x * 2, y)  # noqa: E731
    for name, x in _layouts(rng).items():
        m = strided.asarray(rng.standard_normal(tuple(x.shape)))
        y = strided.asarray(rng.standard_normal(tuple(x.shape)[-1:]))
        x = x.astype("float64")
        cf, _, got = _twice(f, m, x, y)
        _same(got, f(m, x, y), "float64")
        if x.size:
            assert "const double r1 = in1[" in cf.last.source, name


def test_values_only_groups_read_are_written_row_major():
    # Note [Intermediates in row order]: exp(x.T * 2) follows x's memory in eager (strides
    # (1, 8)); read only by the broadcast add's group, it is written row-major; what is returned
    # keeps eager's layout, and every layout gives eager's values
    rng = np.random.default_rng(12)
    f = lambda x, y: (x.T * 2).exp() + y  # noqa: E731
    g = lambda x, y: ((x.T * 2).exp(), (x.T * 2).exp() + y)  # noqa: E731
    for name, x in _layouts(rng).items():
        if x.ndim != 2:
            continue
        x = x.astype("float64")
        y = _t(rng, (2, *tuple(x.shape)[::-1]))
        cf, _, got = _twice(f, x, y)
        _same(got, f(x, y), "float64")
        assert got.stride() == f(x, y).stride(), name
        if x.size:
            inner = cf.last.forward.groups[0].outputs[0]
            assert inner.meta["strides"] == (x.shape[0], 1), name
        cg, _, (a, b) = _twice(g, x, y)
        want_a, want_b = g(x, y)
        _same((a, b), (want_a, want_b), "float64")
        assert a.stride() == want_a.stride(), name  # returned: eager's layout


def test_vectorised_float32_functions_equal_eager_bitwise():
    # the CPU loops' VECTORISED rows without a fix-up pass (erf, expm1, atan, sinh, ...)
    from strided._compile.codegen import cpu_expression_table, expression_table

    changed = sorted(k for k, v in cpu_expression_table().items() if expression_table()[k] != v)
    assert ("erf", "float32") in changed
    assert ("logaddexp", "float32") in changed  # binary.pyx.tp's VECTORISED too
    from strided._cpu.binary import OPS as binary_ops

    x = strided.tensor(np.linspace(-6, 6, 1001), dtype="float32")
    y = strided.tensor(np.linspace(5, -7, 1001), dtype="float32")
    for op, _ in changed:
        fn = getattr(strided, op)
        if op in binary_ops:
            got = strided.compile(lambda x, y, fn=fn: fn(x * 1.0, y))(x, y)
            want = fn(x * 1.0, y)
        else:
            got = strided.compile(lambda x, fn=fn: fn(x * 1.0))(x)
            want = fn(x * 1.0)
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want), err_msg=op)


def test_guards_recompile_on_dtype_shape_and_strides():
    rng = np.random.default_rng(4)
    f = strided.compile(lambda x: (x + 1).sum(axis=0))
    x = _t(rng, (3, 4))
    for arg in (x, x, x.astype("float32"), _t(rng, (5, 4)), x.T, x):
        _same(f(arg), (arg + 1).sum(axis=0), arg.dtype.name)
    assert len(f.plans) == 4
    text = f.explain()
    assert "shape=[4, 3] strides=[1, 4]" in text and "specialisation 1 of 4" in text


def test_keywords_and_defaults_bind_to_parameters():
    def f(x, scale=2.0, shift=1.0):
        return x * scale + shift

    cf = strided.compile(f)
    x = strided.arange(3.0)
    assert cf(x).tolist() == [1.0, 3.0, 5.0] and cf(x).tolist() == [1.0, 3.0, 5.0]
    assert cf(x, shift=0.0).tolist() == [0.0, 2.0, 4.0]
    assert cf(x=x, scale=2.0, shift=1.0).tolist() == [1.0, 3.0, 5.0]
    assert len(cf.plans) == 2 and cf.last.forward is not None  # f(x) and f(x, 2.0, 1.0): one
    with pytest.raises(TypeError):
        cf(x, nope=1)  # eager's own error


def test_python_scalars_are_specialised():
    f = strided.compile(lambda x, k: x * k + 1)
    x = strided.arange(3.0)
    assert f(x, 2.0).tolist() == [1.0, 3.0, 5.0]
    assert f(x, 3.0).tolist() == [1.0, 4.0, 7.0]
    assert f(x, 3.0).tolist() == [1.0, 4.0, 7.0]
    assert len(f.plans) == 2 and "k: float == 3.0" in f.explain()


def test_constants_are_told_apart_by_their_bits():
    # Note [Constants in the guard key]: -0.0 is not 0.0 (the signs of x * k's zeros), 1, 1.0
    # and True are three graphs, and a NaN finds its plan again instead of tracing one a call
    f = lambda x, k: (x * x + 1) * k  # noqa: E731
    cf = strided.compile(f)
    x = strided.arange(1.0, 4.0)
    for k in (0.0, -0.0, 0.0, -0.0):
        for _ in range(2):
            got, want = np.asarray(cf(x, k)), np.asarray(f(x, k))
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    assert len(cf.plans) == 2
    for _ in range(3):
        assert np.isnan(np.asarray(cf(x, float("nan")))).all()  # a new NaN object each time
    assert len(cf.plans) == 3
    xi = strided.arange(3)
    for k in (1, 1.0, True, 1, True, 1.0):
        got, want = cf(xi, k), f(xi, k)
        assert got.dtype == want.dtype and got.tolist() == want.tolist()
    assert len(cf.plans) == 6


def _layouts(rng):
    base = _t(rng, (6, 8))
    return {
        "contiguous": base,
        "transposed": base.T,
        "stepped": base[::2, 1::3],
        "negative": strided.flip(base, axis=1),
        "expanded": strided.broadcast_to(_t(rng, (1, 8)), (6, 8)),
        "0-d": strided.tensor(1.5),
        "empty": _t(rng, (0, 3)),
        "float32": base.astype("float32"),
        "reshaped": base.reshape(8, 6),
    }


def test_fast_calls_check_every_guard():
    # Note [The cost of a compiled call]: a call that matches the last plan's guards runs its
    # program; any other change (dtype, shape, strides, constant, grad mode, requires_grad)
    # goes through the key, so each call here gives eager's answer and eager's layout
    rng = np.random.default_rng(9)
    f = lambda x, k: (x * x + 1) * k  # noqa: E731
    cf = strided.compile(f)
    layouts = list(_layouts(rng).values())
    for x in layouts + layouts[::-1]:
        for k in (2.0, 2, -0.0):
            for _ in range(2):
                got, want = cf(x, k), f(x, k)
                assert got.dtype == want.dtype and got.stride() == want.stride()
                _same(got, want, x.dtype.name)
                np.testing.assert_array_equal(
                    np.signbit(np.asarray(got)), np.signbit(np.asarray(want))
                )
    assert len(cf.plans) == 3 * len(layouts)
    x = layouts[0]
    with pytest.raises(TypeError):
        cf(x)  # eager's own error
    _same(cf(x, x), f(x, x), "float64")  # a tensor where the plan had a constant
    before = cf(x, 2.0).tolist()
    x += 1  # the same tensor, new values: the fast call reads the memory again
    after = cf(x, 2.0)
    _same(after, f(x, 2.0), "float64")
    assert after.tolist() != before
    xg = x.detach().requires_grad_()
    for grad_on in (True, False, True):
        with strided.set_grad_enabled(grad_on):
            y = cf(xg, 3.0)
        assert (y.grad_fn is not None) == grad_on
    y.sum().backward()
    _same(xg.grad, 6 * x, "float64")


def test_kernels_run_through_ctypes_without_the_compiled_call(monkeypatch):
    # a checkout whose compiled modules predate _call.pyx: ctypes and the keyed road
    from strided._compile import program

    monkeypatch.setattr(program, "Kernel", None)
    monkeypatch.setattr(_compile, "FastCall", None)
    rng = np.random.default_rng(10)
    f = lambda x, y: ((x * 2 + 1).exp() * y).sum(axis=0)  # noqa: E731
    for x in _layouts(rng).values():
        cf, first, second = _twice(f, x, x)
        _same(second, f(x, x), x.dtype.name)
        assert cf._fast(()) is _compile.MISS


def test_explain_shows_graph_guards_groups_and_source():
    x = strided.ones(10)
    cf, _, _ = _twice(lambda x, y: ((x * 2 + 1).exp() * y).sum(), x, x)
    text = cf.explain()
    for part in (
        "guards:",
        "x: tensor dtype=float64 shape=[10]",
        "graph (decomposed",
        "strided.exp",
        "fused kernel_0",
        "void kernel_0(char** p)",
        "strided_exp(",
        "#pragma omp",
        "program (Python, run on every call)",  # Note [The plan's run loop]
        "def forward(x, y):",
        "kernel_0(x, y, ",
    ):
        assert part in text, part
    assert "not called yet" in strided.compile(lambda x: x).explain()


def test_graph_breaks_run_eagerly_between_kernels():
    op = library.define("compiletest::twice(Tensor x) -> Tensor")
    library.impl("compiletest::twice", "CPU", lambda x: x * 2)
    x = strided.arange(4.0)

    def f(x):
        return (op(x + 1) @ strided.ones(4)) * 3 - 1

    cf, first, second = _twice(f, x)
    _same(second, f(x), "float64")
    eager = [what.target for kind, what in cf.last.steps if kind == "eager"]
    assert op in eager
    i = strided.arange(4)  # int64: not fused, still right
    _, _, got = _twice(lambda i: (i * 2 + 1).sum(), i)
    assert int(got) == 16


def test_custom_op_meta_functions_are_checked_at_capture():
    op = library.define("compiletest::halve(Tensor x) -> Tensor")
    library.impl("compiletest::halve", "CPU", lambda x: x[::2] * 1)
    x = strided.arange(6.0)
    f = strided.compile(lambda x: op(x) + 1)
    assert f(x).tolist() == [1.0, 3.0, 5.0] and f(x).tolist() == [1.0, 3.0, 5.0]  # no meta: fine
    library.register_meta("compiletest::halve", lambda x: library.TensorMeta(x.shape, x.dtype))
    g = strided.compile(lambda x: op(x) + 1)
    assert g(x).tolist() == [1.0, 3.0, 5.0] and g(x).tolist() == [1.0, 3.0, 5.0]
    assert "the meta function of compiletest::halve says" in g.explain()


def test_data_dependent_control_flow_falls_back():
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x * 3

    cf = strided.compile(f)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert cf(strided.ones(2)).tolist() == [2.0, 2.0]
        assert cf(strided.ones(2)).tolist() == [2.0, 2.0]
        assert cf(-strided.ones(2)).tolist() == [-3.0, -3.0]
    assert "cannot trace" in cf.explain() and "test_compile.py" in cf.explain()
    assert not w  # a trace failure is explained, not warned


def test_fullgraph_turns_fallbacks_into_errors():
    @strided.compile(fullgraph=True)
    def f(x):
        if x.sum() > 0:
            return x
        return -x

    with pytest.raises(RuntimeError, match=r"fullgraph=True\): cannot trace: .*if x.sum\(\) > 0"):
        f(strided.ones(2))
    g = strided.compile(lambda x: x * 2, fullgraph=True)
    assert g(strided.ones(2)).tolist() == [2.0, 2.0] and g(strided.ones(2)).tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="fullgraph=True"):
        g(strided.ones(2), "extra")  # not the function's signature
    with pytest.raises(TypeError, match="unknown options"):
        strided.compile(lambda x: x, mode="max-autotune")


def test_side_effects_and_in_place_writes_run_eagerly():
    seen = []

    def f(x):
        seen.append(1)
        return x + 1

    cf = strided.compile(f)
    with pytest.warns(
        RuntimeWarning, match=r"side effects on Python state \(line \d+: calls .append"
    ):
        cf(strided.ones(2))
    cf(strided.ones(2))
    assert len(seen) == 2

    def g(x):
        x.add_(1)
        return x * 2

    cg = strided.compile(g)
    x = strided.zeros(2)
    assert cg(x).tolist() == [2.0, 2.0] and cg(x).tolist() == [4.0, 4.0]
    assert x.tolist() == [2.0, 2.0]
    assert "writes into a tensor" in cg.explain()


def _grads(fn, args, wants):
    """fn's output and the gradients of the inputs marked in ``wants``."""
    leaves = [a.detach().requires_grad_() if w else a for a, w in zip(args, wants, strict=True)]
    out = fn(*leaves)
    out.backward(strided.ones_like(out))
    return out, [a.grad if w else None for a, w in zip(leaves, wants, strict=True)]


JOINT_CASES = {
    "chain, broadcast": (lambda x, y: ((x * 2 + 1).tanh() * y).sum(), [(4, 5), (5,)]),
    "mlp layer": (
        lambda x, w, b: F.softmax(F.gelu(x @ w + b), dim=1).max(axis=1).sum(),
        [(6, 4), (4, 3), (3,)],
    ),
    "layer norm": (lambda x: F.layer_norm(x * 1, (5,)) * x.relu(), [(3, 5)]),
    "reductions": (
        lambda x: x.exp().mean(axis=0) / strided.amin(x, axis=1, keepdims=True),
        [(3, 4)],
    ),
}


@pytest.mark.parametrize("case", list(JOINT_CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_joint_graph_gives_eager_gradients(case, dtype):
    fn, shapes = JOINT_CASES[case]
    rng = np.random.default_rng(6)
    args = [_t(rng, s, dtype) for s in shapes]
    cf = strided.compile(fn)
    wants = [True] * len(args)
    wants[-1] = len(args) == 1 or False  # the last input needs no gradient (unless alone)
    for _ in range(2):  # capture, then the compiled forward and backward
        got, got_grads = _grads(cf, args, wants)
        want, want_grads = _grads(fn, args, wants)
        _same(got, want, dtype)
        for g, w in zip(got_grads, want_grads, strict=True):
            assert (g is None) == (w is None)
            if g is not None:
                _same(g, w, dtype)
    plan = cf.last
    assert plan.backward is not None, plan.joint_reason
    assert any(kind == "group" for kind, _ in plan.backward.steps)
    assert "backward graph steps:" in cf.explain() and "void backward_" in cf.explain()


def test_autograd_falls_back_to_eager_when_the_backward_cannot_be_traced():
    f = strided.compile(lambda x: strided.cumsum(x.exp(), axis=0).sum())
    x = strided.tensor([0.0, 1.0]).requires_grad_()
    y = f(x)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [np.exp(0) * 2, np.exp(1)])
    assert "backward by eager autograd" in f.explain()
    with strided.no_grad():
        assert float(f(x)) == pytest.approx(float(y))
    w = strided.ones(2).requires_grad_()  # a captured tensor that requires grad
    g = strided.compile(lambda x: (x * w).sum())
    g(strided.ones(2)).backward()
    assert w.grad.tolist() == [1.0, 1.0] and "captured tensor requires grad" in g.explain()


def test_training_a_compiled_module_matches_eager():
    """A module's parameters become inputs of the joint graph: an SGD loop on the compiled
    module gives the eager loop's losses and weights."""
    from strided import optim

    rng = np.random.default_rng(9)
    x = strided.asarray(rng.standard_normal((16, 8)).astype(np.float32))
    target = strided.asarray(rng.standard_normal((16, 3)).astype(np.float32))

    def train(compiled):
        _ = strided.manual_seed(0)
        net = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 3))
        model = strided.compile(net) if compiled else net
        opt = optim.SGD(net.parameters(), lr=0.1)
        losses = []
        for _ in range(4):
            loss = F.mse_loss(model(x), target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(float(loss))
        return losses, [p.detach() for p in net.parameters()], model

    got, got_params, model = train(True)
    want, want_params, _ = train(False)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    for g, w in zip(got_params, want_params, strict=True):
        _same(g, w, "float32")
    assert model.last.backward is not None and model.last.lifted, model.last.joint_reason


def _cnn_loss(width=4, **ce):
    """The digits CNN (strided._train.make_cnn) and its cross-entropy, as one module."""
    from strided._train import make_cnn

    class Loss(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = make_cnn(width).to("float32")

        def forward(self, x, y):
            return F.cross_entropy(self.net(x), y, **ce)

    return Loss()


@pytest.mark.parametrize(
    "ce", [{}, {"label_smoothing": 0.1}, {"reduction": "sum", "ignore_index": 3}]
)
def test_cnn_training_step_is_one_joint_graph_with_eager_gradients(ce):
    """conv2d (eager's stride-1 op, its gradients by its own row: Note [Eager's convolution
    in a joint graph]), max_pool2d over tiles, flatten and cross_entropy against class indices
    decompose, so the whole step's backward is traced and fused: losses and gradients equal
    eager's."""
    rng = np.random.default_rng(11)
    x = strided.asarray(rng.standard_normal((8, 1, 8, 8), dtype=np.float32))
    y = strided.asarray(rng.integers(0, 10, 8))
    y[0] = 3  # a sample the ignore_index=3 case drops
    _ = strided.manual_seed(0)
    compiled, eager = _cnn_loss(**ce), _cnn_loss(**ce)
    eager.load_state_dict(compiled.state_dict())
    step = strided.compile(compiled)
    for _ in range(2):  # capture, then the compiled plan
        got, want = step(x, y), eager(x, y)
        got.backward()
        want.backward()
        _same(got, want, "float32")
        for p, q in zip(compiled.parameters(), eager.parameters(), strict=True):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-6)
            p.grad = q.grad = None
    plan = step.last
    assert plan.backward is not None, plan.joint_reason
    text = step.explain()
    assert "nn.conv2d_stride1_grad" in text and "nn.class_targets" in text
    assert "nn.im2col" not in text  # every convolution here is eager's op
    assert "fused backward_" in text


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: strided.flatten(x * 2),
        lambda x: (x * 2).flatten(),
        lambda x: F.flatten(x * 2),
        lambda x: (x * 2).flatten(1, 2),
        lambda x: F.max_pool2d(x.exp(), 2),
        lambda x: F.max_pool2d(x, (2, 3)) + 1,
        lambda x: F.max_pool2d(x, 2, stride=1),
    ],
)
def test_flatten_and_max_pool_decompositions_match_eager(fn):
    rng = np.random.default_rng(13)
    x = _t(rng, (2, 3, 4, 6))
    for arg in (x, x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)):  # and channels-last
        _, first, second = _twice(fn, arg)
        _same(first, fn(arg), "float64")
        _same(second, fn(arg), "float64")


def test_conv_geometries_and_probability_targets_train_like_eager():
    """Strides, dilation, no padding, no bias, a non-tiling max_pool2d (one node: its backward
    then runs eagerly) and cross-entropy against class probabilities."""
    rng = np.random.default_rng(16)

    class Net(nn.Module):
        def __init__(self, pool_stride):
            super().__init__()
            self.a = nn.Conv2d(2, 3, 3, stride=2, padding=0, dilation=2, bias=False)
            self.b = nn.Conv2d(3, 4, (3, 1), padding=(1, 0))
            self.pool_stride = pool_stride

        def forward(self, x, target):
            h = F.max_pool2d(F.relu(self.b(self.a(x).tanh())), 2, self.pool_stride)
            return F.cross_entropy(h.flatten(1), target, label_smoothing=0.05)

    for pool_stride in (None, 1):
        x = strided.asarray(rng.standard_normal((3, 2, 12, 11), dtype=np.float32))
        _ = strided.manual_seed(1)
        net, ref = Net(pool_stride), Net(pool_stride)
        ref.load_state_dict(net.state_dict())
        n_out = F.max_pool2d(strided.zeros((1, 4, 4, 4)), 2, pool_stride).numel()
        target = F.softmax(strided.asarray(rng.standard_normal((3, n_out), dtype=np.float32)), 1)
        step = strided.compile(net)
        for _ in range(2):
            got, want = step(x, target), ref(x, target)
            got.backward()
            want.backward()
            _same(got, want, "float32")
            for p, q in zip(net.parameters(), ref.parameters(), strict=True):
                np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-6)
                p.grad = q.grad = None
        joint = step.last.backward is not None
        assert joint == (pool_stride is None), step.last.joint_reason


def test_layer_ops_give_eager_answers_and_check_their_arguments():
    """The ops behind the decompositions work eagerly too (one registration path): im2col's
    row is checked by gradcheck, class_targets gives eager's loss and refuses a bad class."""
    from strided.autograd import gradcheck
    from strided.fx import layers

    rng = np.random.default_rng(12)
    x = strided.tensor(rng.standard_normal((2, 3, 5, 4))).requires_grad_()
    assert gradcheck(lambda x: layers.im2col(x, (3, 2), (2, 1), (1, 0), (1, 2)), (x,))
    ops = layers._define()
    y = strided.asarray([1, 0, 2])
    logits = _t(rng, (3, 3))
    q = ops["class_targets"](y, 3, -100, 0.2, True, "float64")
    want = F.cross_entropy(logits, y, label_smoothing=0.2)
    _same(-(F.log_softmax(logits, 1) * q).sum(), want, "float64")
    with pytest.raises((ValueError, IndexError), match="class"):
        ops["class_targets"](strided.asarray([0, 5, 1]), 3, -100, 0.0, True, "float64")


def test_layer_c_loops_equal_the_kernels_made_of_ops(monkeypatch):
    """Note [The layers' loops in C]: im2col, col2im and the class targets in C give what the
    kernels written with strided's ops give (those run without a C compiler)."""
    from strided.fx import layers

    rng = np.random.default_rng(14)
    x = _t(rng, (2, 3, 6, 5), "float32").permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    geometry = ([3, 2], [2, 1], [1, 1], [1, 2])
    y = strided.asarray([2, -100, 0, 1])
    calls = [
        lambda: layers._im2col(x, *geometry),
        lambda: layers._im2col(x.contiguous().astype("float64"), *geometry),
        lambda: layers._col2im(layers._im2col(x, *geometry), list(x.shape), *geometry),
        lambda: layers._class_targets(y, 3, -100, 0.1, True, "float32"),
        lambda: layers._class_targets(abs(y) % 3, 3, 1, 0.0, False, "float64"),
    ]
    assert layers._c_layers() is not None
    fast = [f() for f in calls]
    monkeypatch.setattr(layers, "_c_lib", [None])
    for got, f in zip(fast, calls, strict=True):
        want = f()
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_cuda_groups_compile_through_the_nvrtc_path(device):
    """On a CUDA device the fusion groups become CUDA C++ kernels calling ops.cuh's functors
    (run by the emulator where there is no GPU), the reductions with their chains."""
    rng = np.random.default_rng(10)
    x = _t(rng, (5, 7)).to(device)
    y = _t(rng, (7,), "float32").to(device)

    def f(x, y):
        return (strided.maximum(x * 2 + 1, 0.5).exp() * y).sum(axis=0), (x < y).sum()

    cf, first, second = _twice(f, x, y)
    for g, w in zip(second, f(x, y), strict=True):
        assert g.device == w.device
        _same(g.cpu(), w.cpu(), "float64")
    text = cf.explain()
    assert "generated CUDA C++" in text and "op_exp{}(" in text and "__global__" in text
    groups = [g for kind, g in cf.last.steps if kind == "group"]
    assert groups[0].reduction is not None and len(groups[0].nodes) == 6  # (x < y).sum(): int
    h = lambda a, b: ((a * 2).tanh() * b).sum()  # noqa: E731 - the joint graph on the device
    ch = strided.compile(h)
    for _ in range(2):
        got, (gx, _) = _grads(ch, [x, y], [True, False])
        want, (wx, _) = _grads(h, [x, y], [True, False])
        _same(got.cpu(), want.cpu(), "float64")
        _same(gx.cpu(), wx.cpu(), "float64")
    assert ch.last.backward is not None and ch.last.backward.cuda is not None


# Note [Fused CUDA reductions]: the layouts the guards tell apart, each reduction kind
CUDA_LAYOUTS = {
    "contiguous": lambda b: b,
    "transposed": lambda b: b.T,
    "stepped": lambda b: b[::2, 1::2],
    "negative": lambda b: strided.flip(b, axis=1),
    "expanded": lambda b: strided.broadcast_to(b[:1], b.shape),
}
CUDA_REDUCTIONS = {
    "sum": lambda v: v.sum(),
    "sum1": lambda v: v.sum(axis=1),
    "sum0keep": lambda v: v.sum(axis=0, keepdims=True),
    "mean": lambda v: v.mean(axis=1),
    "max": lambda v: strided.amax(v, axis=1),
    "min0": lambda v: v.min(axis=0),
    "prod": lambda v: strided.prod(v * 0.1 + 1, axis=0),
    "softmax": lambda v: F.softmax(v, dim=1),
    "layer_norm": lambda v: F.layer_norm(v, (v.shape[1],)),
}
REDUCTIONS = list(CUDA_REDUCTIONS.values())


@pytest.mark.parametrize("layout", list(CUDA_LAYOUTS))
@pytest.mark.parametrize("device", DEVICES)
def test_cuda_fused_reductions_equal_eager_on_every_layout(device, layout):
    """Each reduction kind fused with an elementwise chain on a CUDA device, a block per
    output (rows) and a thread per output (columns), equals eager on every layout (one
    function of them all per layout: one module for the emulator to compile)."""
    rng = np.random.default_rng(16)
    base = _t(rng, (12, 10), "float32")
    base[3, 4] = float("nan") if layout == "contiguous" else base[3, 4]  # max's NaN rule
    x = CUDA_LAYOUTS[layout](base).to(device)
    y = _t(rng, tuple(x.shape[1:]), "float32").to(device)

    def f(x, y):
        return tuple(red((x * 0.5 + 0.25).exp() * y - k) for k, red in enumerate(REDUCTIONS))

    with np.errstate(invalid="ignore"):
        cf, _, got = _twice(f, x, y)
        want = f(x, y)
    for name, g, w in zip(CUDA_REDUCTIONS, got, want, strict=True):
        assert g.device == w.device, name
        np.testing.assert_allclose(g.cpu().numpy(), w.cpu().numpy(), 1e-5, 1e-5, err_msg=name)
    groups = [g for kind, g in cf.last.steps if kind == "group"]
    assert sum(g.reduction is not None for g in groups) >= len(CUDA_REDUCTIONS), cf.explain()
    kinds = {spec.kind for _, _, spec in cf.last.forward.cuda.functions}
    assert {"block", "thread"} <= kinds, kinds


# Note [Fused CUDA rows]: rows of a warp (below 32 elements, odd, up to 1024), rows of a block
# (in registers, 2000; of 512 threads, 9000; beyond the registers, 17000), one element, 0 rows,
# several kept dims
CUDA_ROW_SHAPES = [
    (5, 37), (3, 700), (2, 2000), (2, 9000), (1, 17000), (4, 1), (1, 6), (2, 3, 33), (0, 8),
]  # fmt: skip
CUDA_ROW_LAYOUTS = {  # a tensor of the shape, from a base of the shape ``base`` gives
    "contiguous": (lambda s: s, lambda b: b),
    "transposed": (lambda s: (*s[:-2], s[-1], s[-2]), lambda b: b.mT),  # rows not contiguous
    "stepped": (lambda s: (s[0] * 2, *s[1:]), lambda b: b[::2]),
    "negative": (lambda s: s, lambda b: strided.flip(b, axis=0)),
    "expanded": (lambda s: (1, *s[1:]), lambda b: strided.broadcast_to(b, b.shape[:0])),
}


@pytest.mark.parametrize("layout", list(CUDA_ROW_LAYOUTS))
@pytest.mark.parametrize("shape", CUDA_ROW_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cuda_row_kernels_equal_eager(dtype, shape, layout):
    """Softmax, log_softmax and layer norm (its weight and bias too) over the last dim on
    cuda-emulated are a block per row (Note [Fused CUDA rows]) where the rows are contiguous,
    and equal eager in value and dtype on every layout."""
    rng = np.random.default_rng(18)
    base_shape, view = CUDA_ROW_LAYOUTS[layout]
    base = (_t(rng, base_shape(shape), dtype) * 4).to("cuda-emulated")
    x = strided.broadcast_to(base, shape) if layout == "expanded" else view(base)
    assert tuple(x.shape) == shape
    n = x.shape[-1]
    w = (_t(rng, (n,), dtype) + 2).to("cuda-emulated")
    b = _t(rng, (n,), dtype).to("cuda-emulated")

    def f(x, w, b):
        return (
            F.softmax(x, dim=-1),
            F.log_softmax(x * 0.5, dim=-1),
            F.layer_norm(x, (n,), w, b, eps=1e-5),
            F.layer_norm(x.exp(), (n,)),
        )

    with strided.no_grad():
        cf, _, got = _twice(f, x, w, b)
        want = f(x, w, b)
    for name, g, e in zip(["softmax", "log_softmax", "ln", "ln_exp"], got, want, strict=True):
        assert g.device == e.device and g.dtype == e.dtype and g.shape == e.shape, name
        tol = 2e-5 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(g.cpu().numpy(), e.cpu().numpy(), tol, tol, err_msg=name)
    kinds = [spec.kind for _, _, spec in cf.last.forward.cuda.functions] if x.size else []
    rows_contiguous = x.stride()[-1] == 1
    if x.size and rows_contiguous and x.shape[-1] > 1:
        assert kinds.count("row") >= 4, cf.explain()
    elif x.size and x.shape[-1] > 1:
        assert "row" not in kinds, cf.explain()


@pytest.mark.parametrize("index", ["int", "long long"])
def test_cuda_row_kernel_reads_each_element_once(monkeypatch, index):
    """Note [Fused CUDA rows]: softmax(2x) and layer norm over 8192-wide float32 rows on
    cuda-emulated are one launch each, a block of 256 threads per row whose kernel has one
    global load of the input (the row kept in registers, ``x * 2`` computed from them), 32-bit
    indices where the offsets fit (else 64-bit ones, the same values) and no bound check where
    the threads divide the row; they equal eager. A row of 9000 takes 512 threads to stay in
    registers; one of 17000 is read again by each loop, its last element checked."""
    from strided._compile import cuda

    if index == "long long":
        monkeypatch.setattr(cuda, "_fits_int32", lambda cshape, cstrides: False)
    rng = np.random.default_rng(37)
    dev = "cuda-emulated"
    x = (_t(rng, (3, 8192), "float32") * 4).to(dev)
    sm = lambda v: strided.softmax(v * 2, dim=1)  # noqa: E731
    ln = lambda v: F.layer_norm(v, (v.shape[1],))  # noqa: E731
    for f in (sm, ln):
        cf = strided.compile(f)
        with strided.no_grad():
            for _ in range(2):
                _same(cf(x).cpu(), f(x).cpu(), "float32")
        ((_, src, spec),) = cf.last.forward.cuda.functions
        assert spec.kind == "row" and spec.block == (256, 1), cf.explain()
        assert src.count("((float*)p0)[") == 1 and "c0[e] = ((float*)p0)[" in src, src
        assert ("long long" in src) == (index == "long long"), src
        assert "if (true) {" in src and "r < 8192" not in src, src
    for n, block, cached in ((9000, (512, 1), True), (17000, (256, 1), False)):
        y = (_t(rng, (2, n), "float32") * 4).to(dev)
        cf = strided.compile(sm)
        with strided.no_grad():
            for _ in range(2):
                _same(cf(y).cpu(), sm(y).cpu(), "float32")
        ((_, src, spec),) = cf.last.forward.cuda.functions
        assert spec.block == block, cf.explain()
        assert ("c0[e]" in src) == cached and src.count("((float*)p0)[") == (1 if cached else 3)
        K = -(-n // block[0])
        assert f"e < {K - 1} || r < {n}" in src, src


def test_cuda_row_kernels_write_what_the_backward_reads():
    """A training loss through layer norm and log_softmax on cuda-emulated: the forward's row
    kernels also write the values the joint backward saves (a row's max, sum, log, the
    exponentials), the backward has row kernels of its own; loss and gradients equal eager."""
    rng = np.random.default_rng(19)
    dev = "cuda-emulated"
    x = _t(rng, (6, 20), "float32").to(dev)
    onehot = strided.tensor(np.eye(5, dtype=np.float32)[rng.integers(0, 5, 6)]).to(dev)
    params = [(_t(rng, s, "float32") * 0.3).to(dev) for s in ((20, 16), (16,), (16, 5))]

    def loss(x, onehot, w1, b1, w2):
        h = F.layer_norm(strided.relu(x @ w1 + b1), (16,))
        return -(F.log_softmax(h @ w2, dim=1) * onehot).sum() / 6

    cf = strided.compile(loss)
    for _ in range(2):
        got, got_grads = _grads(cf, [x, onehot, *params], [False, False, True, True, True])
    want, want_grads = _grads(loss, [x, onehot, *params], [False, False, True, True, True])
    _same(got.cpu(), want.cpu(), "float32")
    for g, w in zip(got_grads[2:], want_grads[2:], strict=True):
        _same(g.cpu(), w.cpu(), "float32")
    for lowered in (cf.last.forward, cf.last.backward):
        assert "row" in [spec.kind for _, _, spec in lowered.cuda.functions], cf.explain()


# Note [A compiled matmul's cuBLAS call]: the operands' layouts the plan reads in place, and
# those it leaves to the eager matmul (a stepped inner dim, a 1-D operand, a batch, int64)
GEMM_OPERANDS = {
    "contiguous": (lambda a: a, True),
    "transposed": (lambda a: a.T.contiguous().T, True),
    "matrix_transpose": (lambda a: strided.matrix_transpose(a.T.contiguous()), True),
    "row slice": (lambda a: strided.concat([a, a], axis=1)[:, : a.shape[1]], True),
    "stepped": (lambda a: strided.repeat(a, 2, axis=1)[:, ::2], False),
    "negative": (lambda a: strided.flip(a, axis=0), False),
    "expanded": (lambda a: strided.broadcast_to(a[:1], a.shape), False),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("layout", list(GEMM_OPERANDS))
def test_cuda_matmul_planned_once_equals_eager(layout, dtype):
    """A 2-D float matmul of a CUDA plan is one cuBLAS call planned at capture, reading an
    operand made by ``matrix_transpose`` from its base; the forward and the joint backward's
    products (the transposes of dx = g @ w.T, dw = x.T @ g never made) equal eager's, and the
    layouts cuBLAS cannot read in place stay eager matmuls."""
    rng = np.random.default_rng(23)
    dev = "cuda-emulated"
    make, planned = GEMM_OPERANDS[layout]
    planned = planned and dtype != "int64"
    x = make((_t(rng, (7, 5), dtype) * 3).to(dev))
    w = make((_t(rng, (5, 3), dtype) * 3).to(dev))
    f = lambda x, w: strided.relu(x @ w) @ strided.matrix_transpose(w)  # noqa: E731
    cf = strided.compile(f)
    for _ in range(2):
        _same(cf(x, w).cpu(), f(x, w).cpu(), dtype)
    assert ("cuBLAS's gemm" in cf.explain()) == planned, cf.explain()
    if dtype == "int64":
        return
    loss = lambda x, w: (strided.tanh(x @ w) * 2).sum()  # noqa: E731
    cl = strided.compile(loss)
    x, w = x.detach().requires_grad_(), w.detach().requires_grad_()
    for _ in range(2):
        got, got_grads = _grads(cl, [x, w], [True, True])
    want, want_grads = _grads(loss, [x, w], [True, True])
    _same(got.cpu(), want.cpu(), dtype)
    for g, e in zip(got_grads, want_grads, strict=True):
        _same(g.cpu(), e.cpu(), dtype)
    program = cl.last.backward.program_source
    assert ("cuBLAS's gemm" in program) == planned
    if planned:
        assert "matrix_transpose(" not in program, program


@pytest.mark.parametrize("device", ["cpu", "cuda-emulated"])
def test_views_only_kernels_read_are_not_made(device):
    """Note [Views the kernels need not see]: a linear layer's backward runs none of the
    engine's reshapes and expands around its reductions (kernels read the viewed tensor), the
    bias gradient is allocated in its own shape (no view for the engine to copy), and loss and
    gradients equal eager; a view an eager step reads is still made."""
    rng = np.random.default_rng(29)
    x = _t(rng, (6, 5), "float32").to(device)
    w = (_t(rng, (5, 4), "float32") * 0.5).to(device)
    b = _t(rng, (4,), "float32").to(device)
    onehot = strided.tensor(np.eye(4, dtype=np.float32)[rng.integers(0, 4, 6)]).to(device)

    def loss(x, onehot, w, b):
        return -(F.log_softmax(x @ w + b, dim=1) * onehot).sum() / 6

    cf = strided.compile(loss)
    for _ in range(2):
        got, got_grads = _grads(cf, [x, onehot, w, b], [False, False, True, True])
    want, want_grads = _grads(loss, [x, onehot, w, b], [False, False, True, True])
    _same(got.cpu(), want.cpu(), "float32")
    for g, e in zip(got_grads[2:], want_grads[2:], strict=True):
        _same(g.cpu(), e.cpu(), "float32")
    program = cf.last.backward.program_source
    assert "strided.expand(" not in program and "strided.reshape(" not in program, program
    assert "its view: the kernels know the strides" in program
    assert re.search(r"reshape_\d+ = sum_\d+ = empty\(\(4,\)", program), program
    # a view an eager step reads (here the sort) is made
    sv = strided.compile(lambda v: strided.sort(strided.reshape(v * 2, (30,))) + 1)
    for _ in range(2):
        _same(sv(x).cpu(), (strided.sort(strided.reshape(x * 2, (30,))) + 1).cpu(), "float32")


def test_cuda_kernel_pointers_are_the_parameters_bytes():
    """A fused kernel's pointers go to the launch as 8 bytes each (cuda._pointers), which the
    driver's parameter packing (_params.pack, a GPU's launch) lays out as a NumPy uint64's."""
    import ctypes

    from strided._compile.cuda import _pointers
    from strided.cuda import _params

    ts = [strided.empty((3,), device="cuda-emulated") for _ in range(2)]
    args = (*_pointers(ts), np.int64(7))
    buffer, address = _params.pack(args)
    slots = (ctypes.c_void_p * 3).from_address(address)
    for t, slot in zip(ts, slots, strict=False):
        assert ctypes.c_uint64.from_address(slot).value == t.data_ptr()
    assert ctypes.c_int64.from_address(slots[2]).value == 7
    del buffer


def test_cuda_plan_keeps_buffers_for_what_only_kernels_read():
    """Note [A plan's own buffers]: the intermediates only kernels read are the plan's own,
    written again by every call, never returned; calls on other values give fresh results
    (the earlier results unchanged), and a call while the buffers are in use runs eagerly."""
    rng = np.random.default_rng(31)
    dev = "cuda-emulated"
    w = (_t(rng, (5, 4), "float32") * 0.5).to(dev)

    def f(x, w):
        h = strided.relu(x @ w + 1)  # x @ w: read by the kernel alone
        return (h * 2).sum(axis=1) / (h.exp() + 1).sum(), h

    cf = strided.compile(f)
    xs = [_t(rng, (6, 5), "float32").to(dev) for _ in range(3)]
    got = [cf(x, w) for x in xs]
    program = cf.last.forward.program_source
    assert "the plan's own buffer" in program and "buffers_lock" in program, program
    for x, g in zip(xs, got, strict=True):
        for a, b in zip(g, f(x, w), strict=True):
            _same(a.cpu(), b.cpu(), "float32")
    held = [v for k, v in cf.last.forward.program.__globals__.items() if k.startswith("buffer_")]
    assert held and all(t.data_ptr() not in {o.data_ptr() for g in got for o in g} for t in held)
    lock = cf.last.forward.program.__globals__["buffers_lock"]
    with lock:  # another call holds the buffers: this one takes the eager graph
        for a, b in zip(cf(xs[0], w), f(xs[0], w), strict=True):
            _same(a.cpu(), b.cpu(), "float32")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cuda_whole_tensor_reductions_split_over_blocks(dtype):
    """A sum of everything is cut into chunks along gridDim.y, the partials combined by a
    second kernel (Note [Fused CUDA reductions]); a pointwise value of the same group is
    written by the thread that computes it."""
    rng = np.random.default_rng(17)
    x = _t(rng, (20000,), dtype).to("cuda-emulated")

    def f(x):
        e = (x * 0.5).tanh()
        return e.sum(), strided.amax(x * 2), e * 3

    cf, first, got = _twice(f, x)
    for g, w in zip(got, f(x), strict=True):
        _same(g.cpu(), w.cpu(), dtype)
    specs = [spec for _, _, spec in cf.last.forward.cuda.functions]
    assert sum(spec.combine is not None for spec in specs) == 2, cf.explain()
    assert "_combine(char* partials" in cf.explain()


def test_compiler_errors_and_missing_compiler_are_said_once(monkeypatch):
    _compile.reset()
    real = cc.build
    monkeypatch.setattr(cc, "build", lambda src: real("#error planted by the test\n" + src))
    f = strided.compile(lambda x: x * 5 + 1)
    x = strided.ones(3)
    with pytest.warns(RuntimeWarning, match="planted by the test"):
        assert f(x).tolist() == [6.0, 6.0, 6.0]
    assert f(x).tolist() == [6.0, 6.0, 6.0]  # eager, without a second warning
    assert "did not compile" in f.explain()
    monkeypatch.setattr(cc, "compiler", lambda: None)
    g = strided.compile(lambda x: x - 1)
    with pytest.warns(RuntimeWarning, match="no C compiler"):
        assert g(x).tolist() == [0.0, 0.0, 0.0]


def test_modules_compile():
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    x = strided.tensor(np.random.default_rng(5).standard_normal((3, 4)), dtype="float32")
    with strided.no_grad():
        cf = strided.compile(net)
        _same(cf(x), net(x), "float32")
        _same(cf(x), net(x), "float32")


def _module_step(model, net, x):
    """The compiled ``model``'s output and its parameters' gradients, and eager ``net``'s."""
    out = []
    for m in (model, net):
        net.zero_grad()
        y = m(x)
        (y * y).sum().backward()
        out.append((y.detach(), [None if p.grad is None else p.grad for p in net.parameters()]))
    return out


def _check_module_step(model, net, x):
    (got, got_grads), (want, want_grads) = _module_step(model, net, x)
    _same(got, want, want.dtype.name)
    for g, w in zip(got_grads, want_grads, strict=True):
        assert (g is None) == (w is None)
        if g is not None:
            _same(g, w, w.dtype.name)
    with strided.no_grad():
        _same(model(x), net(x), want.dtype.name)


def test_a_compiled_module_sees_its_tree_change():
    """Note [A compiled module's tree]: the fast check keeps the parameters it found until the
    structure version moves; each change below is followed by calls that must equal eager's
    (output and gradients, then under no_grad), twice (the second by the fast check)."""
    rng = np.random.default_rng(11)
    x = strided.tensor(rng.standard_normal((5, 4)), dtype="float32")
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    model = strided.compile(net)

    def check():
        for _ in range(2):
            _check_module_step(model, net, x)

    check()
    with strided.no_grad():  # an in-place update moves nothing and is seen
        net[0].weight.mul_(2.0)
    check()
    net[0].weight = nn.Parameter(strided.tensor(rng.standard_normal((8, 4)), dtype="float32"))
    check()
    net[2].weight.requires_grad_(False)  # a flag changed in place
    check()
    net[2].weight.requires_grad_(True)
    net[2].register_parameter("bias", None)
    check()
    net.add_module("3", nn.ReLU())
    check()
    net.add_module("4", nn.Linear(3, 2))
    check()
    delattr(net, "3")  # a layer with no parameters: only the tree tells it is gone
    check()
    setattr(net, "1", nn.Sigmoid())  # the same parameters, another layer
    check()
    setattr(net, "1", nn.Softmax(dim=1))
    check()
    net[1].dim = 0  # a plain attribute traced in as a constant
    check()
    net._modules["1"] = nn.Tanh()  # a registry written directly
    check()
    state = {k: v * 3.0 for k, v in net.state_dict().items()}
    net.load_state_dict(state)  # copies into the same tensors
    check()
    net.to("float64")
    x = x.to("float64")
    check()
    net.apply(lambda m: setattr(m, "bias", None) if isinstance(m, nn.Linear) else None)
    check()


def test_a_compiled_module_sees_buffers_and_modes():
    """Buffers are in the tree's signature, and train()/eval() move the structure version."""

    class Scaled(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)
            self.register_buffer("scale", strided.ones(3, dtype="float32"))
            self.drop = nn.Dropout(0.5)

        def forward(self, x):
            return self.drop(self.fc(x) * self.scale)

    rng = np.random.default_rng(12)
    x = strided.tensor(rng.standard_normal((4, 3)), dtype="float32")
    net = Scaled().eval()
    model = strided.compile(net)
    with strided.no_grad():
        for _ in range(2):
            _same(model(x), net(x), "float32")
        net.scale = strided.full((3,), 2.0, dtype="float32")
        for _ in range(2):
            _same(model(x), net(x), "float32")
        net.scale = strided.full((1,), 3.0, dtype="float64")
        for _ in range(2):
            _same(model(x), net(x), "float64")
        net.train()
        _ = strided.manual_seed(0)
        got = model(x)
        _ = strided.manual_seed(0)
        _same(got, net(x), "float64")
        net.eval()
        for _ in range(2):
            _same(model(x), net(x), "float64")


def test_a_compiled_module_keeps_its_parameters_between_calls():
    """Calls that change nothing walk the tree once: the structure version does not move
    while a compiled module runs, nor when an optimizer steps."""
    from strided import optim
    from strided.nn.module import structure_version

    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    model = strided.compile(net)
    opt = optim.SGD(net.parameters(), lr=0.1)
    x = strided.ones((3, 4))
    model(x).sum().backward()
    version = structure_version()
    for _ in range(3):
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
    assert structure_version() == version
    assert model._seen[0] == version


def test_disk_cache_serves_a_second_process(cache):
    """The second process finds the kernels on disk. The function's values feed two chains
    that meet again, so the fusion groups are chosen among several open ones: in the order
    they were opened, the same in every process (a set's order once made the C, and so the
    cache key, differ from one process to the next)."""
    x = strided.ones(8)
    f = lambda x: ((x * 3 + 2).tanh() * x - (x * 3 + 2).exp() / x).sum()  # noqa: E731
    cf, _, _ = _twice(f, x)
    code = (
        "import strided, sys\n"
        "f = strided.compile(lambda x: ((x * 3 + 2).tanh() * x - (x * 3 + 2).exp() / x).sum())\n"
        "f(strided.ones(8)); print(f.last.from_disk, f.last.path)\n"
    )
    env = dict(os.environ, STRIDED_COMPILE_CACHE=cache)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    from_disk, path = out.stdout.split()
    assert from_disk == "True" and path == cf.last.path


def test_kernels_include_one_precompiled_header(cache):
    """Note [A precompiled header]: generated C includes strided_fused.h, which GCC has
    precompiled once in the cache directory."""
    cf, _, _ = _twice(lambda x: (x * 2).exp(), strided.ones(3))
    assert '#include "strided_fused.h"' in cf.last.source
    (header_dir,) = [d for d in os.listdir(cache) if d.startswith("header-")]
    files = os.listdir(os.path.join(cache, header_dir))
    assert cc.FUSED_HEADER in files
    if "gcc" in cc._compiler_version(cc.compiler()).lower():
        assert cc.FUSED_HEADER + ".gch" in files


# -- every OpInfo row through compile --------------------------------------------------------


def _function_of(n, body):
    """A function of n tensor parameters a0..a{n-1} (compile needs named parameters)."""
    params = ", ".join(f"a{i}" for i in range(n))
    ns = {}
    exec(f"def f({params}):\n    return body({params})", {"body": body}, ns)  # noqa: S102
    return ns["f"]


def _by_name(fn):
    """strided's public function of the same name as ``fn`` (the one a trace can see)."""
    return getattr(strided, getattr(fn, "__name__", ""), fn)


def _agree(got, want, dtype, where):
    assert got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape), where
    rtol = {"float32": 2e-6, "float64": 1e-13}.get(dtype, 0)
    g, w = np.asarray(got), np.asarray(want)
    if g.dtype.kind == "f":
        np.testing.assert_allclose(g, w, rtol=rtol, atol=0, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(g, w, err_msg=where)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_every_elementwise_opinfo_row_gives_the_eager_answer(dtype):
    """Each row of tests/opinfo_elementwise.py, fed by an elementwise op (so that it fuses into
    a chain), over the row's own value domains (inf, nan, -0.0 included): one compiled function
    per dtype computes them all, and each output equals eager's."""
    from opinfo_elementwise import EW_OPS, quiet

    rng = np.random.default_rng(7)
    want_dtype = getattr(strided, dtype)
    rows = [op for op in EW_OPS if want_dtype in op.dtypes]
    arrays, slots = [], []
    for op in rows:
        first = len(arrays)
        for make in op.domains:
            arrays.append(strided.asarray(make((3, 17), np.dtype(dtype), rng)))
        slots.append((op, first, op.nargs))

    def body(*xs):
        # by name, from strided: the trace sees strided's functions, not a row's saved reference
        # to one (Note [How a call becomes a node] in strided/fx/proxy.py)
        return tuple(_by_name(op.op)(*[x * 1 for x in xs[i : i + n]]) for op, i, n in slots)

    f = _function_of(len(arrays), body)
    with quiet(), np.errstate(all="ignore"):
        cf = strided.compile(f)
        cf(*arrays)
        got = cf(*arrays)
        want = f(*arrays)
    for (op, _, _), g, w in zip(slots, got, want, strict=True):
        _agree(g, w, dtype, f"{op.name} {dtype}")
    if dtype != "int32":
        fused = {n.target.__name__ for k, g in cf.last.steps if k == "group" for n in g.nodes}
        assert len(fused) > 30, sorted(fused)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_every_reduction_opinfo_row_gives_the_eager_answer(dtype):
    """Each reduce/dim row of tests/opinfo_reduction.py over several axes and keepdims, fed by
    an elementwise chain (so a reduction fuses with its producer when it can), against eager."""
    from opinfo_reduction import RED_OPS

    rng = np.random.default_rng(8)
    x = strided.asarray(RED_OPS[0].values((4, 3, 5), np.dtype(dtype), rng))
    calls = []
    for row in RED_OPS:
        if row.kind == "arg":
            samples = [{"axis": None}, {"axis": 1, "keepdims": True}]
        elif row.kind == "dim":
            samples = [{"dim": 0}, {"dim": -1}]
        else:
            samples = [{"axis": a, "keepdims": k} for a in (None, 0, -1, (0, 2)) for k in (0, 1)]
            samples = [{**s, "keepdims": bool(s["keepdims"])} for s in samples]
        calls += [(row, {**kw, **row.kwargs}) for kw in samples]

    def body(a0):
        h = (a0 * 0.5 + 0.25).tanh() * 3
        return tuple(_by_name(row.op)(h, **kw) for row, kw in calls)

    f = _function_of(1, body)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        cf = strided.compile(f)
        cf(x)
        got = cf(x)
        want = f(x)
    rtol_dtype = dtype
    for (row, kw), g, w in zip(calls, got, want, strict=True):
        g = g if not isinstance(g, tuple) else g[0]
        w = w if not isinstance(w, tuple) else w[0]
        assert g.dtype == w.dtype and tuple(g.shape) == tuple(w.shape), (row.name, kw)
        tol = 2e-5 if rtol_dtype == "float32" else 1e-12  # sums in another order
        np.testing.assert_allclose(
            np.asarray(g, dtype=np.float64),
            np.asarray(w, dtype=np.float64),
            rtol=tol,
            atol=tol,
            equal_nan=True,
            err_msg=f"{row.name} {kw}",
        )
    groups = [g for k, g in cf.last.steps if k == "group" and g.reduction is not None]
    assert len(groups) >= 20


@NVRTC_ONLY
def test_fused_cuda_source_compiles_with_nvrtc_for_sm80_and_sm90():
    """The generated CUDA C++ (here a forward and a joint backward made on cuda-emulated) is
    what NVRTC compiles on a GPU: compile it for the project's GPUs, without one."""
    from cupy.cuda import nvrtc

    from strided.cuda import _launch

    x = strided.ones((3, 4), device="cuda-emulated").requires_grad_()
    cf = strided.compile(lambda x: (strided.sigmoid(x * 3) * x + 1).tanh().sum())
    cf(x).backward()
    # the fused reductions' three kernel shapes (Note [Fused CUDA reductions]) too
    cr = strided.compile(lambda x: (x.exp().sum(axis=0), F.softmax(x * 2, dim=1), x.max(), x + 1))
    # and the row kernels (Note [Fused CUDA rows]), their row in registers and not
    rows = strided.compile(lambda x: (F.log_softmax(x, dim=1), F.layer_norm(x[:, :5], (5,))))
    long_rows = strided.compile(lambda x: F.layer_norm(x, (x.shape[1],)))
    with strided.no_grad():
        cr(strided.ones((9000, 3), device="cuda-emulated"))
        rows(strided.ones((3, 700), device="cuda-emulated", dtype="float64"))
        long_rows(strided.ones((2, 17000), device="cuda-emulated"))
    lowered = (cf.last.forward, cf.last.backward, cr.last.forward)
    modules = [low.cuda for low in (*lowered, rows.last.forward, long_rows.last.forward)]
    assert all(m is not None for m in modules)
    kinds = {spec.kind for _, _, spec in modules[2].functions}
    assert kinds == {"pointwise", "block", "thread", "row"}, kinds
    assert "#pragma unroll" in modules[3].generated and "c0[e]" in modules[3].generated
    assert "c0[e]" not in modules[4].generated  # 34 elements a thread of 512: read again
    assert any(spec.combine for _, _, spec in modules[2].functions)
    for module in modules:
        for arch in ("sm_80", "sm_90"):
            prog = nvrtc.createProgram(module.source, "fused.cu", [], [])
            try:
                for name in module.names:
                    nvrtc.addNameExpression(prog, name)
                try:
                    nvrtc.compileProgram(prog, [*_launch.NVRTC_OPTIONS, f"-arch={arch}"])
                except Exception as e:
                    pytest.fail(f"{arch}: {e}\n{nvrtc.getProgramLog(prog)}")
            finally:
                nvrtc.destroyProgram(prog)


FUSED_OPTIMIZERS = {
    "sgd": ("SGD", dict(lr=0.1)),
    "momentum": ("SGD", dict(lr=0.1, momentum=0.9)),
    "nesterov-decay": ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    "dampening-max": ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, maximize=True)),
    "adam": ("Adam", dict(lr=0.01)),
    "adam-decay-amsgrad": ("Adam", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    "adamw-max": ("AdamW", dict(lr=0.01, maximize=True)),
}


def _recording(update, seen):
    """``update`` (an optimizer's per-parameter step) noting in ``seen`` whom it updated."""

    def run(p, *args):
        seen.add(id(p))
        return update(p, *args)

    return run


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(FUSED_OPTIMIZERS))
def test_fused_optimizer_steps_equal_eager(case, dtype):
    """Note [A fused optimizer step]: fused=True gives the eager step's parameters and state
    (a parameter above the threading grain, small ones, a transposed one that stays eager)."""
    from strided import optim

    name, kw = FUSED_OPTIMIZERS[case]
    rng = np.random.default_rng(18)
    init = [rng.standard_normal(s) for s in [(40000, 2), (5,), (3, 4), (4, 3)]]
    results = []
    for fused in (False, True):
        ps = [strided.tensor(a, dtype=dtype) for a in init]
        ps[3] = ps[3].T.contiguous().T  # a column-major parameter: the eager update
        ps = [p.requires_grad_() for p in ps]
        opt = getattr(optim, name)(ps, fused=fused, **kw)
        went_eager = set()
        opt._update = _recording(opt._update, went_eager)
        versions = [p._version for p in ps]
        for _ in range(3):
            opt.zero_grad()
            for i, p in enumerate(ps):  # the gradient of sin((i + 1) p^2), set as backward would
                d = p.detach()
                p.grad = (d * d * (i + 1)).cos() * d * (2 * (i + 1))
            opt.step()
        assert all(p._version > v for p, v in zip(ps, versions, strict=True))
        assert went_eager == ({id(ps[3])} if fused else {id(p) for p in ps})
        state = [sorted(opt.state[p].items()) for p in ps]
        results.append(([p.detach() for p in ps], state))
    (eager, eager_state), (fused_ps, fused_state) = results
    for e, f in zip(eager, fused_ps, strict=True):
        _same(f, e, dtype)
    for es, fs in zip(eager_state, fused_state, strict=True):
        assert [k for k, _ in es] == [k for k, _ in fs]
        for (_, a), (_, b) in zip(es, fs, strict=True):
            if isinstance(a, strided.Tensor):
                _same(b, a, dtype)
            else:
                assert a == b
    with pytest.raises(TypeError, match="fused must be None, False or True"):
        getattr(optim, name)(eager, fused="yes")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "geometry",
    [
        ([3, 3], [1, 1], [1, 1], [1, 1]),  # the digits CNN's: runs of 3 taps of one channel
        ([3, 2], [2, 1], [2, 0], [1, 1]),
        ([2, 3], [1, 2], [0, 1], [2, 2]),  # dilated: tap by tap
        ([1, 1], [1, 1], [0, 0], [1, 1]),
    ],
)
@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize(
    "layout", ["contiguous", "channels_last", "stepped", "negative", "expanded", "empty"]
)
def test_im2col_c_loop_on_every_layout(dtype, geometry, channels, layout, monkeypatch):
    """Note [The layers' loops in C]: im2col's padded copy and runs of taps give the values of
    the kernel made of strided's ops, bit for bit (a copy), on every layout of its input."""
    from strided.fx import layers

    rng = np.random.default_rng(15)
    base = _t(rng, (3, channels, 7, 6), dtype)
    x = {
        "contiguous": lambda: base,
        "channels_last": lambda: base.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2),
        "stepped": lambda: _t(rng, (3, channels, 14, 12), dtype)[:, :, ::2, ::2],
        "negative": lambda: base[::-1, :, ::-1, :],
        "expanded": lambda: strided.broadcast_to(base[:1], base.shape),
        "empty": lambda: base[:0],
    }[layout]()
    assert layers._c_layers() is not None
    got = layers._im2col(x, *geometry)
    monkeypatch.setattr(layers, "_c_lib", [None])
    want = layers._im2col(x, *geometry)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "negative"])
def test_a_count_of_bools_in_a_float_type(dtype, layout):
    """Note [Counting bools in a vector loop]: ties counted as max's backward counts them (a
    sum of bools in a float dtype, along the inner dim and across outer ones) equal eager's."""
    rng = np.random.default_rng(16)
    x = strided.tensor(rng.integers(0, 3, (6, 4, 34)), dtype=dtype)
    x = {"contiguous": x, "transposed": x.permute(2, 1, 0), "negative": x[::-1, :, ::-1]}[layout]
    m = strided.amax(x, axis=1, keepdims=True)
    d = getattr(strided, dtype)

    def count(x, m):
        ties = x == m
        return strided.sum(ties, axis=1, keepdims=True, dtype=d) + strided.sum(
            ties, axis=(0, 2), keepdims=True, dtype=d
        )

    f = strided.compile(count)
    got = f(x, m)
    assert "? 1.0 : 0.0" in f.explain()  # the counts are fused
    np.testing.assert_array_equal(got.numpy(), count(x, m).numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "layout", ["contiguous", "channels_last", "stepped", "negative", "expanded", "empty"]
)
@pytest.mark.parametrize("x_grad, bias", [(True, True), (False, True), (True, False)])
def test_eager_convolution_in_a_joint_graph(dtype, layout, x_grad, bias):
    """Note [Eager's convolution in a joint graph]: a stride-1 conv2d stays eager's op, its
    forward eager's bits; x's and the weight's gradients come from the op's own row (eager's
    bits), the bias's from a fused sum (float rounding: rtol 1e-5 in float32, 1e-12 in
    float64); on every layout of x, with and without x's gradient and a bias."""
    rng = np.random.default_rng(17)
    base = _t(rng, (3, 4, 9, 7), dtype)
    x = {
        "contiguous": lambda: base,
        "channels_last": lambda: base.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2),
        "stepped": lambda: _t(rng, (3, 4, 18, 14), dtype)[:, :, ::2, ::2],
        "negative": lambda: base[::-1, :, ::-1, :],
        "expanded": lambda: strided.broadcast_to(base[:1], base.shape),
        "empty": lambda: base[:0],
    }[layout]()
    w0, b0 = _t(rng, (5, 4, 3, 3), dtype), _t(rng, (5,), dtype)

    def loss(x, w, b):
        return (F.relu(F.conv2d(x, w, b, padding=1)) * 0.5).sum()

    rtol = 1e-5 if dtype == "float32" else 1e-12
    results = []
    for compiled in (True, False):
        w = w0.detach().requires_grad_()
        b = b0.detach().requires_grad_() if bias else None
        xx = x.detach().requires_grad_() if x_grad else x
        f = strided.compile(loss) if compiled else loss
        for _ in range(2):  # capture, then the plan
            out = f(xx, w, b)
            out.backward()
            grads = [t.grad for t in (xx, w, b) if t is not None and t._requires_grad]
            results.append((out, grads))
            for t in (xx, w, b):
                if t is not None and t._requires_grad:
                    t.grad = None
        if compiled:
            assert f.last.backward is not None, f.last.joint_reason
            assert "nn.conv2d_stride1_grad" in f.explain() or layout == "empty"
    for (got, g_grads), (want, w_grads) in zip(results[:2], results[2:], strict=True):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol)
        *exact, last = g_grads
        *exact_w, last_w = w_grads
        if not bias:
            exact, exact_w = g_grads, w_grads
        for g, e in zip(exact, exact_w, strict=True):  # x's and the weight's: eager's kernels
            np.testing.assert_array_equal(g.numpy(), e.numpy())
        if bias:
            np.testing.assert_allclose(last.numpy(), last_w.numpy(), rtol=rtol, atol=rtol)


def test_conv2d_stride1_grad_is_the_ops_row():
    """nn::conv2d_stride1_grad gives what eager autograd gives x and the weight."""
    from strided.fx import layers

    rng = np.random.default_rng(18)
    x = _t(rng, (2, 3, 6, 5)).requires_grad_()
    w = _t(rng, (4, 3, 3, 2)).requires_grad_()
    g = _t(rng, (2, 4, 6, 6))
    out = F.conv2d(x, w, None, padding=1)
    out.backward(g)
    np.testing.assert_array_equal(
        layers.conv2d_stride1_grad(g, x.detach(), w.detach(), [1, 1], 0).numpy(), x.grad.numpy()
    )
    np.testing.assert_array_equal(
        layers.conv2d_stride1_grad(g, x.detach(), w.detach(), [1, 1], 1).numpy(), w.grad.numpy()
    )
