"""``Module``: the base class of layers and models, as ``torch.nn.Module``.

Note [How a Module finds its parameters]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A Module keeps three ordered dicts: ``_parameters`` (Parameters), ``_buffers`` (tensors that are
state but not learned, such as batch norm's running statistics) and ``_modules`` (sub-modules).
``self.weight = Parameter(...)`` lands in ``_parameters`` because ``__setattr__`` looks at the
value's class; ``self.fc = Linear(...)`` lands in ``_modules``; buffers are registered explicitly
with ``register_buffer``. Attribute reads of those names fall through to ``__getattr__``, which
looks in the three dicts. Everything else (``named_parameters``, ``state_dict``, ``to``,
``train``) walks the tree of ``_modules`` recursively and names each entry by its path,
``"features.0.weight"``, which is the key of ``state_dict`` and what ``load_state_dict`` matches.

Note [The structure version]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A compiled module (strided.compile) must know its parameters, buffers and sub-modules on every call,
but walking the tree for them costs ~20 us, a good part of a small compiled step. So every change
that can alter what the walk finds counts itself on one global counter, ``structure_version()``: a
write to a registry (the three dicts are ``_Registry``, which counts its own writes, so ``to()`` and
code that stores into ``_parameters`` directly are seen too), any attribute set or deleted through
``Module.__setattr__``/``__delattr__`` (a plain attribute such as a Softmax's ``dim`` is traced into
the graph as a constant), and ``train()``/``eval()``. A caller that saw version ``v`` and finds it
unchanged may reuse what it found. What does not move it: a parameter's in-place update (an
optimizer step, ``load_state_dict``'s ``copy_``), which changes no tensor's identity, dtype, shape
or strides; ``requires_grad_`` changes a flag in place, so the compiled call still checks each
parameter's flag. The counter is global rather than per tree because a sub-module may sit in several
trees; a change anywhere costs every compiled module one walk, no more.
"""

from __future__ import annotations

from collections import OrderedDict

from strided._core import TensorBase
from strided.autograd.grad_mode import no_grad
from strided.nn.parameter import Parameter

__all__ = ["Module"]

_version = 0  # Note [The structure version]


def structure_version():
    """A number that moves whenever any module's tree may have changed (Note [The structure
    version])."""
    return _version


def _moved():
    global _version
    _version += 1


class _Registry(OrderedDict):
    """A module's ``_parameters``, ``_buffers`` or ``_modules``: an ordered dict whose every
    write moves the structure version (Note [The structure version])."""

    def __setitem__(self, key, value):
        _moved()
        super().__setitem__(key, value)

    def __delitem__(self, key):
        _moved()
        super().__delitem__(key)

    def pop(self, *args):
        _moved()
        return super().pop(*args)

    def popitem(self, last=True):
        _moved()
        return super().popitem(last)

    def setdefault(self, key, default=None):
        _moved()
        return super().setdefault(key, default)

    def update(self, *args, **kwargs):
        _moved()
        super().update(*args, **kwargs)

    def clear(self):
        _moved()
        super().clear()


class Module:
    """Base class of all layers: subclass it, set parameters and sub-modules as attributes in
    ``__init__``, and write ``forward``. See Note [How a Module finds its parameters].

    Examples
    --------
    >>> import strided
    >>> from strided import nn
    >>> class TwoLayers(nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.hidden = nn.Linear(4, 8)
    ...         self.out = nn.Linear(8, 2)
    ...     def forward(self, x):
    ...         return self.out(nn.functional.relu(self.hidden(x)))
    >>> model = TwoLayers()
    >>> [name for name, _ in model.named_parameters()]
    ['hidden.weight', 'hidden.bias', 'out.weight', 'out.bias']
    >>> model(strided.ones((3, 4))).shape
    (3, 2)
    """

    def __init__(self):
        object.__setattr__(self, "_parameters", _Registry())
        object.__setattr__(self, "_buffers", _Registry())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_modules", _Registry())
        object.__setattr__(self, "training", True)

    # -- registration --------------------------------------------------------------------------

    def _check_init(self, name):
        if "_parameters" not in self.__dict__:
            raise AttributeError(
                f"cannot assign {name!r} before Module.__init__() has run: call "
                "super().__init__() first in your module's __init__"
            )

    def __setattr__(self, name, value):
        _moved()  # Note [The structure version]
        if isinstance(value, Parameter):
            self._check_init(name)
            self._forget(name)
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._check_init(name)
            self._forget(name)
            self._modules[name] = value
        elif "_parameters" in self.__dict__ and name in self._parameters:
            if value is not None:
                raise TypeError(
                    f"cannot assign a {type(value).__name__} to parameter {name!r}: assign a "
                    "strided.nn.Parameter (or None)"
                )
            self._parameters[name] = None
        elif "_buffers" in self.__dict__ and name in self._buffers:
            if value is not None and not isinstance(value, TensorBase):
                raise TypeError(f"cannot assign a {type(value).__name__} to buffer {name!r}")
            self._buffers[name] = value
        elif "_modules" in self.__dict__ and name in self._modules and value is None:
            self._modules[name] = None
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name):
        for d in (self._parameters, self._buffers, self._modules):
            d.pop(name, None)
        self.__dict__.pop(name, None)

    def __getattr__(self, name):
        # Only called when normal lookup fails: look in the three registries.
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry in d and name in d[registry]:
                return d[registry][name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __delattr__(self, name):
        _moved()
        for registry in (self._parameters, self._buffers, self._modules):
            if name in registry:
                del registry[name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        """Add ``param`` (a Parameter or None) under ``name``."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"register_parameter: {name!r} must be a strided.nn.Parameter or None, got "
                f"{type(param).__name__}"
            )
        self._check_init(name)
        self._forget(name)
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add ``tensor`` as state that is not learned (saved in ``state_dict`` unless
        ``persistent=False``, moved by ``to``)."""
        if tensor is not None and not isinstance(tensor, TensorBase):
            raise TypeError(
                f"register_buffer: {name!r} must be a Tensor or None, got {type(tensor).__name__}"
            )
        self._check_init(name)
        self._forget(name)
        self._buffers[name] = tensor
        if not persistent:
            self._non_persistent.add(name)

    def add_module(self, name, module):
        """Add ``module`` as a child under ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"add_module: {name!r} must be a Module, got {type(module).__name__}")
        self._check_init(name)
        self._forget(name)
        self._modules[name] = module

    # -- calling -------------------------------------------------------------------------------

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define forward(...)")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    # -- walking the tree ----------------------------------------------------------------------

    def named_modules(self, memo=None, prefix=""):
        """(path, module) for this module and every descendant, each module once."""
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, f"{prefix}.{name}" if prefix else name)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        for name, m in self._modules.items():
            if m is not None:
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, registry, recurse=True):
        seen = set()
        modules = self.named_modules() if recurse else [("", self)]
        for path, m in modules:
            for name, t in getattr(m, registry).items():
                if t is None or id(t) in seen:
                    continue
                seen.add(id(t))
                yield (f"{path}.{name}" if path else name), t

    def named_parameters(self, prefix="", recurse=True):
        """(path, Parameter) pairs, each shared parameter once."""
        for name, p in self._named_members("_parameters", recurse):
            yield (f"{prefix}.{name}" if prefix else name), p

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True):
        for name, b in self._named_members("_buffers", recurse):
            yield (f"{prefix}.{name}" if prefix else name), b

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def apply(self, fn):
        """Call ``fn(module)`` on every descendant, then on this module; returns self."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # -- modes and gradients -------------------------------------------------------------------

    def train(self, mode=True):
        """Training mode (Dropout drops, BatchNorm uses batch statistics); returns self."""
        if not isinstance(mode, bool):
            raise TypeError(f"train: mode must be a bool, got {type(mode).__name__}")
        _moved()  # layers read ``training`` while traced: Note [The structure version]
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        """Evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Forget the gradients of every parameter (``None``, or zeros with set_to_none=False)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                with no_grad():
                    p.grad.zero_()

    # -- state -----------------------------------------------------------------------------------

    def state_dict(self, prefix=""):
        """An ordered dict path -> tensor of every parameter and persistent buffer.

        The tensors are detached views of the module's own (no copies, as in PyTorch): save them
        with ``strided.save``, or ``clone()`` them to keep a snapshot.
        """
        out = OrderedDict()
        for path, m in self.named_modules(prefix=prefix):
            dot = f"{path}." if path else ""
            for name, p in m._parameters.items():
                if p is not None:
                    out[dot + name] = p.detach()
            for name, b in m._buffers.items():
                if b is not None and name not in m._non_persistent:
                    out[dot + name] = b.detach()
        return out

    def load_state_dict(self, state_dict, strict=True):
        """Copy the tensors of ``state_dict`` into this module's parameters and buffers.

        Shapes must match; values are cast to each parameter's dtype and device. With ``strict``
        the keys must match exactly. Returns ``(missing_keys, unexpected_keys)``.
        """
        own = {}
        for path, m in self.named_modules():
            dot = f"{path}." if path else ""
            for name, p in m._parameters.items():
                if p is not None:
                    own[dot + name] = p
            for name, b in m._buffers.items():
                if b is not None and name not in m._non_persistent:
                    own[dot + name] = b
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            raise KeyError(
                f"load_state_dict for {type(self).__name__}: missing keys {missing}, unexpected "
                f"keys {unexpected}; pass strict=False to load the keys that match"
            )
        with no_grad():
            for key, target in own.items():
                if key not in state_dict:
                    continue
                src = state_dict[key]
                if not isinstance(src, TensorBase):
                    raise TypeError(
                        f"load_state_dict: {key!r} holds a {type(src).__name__}, not a Tensor"
                    )
                if tuple(src.shape) != tuple(target.shape):
                    raise ValueError(
                        f"load_state_dict: {key!r} has shape {tuple(src.shape)} in the state "
                        f"dict but {tuple(target.shape)} in the model"
                    )
                if src.device != target.device:
                    src = src.to(target.device)
                target.copy_(src)
        return missing, unexpected

    def to(self, *args, dtype=None, device=None):
        """Move (or cast) every parameter and buffer; returns self.

        Parameters that change get new Parameter objects (a tensor cannot change device in
        place): build the optimizer *after* moving the model, as in PyTorch.
        """
        for m in self.modules():
            for name, p in m._parameters.items():
                if p is None:
                    continue
                moved = p.to(*args, dtype=dtype, device=device)
                if moved is not p:
                    new = Parameter(moved, p.requires_grad)
                    if p.grad is not None:
                        new.grad = p.grad.to(*args, dtype=dtype, device=device)
                    m._parameters[name] = new
            for name, b in m._buffers.items():
                if b is not None:
                    # buffers keep their dtype kind: an int64 counter stays an integer
                    bdtype = dtype if (dtype is not None and b.dtype.kind == "f") else None
                    bargs = [a for a in args if b.dtype.kind == "f" or _is_device(a)]
                    m._buffers[name] = b.to(*bargs, dtype=bdtype, device=device)
        return self

    # PyTorch's dtype shorthands: every floating parameter and buffer converted (integer
    # buffers, such as a step counter, keep their dtype: see to())
    def half(self):
        return self.to(dtype="float16")

    def bfloat16(self):
        return self.to(dtype="bfloat16")

    def float(self):
        return self.to(dtype="float32")

    def double(self):
        return self.to(dtype="float64")

    def cuda(self, device=None):
        return self.to(device="cuda" if device is None else device)

    def cpu(self):
        return self.to(device="cpu")

    # -- printing --------------------------------------------------------------------------------

    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = []
        extra = self.extra_repr()
        for name, m in self._modules.items():
            sub = repr(m).replace("\n", "\n  ")
            lines.append(f"({name}): {sub}")
        head = f"{type(self).__name__}({extra}"
        if not lines:
            return head + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"


def _is_device(a):
    from strided._core import Device
    from strided._tensor import _is_dtype_name

    return isinstance(a, Device) or (isinstance(a, str) and not _is_dtype_name(a))
