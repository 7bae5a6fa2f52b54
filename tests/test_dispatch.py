"""Unit tests of the dispatcher (strided/_dispatch.py, Note [Two dispatches]) on ops registered
here, so that what it does by itself (a kernel per dispatch key, the key picked per call, the
errors for a missing kernel, the Autograd key falling through to the device key) is tested apart
from the real ops that the rest of the suite runs through it."""

from __future__ import annotations

import itertools

import pytest

import strided
from strided import _dispatch

_names = itertools.count()


@pytest.fixture
def op():
    """A fresh op name, unregistered again after the test."""
    name = f"_test_dispatch_op_{next(_names)}"
    yield name
    _dispatch._kernels.pop(name, None)


def test_the_keys_are_autograd_then_the_devices():
    assert _dispatch.KEYS == ("Autograd", "CUDA", "CPU")


def test_register_takes_a_kernel_or_decorates_one(op):
    def cpu(x):
        return ("cpu", x)

    assert _dispatch.register(op, "CPU", cpu) is cpu
    cuda = _dispatch.register(op, "CUDA")(lambda x: ("cuda", x))
    assert cuda(1) == ("cuda", 1)  # the decorator hands the function back
    assert _dispatch.registered_ops()[op] == ["CUDA", "CPU"]  # in key order


def test_register_refuses_an_unknown_key(op):
    with pytest.raises(ValueError, match="unknown dispatch key 'GPU'"):
        _dispatch.register(op, "GPU", lambda x: x)
    assert op not in _dispatch.registered_ops()


def test_a_cpu_call_runs_the_cpu_kernel_with_its_arguments(op):
    seen = []
    _dispatch.register(op, "CPU", lambda *a, **k: seen.append((a, k)) or "result")
    t = strided.ones(3)
    assert _dispatch.call(op, t, 2, out=None, axis=1) == "result"
    assert seen == [((t, 2), {"out": None, "axis": 1})]


def test_registering_again_replaces_the_kernel(op):
    _dispatch.register(op, "CPU", lambda x: 1)
    _dispatch.register(op, "CPU", lambda x: 2)
    assert _dispatch.call(op, strided.ones(1)) == 2


@pytest.mark.parametrize("dtype", strided._dtype_table.DTYPE_NAMES)
def test_the_key_does_not_depend_on_the_dtype(op, dtype):
    # the dtype is the kernel's business (the second dispatch): every dtype reaches the CPU one
    _dispatch.register(op, "CPU", lambda x: x.dtype.name)
    _dispatch.register(op, "CUDA", lambda x: "cuda")
    assert _dispatch.call(op, strided.zeros(2, dtype=dtype)) == dtype


def test_an_unknown_op_is_named_in_the_error():
    with pytest.raises(NotImplementedError, match="no operator named '_no_such_op'"):
        _dispatch.call("_no_such_op", strided.ones(1))


def test_a_missing_kernel_names_the_op_the_key_and_the_kernels_it_has(op):
    _dispatch.register(op, "CUDA", lambda x: x)  # a GPU-only op called on the CPU
    with pytest.raises(NotImplementedError) as e:
        _dispatch.call(op, strided.ones(3))
    message = str(e.value)
    assert op in message and "CPU dispatch key" in message and "['CUDA']" in message


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: strided.bitwise_and(strided.ones(2), strided.ones(2)), ["bitwise_and", "float64"]),
        (lambda: strided.floor_divide(strided.ones(2, dtype="complex64"), 1), ["complex64"]),
    ],
)
def test_a_kernel_without_a_loop_for_a_dtype_names_the_op_and_the_dtype(call, words):
    with pytest.raises(TypeError) as e:
        call()
    for word in words:
        assert word in str(e.value)


def test_trace_dispatch_records_the_key_and_the_kernel(op):
    def my_cpu_kernel(x, out=None):
        return x

    _dispatch.register(op, "CPU", my_cpu_kernel)
    t = strided.ones((2, 3), dtype="int16")
    with strided.trace_dispatch() as trace:
        assert _dispatch.call(op, t) is t
        _dispatch.call(op, t, out=t)
    assert [r["op"] for r in trace] == [op, op]
    assert [r["key"] for r in trace] == ["CPU", "CPU"]
    assert trace[0]["kernel"].endswith("my_cpu_kernel")
    assert trace[0]["inputs"] == ["int16[2, 3]"] and trace[0]["result"] == "int16[2, 3]"
    assert [r["out="] for r in trace] == [False, True]
    assert op in str(trace)
    # outside the block nothing is recorded
    _dispatch.call(op, t)
    assert len(trace) == 2


def test_trace_dispatch_sees_the_real_ops_and_their_three_variants():
    a = strided.ones(3)
    with strided.trace_dispatch() as trace:
        b = strided.add(a, a)
        strided.add(a, a, out=b)
        b.add_(a)
    assert [(r["op"], r["key"]) for r in trace] == [("add", "CPU")] * 3
    assert [r["out="] for r in trace] == [False, True, True]


def test_the_autograd_key_takes_calls_that_need_it_and_falls_through_below_itself(op):
    # an Autograd kernel does its recording, then redispatches below its own key: the call
    # lands on the device kernel. A call that needs no gradient never reaches it.
    ran = []

    def autograd_kernel(x):
        ran.append("Autograd")
        return _dispatch.redispatch(op, "Autograd", x)

    def cpu_kernel(x):
        ran.append("CPU")
        return x.shape

    # autograd first: turning it on gives every op registered so far its own Autograd kernel
    x = strided.ones(3).requires_grad_()
    _dispatch.register(op, "Autograd", autograd_kernel)
    _dispatch.register(op, "CPU", cpu_kernel)
    assert _dispatch.call(op, x) == (3,)
    assert ran == ["Autograd", "CPU"]
    ran.clear()
    assert _dispatch.call(op, strided.ones(2)) == (2,)
    assert ran == ["CPU"]
    ran.clear()
    with strided.no_grad():
        _dispatch.call(op, x)
    assert ran == ["CPU"]
    ran.clear()
    with strided.trace_dispatch() as trace:
        _dispatch.call(op, x)
    assert [r["key"] for r in trace] == ["Autograd", "CPU"]


def test_the_compiled_cuda_path_picks_the_kernel_pick_picks(op):
    """Note [The CUDA path]: on CUDA tensors the compiled ``call`` and ``redispatch`` pick
    what ``_pick`` picks (the Python references ``python_call``/``python_redispatch`` take it),
    over every source of keys: tensor arguments, tensors in a list, out=, an in-place name,
    requires_grad; and a missing kernel takes the general road and its error."""
    g = strided.ones(2, device="cuda-emulated")
    c = strided.ones(2)
    # (first: the first requires_grad_ activates autograd, which puts its kernel under every
    # registered op's Autograd key)
    w = strided.ones(2, device="cuda-emulated").requires_grad_()
    for key in _dispatch.KEYS:
        _dispatch.register(op, key, lambda *a, _key=key, **k: _key)
    _dispatch.register(op + "_", "CPU", lambda *a, **k: "CPU")
    _dispatch.register(op + "_", "CUDA", lambda *a, **k: "CUDA")
    cases = [
        (op, (g, g), {}),
        (op, (c, 1.0), {}),
        (op, (c, g), {}),
        (op, ([c, g],), {}),
        (op, ((c, w),), {}),
        (op, (c,), {"out": g}),
        (op, (w, 2), {}),
        (op + "_", (g, g), {}),
        (op + "_", (c, c), {}),
    ]
    assert _dispatch.possible[0] & _dispatch.CUDA
    for name, args, kwargs in cases:
        expect = _dispatch._pick(name, args, kwargs)[0]
        assert _dispatch.call(name, *args, **kwargs) == expect, (name, args, kwargs)
        assert _dispatch.python_call(name, *args, **kwargs) == expect
        below = _dispatch._pick(name, args, kwargs, below="Autograd")[0]
        assert _dispatch.redispatch(name, "Autograd", *args, **kwargs) == below
        assert _dispatch.python_redispatch(name, "Autograd", *args, **kwargs) == below
    with strided.no_grad():
        assert _dispatch.call(op, w, w) == "CUDA"
    _dispatch._kernels[op].pop("CUDA")
    for call in (_dispatch.call, _dispatch.python_call):
        with pytest.raises(NotImplementedError, match="no kernel for the CUDA dispatch key"):
            call(op, g, g)
    _dispatch._kernels.pop(op + "_", None)
