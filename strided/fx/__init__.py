"""strided.fx: trace a function into a graph, print it, generate Python from it, run it node by
node, and rewrite it with passes (torch.fx, reduced to what a reader can hold in mind).

Start at ``graph.py`` (Note [Six opcodes]), then ``proxy.py`` (Note [How a call becomes a
node]), ``interpreter.py`` and ``passes.py`` (Note [The primitive set]). The compiler
(``strided._compile``) is the first user of all four.
"""

from strided.fx.graph import Graph, GraphModule, Node, map_arg
from strided.fx.interpreter import Interpreter, shape_prop
from strided.fx.passes import (
    DECOMPOSITIONS,
    PRIMITIVES,
    common_subexpression_elimination,
    dead_code_elimination,
    decompose,
)
from strided.fx.proxy import Proxy, TraceError, Tracer, symbolic_trace

__all__ = [
    "DECOMPOSITIONS",
    "PRIMITIVES",
    "Graph",
    "GraphModule",
    "Interpreter",
    "Node",
    "Proxy",
    "TraceError",
    "Tracer",
    "common_subexpression_elimination",
    "dead_code_elimination",
    "decompose",
    "map_arg",
    "shape_prop",
    "symbolic_trace",
]
