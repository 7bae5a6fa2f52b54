"""strided.fx: tracing into the six-opcode graph, printing, code generation, the interpreter and
the passes (DCE, CSE, decomposition into the primitive set)."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import strided
from strided import fx, nn
from strided.fx.passes import PRIMITIVES
from strided.library import TensorMeta


def _chain(x, y):
    return ((x * 2 + 1).exp() * y).sum()


def _values(rng, *shapes):
    return [strided.tensor(rng.standard_normal(s)) for s in shapes]


def test_trace_records_operators_methods_and_functions():
    def f(x, y):
        return strided.tanh(x @ y).sum(axis=1) - abs(-x).max()

    gm = fx.symbolic_trace(f)
    ops = [(n.op, n.target) for n in gm.graph.nodes]
    assert ops[:2] == [("placeholder", "x"), ("placeholder", "y")]
    assert ("call_function", operator.matmul) in ops
    assert ("call_function", strided.tanh) in ops
    assert ("call_method", "sum") in ops and ("call_method", "max") in ops
    assert ops[-1][0] == "output"
    text = str(gm.graph)
    assert "%matmul : call_function[operator.matmul](args = (%x, %y)" in text
    assert "x @ y" in gm.code and "strided.tanh(matmul)" in gm.code
    rng = np.random.default_rng(0)
    x, y = _values(rng, (3, 4), (4, 3))
    np.testing.assert_allclose(gm(x, y).numpy(), f(x, y).numpy())
    assert "opcode" in gm.graph.print_tabular()


def test_trace_module_with_leaf_layers_parameters_and_attributes():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)
            self.scale = nn.Parameter(strided.ones(3))

        def forward(self, x):
            return nn.functional.relu(self.fc(x)) * self.scale + x.shape[0]

    net = Net()
    gm = fx.symbolic_trace(net)
    ops = {n.op for n in gm.graph.nodes}
    assert ops == {"placeholder", "call_module", "call_function", "get_attr", "output"}
    assert "self.fc(x)" in gm.code and "self.scale" in gm.code and "x.shape" in gm.code
    x = strided.tensor(np.random.default_rng(1).standard_normal((2, 4)), dtype="float32")
    np.testing.assert_allclose(gm(x).numpy(), net(x).numpy(), rtol=1e-6)


def test_constants_and_imported_names_are_traced():
    from strided import exp

    c = strided.arange(3.0)

    def f(x):
        return exp(x) + c

    gm = fx.symbolic_trace(f)
    assert any(n.op == "get_attr" for n in gm.graph.nodes)
    x = strided.ones(3)
    np.testing.assert_allclose(gm(x).numpy(), f(x).numpy())
    assert strided.exp is exp  # the patched names are put back


def test_data_dependent_control_flow_names_the_line():
    def f(x):
        if x.sum() > 0:  # the line the error must name
            return x
        return -x

    with pytest.raises(fx.TraceError, match=r"test_fx.py:\d+: if x.sum\(\) > 0"):
        fx.symbolic_trace(f)
    with pytest.raises(fx.TraceError, match="iteration"):
        fx.symbolic_trace(lambda x: [t for t in x])


def test_interpreter_matches_generated_code():
    rng = np.random.default_rng(2)
    x, y = _values(rng, (5,), (5,))
    gm = fx.symbolic_trace(_chain)
    assert float(fx.Interpreter(gm).run(x, y)) == pytest.approx(float(gm(x, y)))


def test_shape_prop_gives_every_nodes_meta():
    gm = fx.symbolic_trace(lambda x, y: (x + y).sum(axis=0, keepdims=True))
    metas = fx.shape_prop(
        gm, TensorMeta((3, 1), strided.float32), TensorMeta((4,), strided.float64)
    )
    assert metas[2] == TensorMeta((3, 4), strided.float64)
    assert metas[-1] == TensorMeta((1, 4), strided.float64)
    assert "float64[3, 4]" in str(gm.graph)


def test_dead_code_and_common_subexpressions():
    def f(x):
        unused = x.exp()  # noqa: F841 - dead code for the pass to find
        a = x * 2
        b = x * 2
        return a + b

    gm = fx.symbolic_trace(f)
    assert fx.dead_code_elimination(gm.graph) == 1
    assert fx.common_subexpression_elimination(gm.graph) == 1
    gm.recompile()
    assert gm.code.count("x * 2") == 1
    x = strided.arange(3.0)
    assert gm(x).tolist() == [0.0, 4.0, 8.0]


def test_passes_keep_writes_and_do_not_merge_across_them():
    def f(x):
        a = x * 2
        x.add_(1)
        b = x * 2
        return a + b

    gm = fx.symbolic_trace(f)
    assert fx.dead_code_elimination(gm.graph) == 0  # add_ has no users but writes x
    assert fx.common_subexpression_elimination(gm.graph) == 0
    gm.recompile()
    assert gm(strided.zeros(2)).tolist() == [2.0, 2.0]


def test_decompose_to_primitives_keeps_values():
    F = nn.functional

    def f(x, w):
        h = F.gelu(x @ w)
        return (
            F.softmax(h, dim=1),
            h.mean(axis=0),
            F.layer_norm(h, (h.shape[1],)),
            F.log_softmax(h, 1),
        )

    rng = np.random.default_rng(3)
    x, w = _values(rng, (4, 5), (5, 6))
    gm = fx.symbolic_trace(f)
    fx.shape_prop(gm, x, w)
    d = fx.decompose(gm)
    names = {
        getattr(n.target, "__name__", n.target) for n in d.graph.nodes if n.op == "call_function"
    }
    assert names - {"matmul", "getattr", "getitem"} <= set(PRIMITIVES)
    assert "softmax" not in d.code and "erf" in d.code and "amax" in d.code
    for got, want in zip(d(x, w), f(x, w), strict=True):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
