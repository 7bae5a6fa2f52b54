"""Custom operators (PyTorch's ``TORCH_LIBRARY`` and ``torch.library``): an op declared by a
schema, with a kernel per dispatch key, a derivative row and a meta (shape/dtype) function.

Note [One registration path]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A custom op lands in the same tables as the built-in ones, so a reader learns one mechanism:

* its kernels go into the dispatcher's table with ``_dispatch.register(name, key, kernel)``,
  the call the built-in ops make at import (elementwise.py's ``_make_binary``); calling the op
  is ``_dispatch.call(name, ...)``, so it gets the Autograd key, the CUDA key and
  ``trace_dispatch()`` as every built-in does (Note [Dispatch key sets] in _dispatch.py);
* its derivative is a ``row(...)`` of the derivatives table (Note [Named derivative rows] in
  autograd/rows.py), written with the same formula names (``grad``, the inputs, ``result``),
  stored in ``derivatives.TABLE`` under the op's name; the Autograd kernel is the one
  ``recording._autograd_kernel`` makes for every op;
* its meta function maps argument *metas* (``TensorMeta``: shape, dtype, device) to the output's,
  and is what tracing and the compiler use to see through the op without running it
  (``strided.fx.shape_prop``), as PyTorch's "fake" kernels.

What a custom op adds over a built-in is the *schema*: ``"mylib::scale(Tensor x, float alpha=1.0)
-> Tensor"``. It names and types each argument, so a call is checked before it dispatches (the
error names the argument and what would work), and it says which argument the op writes
(``Tensor(a!) x``) and which output aliases which input (``-> Tensor(a!)``). The dispatcher's
convention for writes is the op's name ending in ``_`` with the written tensor first (Note
[Dispatch key sets]); a schema that writes must follow it, and ``define`` says so otherwise.

Left for later: the built-in ops do not carry schemas yet (their checks live in their Python
front ends), so ``strided.ops.*`` lists only custom ops; the tables they register into are the
same.
"""

from __future__ import annotations

import re

from strided import _core, _dispatch

__all__ = [
    "Schema",
    "Argument",
    "TensorMeta",
    "CustomOp",
    "define",
    "impl",
    "register_autograd",
    "register_meta",
    "get_op",
    "declare",
    "ops",
]

_TYPES = {
    "Tensor": _core.TensorBase,
    "float": (float, int),
    "int": (int,),
    "bool": (bool,),
    "str": (str,),
    "Scalar": (bool, int, float, complex),
}


class Argument:
    """One argument of a schema: name, type, default, and the alias set it belongs to."""

    __slots__ = (
        "name",
        "type",
        "optional",
        "is_list",
        "default",
        "alias",
        "writes",
        "_cls",
        "_no_bool",
    )

    def __init__(self, name, type_, optional, is_list, default, alias, writes):
        self.name, self.type, self.optional, self.is_list = name, type_, optional, is_list
        self.default, self.alias, self.writes = default, alias, writes
        # what check asks of every call, looked up once (a call's checks were ~0.6 us an
        # argument, a third of a small op's path through its custom op)
        self._cls = _TYPES.get(type_)
        self._no_bool = type_ in ("int", "float")

    def __repr__(self):
        t = self.type + (f"({self.alias}{'!' if self.writes else ''})" if self.alias else "")
        t += "[]" * self.is_list + "?" * self.optional
        d = "" if self.default is ... else f"={self.default!r}"
        return f"{t} {self.name}{d}"

    def check(self, op, value):
        """Raise a TypeError naming this argument when ``value`` does not fit its type."""
        if value is None and self.optional:
            return
        if not self.is_list:
            if isinstance(value, self._cls) and not (self._no_bool and isinstance(value, bool)):
                return
            values = (value,)
        elif not isinstance(value, (list, tuple)):
            raise TypeError(f"{op}: argument {self.name!r} must be a list of {self.type}")
        else:
            values = value
        for v in values:
            if not isinstance(v, self._cls) or (self._no_bool and isinstance(v, bool)):
                raise TypeError(
                    f"{op}: argument {self.name!r} must be {self.type}"
                    f"{' or None' if self.optional else ''}, got {type(v).__name__}"
                )


_ARG = re.compile(
    r"^\s*(?P<type>\w+)(\((?P<alias>\w+)(?P<bang>!?)\))?(?P<list>\[\])?(?P<opt>\?)?"
    r"\s+(?P<name>\w+)\s*(=\s*(?P<default>.+?))?\s*$"
)
_RET = re.compile(r"^\s*(?P<type>\w+)(\((?P<alias>\w+)(?P<bang>!?)\))?\s*$")


class Schema:
    """A parsed op schema: ``ns::name(args) -> returns`` (PyTorch's FunctionSchema, reduced).

    Examples
    --------
    >>> from strided.library import Schema
    >>> s = Schema.parse("mylib::scale_(Tensor(a!) x, float alpha=1.0) -> Tensor(a!)")
    >>> s.name, s.writes, s.returns
    ('mylib::scale_', 0, [('Tensor', 'a')])
    """

    def __init__(self, name, arguments, returns):
        self.name = name
        self.arguments = arguments
        self.returns = returns  # [(type, alias or None)]
        written = [i for i, a in enumerate(arguments) if a.writes]
        self.writes = written[0] if written else None

    @classmethod
    def parse(cls, text):
        m = re.match(r"^\s*(\w+)::(\w+)\s*\((.*)\)\s*->\s*(.+?)\s*$", text)
        if m is None:
            raise ValueError(
                f"schema {text!r}: expected 'namespace::name(Type arg, ...) -> Type', such as "
                "'mylib::scale(Tensor x, float alpha=1.0) -> Tensor'"
            )
        ns, base, args_text, ret_text = m.groups()
        name = f"{ns}::{base}"
        arguments = []
        for piece in filter(None, (p.strip() for p in args_text.split(","))):
            a = _ARG.match(piece)
            if a is None or a["type"] not in _TYPES:
                raise ValueError(
                    f"schema {name}: cannot read argument {piece!r}; the types are "
                    f"{sorted(_TYPES)}, written 'Tensor x', 'float alpha=1.0', 'Tensor? w', "
                    "'int[] dims', 'Tensor(a!) out'"
                )
            default = ...
            if a["default"] is not None:
                text_default = a["default"]
                default = {"None": None, "True": True, "False": False}.get(text_default)
                if default is None and text_default != "None":
                    default = float(text_default) if "." in text_default else int(text_default)
            arguments.append(
                Argument(
                    a["name"],
                    a["type"],
                    bool(a["opt"]),
                    bool(a["list"]),
                    default,
                    a["alias"],
                    bool(a["bang"]),
                )
            )
        ret_text = ret_text.strip()
        if ret_text.startswith("("):
            ret_text = ret_text[1:-1]
        returns = []
        for piece in filter(None, (p.strip() for p in ret_text.split(","))):
            r = _RET.match(piece)
            if r is None or r["type"] != "Tensor":
                raise ValueError(f"schema {name}: a return must be 'Tensor' or 'Tensor(a)'")
            returns.append(("Tensor", r["alias"]))
        self = cls(name, arguments, returns)
        writes = [i for i, a in enumerate(arguments) if a.writes]
        if writes and (writes != [0] or not base.endswith("_")):
            raise ValueError(
                f"schema {name}: an op that writes an argument must write its first one and "
                f"end its name in '_' (the dispatcher's convention for in-place ops), as "
                f"'{ns}::{base.rstrip('_')}_(Tensor(a!) x, ...)'"
            )
        inputs = {a.alias for a in arguments if a.alias}
        for _, alias in returns:
            if alias is not None and alias not in inputs:
                raise ValueError(f"schema {name}: output alias {alias!r} names no argument")
        return self

    def bind(self, args, kwargs):
        """Check a call against the schema: one value per argument, each of its type."""
        if len(args) > len(self.arguments):
            raise TypeError(
                f"{self.name}: takes {len(self.arguments)} arguments, got {len(args)}: {self}"
            )
        values = list(args)
        for a in self.arguments[len(args) :]:
            if a.name in kwargs:
                values.append(kwargs[a.name])
            elif a.default is not ...:
                values.append(a.default)
            else:
                raise TypeError(f"{self.name}: missing argument {a.name!r}: {self}")
        extra = set(kwargs) - {a.name for a in self.arguments[len(args) :]}
        if extra:
            raise TypeError(f"{self.name}: unexpected argument(s) {sorted(extra)}: {self}")
        for a, v in zip(self.arguments, values, strict=True):
            a.check(self.name, v)
        return values

    def signature(self):
        """The derivative row's signature: the Python names of the arguments."""
        params = ", ".join(a.name for a in self.arguments)
        return f"{_python_name(self.name)}({params})"

    def __str__(self):
        rets = ", ".join(t + (f"({al})" if al else "") for t, al in self.returns)
        return f"{self.name}({', '.join(map(repr, self.arguments))}) -> {rets}"


def _python_name(name):
    return name.replace("::", "__")


class TensorMeta:
    """What a meta function sees and returns: a tensor's shape, dtype and device, no data."""

    __slots__ = ("shape", "dtype", "device")

    def __init__(self, shape, dtype, device="cpu"):
        self.shape, self.dtype, self.device = tuple(shape), dtype, str(device)

    @classmethod
    def of(cls, t):
        return cls(t.shape, t.dtype, t.device)

    def __eq__(self, other):
        return isinstance(other, TensorMeta) and (self.shape, self.dtype, self.device) == (
            other.shape,
            other.dtype,
            other.device,
        )

    def __hash__(self):
        return hash((self.shape, self.dtype, self.device))

    def __repr__(self):
        return f"TensorMeta({self.dtype.name}{list(self.shape)}, {self.device})"


_OPS: dict[str, CustomOp] = {}


class CustomOp:
    """A declared op: call it like a function (checked against its schema, then dispatched)."""

    def __init__(self, schema):
        self.schema = schema
        self.name = schema.name
        self.meta = None
        self.__name__ = self.__qualname__ = _python_name(schema.name)
        self.__doc__ = f"Custom operator {schema}."

    def __call__(self, *args, **kwargs):
        for a in (*args, *kwargs.values()):  # tracing: see Note [How a call becomes a node]
            if getattr(a, "_is_fx_proxy", False):
                return a.tracer.create_proxy("call_function", self, args, kwargs)
        values = self.schema.bind(args, kwargs)
        return _dispatch.call(self.name, *values)

    def run_meta(self, *args, **kwargs):
        """The output metas of a call on metas (TensorMeta or tensors), from the meta function."""
        if self.meta is None:
            raise NotImplementedError(
                f"{self.name} has no meta function, so tracing and the compiler cannot see its "
                f"output's shape and dtype; register one with "
                f"@strided.library.register_meta({self.name!r})"
            )
        args = [TensorMeta.of(a) if isinstance(a, _core.TensorBase) else a for a in args]
        return self.meta(*args, **kwargs)

    def __repr__(self):
        return f"<custom op {self.schema}>"


def define(schema):
    """Declare a custom op from its schema and return it (callable).

    Examples
    --------
    >>> import strided
    >>> from strided import library
    >>> op = library.define("doc::twice(Tensor x) -> Tensor")
    >>> _ = library.impl("doc::twice", "CPU", lambda x: x * 2)
    >>> op(strided.ones(2)).tolist()
    [2.0, 2.0]
    """
    s = Schema.parse(schema)
    if s.name in _OPS:
        raise ValueError(f"define: {s.name} is already defined as {_OPS[s.name].schema}")
    op = _OPS[s.name] = CustomOp(s)
    _ns(s.name.split("::")[0]).__dict__[s.name.split("::")[1]] = op
    return op


def get_op(name):
    """The custom op called ``name`` ("ns::op")."""
    try:
        return _OPS[name]
    except KeyError:
        raise ValueError(f"no custom op named {name!r}; declare it with library.define") from None


def declare(schema, cpu, meta, **formulas):
    """The op of ``schema``: declared with its CPU kernel, meta function and derivative row
    (``formulas``, as ``register_autograd`` takes them) on the first call, returned as it is
    on later ones (how a layer declares its op on first use).

    Examples
    --------
    >>> import strided
    >>> from strided import library
    >>> op = library.declare("doc::thrice(Tensor x) -> Tensor", lambda x: x * 3,
    ...                      lambda x: library.TensorMeta(x.shape, x.dtype, x.device),
    ...                      x=lambda grad: grad * 3)
    >>> op is library.declare("doc::thrice(Tensor x) -> Tensor", None, None)
    True
    """
    name = schema.split("(", 1)[0]
    if name in _OPS:
        return _OPS[name]
    op = define(schema)
    impl(name, "CPU", cpu)
    register_meta(name, meta)
    if formulas:
        register_autograd(name, **formulas)
    return op


def impl(name, key, kernel=None):
    """Register ``kernel`` as op ``name``'s kernel for dispatch ``key`` ("CPU" or "CUDA"); usable
    as a decorator. The kernel takes the schema's arguments in order, defaults filled in."""
    op = get_op(name)
    if key not in ("CPU", "CUDA"):
        raise ValueError(
            f"impl: key must be 'CPU' or 'CUDA' (Autograd comes from a row), not {key!r}"
        )

    def deco(fn):
        _dispatch.register(op.name, key, fn)
        _refresh_autograd(op.name)
        return fn

    return deco if kernel is None else deco(kernel)


def register_meta(name, fn=None):
    """Register op ``name``'s meta function: metas (TensorMeta for tensors) -> output meta(s)."""
    op = get_op(name)

    def deco(f):
        op.meta = f
        return f

    return deco if fn is None else deco(fn)


def register_autograd(name, **formulas):
    """Give op ``name`` a derivative row: one formula per differentiable input, by the names of
    Note [Named derivative rows] (``grad``, the inputs, ``result``)."""
    from strided.autograd import derivatives, rows

    op = get_op(name)
    names = {a.name for a in op.schema.arguments}
    for target in formulas:
        for t in target.split(","):
            if t.strip() not in names:
                raise ValueError(
                    f"register_autograd: {name} has no argument {t.strip()!r} (it has "
                    f"{sorted(names)})"
                )
    entry = rows.row(op.schema.signature(), **formulas)
    entry.op = op.name
    derivatives.TABLE[op.name] = entry
    _refresh_autograd(op.name)


def _refresh_autograd(name):
    """Once autograd is active the Autograd kernels of the ops are made (recording.activate);
    an op defined or given a row after that gets its own now."""
    from strided.autograd import recording

    if recording._activated:
        _dispatch.register(name, "Autograd", recording._autograd_kernel(name))


class _Namespace:
    def __init__(self, ns):
        self._ns = ns

    def __getattr__(self, item):
        raise AttributeError(f"strided.library.ops.{self._ns} has no op {item!r}")


class _Ops:
    """``library.ops.mylib.scale``: the declared ops by namespace (torch.ops)."""

    def __init__(self):
        self._namespaces = {}

    def __getattr__(self, ns):
        if ns.startswith("_"):
            raise AttributeError(ns)
        return _ns(ns)


ops = _Ops()


def _ns(ns):
    return ops._namespaces.setdefault(ns, _Namespace(ns))
