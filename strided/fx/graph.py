"""The graph IR of strided.fx: Nodes with six opcodes, a Graph that prints and generates Python,
and GraphModule, the callable made from that Python (torch.fx's graph.py / graph_module.py).

Note [Six opcodes]
~~~~~~~~~~~~~~~~~~
Every node is one of:

* ``placeholder``: an input of the function (``target``: its parameter name);
* ``get_attr``: an attribute of the module (a parameter, a buffer, a constant tensor);
* ``call_function``: a free function (``strided.exp``, ``operator.add``, a custom op);
* ``call_method``: a method of the first argument (``x.sum(axis=1)``: target ``"sum"``);
* ``call_module``: a sub-module called as a whole (``self.fc(x)``: target ``"fc"``), a *leaf*
  the tracer does not look into (strided.nn's own layers are leaves, as torch.nn's are for fx);
* ``output``: the returned value (one per graph).

A node's ``args``/``kwargs`` hold other nodes where the traced program used a traced value, and
plain Python values elsewhere. ``users`` is the reverse edge, kept up to date by the graph, so
passes can ask "who reads this?" in O(1) (dead-code elimination, replacing a node).
"""

from __future__ import annotations

import builtins
import keyword
import operator
import re

__all__ = ["Node", "Graph", "GraphModule", "map_arg"]

# operator functions printed as Python operators in the generated code and the printout
INFIX = {
    operator.add: "+",
    operator.sub: "-",
    operator.mul: "*",
    operator.truediv: "/",
    operator.floordiv: "//",
    operator.mod: "%",
    operator.pow: "**",
    operator.matmul: "@",
    operator.lt: "<",
    operator.le: "<=",
    operator.gt: ">",
    operator.ge: ">=",
    operator.eq: "==",
    operator.ne: "!=",
    operator.and_: "&",
    operator.or_: "|",
    operator.xor: "^",
}
PREFIX = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}


def map_arg(a, fn):
    """Apply ``fn`` to every Node inside ``a`` (nested tuples, lists and dicts)."""
    if isinstance(a, Node):
        return fn(a)
    if isinstance(a, tuple):
        return tuple(map_arg(x, fn) for x in a)
    if isinstance(a, list):
        return [map_arg(x, fn) for x in a]
    if isinstance(a, dict):
        return {k: map_arg(v, fn) for k, v in a.items()}
    if isinstance(a, slice):
        return slice(map_arg(a.start, fn), map_arg(a.stop, fn), map_arg(a.step, fn))
    return a


def _nodes_in(a):
    found = []
    map_arg(a, found.append)
    return found


class Node:
    """One operation of a Graph: see Note [Six opcodes]. ``meta`` holds what passes learn
    (``tensor_meta``: shape and dtype, from shape propagation)."""

    def __init__(self, graph, name, op, target, args, kwargs):
        self.graph, self.name, self.op, self.target = graph, name, op, target
        self.args, self.kwargs = (), {}
        self.users: dict[Node, None] = {}  # ordered set
        self.meta = {}
        self._set_args(args, kwargs)

    def _set_args(self, args, kwargs):
        for n in _nodes_in((self.args, self.kwargs)):
            n.users.pop(self, None)
        self.args, self.kwargs = tuple(args), dict(kwargs)
        for n in _nodes_in((self.args, self.kwargs)):
            n.users[self] = None

    @property
    def all_input_nodes(self):
        return list(dict.fromkeys(_nodes_in((self.args, self.kwargs))))

    def replace_all_uses_with(self, other):
        """Make every user of this node read ``other`` instead."""
        for user in list(self.users):
            user._set_args(
                map_arg(user.args, lambda n: other if n is self else n),
                map_arg(user.kwargs, lambda n: other if n is self else n),
            )

    def format(self):
        """The node as one line of the printout: ``%name = op[target](args)``."""
        t = self.target if isinstance(self.target, str) else _target_name(self.target)
        return (
            f"%{self.name} : {self.op}[{t}](args = {_fmt(self.args)}, kwargs = {_fmt(self.kwargs)})"
            + (f"  # {self.meta['tensor_meta']}" if "tensor_meta" in self.meta else "")
        )

    def __repr__(self):
        return self.name


def _fmt(a):
    return repr(map_arg(a, lambda n: _Ref(n.name)))


class _Ref:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "%" + self.name


def _target_name(fn):
    """Where a function target can be found: ``strided.exp``, ``operator.add``."""
    if isinstance(fn, str):
        return fn
    mod = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__name__", None) or repr(fn)
    if mod == "_operator" or fn in INFIX or fn in PREFIX:
        return f"operator.{name}"
    import strided

    if getattr(strided, name, None) is fn:
        return f"strided.{name}"
    if getattr(strided.nn.functional, name, None) is fn:
        return f"strided.nn.functional.{name}"
    if getattr(builtins, name, None) is fn:
        return name
    schema = getattr(fn, "schema", None)
    if schema is not None:  # a custom op
        return f"strided.library.ops.{schema.name.replace('::', '.')}"
    return f"{mod}.{name}" if mod else name


class Graph:
    """A list of Nodes in execution order, ending in one ``output`` node."""

    def __init__(self):
        self.nodes: list[Node] = []
        # names the generated code must not shadow: builtins (``abs``), the module names it uses
        self._names: dict[str, int] = dict.fromkeys([*dir(builtins), "strided", "operator"], 0)

    def _unique(self, hint):
        base = re.sub(r"[^0-9a-zA-Z_]+", "_", str(hint)).strip("_") or "v"
        base = re.sub(r"_\d+$", "", base) if base not in self._names else base
        if base[0].isdigit() or keyword.iskeyword(base) or base == "self":
            base = "_" + base
        count = self._names.get(base)
        if count is None:
            self._names[base] = 0
            return base
        while True:
            count += 1
            name = f"{base}_{count}"
            if name not in self._names:
                self._names[base] = count
                self._names[name] = 0
                return name

    def create_node(self, op, target, args=(), kwargs=None, name=None, before=None):
        """Append a node (or insert it before node ``before``)."""
        if op not in (
            "placeholder",
            "get_attr",
            "call_function",
            "call_method",
            "call_module",
            "output",
        ):
            raise ValueError(f"create_node: unknown opcode {op!r} (Note [Six opcodes])")
        hint = name or (target if isinstance(target, str) else getattr(target, "__name__", "f"))
        node = Node(self, self._unique(hint), op, target, args, kwargs or {})
        if before is None:
            self.nodes.append(node)
        else:
            self.nodes.insert(self.nodes.index(before), node)
        return node

    def placeholder(self, name):
        return self.create_node("placeholder", name, name=name)

    def output(self, value):
        return self.create_node("output", "output", (value,))

    def erase_node(self, node):
        if node.users:
            raise RuntimeError(f"erase_node: {node.name} still has users {list(node.users)}")
        node._set_args((), {})
        self.nodes.remove(node)

    def __str__(self):
        return "graph():\n" + "\n".join("    " + n.format() for n in self.nodes)

    def print_tabular(self):
        """The nodes as a table: opcode, name, target, args, kwargs."""
        rows = [("opcode", "name", "target", "args", "kwargs")]
        for n in self.nodes:
            t = n.target if isinstance(n.target, str) else _target_name(n.target)
            rows.append((n.op, n.name, t, _fmt(n.args), _fmt(n.kwargs)))
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        return "\n".join(
            "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows
        )

    # -- code generation ------------------------------------------------------------------------

    def python_code(self):
        """(source of ``def forward(self, ...)``, the globals it needs)."""
        w = CodeWriter()
        params, body = [], []
        for n in self.nodes:
            if n.op == "placeholder":
                params.append(n.name)
            elif n.op == "output":
                body.append(f"return {w.arg_text(n.args[0])}")
            else:
                body.append(f"{n.name} = {w.expression(n)}")
        src = f"def forward(self, {', '.join(params)}):\n" + "".join(f"    {b}\n" for b in body)
        return src.replace("(self, )", "(self)"), w.globals


class CodeWriter:
    """The Python text of nodes (``Graph.python_code``; the compiler's programs, Note [The plan's
    run loop] in strided/_compile): a node's value is the variable of its name, a module or
    attribute is read from ``self``, and what has no literal (a dtype, a tensor, a function
    outside strided and operator) is a global collected in ``globals``."""

    def __init__(self):
        self.globals = {"strided": __import__("strided"), "operator": operator}

    def arg_text(self, a):
        if isinstance(a, (tuple, list, dict, slice)) or isinstance(a, Node):
            return repr(map_arg(a, lambda n: _Ref(n.name))).replace("%", "")
        if callable(a) and not isinstance(a, type):
            return self.fn_text(a)
        if isinstance(a, (int, float, bool, str, type(None), complex)):
            return repr(a)
        return self.constant(a)

    def constant(self, a, hint="_const"):
        """A global name holding ``a``."""
        name = f"{hint}_{len(self.globals)}"
        self.globals[name] = a
        return name

    def fn_text(self, fn):
        where = _target_name(fn)
        head = where.split(".")[0]
        if head in ("strided", "operator") or getattr(builtins, where, None) is fn:
            return where
        name = "_fn_" + re.sub(r"\W", "_", where)
        self.globals[name] = fn
        return name

    def call_args(self, args, kwargs):
        parts = [self.arg_text(a) for a in args]
        parts += [f"{k}={self.arg_text(v)}" for k, v in kwargs.items()]
        return ", ".join(parts)

    def expression(self, n):
        """The expression computing node ``n`` (neither a placeholder nor the output)."""
        if n.op == "get_attr":
            return _attr_path(n.target)
        if n.op == "call_module":
            return f"{_attr_path(n.target)}({self.call_args(n.args, n.kwargs)})"
        if n.op == "call_method":
            return f"{self.arg_text(n.args[0])}.{n.target}({self.call_args(n.args[1:], n.kwargs)})"
        if n.target in INFIX and len(n.args) == 2 and not n.kwargs:
            return f"{self.arg_text(n.args[0])} {INFIX[n.target]} {self.arg_text(n.args[1])}"
        if n.target in PREFIX and len(n.args) == 1:
            return f"{PREFIX[n.target]}{self.arg_text(n.args[0])}"
        if n.target is operator.getitem:
            return f"{self.arg_text(n.args[0])}[{self.arg_text(n.args[1])}]"
        if n.target is getattr and len(n.args) == 2:
            return f"{self.arg_text(n.args[0])}.{n.args[1]}"
        return f"{self.fn_text(n.target)}({self.call_args(n.args, n.kwargs)})"


def _attr_path(path):
    """``self.fc.weight``; a part that is no identifier (Sequential's "0") through getattr."""
    expr = "self"
    for part in path.split("."):
        expr = f"{expr}.{part}" if part.isidentifier() else f"getattr({expr}, {part!r})"
    return expr


class GraphModule:
    """A Graph made callable: ``code`` is the generated Python, compiled once; the sub-modules
    and attributes the graph names (``call_module``/``get_attr``) are taken from ``root``.

    It is a strided.nn.Module (parameters, ``.to()``) when the root is one."""

    def __init__(self, root, graph, constants=None):
        self.graph = graph
        self.root = root
        self.__dict__.update(constants or {})  # tensors the trace met that root does not own
        self.recompile()

    def __getattr__(self, name):
        if name in ("root", "graph"):
            raise AttributeError(name)
        return getattr(self.root, name)

    def recompile(self):
        """Regenerate ``code`` and ``forward`` from the graph (call after a pass changed it)."""
        src, globals_ = self.graph.python_code()
        self.code = src
        ns = dict(globals_)
        exec(compile(src, "<strided.fx generated>", "exec"), ns)  # noqa: S102 - our own code
        self._forward = ns["forward"]
        return src

    def __call__(self, *args):
        return self._forward(self, *args)

    forward = __call__

    def __repr__(self):
        return f"GraphModule(\n{self.code})"
