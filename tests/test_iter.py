"""The iterator itself (strided/_iter.pyx), the only shape engine: the loop plan's reorder and
coalesce, the elementwise iterator's decisions, the small fast path agreeing with the general
path, the one out= check, and the dispatcher's key-set rule (strided/_dispatch.py). The ops'
tests exercise all of this through the ops; these tests name each piece on its own."""

import numpy as np
import pytest

import strided
from strided import _dispatch, _iter
from strided._cpu import binary as _binary
from strided._cpu import unary as _unary

# the result kinds of _iter.pxd's ResultKind enum
RESULT_SAME, RESULT_BOOL, RESULT_FLOAT, RESULT_REAL = 0, 1, 2, 3


def _byte_strides(t):
    return tuple(s * t.itemsize for s in t.stride())


# ---------------------------------------------------------------------------------------------
# Note [The loop plan]: reorder and coalesce
# ---------------------------------------------------------------------------------------------


def test_contiguous_tensor_of_any_rank_coalesces_to_one_dim():
    x = strided.zeros((2, 3, 4, 5))
    p = _iter._plan_for(x.shape, [(x.stride(), x.itemsize)])
    assert p["loop_shape"] == (120,) and p["stride_bytes"] == [(8,)]
    assert p["numel"] == 120


def test_reorder_walks_a_transposed_tensor_in_memory_order():
    x = strided.zeros((3, 4)).T  # shape (4, 3), strides (1, 4)
    p = _iter._plan_for(x.shape, [(x.stride(), x.itemsize)])
    assert p["dim_order"] == (1, 0)  # the caller's dim 1 became the outer loop
    assert p["loop_shape"] == (12,)  # and then the two dims merge


def test_sliced_dims_do_not_merge_but_evenly_stepped_ones_do():
    x = strided.zeros((4, 6))[:, :3]  # a gap after every row: two dims
    p = _iter._plan_for(x.shape, [(x.stride(), x.itemsize)])
    assert p["loop_shape"] == (4, 3) and p["stride_bytes"] == [(48, 8)]
    y = strided.zeros((4, 6))[:, ::2]  # every other element: one evenly stepped run
    p = _iter._plan_for(y.shape, [(y.stride(), y.itemsize)])
    assert p["loop_shape"] == (12,) and p["stride_bytes"] == [(16,)]


def test_broadcast_dims_have_no_opinion_and_merge_only_with_zeros():
    # a (4, 1) column expanded over 5 columns, written into a fresh (4, 5) output
    out = strided.zeros((4, 5))
    col = strided.zeros((4, 1)).expand(4, 5)
    p = _iter._plan_for(out.shape, [(out.stride(), 8), (col.stride(), 8)])
    assert p["loop_shape"] == (4, 5)
    assert p["stride_bytes"] == [(40, 8), (8, 0)]
    # two broadcast dims of the same operand merge (0 * n == 0)
    both = _iter.loop_dims((2, 3), [(0, 0)])
    assert both == ([6], [[0]])


def test_negative_strides_reorder_by_magnitude_and_coalesce():
    x = strided.zeros((3, 4))[::-1, ::-1]
    assert x.stride() == (-4, -1)
    p = _iter._plan_for(x.shape, [(x.stride(), x.itemsize)])
    assert p["loop_shape"] == (12,) and p["stride_bytes"] == [(-8,)]
    # one dim reversed, the other not: the signs differ, so the dims cannot merge
    y = strided.zeros((3, 4)).T[::-1]
    assert _iter.loop_dims(y.shape, [_byte_strides(y)], reorder=True) == ([4, 3], [[-8, 32]])


def test_size_one_and_empty_dims():
    assert _iter.loop_dims((1, 1, 1), [(8, 8, 8)]) == ([], [[]])
    assert _iter.loop_dims((), [()]) == ([], [[]])
    sizes, _ = _iter.loop_dims((3, 0, 2), [(0, 16, 8)])
    assert sizes == [0]  # nothing will run: one empty dim


def test_loop_dims_keeps_row_major_order_unless_asked_to_reorder():
    # (outer, inner) = (4 of stride 8, 3 of stride 32): a transposed view
    assert _iter.loop_dims((4, 3), [(8, 32)]) == ([3, 4], [[32, 8]])
    assert _iter.loop_dims((4, 3), [(8, 32)], reorder=True) == ([12], [[8]])


def test_coalesce_needs_every_operand_to_agree():
    # operand 0 contiguous, operand 1 with a gap after each row: no merge
    assert _iter.loop_dims((2, 3), [(24, 8), (64, 16)]) == ([3, 2], [[8, 24], [16, 64]])
    # both contiguous: merge
    assert _iter.loop_dims((2, 3), [(24, 8), (12, 4)]) == ([6], [[8], [4]])


def test_cuda_coalescer_is_the_iterators():
    from strided.cuda import _launch

    assert _launch.coalesce([2, 3, 4], [96, 32, 8]) == [(24, 8)]
    assert _launch.coalesce([4, 1, 3], [24, 999, 8]) == [(12, 8)]
    assert _launch.coalesce([4, 3], [8, 32]) == [(3, 32), (4, 8)]


# ---------------------------------------------------------------------------------------------
# Reductions: the reduced dims go through the same plan (a reduction keeps two plans)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda a: a,
        lambda a: a.transpose(2, 0, 1),
        lambda a: a[::-1, :, ::-1],
        lambda a: a[:, ::2],
        lambda a: a[:, :1].expand(4, 6, 5),
    ],
    ids=["contiguous", "permuted", "negative", "stepped", "expanded"],
)
@pytest.mark.parametrize("axis", [None, 0, 1, 2, (0, 2), (1, 2)])
def test_reduction_over_reordered_coalesced_dims_matches_numpy(make, axis):
    a = np.arange(4 * 6 * 5, dtype=np.float64).reshape(4, 6, 5) % 7 - 3
    x = make(strided.asarray(a))
    ref = np.asarray(x).copy()
    np.testing.assert_allclose(np.asarray(x.sum(axis=axis)), ref.sum(axis=axis))
    np.testing.assert_array_equal(np.asarray(x.max(axis=axis)), ref.max(axis=axis))


def test_reduction_result_keeps_the_inputs_memory_order():
    # Note [Reductions]: the result is laid out as the iterator lays out its outputs
    x = strided.zeros((2, 3, 4)).permute(2, 0, 1)  # (4, 2, 3), dim 0 fastest
    r = x.sum(axis=2)  # kept dims 0 (fastest in memory) and 1
    assert r.shape == (4, 2) and r.stride() == (1, 4)


# ---------------------------------------------------------------------------------------------
# The elementwise iterator: output layout and the overlap check
# ---------------------------------------------------------------------------------------------


def test_elementwise_output_follows_the_inputs_memory_order():
    x = strided.zeros((3, 4)).T
    plan = _binary.binary_plan("add", x, 1.0)
    assert plan.shape == (4, 3) and plan.out.stride() == x.stride()
    assert "loop: shape (12,)" in plan.explain()


def test_out_overlapping_an_input_computes_into_a_temporary():
    x = strided.zeros(6)
    plan = _binary.binary_plan("add", x[:-1], 1.0, x[1:])
    assert plan.write_to is not plan.out
    assert "overlaps input 0" in plan.explain()
    # the same elements at the same indices (a += 1) need no temporary
    plan = _binary.binary_plan("add", x, 1.0, x)
    assert plan.write_to is plan.out
    strided.add(x[:-1], 1.0, out=x[1:])
    np.testing.assert_array_equal(np.asarray(x), [0, 1, 1, 1, 1, 1])  # not 0, 1, 2, 3, 4, 5


# ---------------------------------------------------------------------------------------------
# Note [The small fast path]: the same decision, made sooner
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name,kind,dtype,b",
    [
        ("add", RESULT_SAME, "float64", "tensor"),
        ("add", RESULT_SAME, "float32", 2.5),
        ("add", RESULT_SAME, "int32", 3),
        ("less", RESULT_BOOL, "float64", 0.5),
        ("divide", RESULT_FLOAT, "float32", "tensor"),
        ("multiply", RESULT_SAME, "complex128", "tensor"),
    ],
)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 5)])
def test_small_fast_path_agrees_with_the_general_path(name, kind, dtype, b, shape):
    a = strided.asarray(np.arange(int(np.prod(shape))).reshape(shape) % 5 + 1, dtype=dtype)
    other = strided.asarray(np.ones(shape), dtype=dtype) if b == "tensor" else b
    small = _iter._small_layout(kind, a, other)
    assert small is not None
    plan = _binary.binary_plan(name, a, other)
    assert small == (plan.out.dtype, plan.out.shape, plan.out.stride())
    # and the values agree: the general path forced by a non-contiguous copy of a
    general = _binary.binary(name, a.T.contiguous().T if a.ndim == 2 else a, other)
    fast = _binary.binary(name, a, other)
    assert np.asarray(fast).tobytes() == np.asarray(general).tobytes()


@pytest.mark.parametrize("name,kind", [("negative", RESULT_SAME), ("abs", RESULT_REAL),
                                       ("isnan", RESULT_BOOL), ("exp", RESULT_FLOAT)])  # fmt: skip
def test_small_fast_path_agrees_for_unary_ops(name, kind):
    a = strided.asarray(np.linspace(-2, 2, 12).reshape(3, 4))
    small = _iter._small_layout(kind, a, None, True)
    plan = _unary.unary_plan(name, a)
    assert small == (plan.out.dtype, plan.out.shape, plan.out.stride())


def test_small_fast_path_declines_what_it_does_not_cover():
    a = strided.ones((3, 4))
    assert _iter._small_layout(RESULT_SAME, a.T, 1.0) is None  # not contiguous
    assert _iter._small_layout(RESULT_SAME, a, strided.ones(4)) is None  # broadcast
    assert _iter._small_layout(RESULT_SAME, a, strided.ones((3, 4), dtype="float32")) is None
    assert _iter._small_layout(RESULT_SAME, a, 1j) is None  # the scalar changes the dtype
    assert _iter._small_layout(RESULT_FLOAT, strided.ones(3, dtype="int64"), 1) is None
    assert _iter._small_layout(RESULT_REAL, a, 1.0) is None  # binary REAL ops take the general path
    big = strided.ones(1 << 16)
    assert _iter._small_layout(RESULT_SAME, big, 1.0) is None  # above GRAIN_SIZE
    assert _iter._small_layout(RESULT_SAME, strided.ones(3, dtype="int8"), 300) is None


# ---------------------------------------------------------------------------------------------
# Note [Checking out=]: one place, one wording
# ---------------------------------------------------------------------------------------------


def test_check_out_names_the_op_the_argument_and_what_would_work():
    out = strided.zeros((2, 3), dtype="int64")
    assert _iter.check_out("f", out, (2, 3), strided.int32) is out
    with pytest.raises(TypeError, match=r"f: out= must be a strided tensor, got list"):
        _iter.check_out("f", [1, 2], (2,))
    with pytest.raises(ValueError, match=r"f: out= has shape \(2, 3\), but the result has "
                       r"shape \(3, 2\); out= must have exactly the result's shape"):  # fmt: skip
        _iter.check_out("f", out, (3, 2))
    with pytest.raises(TypeError, match=r"f: cannot write the float64 result into out= of "
                       r"dtype int64 .*'same_kind'.*use an out= of dtype float64"):  # fmt: skip
        _iter.check_out("f", out, (2, 3), strided.float64)
    with pytest.raises(RuntimeError, match=r"f: out= has elements that share memory"):
        _iter.check_out("f", strided.zeros(3).expand(2, 3), (2, 3))
    read_only = strided.asarray(b"\x01\x02\x03")  # a tensor over immutable bytes
    with pytest.raises(ValueError, match=r"f: out= is read-only; give a writable tensor"):
        _iter.check_out("f", read_only, (3,))
    with pytest.raises(RuntimeError, match=r"f: out= is on .*, the inputs on cuda"):
        _iter.check_out("f", out, (2, 3), None, strided.ones(1, device="cuda-emulated").device)


def test_every_op_family_words_out_errors_alike():
    x = strided.ones((2, 3))
    bad = strided.zeros(4)
    for call in (
        lambda: strided.add(x, x, out=bad),  # the elementwise iterator
        lambda: strided.matmul(x, x.T, out=bad),  # matmul (CPU)
        lambda: strided.sum(x, axis=0, out=bad),  # reductions
        lambda: strided.concatenate([x, x], out=bad),  # joining
    ):
        with pytest.raises(ValueError, match=r"out= has shape \(4,\), but the result has shape"):
            call()


# ---------------------------------------------------------------------------------------------
# Note [Dispatch key sets]
# ---------------------------------------------------------------------------------------------


def test_tensor_keys_and_call_keys():
    x = strided.ones(3)
    assert _dispatch.tensor_keys(x) == _dispatch.CPU
    w = strided.ones(3).requires_grad_()
    assert _dispatch.tensor_keys(w) == _dispatch.CPU | _dispatch.AUTOGRAD
    assert _dispatch.call_keys("add", (x, 1.0), {}) == _dispatch.CPU
    assert _dispatch.call_keys("add", (x, w), {}) & _dispatch.AUTOGRAD
    assert _dispatch.call_keys("concat", ([x, w],), {}) & _dispatch.AUTOGRAD
    # an in-place write brings the Autograd key once autograd has registered (it has: w)
    assert _dispatch.call_keys("add", (x, x), {"out": x}) & _dispatch.AUTOGRAD
    assert _dispatch.call_keys("index_put_", (x, 0, 1.0), {}) & _dispatch.AUTOGRAD
    assert not _dispatch.skips_dispatcher("add", (x, w), {})
    assert _dispatch.skips_dispatcher("add", (x, 1.0), {})


def test_trace_forces_its_key_onto_every_call():
    x = strided.ones(3)
    with strided.trace_dispatch():
        assert _dispatch.forced[0] == _dispatch.TRACE
        assert _dispatch.possible[0] & _dispatch.TRACE
        assert _dispatch.call_keys("add", (x, 1.0), {}) == _dispatch.CPU | _dispatch.TRACE
        assert not _dispatch.skips_dispatcher("add", (x, 1.0), {})
    assert _dispatch.forced[0] == 0 and not _dispatch.possible[0] & _dispatch.TRACE


def test_cuda_tensors_bring_the_cuda_key():
    y = strided.ones(3, device="cuda-emulated")
    assert _dispatch.tensor_keys(y) == _dispatch.CUDA
    assert _dispatch.possible[0] & _dispatch.CUDA
    # a CPU scalar tensor joins a CUDA call: the call is a CUDA call
    assert _dispatch.call_keys("add", (y, strided.asarray(1.0)), {}) == _dispatch.CUDA
    with strided.trace_dispatch() as trace:
        y + 1
    assert trace[0]["key"] == "CUDA"


def test_key_bits_follow_the_priority_of_keys():
    bits = [_dispatch.KEY_BITS[k] for k in _dispatch.KEYS]
    assert bits == sorted(bits, reverse=True)  # Autograd above the devices


# ---- thread settings (Note [Thread settings] in _threads.pyx) --------------------------------


@pytest.mark.parametrize(
    "environ, expected",
    [
        ({"STRIDED_NUM_THREADS": "2", "OMP_NUM_THREADS": "1"}, 2),  # strided's own wins
        ({"OMP_NUM_THREADS": "1"}, 1),  # as NumPy's BLAS and PyTorch read it (Dask's workers)
        ({"OMP_NUM_THREADS": "3,2"}, 3),  # nested levels: the first is the outer one
        ({"OMP_NUM_THREADS": "many"}, None),  # not a count: the cores this process may use
    ],
)
def test_thread_count_comes_from_the_environment(environ, expected):
    import os
    import subprocess
    import sys

    env = {
        k: v for k, v in os.environ.items() if k not in ("STRIDED_NUM_THREADS", "OMP_NUM_THREADS")
    }
    env.update(environ)
    code = "import os, strided; print(strided.get_num_threads(), len(os.sched_getaffinity(0)))"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    got, cores = int(out[0]), int(out[1])
    assert got == (cores if expected is None else expected)


# -- Note [When a loop is split] (strided/_loop_plan.pyx) ---------------------------------------


def test_a_loop_is_split_only_when_its_serial_time_is_worth_it():
    from strided import _loop_plan

    strided.set_num_threads(2)
    x = strided.asarray(np.linspace(0.0, 1.0, 640 * 480).reshape(640, 480))
    ref = np.asarray(x).astype(np.float32)
    old = _loop_plan._set_parallel_us(1e9)  # no loop takes that long: never split
    try:
        never = np.asarray(x.astype("float32")).copy()
        assert strided.last_copy_plan()["parallel"] is False
        assert _loop_plan._set_parallel_us(0) == 1e9  # the rule before it: split at 2 * GRAIN
        always = np.asarray(x.astype("float32")).copy()
        assert strided.last_copy_plan()["parallel"] is True
    finally:
        _loop_plan._set_parallel_us(old)
    assert never.tobytes() == always.tobytes() == ref.tobytes()
    costs = _loop_plan._loop_costs()  # the cast loop's cost was measured on both roads
    assert costs and all(ns > 0 for ns in costs.values())


@pytest.mark.parametrize("us", [0, 1e9])
def test_elementwise_and_reduction_results_do_not_depend_on_the_split(us):
    from strided import _loop_plan

    rng = np.random.default_rng(0)
    a = rng.standard_normal((300, 700)).astype(np.float32)
    b = rng.standard_normal(700).astype(np.float32)
    x, y = strided.asarray(a), strided.asarray(b)
    strided.set_num_threads(1)
    one = [np.asarray(f()) for f in (lambda: strided.exp(x) * y, lambda: x.sum(), lambda: x.max(0))]
    old = _loop_plan._set_parallel_us(us)
    try:
        strided.set_num_threads(2)
        two = [
            np.asarray(f()) for f in (lambda: strided.exp(x) * y, lambda: x.sum(), lambda: x.max(0))
        ]
    finally:
        _loop_plan._set_parallel_us(old)
    for r1, r2 in zip(one, two, strict=True):
        assert r1.tobytes() == r2.tobytes()
    np.testing.assert_allclose(two[0], np.exp(a) * b, rtol=1e-6)
    np.testing.assert_allclose(two[1], a.sum(dtype=np.float64), rtol=1e-5)
    np.testing.assert_array_equal(two[2], a.max(0))


def test_the_split_threshold_reads_the_environment(monkeypatch):
    from strided import _loop_plan

    monkeypatch.setenv("STRIDED_PARALLEL_US", "250")
    assert _loop_plan._parallel_us_from_environment() == 250.0
    for text in ("", "fast", "-1"):
        monkeypatch.setenv("STRIDED_PARALLEL_US", text)
        assert _loop_plan._parallel_us_from_environment() is None
