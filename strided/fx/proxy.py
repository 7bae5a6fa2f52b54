"""Symbolic tracing: run a function on Proxy objects that record what is done to them (torch.fx's
proxy.py and _symbolic_trace.py).

Note [How a call becomes a node]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``symbolic_trace(fn)`` calls ``fn`` once with one Proxy per parameter. A Proxy stands for a
value that does not exist yet; every use of it adds a node to the graph instead of computing:

* Python operators (``x + 1``, ``x @ w``, ``-x``, ``x[0]``) are the Proxy's dunder methods and
  become ``call_function`` nodes on ``operator.add`` & co;
* methods (``x.sum(axis=1)``) are a ``call_method`` node; attributes (``x.shape``) a ``getattr``
  node, so ``x.reshape(x.shape[0], -1)`` traces;
* strided's free functions (``strided.exp(x)``, ``F.relu(x)``) do not know about Proxies. While
  a trace runs, the functions of ``strided``, ``strided.nn.functional`` and ``strided.linalg``,
  and the same functions in the traced function's globals (``from strided import exp``), are
  replaced by wrappers that make a ``call_function`` node when an argument is a Proxy and call
  the real function otherwise; they are put back when the trace ends (torch.fx's "autowrap"
  patcher does the same for ``math``). Custom ops (strided.library) check for Proxies
  themselves;
* a sub-module call ``self.fc(x)`` is a ``call_module`` node when the module is a *leaf*
  (strided.nn's own layers), else the tracer runs its ``forward`` and records what is inside;
* a tensor the function reads that is not an input (a parameter used directly, a constant)
  becomes a ``get_attr`` node.

A Proxy has no value, so Python cannot branch on it: ``if x.sum() > 0`` calls ``bool()`` on a
Proxy, and the trace stops with a TraceError naming the user's file and line (the control
flow depends on data, which a graph without branches cannot express). The compiler then runs
that function eagerly (a graph break).
"""

from __future__ import annotations

import builtins
import inspect
import operator
import os
import types

from strided import _core
from strided.fx.graph import Graph, GraphModule, Node, map_arg

__all__ = ["Proxy", "Tracer", "TraceError", "symbolic_trace"]

_STRIDED_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class TraceError(RuntimeError):
    """A program that cannot be traced into a graph (see Note [How a call becomes a node])."""


def _user_line():
    """'file:line: source' of the innermost frame outside the strided package: the user's."""
    frame = inspect.currentframe()
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(_STRIDED_DIR + os.sep):
            info = inspect.getframeinfo(frame)
            code = (info.code_context or ["?"])[0].strip()
            return f"{info.filename}:{info.lineno}: {code}"
        frame = frame.f_back
    return "<unknown line>"


class Proxy:
    """A traced value: operations on it add nodes to ``tracer``'s graph."""

    _is_fx_proxy = True
    __hash__ = object.__hash__  # == makes a node, so hash by identity

    def __init__(self, node, tracer):
        self.node = node
        self.tracer = tracer

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Attribute(self, name)

    def __call__(self, *args, **kwargs):
        raise TraceError(f"a traced value is not callable: {_user_line()}")

    def _no_data(self, what):
        raise TraceError(
            f"symbolically traced values cannot be used in {what}: the control flow would depend "
            f"on data the trace does not have, at {_user_line()} (strided.compile runs such a "
            "function eagerly; for fx, pass the value as a concrete argument instead)"
        )

    def __bool__(self):
        self._no_data("control flow (if/while/and/or)")

    def __len__(self):
        self._no_data("len()")

    def __iter__(self):
        self._no_data("iteration")

    def __index__(self):
        self._no_data("an index or int()")

    def __int__(self):
        self._no_data("int()")

    def __float__(self):
        self._no_data("float()")

    def __setitem__(self, key, value):
        self.tracer.create_proxy("call_function", operator.setitem, (self, key, value), {})

    def __array__(self, *args, **kwargs):
        self._no_data("a conversion to a NumPy array")


class _Attribute(Proxy):
    """``x.name``: a call_method node when called, a getattr node when used as a value."""

    def __init__(self, root, name):
        self.root, self.attr, self.tracer = root, name, root.tracer
        self._node = None

    @property
    def node(self):
        if self._node is None:
            self._node = self.tracer.create_proxy(
                "call_function", builtins.getattr, (self.root, self.attr), {}
            ).node
        return self._node

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", self.attr, (self.root, *args), kwargs)


def _binary(fn, reflected=False):
    def method(self, other):
        args = (other, self) if reflected else (self, other)
        return self.tracer.create_proxy("call_function", fn, args, {})

    return method


for _name, _fn in [
    ("add", operator.add),
    ("sub", operator.sub),
    ("mul", operator.mul),
    ("truediv", operator.truediv),
    ("floordiv", operator.floordiv),
    ("mod", operator.mod),
    ("pow", operator.pow),
    ("matmul", operator.matmul),
    ("and", operator.and_),
    ("or", operator.or_),
    ("xor", operator.xor),
]:
    setattr(Proxy, f"__{_name}__", _binary(_fn))
    setattr(Proxy, f"__r{_name}__", _binary(_fn, reflected=True))
for _name, _fn in [
    ("lt", operator.lt),
    ("le", operator.le),
    ("gt", operator.gt),
    ("ge", operator.ge),
    ("eq", operator.eq),
    ("ne", operator.ne),
    ("getitem", operator.getitem),
]:
    setattr(Proxy, f"__{_name}__", _binary(_fn))
for _name, _fn in [("neg", operator.neg), ("pos", operator.pos), ("invert", operator.invert)]:
    setattr(
        Proxy,
        f"__{_name}__",
        lambda self, _fn=_fn: self.tracer.create_proxy("call_function", _fn, (self,), {}),
    )
Proxy.__abs__ = lambda self: self.tracer.create_proxy("call_function", builtins.abs, (self,), {})
for _name in ("iadd", "isub", "imul", "itruediv"):  # x += 1 writes x: recorded as add_ & co
    _method = {"iadd": "add_", "isub": "sub_", "imul": "mul_", "itruediv": "div_"}[_name]
    setattr(
        Proxy,
        f"__{_name}__",
        lambda self, o, _m=_method: self.tracer.create_proxy("call_method", _m, (self, o), {}),
    )


def _has_proxy(args, kwargs):
    for a in (*args, *kwargs.values()):
        if isinstance(a, Proxy):
            return True
        if type(a) in (list, tuple):
            for b in a:
                if isinstance(b, Proxy):
                    return True
    return False


class Tracer:
    """Turns a function or Module into a Graph (Note [How a call becomes a node])."""

    def __init__(self):
        self.graph = None
        self.root = None
        self.constants = {}

    def is_leaf_module(self, module, qualname):
        """strided.nn's own layers are called as a whole; user modules are traced into."""
        from strided.nn import container

        mod = type(module).__module__
        return mod.startswith("strided.nn") and not isinstance(module, (container.Sequential,))

    def create_arg(self, a):
        """A value as a node argument: Proxies become their nodes, outside tensors get_attr."""
        if isinstance(a, Proxy):
            return a.node
        if isinstance(a, (tuple, list)):
            return type(a)(self.create_arg(x) for x in a)
        if isinstance(a, dict):
            return {k: self.create_arg(v) for k, v in a.items()}
        if isinstance(a, slice):
            return slice(self.create_arg(a.start), self.create_arg(a.stop), self.create_arg(a.step))
        if isinstance(a, _core.TensorBase):
            path = self._tensor_paths.get(id(a))
            if path is None:
                path = f"_tensor_constant{len(self.constants)}"
                self.constants[path] = a
                self._tensor_paths[id(a)] = path
            return self.graph.create_node("get_attr", path, name=path.replace(".", "_"))
        return a

    def create_proxy(self, op, target, args, kwargs, name=None):
        args = self.create_arg(tuple(args))
        kwargs = self.create_arg(dict(kwargs))
        return Proxy(self.graph.create_node(op, target, args, kwargs, name=name), self)

    def _module_path(self, module):
        for name, m in self._modules:
            if m is module:
                return name
        raise TraceError(
            f"a module called during the trace is not a sub-module of the root: {module!r}"
        )

    def trace(self, root, concrete_args=None):
        """The Graph of ``root`` (a function or a strided.nn.Module)."""
        from strided.nn.module import Module

        self.graph = Graph()
        self.root = root
        self.constants = {}
        self._tensor_paths = {}
        self._modules = []
        concrete_args = dict(concrete_args or {})
        if isinstance(root, Module):
            fn = type(root).forward
            self._modules = list(root.named_modules())
            for path, t in (*root.named_parameters(), *root.named_buffers()):
                self._tensor_paths[id(t)] = path
            first = [root]
        else:
            fn = root
            first = []
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())[len(first) :]
        args = []
        for p in params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TraceError(f"symbolic_trace: *{p.name} parameters are not supported")
            if p.name in concrete_args:
                args.append(concrete_args[p.name])
            else:
                args.append(Proxy(self.graph.placeholder(p.name), self))
        with _Patcher(self, fn):
            out = fn(*first, *args)
        self.graph.output(self.create_arg(out))
        return self.graph

    def call_module(self, module, args, kwargs):
        path = self._module_path(module)
        if self.is_leaf_module(module, path):
            return self.create_proxy("call_module", path, args, kwargs, name=path.replace(".", "_"))
        return module.forward(*args, **kwargs)


def _wrap(tracer, fn):
    def wrapper(*args, **kwargs):
        if _has_proxy(args, kwargs):
            return tracer.create_proxy("call_function", fn, args, kwargs)
        return fn(*args, **kwargs)

    wrapper.__wrapped__ = fn
    return wrapper


class _Patcher:
    """Replaces strided's functions (and Module.__call__) by tracing wrappers for one trace."""

    def __init__(self, tracer, fn):
        self.tracer, self.fn = tracer, fn
        self.saved = []

    def _namespaces(self):
        import strided
        from strided import linalg
        from strided._ops import elementwise, reduction, shape, views
        from strided._ops import linalg as linalg_ops
        from strided.nn import functional

        # the public namespaces, and the modules strided's own Python (the derivative
        # formulas, nn.functional) calls its ops through
        return [strided, functional, linalg, elementwise, reduction, views, shape, linalg_ops]

    def __enter__(self):
        from strided.nn.module import Module

        originals = {}
        for ns in self._namespaces():
            for name, v in list(vars(ns).items()):
                if name.startswith("_") or isinstance(v, (type, types.ModuleType)):
                    continue
                if (
                    isinstance(v, (types.FunctionType, types.BuiltinFunctionType))
                    or type(v).__name__ == "cython_function_or_method"
                ):
                    wrapped = originals.setdefault(id(v), _wrap(self.tracer, v))
                    self.saved.append((ns.__dict__, name, v))
                    ns.__dict__[name] = wrapped
        g = getattr(self.fn, "__globals__", None)
        if g is not None:
            for name, v in list(g.items()):
                if id(v) in originals and not name.startswith("__"):
                    self.saved.append((g, name, v))
                    g[name] = originals[id(v)]
        for cell in getattr(self.fn, "__closure__", None) or ():  # names bound in an outer scope
            try:
                v = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if id(v) in originals:
                self.saved.append((cell, "cell_contents", v))
                cell.cell_contents = originals[id(v)]
        tracer = self.tracer
        original_call = Module.__call__

        def module_call(module, *args, **kwargs):
            return tracer.call_module(module, args, kwargs)

        self.saved.append((None, "__call__", original_call))
        Module.__call__ = module_call
        return self

    def __exit__(self, *exc):
        from strided.nn.module import Module

        for d, name, v in reversed(self.saved):
            if d is None:
                Module.__call__ = v
            elif name == "cell_contents":
                d.cell_contents = v
            else:
                d[name] = v
        return False


def symbolic_trace(root, concrete_args=None):
    """Trace a function or strided.nn.Module into a GraphModule.

    Examples
    --------
    >>> import strided
    >>> from strided import fx
    >>> gm = fx.symbolic_trace(lambda x, y: (x * 2 + 1).exp() * y)
    >>> print(gm.code.strip())
    def forward(self, x, y):
        mul = x * 2
        add = mul + 1
        exp = add.exp()
        mul_1 = exp * y
        return mul_1
    """
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    return GraphModule(root, graph, tracer.constants)


__all__ += ["Node", "map_arg"]
