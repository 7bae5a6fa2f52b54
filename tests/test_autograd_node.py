"""The compiled pieces of the recorded op (issue 20): nodes made without their Python __init__
(strided/autograd/_node.pyx, Note [A compiled Node base] in _record.pyx), the grad-mode flags
in C thread-local storage (_grad_state.pyx, Note [Grad mode in C]) and the dispatcher's
compiled call (_dispatch_call.pyx, Note [The compiled call] in _dispatch.py)."""

from __future__ import annotations

import threading
import types

import numpy as np
import pytest

import strided
from strided import _dispatch
from strided.autograd import graph
from strided.autograd.grad_mode import state

_node = pytest.importorskip("strided.autograd._node")


def _fields(obj):
    """{slot: value} over every slot of obj's class but __weakref__ (unset slots raise)."""
    slots = {s for k in type(obj).__mro__ for s in k.__dict__.get("__slots__", ())}
    return {s: getattr(obj, s) for s in sorted(slots - {"__weakref__"})}


def test_every_module_of_the_recorded_op_is_built():
    from strided import _dispatch_call
    from strided.autograd import _grad_state

    assert _dispatch.call is _dispatch_call.call and _dispatch.python_call is not None
    assert type(state) is _grad_state.GradState
    assert graph._sequence is _node.sequence


def test_a_compiled_formula_node_has_every_field_of_the_python_one():
    a = strided.ones(2, dtype="float64")
    args = (None, 2.0)
    edges, metas, needs = ((None, 0), None), (((2,), a.dtype, a.device), None), (True, False)
    py = graph.FormulaNode("multiply", len, args, {"out": None}, edges, metas, needs)
    c = _node._make_formula_node("multiply", len, args, {"out": None}, edges, metas, needs)
    assert type(c) is graph.FormulaNode
    fp, fc = _fields(py), _fields(c)
    assert fc.pop("sequence_nr") == fp.pop("sequence_nr") + 1  # one counter for both roads
    assert fp == fc
    assert c.name() == "MultiplyBackward" and c.source is None and c.metadata == {}


def test_a_compiled_accumulator_and_saved_tensor_have_every_field_of_the_python_ones():
    v = strided.ones((2, 3), dtype="float32").requires_grad_()
    py, c = graph.AccumulateGrad(v), _node._make_accumulate_grad(v)
    fp, fc = _fields(py), _fields(c)
    assert fc.pop("sequence_nr") > fp.pop("sequence_nr")
    assert fp == fc and c.variable is v and c.input_meta == (((2, 3), v.dtype),)
    py, c = graph.SavedTensor(v, what=1), _node._make_saved_input(v, 1)
    assert _fields(py) == _fields(c) and c.unpack(None) is v


def test_a_compiled_saved_output_has_every_field_of_the_python_one():
    # Note [Fewer objects per recorded op]: the weak reference and the alias made in C
    for v in (strided.ones((2, 3), dtype="float32"), strided.ones((4, 6), dtype="float64").T[1:]):
        py, c = graph.SavedTensor(v, True, 0, "result"), _node._make_saved_output(v, "result")
        fp, fc = _fields(py), _fields(c)
        ap, ac = fp.pop("_alias"), fc.pop("_alias")
        assert fp == fc and c._ref() is v and c.unpack(None) is v
        for alias in (ap, ac):
            assert alias is not v and alias.grad_fn is None and not alias.requires_grad
            assert alias.shape == v.shape and alias.stride() == v.stride()
            assert alias.storage_offset() == v.storage_offset() and alias.dtype is v.dtype
            assert alias.untyped_storage() is v.untyped_storage()
        assert type(ac) is type(ap)


def test_the_recorder_keeps_the_code_and_offset_and_the_line_is_read_later():
    # Note [The user's line, found when read] in _record.pyx
    from strided.autograd import _record

    site, here = _record.user_site(), graph.user_site()  # one line, the same answer
    assert type(site[0]) is types.CodeType and type(site[1]) is int
    assert graph.site_location(site) == here
    assert graph.site_location(here) == here  # (file, line) passes through
    x = strided.ones(2).requires_grad_()
    y = x * 2.0
    line = graph.user_site()[1] - 1
    assert y.grad_fn.source == f"{__file__}:{line}"


def test_shared_tuples_of_a_recorded_op():
    # Note [Fewer objects per recorded op]: the same values as fresh tuples; an output of an
    # input's shape shares that input's metadata, a broadcast one has its own
    a = strided.ones((3, 1), dtype="float64").requires_grad_()
    b = strided.ones((1, 4), dtype="float64")
    y = a * b
    fn = y.grad_fn
    assert fn.needs == (True, False) and fn.args == (None, None) and fn.kwargs.get("out") is None
    assert fn.out_meta == (((3, 4), y.dtype, y.device),)
    z = y.exp()
    assert z.grad_fn.out_meta[0] is z.grad_fn.input_meta[0]
    w = strided.add(a, 1.0)
    assert w.grad_fn.needs == (True, False) and w.grad_fn.args == (None, 1.0)
    z.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), np.full((3, 1), 4 * np.e))


def test_compiled_nodes_are_freed_with_their_graph():
    import gc
    import weakref

    a = strided.ones(3, dtype="float64").requires_grad_()
    y = strided.exp(a * 2.0)
    refs = [weakref.ref(y.grad_fn), weakref.ref(y.grad_fn.next_functions[0][0])]
    acc = weakref.ref(y.grad_fn.next_functions[0][0].next_functions[0][0])
    del y
    gc.collect()
    assert all(r() is None for r in refs) and acc() is None


def test_the_layout_refuses_a_class_whose_slots_it_does_not_store():
    class Other(graph.Node):
        __slots__ = ("extra",)

    with pytest.raises(TypeError, match="extra"):
        _node._Layout(Other, _node.NODE_FIELDS)
    with pytest.raises(TypeError, match="not the fields"):
        _node._Layout(graph.AccumulateGrad, _node.NODE_FIELDS)


LAYOUTS = {  # a view of the (4, 6) leaf, as strided and NumPy write it
    "contiguous": lambda x: x,
    "transposed": lambda x: x.T,
    "stepped, negative": lambda x: x[::2, ::-1],
    "expanded": lambda x: x[:1][[0, 0, 0]] if isinstance(x, np.ndarray) else x[:1].expand(3, 6),
    "0-d": lambda x: x[1, 2],
}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_recorded_op_gives_numpys_gradient_on_every_layout(layout):
    view = LAYOUTS[layout]
    base = np.random.default_rng(0).standard_normal((4, 6))
    a = strided.asarray(base.copy()).requires_grad_()
    x = view(a)
    strided.exp((x + 1.0) * x).sum().backward()
    xv = view(base)
    g = np.exp((xv + 1.0) * xv) * (2.0 * xv + 1.0)  # d/dx exp((x + 1) x)
    cells = view(np.arange(base.size).reshape(base.shape))  # which leaf cell each element is
    expect = np.zeros(base.size)
    np.add.at(expect, np.asarray(cells).reshape(-1), np.asarray(g).reshape(-1))
    np.testing.assert_allclose(a.grad.numpy(), expect.reshape(base.shape), rtol=1e-12)


def test_grad_mode_is_per_thread_and_a_new_thread_starts_with_the_defaults():
    seen = {}

    def worker():
        seen["start"] = (state.enabled, state.inference, state.anomaly, state.anomaly_check_nan)
        with strided.no_grad():
            seen["inside"] = strided.is_grad_enabled()

    with strided.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not strided.is_grad_enabled()
    assert seen == {"start": (True, False, False, True), "inside": False}
    assert strided.is_grad_enabled()
    state.enabled = 0  # any value: stored as its truth
    assert state.enabled is False
    state.enabled = "yes"
    assert state.enabled is True


def test_no_grad_inside_a_recorded_ops_kernel_is_restored():
    a = strided.ones(2, dtype="float64").requires_grad_()
    with strided.no_grad():
        y = a * 2.0
    assert y.grad_fn is None and strided.is_grad_enabled()
    z = a * 2.0
    assert z.grad_fn is not None and strided.is_grad_enabled()


def test_the_compiled_call_and_the_python_call_pick_the_same_kernel():
    a = strided.ones(3, dtype="float64").requires_grad_()
    b = strided.arange(3.0)
    for call in (_dispatch.call, _dispatch.python_call):
        y = call("multiply", a, b)
        assert y.grad_fn is not None and y.grad_fn.name() == "MultiplyBackward"
        z = call("multiply", b, b)
        assert z.grad_fn is None and z.tolist() == [0.0, 1.0, 4.0]
        with pytest.raises(NotImplementedError, match="no operator named 'nope'"):
            call("nope", b)
    with strided.trace_dispatch() as trace:
        _dispatch.call("add", b, b)
    assert [(r["op"], r["key"]) for r in trace] == [("add", "CPU")]


def test_the_in_place_error_still_names_both_ops_and_their_lines():
    a = strided.ones(3, dtype="float64").requires_grad_()
    b = strided.ones(3, dtype="float64")
    y = a * b  # saves b
    b.add_(1.0)
    with pytest.raises(RuntimeError) as e:
        y.sum().backward()
    text = str(e.value)
    assert "MultiplyBackward" in text and "add_" in text
    assert text.count("test_autograd_node.py:") == 2


def test_the_recorded_metadata_holds_the_shapes_beyond_the_small_int_cache():
    a = strided.ones((300, 1000), dtype="float32").requires_grad_()
    y = a * 2.0
    assert y.grad_fn.input_meta[0][0] == (300, 1000) == y.grad_fn.out_meta[0][0]
    acc = y.grad_fn.next_functions[0][0]
    assert acc.input_meta == (((300, 1000), a.dtype),)
    del a  # the shapes must own their ints
    import gc

    gc.collect()
    assert [list(m[0]) for m in (y.grad_fn.input_meta[0], acc.input_meta[0])] == [[300, 1000]] * 2
    y.sum().backward()
