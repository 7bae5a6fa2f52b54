"""The backward of a compiled function, traced from the derivatives table and compiled like the
forward (AOTAutograd's joint graph, reduced).

Note [The joint graph]
~~~~~~~~~~~~~~~~~~~~~~
When a compiled function is called with inputs that require grad, eager autograd would record
one node per op and run one kernel per formula in backward. Instead, ``backward_graph`` walks
the decomposed forward graph from its output back to its inputs, as the engine would, and for
each node calls the formula of its row of the derivatives table (autograd/derivatives.py: the
same rows eager autograd runs) on *proxies*: the formula's ops become nodes of a second graph,
the backward graph. Its inputs are the output's gradient and the forward values the formulas
read. The backward graph is then planned, fused and compiled exactly as a forward graph is
(Note [Fusion groups]), so ``tanh``'s ``grad * (1 - result**2)`` and the chain rule through
the elementwise ops before it become one loop.

Save versus recompute: the backward graph reads the forward values the formulas name (an
input, or a node's result), and the forward graph is changed to also output them, so they are
*saved*, as eager autograd saves them. Recomputing cheap elementwise values in the backward
kernel instead of saving them (Inductor's min-cut partition) would trade memory traffic for
arithmetic; it is not done: saving is what eager does, so the joint graph computes the same
numbers in the same way.

What the joint graph needs, and falls back to eager autograd without (``explain()`` says
which): every differentiable node a primitive with a row (elementwise ops, sum/max/min/prod
over axes), matmul, a view (permute, reshape, expand) or a custom op with a row (the layers of
Note [Layers as ops with rows] in fx/layers.py: a convolution's im2col), formulas that trace
(no branch on a gradient's value), one tensor output. The
gradients of broadcast inputs are summed to their shape by ``formulas.sum_to``, the engine's
own rule, run eagerly at that point of the backward graph.
"""

from __future__ import annotations

import operator

import strided
from strided.fx.graph import Graph, GraphModule
from strided.fx.passes import PRIMITIVES
from strided.fx.proxy import Proxy, Tracer, _Patcher

__all__ = ["backward_graph", "JointError"]

# the graph's primitives whose kernel (and derivative row) has another name
_ROW_NAMES = {"amax": "max", "amin": "min"}


class JointError(RuntimeError):
    """The function's backward cannot be traced: eager autograd runs it."""


class _MetaProxy(Proxy):
    """A proxy whose shape and dtype are known (a saved forward value, a gradient): formulas
    that read ``x.shape`` get the number, not a node (what PyTorch's fake tensors give)."""

    def __init__(self, proxy, meta):
        super().__init__(proxy.node, proxy.tracer)
        self._meta = meta

    shape = property(lambda self: tuple(self._meta.shape))
    dtype = property(lambda self: self._meta.dtype)
    ndim = property(lambda self: len(self._meta.shape))


class _TracedNode:
    """What a row's formula reads from its node (Note [Named derivative rows] in
    autograd/rows.py), with proxies for the saved values."""

    def __init__(self, args, metas, result, needs):
        self.args = tuple(args)
        self.kwargs = {}
        self.saved = frozenset(range(len(args)))
        self.input_meta = metas
        self.result = result
        self.needs = tuple(needs)

    def saved_tensor(self, key):
        return self.result() if key == "result" else self.args[key]()


# ops outside the primitive set whose public call is their kernel's call (same arguments)
_SAME_SIGNATURE = {operator.matmul: "matmul", strided.matmul: "matmul"}


class _ViewNode:
    """What a view's formula reads (derivatives.VIEW_TABLE, ViewNode in recording.py)."""

    def __init__(self, name, src, args):
        from strided.autograd import recording

        shape = src.meta["tensor_meta"].shape
        self.in_geometry = (tuple(shape),)
        self.permutation = recording._permutation(name, _Shape(shape), args)


class _Shape:
    def __init__(self, shape):
        self.shape, self.ndim = tuple(shape), len(shape)


def _view_formula(node):
    """A view node's formula (view -> input gradient) from VIEW_TABLE, or None."""
    from strided.autograd import derivatives, formulas

    name = getattr(node.target, "__name__", None)
    public = getattr(strided, name or "", None)
    if getattr(public, "__wrapped__", public) is not node.target or node.kwargs:
        return None
    # reshape is no view op of the table (eager records the view or the copy it made), but
    # its gradient is the same either way: the gradient reshaped back
    formula = formulas.reshape_back if name == "reshape" else derivatives.VIEW_TABLE.get(name)
    if formula not in (formulas.permute_back, formulas.reshape_back, formulas.expand_back):
        return None
    view = _ViewNode(name, node.args[0], node.args[1:])
    return lambda g: formula(view, g)


def _row_call(node):
    """(row name, kernel-signature args) of a node of the decomposed graph, or None."""
    if node.target in _SAME_SIGNATURE and not node.kwargs:
        return _SAME_SIGNATURE[node.target], list(node.args)
    schema = getattr(node.target, "schema", None)
    if schema is not None:  # a custom op: its row is under its name, its args the schema's
        rest = schema.arguments[len(node.args) :]
        args = [*node.args, *(node.kwargs.get(a.name, a.default) for a in rest)]
        return (None if ... in args else node.target.name), args
    name = getattr(node.target, "__name__", None)
    public = getattr(strided, name or "", None)
    if name not in PRIMITIVES or getattr(public, "__wrapped__", public) is not node.target:
        return None  # (a trace is running: strided's functions are wrapped, see _Patcher)
    if PRIMITIVES.get(name) != "reduction":
        return name, list(node.args)
    x = node.args[0]
    nd = len(x.meta["tensor_meta"].shape)
    axis = node.kwargs.get("axis")
    dims = tuple(range(nd)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    dims = tuple(sorted(d % nd for d in dims)) if nd else ()
    return _ROW_NAMES.get(name, name), [x, dims, bool(node.kwargs.get("keepdims", False))]


def _conv2d_stride1_row(node, grad):
    """The joint graph's row of eager's ``nn::conv2d_stride1`` (x, weight, bias, padding):
    Note [Eager's convolution in a joint graph]."""
    from strided.fx import layers

    x, weight, padding = node.args[0](), node.args[1](), node.args[3]()
    need_x, need_w, need_b = node.needs[:3]
    return (
        layers.conv2d_stride1_grad(grad, x, weight, padding, 0) if need_x else None,
        layers.conv2d_stride1_grad(grad, x, weight, padding, 1) if need_w else None,
        strided.sum(grad, axis=(0, 2, 3)) if need_b else None,
        None,
    )


# Rows the joint graph uses instead of the derivatives table's, for ops whose own formulas run
# kernels a trace cannot see into
_COMPILER_ROWS = {"nn::conv2d_stride1": _conv2d_stride1_row}


def _needs_grad(graph, requires):
    """The nodes whose value depends on an input that requires grad."""
    needs = set()
    for n in graph.nodes:
        if n.op == "placeholder":
            if requires.get(n.target):
                needs.add(n)
        elif n.op != "output" and any(p in needs for p in n.all_input_nodes):
            needs.add(n)
    return needs


def backward_graph(gm, requires):
    """(backward GraphModule, the forward nodes it reads, in its placeholder order) for the
    decomposed forward ``gm``; ``requires``: input name -> requires grad. The backward takes
    (grad of the output, *saved values) and returns one gradient per forward placeholder."""
    from strided.autograd import derivatives
    from strided.autograd import formulas as F

    fwd = gm.graph
    out = fwd.nodes[-1].args[0]
    if not hasattr(out, "op") or "tensor_meta" not in out.meta:
        raise JointError("the function's output is not one tensor")
    needs = _needs_grad(fwd, requires)
    tracer = Tracer()
    tracer.graph, tracer.root, tracer._tensor_paths = Graph(), gm.root, {}
    grad_out = Proxy(tracer.graph.placeholder("grad_output"), tracer)
    grad_out = _MetaProxy(grad_out, out.meta["tensor_meta"])
    saved, saved_proxy = [], {}

    def read(n):
        """A proxy for forward value ``n`` in the backward graph (a saved tensor)."""
        if n not in saved_proxy:
            saved.append(n)
            proxy = Proxy(tracer.graph.placeholder(f"saved_{n.name}"), tracer)
            saved_proxy[n] = _MetaProxy(proxy, n.meta["tensor_meta"])
        return saved_proxy[n]

    grads = {out: grad_out}

    def accumulate(a, ga):
        """Add ``ga`` into forward value ``a``'s gradient, summed to its shape (the engine's
        rule: Note [Gradients take their input's shape] in engine.py)."""
        meta = a.meta["tensor_meta"]
        ga = tracer.create_proxy("call_function", F.sum_to, (ga, tuple(meta.shape)), {})
        grads[a] = _MetaProxy(strided.add(grads[a], ga) if a in grads else ga, meta)

    with _Patcher(tracer, None):
        for node in reversed(fwd.nodes):
            if node not in grads or node.op != "call_function":
                continue
            g = grads.pop(node)
            view = _view_formula(node)
            if view is not None:  # a view: its gradient is a view of the gradient
                if node.args[0] in needs:
                    accumulate(node.args[0], view(g))
                continue
            call = _row_call(node)
            entry = derivatives.TABLE.get(call[0]) if call is not None and call[0] else None
            formula = _COMPILER_ROWS.get(call[0]) if call is not None else None
            formula = formula or (entry.formula if entry is not None else None)
            if formula is None:
                raise JointError(f"{node.format()} has no derivative row the joint graph can use")
            name, args = call
            arg_needs = [hasattr(a, "op") and a in needs for a in args]
            metas = [
                (a.meta["tensor_meta"].shape, a.meta["tensor_meta"].dtype, "cpu")
                if hasattr(a, "op")
                else None
                for a in args
            ]
            values = [(lambda a=a: read(a)) if hasattr(a, "op") else (lambda a=a: a) for a in args]
            traced = _TracedNode(values, metas, lambda node=node: read(node), arg_needs)
            try:
                input_grads = formula(traced, g)
            except Exception as e:  # a formula that branches on data, or a missing op
                raise JointError(f"the formula of {name} does not trace: {e}") from e
            for a, ga, need in zip(args, input_grads, arg_needs, strict=False):
                if need and ga is not None:
                    accumulate(a, ga)
    results = []
    for n in fwd.nodes:
        if n.op == "placeholder":
            g = grads.get(n)
            results.append(g if g is not None else None)
    tracer.graph.output(tracer.create_arg(tuple(results)))
    return GraphModule(gm.root, tracer.graph), saved
