"""The autograd engine, graph, modes, hooks, in-place rules and errors (strided/autograd)."""

from __future__ import annotations

import re
import shutil
import threading

import numpy as np
import pytest

import strided
from strided.autograd import Function, gradcheck, once_differentiable


def leaf(values, dtype="float64"):
    return strided.tensor(values, dtype=dtype).requires_grad_()  # a copy: numpy stays put


# -- graph and engine --------------------------------------------------------------------------


def test_graph_structure_and_names():
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = (a * b).sum()
    assert y.grad_fn.name() == "SumBackward"
    mul = y.grad_fn.next_functions[0][0]
    assert mul.name() == "MultiplyBackward"
    assert [type(e[0]).__name__ for e in mul.next_functions] == ["AccumulateGrad"] * 2
    assert mul.next_functions[0][0].variable is a
    assert y.grad_fn.sequence_nr > mul.sequence_nr
    assert a.is_leaf and not y.is_leaf and y.requires_grad
    mul.metadata["tag"] = 1
    assert mul.metadata == {"tag": 1}
    assert "test_autograd.py" in mul.source


def test_diamond_sums_both_paths():
    x = leaf([1.0, 2.0, 3.0])
    y = x * 2
    z = y.exp() + y.sin()  # y feeds two nodes
    z.sum().backward()
    xv = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(x.grad.numpy(), 2 * (np.exp(2 * xv) + np.cos(2 * xv)))


def test_shared_subgraph_and_reuse_of_one_tensor():
    x = leaf([1.0, -2.0])
    h = x * x
    out = (h + h * h + x).sum()
    out.backward()
    xv = np.array([1.0, -2.0])
    np.testing.assert_allclose(x.grad.numpy(), 2 * xv + 4 * xv**3 + 1)


def test_unused_inputs_and_allow_unused():
    x, unused = leaf([1.0]), leaf([2.0])
    y = (x * 3).sum()
    with pytest.raises(RuntimeError, match="input 1 .* was not used"):
        strided.autograd.grad(y, [x, unused], retain_graph=True)
    gx, gu = strided.autograd.grad(y, [x, unused], allow_unused=True, retain_graph=True)
    assert gx.tolist() == [3.0] and gu is None
    _, gz = strided.autograd.grad(y, [x, unused], materialize_grads=True)
    assert gz.tolist() == [0.0]


def test_grad_does_not_touch_dot_grad_and_runs_only_what_is_needed():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    calls = []
    w.register_hook(lambda g: calls.append("w"))
    (gx,) = strided.autograd.grad((x * w).sum(), x)
    assert gx.tolist() == [3.0, 4.0]
    assert x.grad is None and w.grad is None and calls == []


def test_retain_graph_and_second_backward_error():
    x = leaf([1.0, 2.0])
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * first)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_accumulation_into_grad_and_no_aliasing():
    a = leaf([1.0, 2.0])
    b = leaf([5.0, 6.0])
    (a + b).sum().backward()  # the same gradient tensor reaches both leaves
    a.grad.zero_()
    assert b.grad.tolist() == [1.0, 1.0], "a.grad and b.grad must not share memory"
    (a * 2).sum().backward()
    assert a.grad.tolist() == [2.0, 2.0]


def test_broadcast_gradients_are_summed_by_the_engine():
    x = leaf(np.ones((3, 1)))
    y = leaf(np.ones(4))
    (x * y * 2).sum().backward()
    assert x.grad.shape == (3, 1) and x.grad.tolist() == [[8.0]] * 3
    assert y.grad.shape == (4,) and y.grad.tolist() == [6.0] * 4


def test_non_scalar_backward_needs_a_gradient():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"implicitly only for a one-element output.*\(2,\)"):
        (x * 2).backward()
    (x * 2).backward(strided.asarray([1.0, 10.0]))
    assert x.grad.tolist() == [2.0, 20.0]


def test_backward_inputs_only_accumulates_there():
    x, w = leaf([1.0]), leaf([2.0])
    (x * w).sum().backward(inputs=[w])
    assert x.grad is None and w.grad.tolist() == [1.0]


def test_create_graph_gives_higher_derivatives():
    x = leaf(1.5)
    y = x**4
    (g,) = strided.autograd.grad(y, x, create_graph=True)
    (g2,) = strided.autograd.grad(g, x, create_graph=True)
    (g3,) = strided.autograd.grad(g2, x)
    assert (float(g), float(g2), float(g3)) == pytest.approx((4 * 1.5**3, 12 * 1.5**2, 24 * 1.5))


def test_deep_graph_does_not_hit_the_recursion_limit():
    x = leaf([1.0])
    y = x
    for _ in range(3000):
        y = y + 1.0
    y.sum().backward()
    assert x.grad.tolist() == [1.0]


# -- hooks ---------------------------------------------------------------------------------------


def test_hook_order_and_gradient_replacement():
    order = []
    x = leaf([1.0, 2.0])
    y = x * 2
    z = y * 3
    y.register_hook(lambda g: order.append("y") or g * 10)
    x.register_hook(lambda g: order.append("x"))
    z.grad_fn.register_prehook(lambda gs: order.append("pre z"))
    z.grad_fn.register_hook(lambda gi, go: order.append("post z"))
    x.register_post_accumulate_grad_hook(lambda t: order.append(f"acc {t.grad.tolist()}"))
    z.sum().backward()
    assert order == ["pre z", "post z", "y", "x", "acc [60.0, 60.0]"]
    assert x.grad.tolist() == [60.0, 60.0]


def test_hook_handle_remove_and_retain_grad():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    h = y.register_hook(lambda g: g * 0)
    h.remove()
    (y * y).sum().backward()
    assert y.grad.tolist() == [4.0, 8.0] and y.retains_grad
    assert x.grad.tolist() == [8.0, 16.0]


# -- modes -------------------------------------------------------------------------------------


def test_no_grad_enable_grad_set_grad_enabled_inference_mode():
    x = leaf([1.0])
    with strided.no_grad():
        assert not (x * 2).requires_grad
        with strided.enable_grad():
            assert (x * 2).requires_grad
    with strided.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad
    with strided.inference_mode():
        assert not (x * 2).requires_grad and strided.autograd.is_inference_mode_enabled()

    @strided.no_grad()
    def f(t):
        return t * 2

    assert not f(x).requires_grad and strided.is_grad_enabled()


def test_grad_mode_is_per_thread():
    x = leaf([1.0])
    seen = []
    with strided.no_grad():
        t = threading.Thread(target=lambda: seen.append((x * 2).requires_grad))
        t.start()
        t.join()
    assert seen == [True]


def test_backward_from_two_threads_on_independent_graphs():
    errors, results = [], {}

    def work(k):
        try:
            for _ in range(30):
                x = leaf(np.full(50, float(k)))
                ((x * x).sin() + x.exp()).sum().backward()
            results[k] = x.grad.numpy().copy()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in (1, 2):
        np.testing.assert_allclose(results[k], 2 * k * np.cos(k * k) + np.exp(k))


# -- in-place and views ------------------------------------------------------------------------


def test_version_counter_error_names_both_ops_and_lines():
    x = leaf([1.0, 2.0])
    y = x.exp()  # exp saves its result: LINE_SAVE
    y.add_(1)  # LINE_WRITE
    src = open(__file__).read().splitlines()
    save_line = next(i for i, s in enumerate(src, 1) if "LINE_SAVE" in s and "x.exp()" in s)
    write_line = next(i for i, s in enumerate(src, 1) if "LINE_WRITE" in s and "add_" in s)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    msg = str(info.value)
    assert "modified by an in-place operation" in msg
    assert "ExpBackward saved its result" in msg
    assert f"test_autograd.py:{save_line}" in msg
    assert re.search(rf"by add_ .*test_autograd.py:{write_line}", msg), msg
    assert re.search(r"version was (\d+); it is now at version (\d+)", msg)


def test_version_error_for_a_saved_input_that_does_not_require_grad():
    x = leaf([1.0, 2.0])
    b = strided.asarray([3.0, 4.0])
    y = x * b
    b.mul_(2)
    with pytest.raises(RuntimeError, match=r"MultiplyBackward saved its argument 1.*by multiply"):
        y.sum().backward()


def test_inplace_on_a_leaf_that_requires_grad_raises():
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="a leaf tensor that requires grad .* in-place"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="view of a leaf tensor"):
        x[0:1].mul_(2)
    with strided.no_grad():
        x.add_(1)  # parameter updates are fine
    assert x.tolist() == [2.0]


def test_inplace_on_a_non_leaf_rebases_its_history():
    x = leaf([1.0, 2.0])
    y = x * 1.0
    y.mul_(x)  # y = x * x
    y.exp_()
    y.sum().backward()
    xv = np.array([1.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), np.exp(xv**2) * 2 * xv)


def test_inplace_on_a_view_rebases_the_base_copyslices():
    x = leaf([1.0, 2.0, 3.0, 4.0])
    w = leaf([10.0, 20.0])
    y = x * 2
    view = y[1:3]
    view.mul_(w)  # y = [2x0, 2x1*w0, 2x2*w1, 2x3]
    assert y.grad_fn.name().startswith("CopySlices")
    (y * strided.asarray([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == [2.0, 2 * 2 * 10.0, 3 * 2 * 20.0, 8.0]
    assert w.grad.tolist() == [2 * 2.0 * 2, 3 * 2.0 * 3]


def test_double_backward_through_copyslices():
    x, w = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), leaf([0.5, -1.5, 2.0])

    def f(x, w):
        b = x * 1.0
        b[0].mul_(w)  # CopySlices; its formula saved the view's old value (with history)
        b[1, ::2].add_(w[:2] * w[:2])
        return b * b

    assert gradcheck(f, (x, w))
    assert strided.autograd.gradgradcheck(f, (x, w))


def test_a_view_made_before_an_inplace_write_sees_the_new_history():
    # Note [Views after an in-place write]: v and t are views of a made before the writes
    x, w = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), leaf([0.5, -1.5, 2.0])

    def f(x, w):
        a = x * 1.0
        v, t = a[1], a.T
        a.mul_(2.0)  # a write into the base
        a[0].add_(w)  # and one into another view
        return v * w, t.exp()

    assert gradcheck(f, (x, w))
    assert strided.autograd.gradgradcheck(f, (x, w))
    a = x * 1.0
    v = a[1]
    a.mul_(3.0)
    v.sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 0.0], [3.0, 3.0, 3.0]]


def test_setitem_into_a_fresh_tensor_carries_the_gradient():
    x = leaf([1.0, 2.0])
    buf = strided.zeros(4)
    buf[1:3] = x * 3
    buf[0] = 7.0
    (buf * buf).sum().backward()
    assert x.grad.tolist() == [18.0, 36.0]


def test_detach_shares_memory_and_has_no_history():
    x = leaf([1.0, 2.0])
    y = (x * 2).detach()
    assert not y.requires_grad and y.grad_fn is None
    z = x * 2
    z.detach_()
    assert z.is_leaf and not z.requires_grad


def test_requires_grad_only_on_floats_and_leaves():
    with pytest.raises(RuntimeError, match="only floating-point tensors.*int64"):
        strided.arange(3).requires_grad_()
    y = leaf([1.0]) * 2
    with pytest.raises(RuntimeError, match="only a leaf"):
        y.requires_grad = False


def test_out_with_a_grad_input_is_refused():
    x = leaf([1.0])
    out = strided.empty(1)
    with pytest.raises(RuntimeError, match="out= is not differentiable"):
        strided.exp(x, out=out)


# -- custom functions ------------------------------------------------------------------------


class Cube(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        return x * x * x * k

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x * x * ctx.k, None


def test_custom_function_gradcheck_and_double_backward():
    x = leaf(np.linspace(-1, 1, 5))
    assert gradcheck(lambda t: Cube.apply(t, 2.0), (x,))
    assert strided.autograd.gradgradcheck(lambda t: Cube.apply(t, 2.0), (x,))
    y = Cube.apply(x, 1.0)
    assert y.grad_fn.name() == "CubeBackward" and y.grad_fn.needs_input_grad == (True, False)


def test_custom_function_saved_tensor_version_check_and_once_differentiable():
    class Twice(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.mark_non_differentiable()
            return x * 2

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            return g * 2

    x = leaf([1.0])
    (g,) = strided.autograd.grad(Twice.apply(x).sum(), x, create_graph=True)
    assert g.tolist() == [2.0]

    x2 = leaf([1.0])
    y = x2 * 1.0
    z = Cube.apply(y, 1.0)
    y.add_(1)
    with pytest.raises(RuntimeError, match="CubeBackward saved its saved tensor 0"):
        z.sum().backward()


# -- anomaly mode, to_dot, gradcheck's report --------------------------------------------------


def test_detect_anomaly_names_the_forward_op():
    x = leaf([0.0, 1.0])
    with strided.autograd.detect_anomaly():
        y = x.sqrt()  # d/dx sqrt at 0 is inf
        with pytest.raises(RuntimeError, match=r"SqrtBackward.*NaN or Inf.*test_autograd.py"):
            y.sum().backward()


def test_to_dot_shows_nodes_edges_and_saved_versions(tmp_path):
    x = leaf([1.0, 2.0])
    y = (x.exp() * x).sum()
    text = strided.autograd.to_dot(y, path=str(tmp_path / "g.dot"))
    assert text.startswith("digraph autograd {")
    assert "SumBackward" in text and "MultiplyBackward" in text and "AccumulateGrad" in text
    assert re.search(r"saved result: float64\[2\] v(\d+)/now v\1\b", text), text
    assert (tmp_path / "g.dot").read_text() == text


@pytest.mark.skipif(shutil.which("dot") is None, reason="the Graphviz dot program is not installed")
@pytest.mark.parametrize("fmt", ("svg", "png"))
def test_to_dot_renders_with_graphviz(tmp_path, fmt):
    x = leaf([1.0, 2.0])
    path = tmp_path / "g.dot"
    strided.autograd.to_dot((x * x).sum(), path=str(path), format=fmt)
    data = (tmp_path / f"g.dot.{fmt}").read_bytes()
    assert data.startswith(b"\x89PNG") if fmt == "png" else b"<svg" in data


def test_gradcheck_reports_the_worst_element_and_kinks():
    class Wrong(Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g  # should be 2 x g

    x = leaf([1.0, 3.0])
    with pytest.raises(strided.autograd.GradcheckError, match=r"index \(1,\): analytical 1, num"):
        gradcheck(Wrong.apply, (x,))
    k = leaf([0.0, 1.0])
    with pytest.raises(strided.autograd.GradcheckError, match="not differentiable at this input"):
        gradcheck(strided.relu, (k,))


# -- a small model -----------------------------------------------------------------------------


def test_small_mlp_trains_to_a_known_loss():
    """A 2-8-1 tanh network fitted to XOR-like data with plain SGD: the loss after 300 steps is
    deterministic (fixed seed), and the same steps in NumPy by hand give the same number."""
    rng = np.random.default_rng(0)
    xs = rng.uniform(-1, 1, (32, 2))
    ys = (np.sign(xs[:, :1] * xs[:, 1:]) + 1) / 2
    w1_0, w2_0 = rng.standard_normal((2, 8)) * 0.5, rng.standard_normal((8, 1)) * 0.5
    w1, w2 = leaf(w1_0), leaf(w2_0)
    b1, b2 = leaf(np.zeros(8)), leaf(np.zeros(1))
    x, y = strided.asarray(xs), strided.asarray(ys)
    for _ in range(300):
        h = (x @ w1 + b1).tanh()
        loss = ((strided.sigmoid(h @ w2 + b2) - y) ** 2).mean()
        for p in (w1, w2, b1, b2):
            p.grad = None
        loss.backward()
        with strided.no_grad():
            for p in (w1, w2, b1, b2):
                p -= 0.5 * p.grad
    # the same in NumPy, by hand
    W1, W2, B1, B2 = w1_0.copy(), w2_0.copy(), np.zeros(8), np.zeros(1)  # noqa: N806
    for _ in range(300):
        hh = np.tanh(xs @ W1 + B1)
        s = 1 / (1 + np.exp(-(hh @ W2 + B2)))
        ref_loss = ((s - ys) ** 2).mean()
        d = 2 * (s - ys) / ys.size * s * (1 - s)
        dh = d @ W2.T * (1 - hh**2)
        W2 -= 0.5 * hh.T @ d  # noqa: N806
        B2 -= 0.5 * d.sum(0)  # noqa: N806
        W1 -= 0.5 * xs.T @ dh  # noqa: N806
        B1 -= 0.5 * dh.sum(0)  # noqa: N806
    assert float(loss) == pytest.approx(ref_loss, rel=1e-9)
    assert float(loss) < 0.2


@pytest.mark.parametrize(
    "shape, strides, offset, by_taps",
    [
        ((2, 5, 5, 3, 3, 4), (196, 28, 4, 28, 4, 1), 3, True),  # conv2d's channels-last windows
        ((4, 4), (2, 1), 0, True),  # overlapping rows
        ((3, 4), (0, 1), 1, True),  # an expand: stride 0 is a tap
        ((4, 3), (1, 4), 0, True),  # a transpose: no overlap, no taps
        ((65, 2), (0, 1), 0, False),  # 65 taps: over the limit, index_add instead
        ((3, 3), (-3, 1), 8, False),  # a negative stride: index_add
    ],
)
def test_view_backward_by_taps_matches_the_scatter(shape, strides, offset, by_taps):
    # Note [A view's backward by taps] in formulas.py: the same sums as index_add's scatter,
    # checked against NumPy's scatter of the same view (np.add.at)
    from strided.autograd import formulas

    cells = 400
    x = strided.asarray(np.arange(cells, dtype=np.float64)).requires_grad_()
    g = np.random.default_rng(0).standard_normal(shape)
    taps = formulas._scatter_by_taps(cells, (shape, strides, offset), strided.asarray(g))
    assert (taps is not None) == by_taps
    strided.as_strided(x, shape, strides, offset).backward(strided.asarray(g))
    where = np.lib.stride_tricks.as_strided(
        np.arange(cells)[offset:], shape, [s * 8 for s in strides]
    )
    expected = np.zeros(cells)
    np.add.at(expected, where.ravel(), g.ravel())
    np.testing.assert_allclose(np.asarray(x.grad), expected, rtol=1e-12, atol=1e-12)
