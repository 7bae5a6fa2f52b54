"""Running a graph node by node (torch.fx's Interpreter), and shape propagation over it.

Note [Interpreter versus generated code]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A GraphModule runs its generated Python (graph.py), which is as fast as the hand-written
function. The Interpreter runs the same graph one node at a time through methods named after
the opcodes, so a subclass can change what one kind of node does: ``ShapeProp`` records each
node's shape and dtype; the compiler (strided/_compile) runs the nodes it did not fuse this way.
"""

from __future__ import annotations

import operator

from strided import _core
from strided.fx.graph import map_arg

__all__ = ["Interpreter", "shape_prop"]


def _fetch(obj, path):
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


class Interpreter:
    """Run ``gm``'s graph on concrete arguments; ``env`` maps each node to its value."""

    def __init__(self, gm):
        self.gm = gm
        self.env = {}

    def run(self, *args):
        self.env = {}
        inputs = iter(args)
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                try:
                    self.env[node] = self.placeholder(node, next(inputs))
                except StopIteration:
                    raise TypeError(f"Interpreter.run: no value for input {node.name!r}") from None
                continue
            value = self.run_node(node)
            if node.op == "output":
                return value
            self.env[node] = value
        return None

    def load(self, a):
        return map_arg(a, lambda n: self.env[n])

    def run_node(self, node):
        return getattr(self, node.op)(node, self.load(node.args), self.load(node.kwargs))

    def placeholder(self, node, value):
        return value

    def get_attr(self, node, args, kwargs):
        return _fetch(self.gm, node.target)

    def call_function(self, node, args, kwargs):
        return node.target(*args, **kwargs)

    def call_method(self, node, args, kwargs):
        return getattr(args[0], node.target)(*args[1:], **kwargs)

    def call_module(self, node, args, kwargs):
        return _fetch(self.gm, node.target)(*args, **kwargs)

    def output(self, node, args, kwargs):
        return args[0]


def _meta_of(v):
    from strided.library import TensorMeta

    if isinstance(v, _core.TensorBase):
        return TensorMeta.of(v)
    if isinstance(v, tuple):
        return tuple(_meta_of(x) for x in v)
    return v


class _ShapeProp(Interpreter):
    """Runs the graph on stand-ins of the metas: a zero-stride tensor of the meta's shape (one
    element of memory) for each input; custom ops run their meta function instead of a kernel,
    built-in ops run for real on the stand-ins."""

    def placeholder(self, node, value):
        return _stand_in(value)

    def call_function(self, node, args, kwargs):
        if hasattr(node.target, "run_meta"):  # a custom op: strided.library
            return _stand_in(node.target.run_meta(*args, **kwargs))
        return super().call_function(node, args, kwargs)

    def run_node(self, node):
        value = super().run_node(node)
        node.meta["tensor_meta"] = _meta_of(value)
        return value


def _stand_in(v):
    from strided.library import TensorMeta

    if isinstance(v, TensorMeta):
        import strided

        return strided.broadcast_to(strided.zeros((), dtype=v.dtype, device=v.device), v.shape)
    if isinstance(v, tuple):
        return tuple(_stand_in(x) for x in v)
    return v


def shape_prop(gm, *metas):
    """Each node's output meta (TensorMeta: shape, dtype, device), in node order, also stored as
    ``node.meta["tensor_meta"]``. ``metas``: one TensorMeta (or tensor) per input.

    Examples
    --------
    >>> import strided
    >>> from strided import fx
    >>> from strided.library import TensorMeta
    >>> gm = fx.symbolic_trace(lambda x: (x * 2).sum(axis=0))
    >>> fx.shape_prop(gm, TensorMeta((3, 4), strided.float32))[-1]
    TensorMeta(float32[4], cpu)
    """
    _ShapeProp(gm).run(*metas)
    return [n.meta.get("tensor_meta") for n in gm.graph.nodes]


# the graph's one getitem spelling, for passes that read tuples (max with dim= ...)
getitem = operator.getitem
