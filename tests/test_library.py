"""Custom operators (strided/library.py): schema checks, kernels per key, a derivative row, a
meta function; the op runs eagerly, under autograd, on cuda-emulated and in tracing."""

from __future__ import annotations

import numpy as np
import pytest

import strided
from strided import _dispatch, fx, library
from strided.autograd.gradcheck import gradcheck


def _cpu_scale(x, alpha):
    return x * alpha


def _cuda_scale(x, alpha):  # written with strided's own ops: they run CUDA kernels
    return strided.multiply(x, alpha)


@pytest.fixture(scope="module")
def scale():
    op = library.define("testlib::scale(Tensor x, float alpha=2.0) -> Tensor")
    library.impl("testlib::scale", "CPU", _cpu_scale)
    library.impl("testlib::scale", "CUDA", _cuda_scale)
    library.register_autograd("testlib::scale", x=lambda grad, alpha: grad * alpha)

    @library.register_meta("testlib::scale")
    def _meta(x, alpha=2.0):
        return library.TensorMeta(x.shape, x.dtype, x.device)

    return op


def test_schema_parses_names_types_writes_and_aliases():
    s = library.Schema.parse(
        "ns::f_(Tensor(a!) x, Tensor? w, int[] dims, bool flag=False) -> Tensor(a!)"
    )
    assert [a.name for a in s.arguments] == ["x", "w", "dims", "flag"]
    assert s.writes == 0 and s.returns == [("Tensor", "a")]
    assert s.arguments[1].optional and s.arguments[2].is_list and s.arguments[3].default is False
    assert "Tensor(a!) x" in str(s)


@pytest.mark.parametrize(
    "text, match",
    [
        ("scale(Tensor x) -> Tensor", "namespace::name"),
        ("ns::f(Tensr x) -> Tensor", "cannot read argument 'Tensr x'"),
        ("ns::f(Tensor(a!) x) -> Tensor", "end its name in '_'"),
        ("ns::f_(Tensor y, Tensor(a!) x) -> Tensor", "write its first one"),
        ("ns::f(Tensor x) -> Tensor(b)", "alias 'b' names no argument"),
    ],
)
def test_bad_schemas_say_what_would_work(text, match):
    with pytest.raises(ValueError, match=match):
        library.Schema.parse(text)


def test_op_runs_eagerly_through_the_dispatcher(scale):
    x = strided.arange(4.0)
    assert scale(x).tolist() == [0.0, 2.0, 4.0, 6.0]
    assert scale(x, alpha=0.5).tolist() == [0.0, 0.5, 1.0, 1.5]
    assert library.ops.testlib.scale is scale
    assert _dispatch.registered_ops()["testlib::scale"][-2:] == ["CUDA", "CPU"]
    with strided.trace_dispatch() as trace:
        scale(x)
    assert trace[0]["op"] == "testlib::scale" and trace[0]["key"] == "CPU"


def test_calls_are_checked_against_the_schema(scale):
    x = strided.ones(2)
    with pytest.raises(TypeError, match="argument 'alpha' must be float"):
        scale(x, "2")
    with pytest.raises(TypeError, match="argument 'x' must be Tensor"):
        scale([1.0, 2.0])
    with pytest.raises(TypeError, match="missing argument 'x'"):
        scale()
    with pytest.raises(TypeError, match=r"unexpected argument\(s\) \['beta'\]"):
        scale(x, beta=1.0)
    with pytest.raises(ValueError, match="already defined"):
        library.define("testlib::scale(Tensor x) -> Tensor")
    with pytest.raises(ValueError, match="no custom op named"):
        library.impl("testlib::nope", "CPU", _cpu_scale)
    with pytest.raises(ValueError, match="key must be 'CPU' or 'CUDA'"):
        library.impl("testlib::scale", "Autograd", _cpu_scale)


def test_op_is_differentiable_through_its_row(scale):
    x = strided.tensor([1.0, -2.0, 3.0], dtype="float64", requires_grad=True)
    y = scale(x, alpha=3.0)
    assert type(y.grad_fn).__name__ != "NoneType"
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]
    assert gradcheck(lambda t: scale(t, alpha=1.5), (x,))


def test_op_without_a_row_refuses_inputs_that_require_grad():
    op = library.define("testlib::norow(Tensor x) -> Tensor")
    library.impl("testlib::norow", "CPU", lambda x: x + 1)
    x = strided.ones(2).requires_grad_()
    with pytest.raises(RuntimeError, match="no derivative formula"):
        op(x)
    with strided.no_grad():
        assert op(x).tolist() == [2.0, 2.0]


def test_in_place_op_writes_its_first_argument():
    op = library.define("testlib::double_(Tensor(a!) x) -> Tensor(a!)")

    def kernel(x):
        strided.multiply(x, 2, out=x)
        return x

    library.impl("testlib::double_", "CPU", kernel)
    library.register_autograd("testlib::double_", x=lambda grad: grad * 2)
    x = strided.ones(3)
    assert op(x) is x and x.tolist() == [2.0, 2.0, 2.0]
    a = strided.ones(3, dtype="float64").requires_grad_()
    b = a * 1
    op(b)
    b.sum().backward()
    assert a.grad.tolist() == [2.0, 2.0, 2.0]


def test_op_runs_on_cuda_emulated(scale):
    x = strided.arange(3.0, device="cuda-emulated")
    y = scale(x, alpha=4.0)
    assert y.is_cuda and y.cpu().tolist() == [0.0, 4.0, 8.0]
    op = library.define("testlib::cpuonly(Tensor x) -> Tensor")
    library.impl("testlib::cpuonly", "CPU", lambda x: x)
    with pytest.raises(NotImplementedError, match="no kernel for the CUDA dispatch key"):
        op(x)


def test_meta_function_and_tracing(scale):
    meta = scale.run_meta(strided.ones((2, 3), dtype="float32"))
    assert meta == library.TensorMeta((2, 3), strided.float32)

    def f(x):
        return scale(x + 1, alpha=0.5).exp()

    gm = fx.symbolic_trace(f)
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert scale in targets
    x = strided.arange(3.0)
    np.testing.assert_allclose(gm(x).numpy(), np.exp((np.arange(3.0) + 1) * 0.5))
    shapes = fx.shape_prop(gm, library.TensorMeta((5,), strided.float64))
    assert shapes[-1] == library.TensorMeta((5,), strided.float64)
    op = library.define("testlib::nometa(Tensor x) -> Tensor")
    library.impl("testlib::nometa", "CPU", lambda x: x)
    gm2 = fx.symbolic_trace(lambda x: op(x) * 2)
    with pytest.raises(NotImplementedError, match="testlib::nometa has no meta function"):
        fx.shape_prop(gm2, library.TensorMeta((5,), strided.float64))
