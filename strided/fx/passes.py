"""Graph passes: dead-code elimination, common-subexpression elimination, and decomposition
into the primitive set (torch.fx passes and torch._decomp's table, reduced).

Note [The primitive set]
~~~~~~~~~~~~~~~~~~~~~~~~
``PRIMITIVES`` is the one list of what a backend must implement: the elementwise ops of the
CPU kernels' own tables (their C expressions are read from ``_cpu/unary.pyx.tp`` and
``_cpu/binary.pyx.tp`` by the compiler, so eager and compiled code compute each element the
same way), ``where``, and the reductions ``sum``, ``amax``, ``amin``, ``prod`` (over all axes
or some, ``keepdims`` or not). ``decompose`` rewrites a graph into it:

1. spellings are normalised: ``x + y`` (operator.add), ``x.add(y)`` and ``strided.add(x, y)``
   all become ``call_function[strided.add]``; ``x.sum(axis=1)`` becomes ``strided.sum(x,
   axis=1)``;
2. composite ops are replaced by their row of ``DECOMPOSITIONS``, a Python function written
   with primitives (``mean`` is ``sum / n``, ``softmax`` is ``exp(x - amax) / sum``), traced in
   place: PyTorch's CompositeImplicitAutograd kernels play the same part;
3. anything else (matmul, a custom op, a leaf module, indexing) stays as it was: the compiler
   runs such a node eagerly.

A pass that moves or drops nodes must know which nodes have effects: a write (``add_``,
``out=``, ``x[i] = v``, a custom op whose schema writes) is never dropped, and common
subexpressions are not merged across it (the second ``x * 2`` after ``x.add_(1)`` is another
value).
"""

from __future__ import annotations

import math
import operator

import strided
from strided.fx.graph import Graph, GraphModule, map_arg
from strided.fx.proxy import Proxy, Tracer, _Patcher

__all__ = [
    "PRIMITIVES",
    "DECOMPOSITIONS",
    "dead_code_elimination",
    "common_subexpression_elimination",
    "decompose",
    "is_impure",
    "primitive_name",
]

UNARY_PRIMITIVES = (
    "abs negative sqrt exp expm1 log log1p log2 log10 sin cos tan tanh sinh cosh asin acos atan "
    "asinh acosh atanh erf erfc sigmoid relu ceil floor trunc square reciprocal sign logical_not"
).split()
BINARY_PRIMITIVES = (
    "add subtract multiply divide pow maximum minimum atan2 hypot copysign logaddexp equal "
    "not_equal less less_equal greater greater_equal logical_and logical_or"
).split()
REDUCTION_PRIMITIVES = ("sum", "amax", "amin", "prod")
PRIMITIVES = {
    **dict.fromkeys(UNARY_PRIMITIVES, "unary"),
    **dict.fromkeys(BINARY_PRIMITIVES, "binary"),
    "where": "ternary",
    **dict.fromkeys(REDUCTION_PRIMITIVES, "reduction"),
}

OPERATORS = {
    operator.add: "add",
    operator.sub: "subtract",
    operator.mul: "multiply",
    operator.truediv: "divide",
    operator.pow: "pow",
    operator.neg: "negative",
    abs: "abs",
    operator.lt: "less",
    operator.le: "less_equal",
    operator.gt: "greater",
    operator.ge: "greater_equal",
    operator.eq: "equal",
    operator.ne: "not_equal",
    operator.matmul: "matmul",
}
_REDUCTION_KWARGS = {"axis", "keepdims", "dim", "keepdim"}


def _axis_kwargs(args, kwargs):
    """(x, {axis, keepdims}) of a NumPy/PyTorch-spelled reduction, or None if it has more."""
    if len(args) > 2 or set(kwargs) - _REDUCTION_KWARGS:
        return None
    axis = args[1] if len(args) == 2 else kwargs.get("axis", kwargs.get("dim"))
    keep = kwargs.get("keepdims", kwargs.get("keepdim", False))
    if isinstance(axis, list):
        axis = tuple(axis)
    return (args[0],), {"axis": axis, "keepdims": bool(keep)}


def _mean(x, axis=None, keepdims=False):
    s = strided.sum(x, axis=axis, keepdims=keepdims)
    shape = x.node.meta["tensor_meta"].shape if "tensor_meta" in x.node.meta else None
    if shape is None:
        return None  # needs the input's shape: leave mean as it is
    axes = range(len(shape)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    return strided.divide(s, math.prod(shape[a] for a in axes))


def _softmax(x, axis):
    e = strided.exp(strided.subtract(x, strided.amax(x, axis=axis, keepdims=True)))
    return strided.divide(e, strided.sum(e, axis=axis, keepdims=True))


def _log_softmax(x, axis):
    shifted = strided.subtract(x, strided.amax(x, axis=axis, keepdims=True))
    return strided.subtract(
        shifted, strided.log(strided.sum(strided.exp(shifted), axis=axis, keepdims=True))
    )


def _gelu(x, approximate="none"):
    if approximate == "tanh":
        inner = strided.multiply(
            math.sqrt(2 / math.pi),
            strided.add(x, strided.multiply(0.044715, strided.multiply(x, strided.multiply(x, x)))),
        )
        return strided.multiply(strided.multiply(0.5, x), strided.add(1.0, strided.tanh(inner)))
    return strided.multiply(
        strided.multiply(0.5, x), strided.add(1.0, strided.erf(strided.multiply(x, 0.5**0.5)))
    )


def _layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-05):
    shape = x.node.meta["tensor_meta"].shape if "tensor_meta" in x.node.meta else None
    k = len(normalized_shape) if isinstance(normalized_shape, (tuple, list)) else 1
    if shape is None:
        return None
    axes = tuple(range(len(shape) - k, len(shape)))
    n = math.prod(shape[a] for a in axes)
    mu = strided.divide(strided.sum(x, axis=axes, keepdims=True), n)
    d = strided.subtract(x, mu)
    var = strided.divide(strided.sum(strided.multiply(d, d), axis=axes, keepdims=True), n)
    y = strided.divide(d, strided.sqrt(strided.add(var, eps)))
    if weight is not None:
        y = strided.multiply(y, weight)
    if bias is not None:
        y = strided.add(y, bias)
    return y


def _linear(x, weight, bias=None):
    out = strided.matmul(x, strided.matrix_transpose(weight))
    return out if bias is None else strided.add(out, bias)


def _mse_loss(input, target, reduction="mean"):  # noqa: A002 - PyTorch's argument name
    if reduction not in ("mean", "sum"):
        return None
    d = strided.subtract(input, target)
    s = strided.sum(strided.multiply(d, d), axis=None, keepdims=False)
    if reduction == "sum":
        return s
    shape = input.node.meta["tensor_meta"].shape if "tensor_meta" in input.node.meta else None
    return None if shape is None else strided.divide(s, math.prod(shape))


def _shape(x):
    """A proxy's shape from the capture run, or None."""
    meta = x.node.meta.get("tensor_meta") if isinstance(x, Proxy) else None
    return None if meta is None else tuple(meta.shape)


def _eager_conv_op(x, weight, bias):
    """Whether eager conv2d runs these tensors as its one op ``nn::conv2d_stride1`` (given
    stride 1, dilation 1 and one group): float32 or float64 on the CPU, all of one dtype."""
    metas = [t.node.meta.get("tensor_meta") for t in (x, weight, bias) if isinstance(t, Proxy)]
    if len(metas) != 2 + (bias is not None) or None in metas:
        return False
    dtype = metas[0].dtype
    return dtype.name in ("float32", "float64") and all(
        m.dtype == dtype and str(m.device) == "cpu" for m in metas
    )


def _conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """eager conv2d's steps, with its one copy, the im2col rows, as the op ``nn::im2col``
    (whose derivative row scatters the rows' gradient back); the rest are primitives and
    views, so the bias fuses with what follows and the weight's gradient is a matmul of the
    saved rows (Note [Layers as ops with rows] in layers.py)."""
    from strided.fx import layers
    from strided.nn.functional._args import pair

    w_shape, x_shape = _shape(weight), _shape(x)
    if groups != 1 or w_shape is None or x_shape is None or len(w_shape) != 4:
        return None
    if not isinstance(bias, (Proxy, type(None))):
        return None
    c_out, _, kh, kw = w_shape
    s, p, d = (pair(v, n, "conv2d") for v, n in ((stride, "s"), (padding, "p"), (dilation, "d")))
    if s == (1, 1) and d == (1, 1) and _eager_conv_op(x, weight, bias):
        from strided.nn.functional import conv  # Note [Eager's convolution in a joint graph]

        return conv._conv2d_stride1()(x, weight, bias, list(p))
    ho, wo = layers._out_hw(x_shape, (kh, kw), s, p, d)
    rows = layers.im2col(x, (kh, kw), s, p, d)  # (N*H_out*W_out, kh*kw*C)
    w_rows = strided.reshape(strided.permute(weight, (0, 2, 3, 1)), (c_out, -1))
    out = strided.matmul(rows, strided.matrix_transpose(w_rows))
    out = strided.permute(strided.reshape(out, (x_shape[0], ho, wo, c_out)), (0, 3, 1, 2))
    if bias is not None:
        out = strided.add(out, strided.reshape(bias, (c_out, 1, 1)))
    return out


def _max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1):
    """Windows that tile the input: a reshape that splits H and W (a view) and ``amax`` over
    the two window dims, as eager's ``_tiles``; other windows stay one node."""
    from strided.nn.functional._args import pair

    shape, k = _shape(x), pair(kernel_size, "kernel_size", "max_pool2d")
    if shape is None or len(shape) != 4 or (stride is not None and pair(stride, "", "") != k):
        return None
    if pair(padding, "", "") != (0, 0) or pair(dilation, "", "") != (1, 1):
        return None
    n, c, h, w = shape
    if h % k[0] or w % k[1]:
        return None
    if x.node.meta.get("strides", (0, 0))[1] == 1 and c > 1:
        # channels-last (a convolution's output): split H and W of the (N, H, W, C) view, so
        # that the channels stay innermost, along memory, in the loops of the max and of its
        # backward (the (N, C, H_out, kh, W_out, kw) split would put a window of 2 innermost)
        last = strided.permute(x, (0, 2, 3, 1))
        tiles = strided.reshape(last, (n, h // k[0], k[0], w // k[1], k[1], c))
        return strided.permute(strided.amax(tiles, axis=(2, 4), keepdims=False), (0, 3, 1, 2))
    tiles = strided.reshape(x, (n, c, h // k[0], k[0], w // k[1], k[1]))
    return strided.amax(tiles, axis=(3, 5), keepdims=False)


def _flatten(x, start_dim=1, end_dim=-1):
    shape = _shape(x)
    if shape is None or not shape:
        return None
    s, e = start_dim % len(shape), end_dim % len(shape)
    return strided.reshape(x, shape[:s] + (math.prod(shape[s : e + 1]),) + shape[e + 1 :])


def _cross_entropy(
    input,  # noqa: A002 - PyTorch's argument name
    target,
    weight=None,
    ignore_index=-100,
    reduction="mean",
    label_smoothing=0.0,
):
    """``-sum(log_softmax(input) * q)`` with ``q`` the target distribution (Note [Layers as
    ops with rows] in layers.py); 2-D logits, no class weights, a mean or a sum."""
    from strided.fx import layers

    shape, t_meta = _shape(input), getattr(target, "node", None)
    t_meta = None if t_meta is None else t_meta.meta.get("tensor_meta")
    if shape is None or len(shape) != 2 or t_meta is None or weight is not None:
        return None
    if reduction not in ("mean", "sum") or not 0.0 <= label_smoothing <= 1.0:
        return None
    n, classes = shape
    logp = _log_softmax(input, 1)
    dtype = input.node.meta["tensor_meta"].dtype
    if t_meta.dtype.kind == "f" and tuple(t_meta.shape) == shape:  # class probabilities
        q = target
        if label_smoothing:
            q = strided.add(strided.multiply(q, 1.0 - label_smoothing), label_smoothing / classes)
        loss = strided.negative(strided.sum(strided.multiply(logp, q), axis=None))
        return strided.divide(loss, n) if reduction == "mean" else loss
    if t_meta.dtype.kind not in "iu" or tuple(t_meta.shape) != (n,):
        return None
    q = layers.class_targets(
        target, classes, ignore_index, label_smoothing, reduction == "mean", dtype.name
    )
    return strided.negative(strided.sum(strided.multiply(logp, q), axis=None))


# name -> (decomposition, how to read its arguments: "axis" for reductions spelled either way)
DECOMPOSITIONS = {
    "mean": (_mean, "axis"),
    "softmax": (_softmax, None),
    "log_softmax": (_log_softmax, None),
    "gelu": (_gelu, None),
    "layer_norm": (_layer_norm, None),
    "silu": (lambda x: strided.multiply(x, strided.sigmoid(x)), None),
    "linear": (_linear, None),
    "mse_loss": (_mse_loss, None),
    "conv2d": (_conv2d, None),
    "max_pool2d": (_max_pool2d, None),
    "flatten": (_flatten, None),
    "cross_entropy": (_cross_entropy, None),
}


def _function_name(fn):
    """The name under which ``fn`` is a public function of strided or strided.nn.functional."""
    if fn in OPERATORS:
        return OPERATORS[fn]
    name = getattr(fn, "__name__", None)
    if name is None:
        return None
    from strided.nn import functional as F

    mine = [getattr(ns, name, None) for ns in (strided, F)]
    if any(getattr(m, "__wrapped__", m) is fn for m in mine):  # unwrap: see _Patcher
        return {"max": "amax", "min": "amin"}.get(name, name)
    return None


def primitive_name(node):
    """The op a call node computes, as a strided function name (``x + 1`` -> "add"), or None."""
    if node.op == "call_function":
        return _function_name(node.target)
    if node.op == "call_method" and not node.target.endswith("_"):
        name = {"max": "amax", "min": "amin", "__add__": "add"}.get(node.target, node.target)
        if name in PRIMITIVES or name in DECOMPOSITIONS:
            return name
    return None


def is_impure(node):
    """Whether the node has an effect besides its value (see Note [The primitive set])."""
    if node.op in ("placeholder", "output"):
        return True
    if node.op == "call_method" and node.target.endswith("_"):
        return True
    if node.target is operator.setitem or node.kwargs.get("out") is not None:
        return True
    schema = getattr(node.target, "schema", None)
    return schema is not None and schema.writes is not None


def dead_code_elimination(graph):
    """Drop the pure nodes whose value nobody reads; returns how many were dropped."""
    dropped = 0
    for node in reversed(list(graph.nodes)):
        if not node.users and not is_impure(node):
            graph.erase_node(node)
            dropped += 1
    return dropped


def _key(node):
    try:
        key = (
            node.op,
            node.target,
            repr(map_arg((node.args, node.kwargs), lambda n: ("%", n.name))),
        )
        hash(key)
        return key
    except TypeError:
        return None


def common_subexpression_elimination(graph):
    """Merge nodes that compute the same op on the same arguments; returns how many merged."""
    seen, merged = {}, 0
    for node in list(graph.nodes):
        if is_impure(node):
            if node.op not in ("placeholder", "output"):
                seen.clear()  # a write: values computed before may differ after
            continue
        key = _key(node)
        if key is None:
            continue
        if key in seen:
            node.replace_all_uses_with(seen[key])
            graph.erase_node(node)
            merged += 1
        else:
            seen[key] = node
    return merged


def _normalised_call(node, name, args, kwargs):
    """(args, kwargs) for strided.<name> from the node's own spelling."""
    kind = PRIMITIVES.get(name)
    if kind == "reduction" or DECOMPOSITIONS.get(name, (None, None))[1] == "axis":
        return _axis_kwargs(args, kwargs)
    if name in ("softmax", "log_softmax"):
        if len(args) == 2 and not kwargs:
            return (args[0],), {"axis": args[1]}
        if len(args) == 1 and set(kwargs) <= {"dim", "axis"} and kwargs:
            return (args[0],), {"axis": next(iter(kwargs.values()))}
        return None
    if kind in ("unary", "binary", "ternary") and not kwargs:
        want = {"unary": 1, "binary": 2, "ternary": 3}[kind]
        return (args, {}) if len(args) == want else None
    if name == "flatten":  # F.flatten starts at dim 1, strided.flatten and x.flatten at 0
        from strided.nn import functional as F

        start = 1 if node.target is getattr(F.flatten, "__wrapped__", F.flatten) else 0
        dims = [*args[1:], *kwargs.values()]
        if len(args) + len(kwargs) > 3 or set(kwargs) - {"start_dim", "end_dim"}:
            return None
        if not all(isinstance(d, int) for d in dims):
            return None  # x.flatten("F"): NumPy's order, a copy
        named = dict(zip(("start_dim", "end_dim"), args[1:], strict=False))
        return (args[0],), {"start_dim": start, **named, **kwargs}
    if name in DECOMPOSITIONS:
        return args, kwargs
    return None


def decompose(gm):
    """A new GraphModule whose compute nodes are primitives (Note [The primitive set]) where
    the old graph's ops have a primitive spelling or a decomposition; the rest unchanged."""
    tracer = Tracer()
    tracer.graph = Graph()
    tracer.root = gm.root
    tracer._tensor_paths = {}
    env = {}
    with _Patcher(tracer, None):
        for node in gm.graph.nodes:
            args = map_arg(node.args, lambda n: env[n])
            kwargs = map_arg(node.kwargs, lambda n: env[n])
            if node.op == "output":
                tracer.graph.output(tracer.create_arg(args[0]))
                break
            if node.op == "placeholder":
                value = Proxy(tracer.graph.placeholder(node.target), tracer)
            else:
                value = _lower(tracer, node, args, kwargs)
            if isinstance(value, Proxy) and "tensor_meta" in node.meta:
                value.node.meta["tensor_meta"] = node.meta["tensor_meta"]
                if "strides" in node.meta:
                    value.node.meta["strides"] = node.meta["strides"]
            env[node] = value
    constants = {k: v for k, v in gm.__dict__.items() if k.startswith("_tensor_constant")}
    return GraphModule(gm.root, tracer.graph, constants)


def _lower(tracer, node, args, kwargs):
    name = primitive_name(node)
    if name is not None:
        call = _normalised_call(node, name, args, kwargs)
        if call is not None:
            if name in DECOMPOSITIONS:
                out = DECOMPOSITIONS[name][0](*call[0], **call[1])
                if out is not None:
                    return out
            elif name in PRIMITIVES:
                fn = getattr(strided, name)
                fn = getattr(fn, "__wrapped__", fn)  # a trace is running: _Patcher wrapped it
                return tracer.create_proxy("call_function", fn, *call)
    return tracer.create_proxy(node.op, node.target, args, kwargs, name=node.name)
