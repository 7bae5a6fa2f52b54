"""The dispatcher: which kernel runs an operator call.

Note [Two dispatches]
~~~~~~~~~~~~~~~~~~~~~
A call such as ``strided.add(a, b)`` is routed twice before any arithmetic happens:

1. **By dispatch key, here.** Each op has a kernel per key. The keys, highest first, are
   ``Autograd`` (registered by the autograd package: records the graph, then re-dispatches below
   itself), ``CUDA`` and ``CPU``. The key of a call is the highest one that is *active*: Autograd
   when autograd has registered and says one of the arguments needs it, CUDA when an argument
   lives on a GPU, else CPU. An op without a kernel for that key fails with an error that names
   the op and the key.
2. **By dtype, inside the kernel.** The CPU kernel of an elementwise op asks the iterator for
   the computation dtype and takes the loop for it out of a table (Note [Generated loops] in
   ``_cpu/binary.pyx.tp``).

``trace_dispatch()`` records both: which key and kernel ran, and what the iterator decided.

Every op has three variants and one kernel: ``add(a, b)`` (a new result), ``add(a, b, out=c)``
(the workhorse: every kernel takes ``out=``) and ``a.add_(b)``, which is ``add(a, b, out=a)``.
"""

from __future__ import annotations

import contextlib
import threading

from strided import _core

__all__ = [
    "AUTOGRAD",
    "CPU",
    "CUDA",
    "KEYS",
    "KEY_BITS",
    "TRACE",
    "call_keys",
    "possible",
    "skips_dispatcher",
    "tensor_keys",
    "register",
    "call",
    "redispatch",
    "trace_dispatch",
    "registered_ops",
    "set_autograd_hook",
]

KEYS = ("Autograd", "CUDA", "CPU")  # highest priority first

_kernels: dict[str, dict[str, object]] = {}
_NO_KERNELS: dict[str, object] = {}
_autograd_hook = None  # set by strided.autograd: (name, args, kwargs) -> does this call need it?
_trace = threading.local()

# Note [Dispatch key sets]
# ~~~~~~~~~~~~~~~~~~~~~~~~
# As in PyTorch's DispatchKeySet, every dispatch key is a bit, and every call has a *key set*:
#
# * each tensor argument (and ``out=``) brings its keys: its device's (``CPU`` or ``CUDA``), and
#   ``AUTOGRAD`` when it requires grad;
# * ``out=`` (or an op whose name ends in ``_``, which writes into its first argument) brings
#   ``AUTOGRAD`` as soon as autograd has registered: an in-place write is recorded even when no
#   gradient is needed (the version counters of saved tensors);
# * ``forced[0]`` holds the keys added to every call, as PyTorch's thread-local "included" set:
#   ``TRACE`` while a ``trace_dispatch()`` block runs. (TRACE has no kernels: it only sends the
#   call through ``call``, which records it.)
#
# The call's key set is the union of these (``call_keys``). **One rule decides whether a call
# may skip the dispatcher: its key set is exactly {CPU}.** The CPU kernel is then the only
# kernel the dispatcher could pick, so going to it directly changes speed, not behaviour (the
# kernel still refuses tensors on other devices). Computing the set costs a few hundred
# nanoseconds of Python, more than a one-element add, so it is bounded from above first:
# ``possible[0]`` is the union of the keys any call can have right now (CPU; CUDA once a CUDA
# storage exists; AUTOGRAD once autograd has registered; TRACE while a trace runs). While it is
# {CPU} every call's set is {CPU} too, and an op checks only that (``possible[0] == CPU``: one
# list read); the compiled front ends of the elementwise ops (Note [Compiled front ends] in
# _cpu/binary.pyx.tp) otherwise compute the set in a few C comparisons, which keeps a plain CPU
# op at its NumPy-like cost once autograd is imported or a CUDA tensor exists (1.3 and 3.7 us
# for a one-element add before, 0.3 us with the rule). Inside ``call``, a ``possible`` set
# without CUDA and TRACE leaves only Autograd or CPU to pick, and they are picked inline
# (Note [The CPU-or-Autograd path]).
#
# The Autograd key in a call's set means "autograd may be needed"; the Autograd kernel is picked
# when the op has one and autograd's hook (``set_autograd_hook``) confirms it (grad mode, which
# tensors need a gradient). The keys, highest priority first, are KEYS; ``KEY_BITS`` maps each
# name to its bit.
CPU, CUDA, AUTOGRAD, TRACE = 1, 2, 4, 8
KEY_BITS = {"Autograd": AUTOGRAD, "CUDA": CUDA, "CPU": CPU}
possible = [CPU]  # the keys any call can have now: see Note [Dispatch key sets]
forced = [0]  # the keys added to every call (TRACE while a trace runs)
_cuda_active = False  # set once a CUDA storage exists: see activate_cuda

# Note [The CPU-or-Autograd path]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Once autograd is active, every op comes through ``call``, most of them on tensors that need
# no gradient (the SGD update under no_grad, the engine's own arithmetic, a model's inputs).
# While neither CUDA nor TRACE is a possible key (Note [Dispatch key sets]), only two keys can be
# picked, Autograd or CPU, and ``call`` and ``redispatch`` pick them inline, without ``_pick``'s
# general walk over the keys and the devices. The general path stays the reference: the
# shortcut must pick the same kernel, only sooner. The one liberty it takes: a call whose only
# keyword is ``out=None`` (every public elementwise function passes it) reaches the Autograd
# kernel without it, as the call it means, which spares the recorded op a copy of the keyword
# dict and its node a dict of defaults (Note [Fewer objects per recorded op] in
# autograd/_record.pyx).

# Note [The CUDA path]
# ~~~~~~~~~~~~~~~~~~~~
# Once a CUDA storage exists, every op on a CUDA tensor (and on a CPU one: the key set can no
# longer be bounded from above) comes through ``call``, and each op of a training step on a GPU
# comes through it twice (the recording, then ``redispatch`` to the device kernel). ``_pick``'s
# walk costs about a microsecond there (``call_keys``' loop, its frames), as much as the rest of
# a small CUDA op's host work. The compiled ``call`` and ``redispatch`` (_dispatch_call.pyx)
# compute the same key set in C (the same rules as ``call_keys``, TRACE aside: while a trace
# runs, every call takes the general road) and pick as ``_pick`` picks: Autograd when the set
# holds it and the hook confirms, else CUDA when the set holds it, else CPU. A missing kernel
# or op goes the general road, which raises the error that names it.


def tensor_keys(t):
    """The dispatch keys a tensor brings to a call: its device's, and AUTOGRAD when it
    requires grad (Note [Dispatch key sets])."""
    keys = CUDA if t.is_cuda else CPU
    return keys | AUTOGRAD if t._requires_grad else keys


def call_keys(name, args, kwargs):
    """The key set of the call ``name(*args, **kwargs)`` (Note [Dispatch key sets]).

    Examples
    --------
    >>> import strided
    >>> from strided import _dispatch
    >>> _dispatch.call_keys("add", (strided.ones(2), 1.0), {}) == _dispatch.CPU
    True
    """
    keys = forced[0] | CPU
    for a in args:
        if isinstance(a, _core.TensorBase):
            keys |= tensor_keys(a)
        elif type(a) in (list, tuple):  # concat([a, b]), index tuples
            for b in a:
                if isinstance(b, _core.TensorBase):
                    keys |= tensor_keys(b)
    out = kwargs.get("out") if kwargs else None
    if isinstance(out, _core.TensorBase):
        keys |= tensor_keys(out)
    if (out is not None or name[-1] == "_") and _autograd_hook is not None:
        keys |= AUTOGRAD  # an in-place write: autograd records it
    if keys & CUDA:
        keys &= ~CPU  # a call on a CUDA tensor is a CUDA call (CPU scalars join it)
    return keys


def skips_dispatcher(name, args, kwargs):
    """Whether a call may go straight to the CPU kernel: its key set is exactly {CPU}."""
    return possible[0] == CPU or call_keys(name, args, kwargs) == CPU


def _update_possible():
    keys = CPU
    if _cuda_active:
        keys |= CUDA
    if _autograd_hook is not None:
        keys |= AUTOGRAD
    forced[0] = TRACE if getattr(_trace, "records", None) is not None else 0
    possible[0] = keys | forced[0]


def activate_cuda():
    """Called once, when the first storage on a CUDA device is made (_core tells us: see
    ``_core.on_device_storage``): from then on CUDA is a possible key, and calls whose key set
    holds it go through the dispatcher, which sends them to CUDA kernels (Note [Dispatch key
    sets])."""
    global _cuda_active
    if not _cuda_active:
        _cuda_active = True
        _update_possible()


_core.on_device_storage(activate_cuda)


def register(name, key, kernel=None):
    """Register ``kernel`` for op ``name`` under dispatch ``key`` (usable as a decorator)."""
    if key not in KEYS:
        raise ValueError(f"register: unknown dispatch key {key!r}; use one of {KEYS}")

    def deco(fn):
        _kernels.setdefault(name, {})[key] = fn
        return fn

    return deco if kernel is None else deco(kernel)


def registered_ops():
    """{op name: [keys with a kernel]}, for documentation and tests."""
    return {name: [k for k in KEYS if k in ks] for name, ks in sorted(_kernels.items())}


def set_autograd_hook(hook):
    """Called once by strided.autograd: ``hook(name, args, kwargs)`` says whether a call needs
    autograd (the op's name and ``out=`` tell it about in-place writes)."""
    global _autograd_hook
    _autograd_hook = hook
    if _dispatch_call is not None:
        _dispatch_call.set_hook(hook)  # Note [The compiled call]
    _update_possible()


def _pick(name, args, kwargs, below=None):
    """The key and kernel for a call: the highest-priority key of its key set (Note [Dispatch
    key sets]) below ``below``, Autograd only when autograd's hook confirms it."""
    table = _kernels.get(name)
    if table is None:
        raise NotImplementedError(f"no operator named {name!r} is registered")
    keys = call_keys(name, args, kwargs)
    if (
        below is None
        and keys & AUTOGRAD
        and "Autograd" in table
        and _autograd_hook(name, args, kwargs)
    ):
        key = "Autograd"
    else:
        key = "CUDA" if keys & CUDA else "CPU"
    kernel = table.get(key)
    if kernel is None:
        have = [k for k in KEYS if k in table]
        hint = "; move the tensors to the CPU with .cpu() first" if key == "CUDA" else ""
        raise NotImplementedError(
            f"{name}: no kernel for the {key} dispatch key (it has kernels for {have}){hint}"
        )
    return key, kernel


def call(name, /, *args, **kwargs):
    """Run op ``name``: pick the dispatch key, then call that key's kernel."""
    if not possible[0] & (CUDA | TRACE):  # Note [The CPU-or-Autograd path]
        table = _kernels.get(name)
        if table is not None:
            hook = _autograd_hook
            if hook is not None and "Autograd" in table and hook(name, args, kwargs):
                if len(kwargs) == 1 and kwargs.get("out", kwargs) is None:
                    return table["Autograd"](*args)  # out=None, the default: not passed on
                return table["Autograd"](*args, **kwargs)
            kernel = table.get("CPU")
            if kernel is not None:
                return kernel(*args, **kwargs)
    return _call_general(name, args, kwargs)


def _call_general(name, args, kwargs):
    """``call``'s general road: ``_pick``'s walk over the keys, and the trace."""
    key, kernel = _pick(name, args, kwargs)
    records = getattr(_trace, "records", None)
    if records is not None:
        return _traced(records, name, key, kernel, args, kwargs)
    return kernel(*args, **kwargs)


# Note [The compiled call]
# ~~~~~~~~~~~~~~~~~~~~~~~~
# Every recorded op, and every op on a tensor that needs no gradient once autograd is active,
# passes through ``call``. Its Python frame (the frame itself, the global lookups) is ~0.3-0.4
# us on the 2-core Zen 3, a sixth of PyTorch's whole recorded op. _dispatch_call.pyx is the
# same function compiled, with ``redispatch`` beside it: ``call`` and ``redispatch`` are
# replaced by them where they are built (below ``redispatch``), and the Python functions stay
# the references (``python_call``, ``python_redispatch``), as record_call stays beside the
# compiled recorder. Both take the general roads through ``_call_general`` and
# ``_redispatch_general``; on CUDA tensors both take Note [The CUDA path].


def redispatch(name, below, /, *args, **kwargs):
    """Call op ``name`` skipping keys down to and including ``below`` (how the Autograd kernel
    reaches the device kernel after recording the graph)."""
    if not possible[0] & (CUDA | TRACE) and below != "CPU":  # Note [The CPU-or-Autograd path]
        kernel = _kernels.get(name, _NO_KERNELS).get("CPU")
        if kernel is not None:
            return kernel(*args, **kwargs)
    return _redispatch_general(name, below, args, kwargs)


def _redispatch_general(name, below, args, kwargs):
    """``redispatch``'s general road: ``_pick`` below ``below``, and the trace."""
    key, kernel = _pick(name, args, kwargs, below=below)
    records = getattr(_trace, "records", None)
    if records is not None:
        return _traced(records, name, key, kernel, args, kwargs)
    return kernel(*args, **kwargs)


python_call, python_redispatch = call, redispatch
try:
    from strided import _dispatch_call
except ImportError:  # a checkout whose compiled modules predate it
    _dispatch_call = None
else:
    _dispatch_call.setup(
        _kernels, possible, _call_general, _redispatch_general, (CPU, CUDA, AUTOGRAD, TRACE)
    )
    # the compiled forms of the references above
    call, redispatch = _dispatch_call.call, _dispatch_call.redispatch


def _describe(x):
    if isinstance(x, _core.TensorBase):
        return f"{x.dtype.name}{list(x.shape)}"
    return type(x).__name__


def _traced(records, name, key, kernel, args, kwargs):
    rec = {
        "op": name,
        "key": key,
        "kernel": getattr(kernel, "__qualname__", None) or repr(kernel),
        "inputs": [_describe(a) for a in args],
        "out=": "out" in kwargs and kwargs["out"] is not None,
    }
    plan_fn = getattr(kernel, "plan", None)
    if plan_fn is not None:
        try:
            rec["plan"] = plan_fn(*args, **kwargs).explain()
        except Exception as e:  # the call itself will raise the real error
            rec["plan"] = f"(no plan: {e})"
    records.append(rec)
    depth = getattr(_trace, "depth", 0)
    _trace.depth = depth + 1
    try:
        result = kernel(*args, **kwargs)
    finally:
        _trace.depth = depth
    rec["result"] = (
        _describe(result) if not isinstance(result, tuple) else [_describe(r) for r in result]
    )
    return result


class DispatchTrace(list):
    """The records of a ``trace_dispatch()`` block, one dict per dispatched call."""

    def __str__(self):
        lines = []
        for r in self:
            lines.append(
                f"{r['op']}({', '.join(r['inputs'])}) -> key {r['key']}, kernel "
                f"{r['kernel']} -> {r.get('result')}"
            )
            if "plan" in r:
                lines.extend("    " + ln for ln in r["plan"].splitlines())
        return "\n".join(lines)


@contextlib.contextmanager
def trace_dispatch():
    """Record every dispatched call in the block: its key, kernel and iterator plan.

    Examples
    --------
    >>> import strided
    >>> x = strided.ones((2, 3), dtype="float32")
    >>> with strided.trace_dispatch() as trace:
    ...     y = x + 1
    >>> trace[0]["op"], trace[0]["key"]
    ('add', 'CPU')
    """
    previous = getattr(_trace, "records", None)
    records = DispatchTrace()
    _trace.records = records
    _update_possible()  # TRACE joins every call's key set: no shortcut while the trace runs
    try:
        yield records
    finally:
        _trace.records = previous
        _update_possible()
