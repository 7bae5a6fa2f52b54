"""The backward graph: Nodes joined by edges, the tensors they save, and the hooks on them.

Note [The backward graph]
~~~~~~~~~~~~~~~~~~~~~~~~~
Every recorded op makes one ``Node`` (its ``grad_fn``). A node knows how to turn the gradients
of its forward *outputs* into the gradients of its forward *inputs* (``apply``), and where each
of those input gradients must go next: ``next_functions[i]`` is the *edge* ``(node, nr)`` for
forward input ``i``, meaning "this gradient is the gradient of output ``nr`` of ``node``". A
tensor that requires grad but was made by no op (a *leaf*, such as a weight) has no grad_fn;
its edge leads to an ``AccumulateGrad`` node, which adds what arrives into ``tensor.grad``.

So for ``y = (a * b).sum()``::

    y.grad_fn = SumBackward        next_functions: ((MultiplyBackward, 0),)
    MultiplyBackward               next_functions: ((AccumulateGrad(a), 0), (AccumulateGrad(b), 0))

and ``y.backward()`` calls SumBackward.apply(1), hands its result to MultiplyBackward, whose two
results reach ``a.grad`` and ``b.grad``. The engine (``engine.py``) decides the order.

A tensor reaches its node through two slots that ``TensorBase`` keeps for us without knowing
what they are (``_core.pyx``): ``grad_fn`` and ``_autograd_meta``. The second one is an
``AutogradMeta`` made only when needed: for the output number of an op with several outputs,
for a leaf's accumulator, ``retain_grad`` and tensor hooks.

Note [Saved tensors and the version counter]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A node keeps the forward tensors its formula needs (``mul`` keeps both factors, ``exp`` its
result) as ``SavedTensor``: the tensor and the version of its storage at that moment
(Note [The version counter] in _storage.pyx). When backward unpacks it, a different version means
the values were overwritten in place meanwhile, and the gradient would be silently wrong; we
raise instead, naming both culprits:

* the op that saved it, and the user's source line that called it: every node records that line
  when it is made (``user_site``: a walk up a few Python frames, a few hundred nanoseconds; the
  ``"file:line"`` text is made only when someone reads ``node.source``);
* the in-place op that overwrote it, and its line: the Autograd hook records the last in-place
  write into each storage (``record_inplace``) whenever autograd is active, whether or not the
  written tensor requires grad (a saved ``b`` in ``x * b`` usually does not).

A saved *output* would make a cycle (tensor -> grad_fn -> saved tensor), so outputs are saved as
a weak reference plus a detached alias of the same memory; if the tensor itself has died by the
time backward needs it, the alias is given the node as grad_fn again (for double backward).

After a backward without ``retain_graph`` the engine calls ``release()``: the saved tensors are
dropped (their memory can go) and a second backward through the node raises a clear error.
"""

from __future__ import annotations

import itertools
import os
import sys
import types
import weakref

from strided import _core
from strided.autograd.grad_mode import state

__all__ = [
    "Node",
    "AccumulateGrad",
    "FormulaNode",
    "SavedTensor",
    "AutogradMeta",
    "RemovableHandle",
    "user_line",
    "user_site",
    "site_location",
    "record_inplace",
    "gradient_edge",
    "grad_accumulator",
    "meta",
]

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

try:  # the compiled recorder's constructors (Note [A compiled Node base] in _record.pyx)
    from strided.autograd import _node
except ImportError:  # a checkout whose compiled modules predate it
    _node = None
# The sequence numbers: one counter for the nodes made here and those _node makes.
# next() is atomic under the GIL: safe from several threads.
_sequence = itertools.count() if _node is None else _node.sequence


def user_site(skip=1):
    """``(file, line)`` of the innermost caller outside the strided package (None if none).

    It runs for every recorded op, so it is the cheapest walk there is: ``sys._getframe`` and
    ``f_back`` follow pointers; ``inspect.stack()`` would read every source file on the stack."""
    f = sys._getframe(skip)
    pkg = _PKG_DIR
    while f is not None:
        filename = f.f_code.co_filename
        if not filename.startswith(pkg):
            return (filename, f.f_lineno)
        f = f.f_back
    return None


def site_location(site):
    """``(file, line)`` of a recorded call site: ``user_site``'s answer as it is, or the
    compiled recorder's ``(code, instruction offset)`` resolved (Note [The user's line, found
    when read] in _record.pyx)."""
    where, at = site
    if type(where) is not types.CodeType:
        return site
    for start, end, line in where.co_lines():  # the line table: byte offsets -> line
        if start <= at < end:
            return (where.co_filename, line)
    return (where.co_filename, None)


def _site_text(site):
    """``"file:line"`` from a recorded call site (strings pass through)."""
    if site is None or type(site) is str:
        return site
    file, line = site_location(site)
    return f"{file}:{line}"


def user_line(skip=1):
    """``"file:line"`` of the innermost caller outside the strided package (None if none)."""
    return _site_text(user_site(skip + 1))


# -- the last in-place write into each storage (Note [Saved tensors and the version counter]) ----
# Keyed by id(storage): Storage objects take no weak references, and holding them would keep
# their memory alive. An id can be reused by a later storage; the entry also records the data
# pointer and the version it produced, and is believed only when both still match.

_inplace_log: dict[int, tuple] = {}
_INPLACE_LOG_MAX = 4096


def record_inplace(op_name, tensor):
    """Remember that ``op_name`` is about to write into ``tensor``'s storage, and where from.

    No lock: one dict store is atomic under the GIL, and a race between two threads' clear()
    and store can only lose an entry, which makes a message poorer, never wrong."""
    storage = tensor.untyped_storage()
    if len(_inplace_log) >= _INPLACE_LOG_MAX:
        _inplace_log.clear()  # a bound, not a cache policy: only the messages get poorer
    _inplace_log[id(storage)] = (storage.data_ptr(), storage.version + 1, op_name, user_site())


def _describe_inplace(storage, saved_version):
    entry = _inplace_log.get(id(storage))
    if entry is None or entry[0] != storage.data_ptr() or entry[1] <= saved_version:
        return "by an in-place operation that was not recorded (a write outside strided's ops?)"
    _, _, op, site = entry
    return f"by {op} (the last in-place write) at {_site_text(site) or '<unknown>'}"


class SavedTensor:
    """A tensor saved for backward, with the version it had then. See Note [Saved tensors and the
    version counter]."""

    __slots__ = ("_tensor", "_ref", "_alias", "version", "is_output", "output_nr", "what")

    def __init__(self, tensor, is_output=False, output_nr=0, what="input"):
        # what: a text, or an argument position (formatted only for the error message)
        self.version = tensor._version
        self.is_output = is_output
        self.output_nr = output_nr
        self.what = what
        if is_output:
            self._tensor = None
            self._ref = weakref.ref(tensor)
            self._alias = _alias(tensor)
        else:
            self._tensor = tensor
            self._ref = None
            self._alias = None

    def unpack(self, node):
        """The saved tensor, checked against in-place writes since it was saved."""
        if self.is_output:
            t = self._ref()
            if t is None:
                t = self._alias
                if t is None:
                    raise _freed_error(node)
                if t.grad_fn is None and node is not None:  # see the Note: outputs and cycles
                    t.grad_fn = node
                    t._requires_grad = True
                    if self.output_nr:
                        meta(t).output_nr = self.output_nr
        else:
            t = self._tensor
            if t is None:
                raise _freed_error(node)
        current = t._version
        if current != self.version:
            raise RuntimeError(
                "one of the tensors needed for gradient computation has been modified by an "
                f"in-place operation: {node.name()} saved its {_what_text(self.what)} "
                f"({t.dtype.name}{list(t.shape)}) at {node.source or '<unknown>'} when its "
                f"version was {self.version}; it is now at version {current}, modified "
                f"{_describe_inplace(t.untyped_storage(), self.version)}. Use the out-of-place "
                "op there (x = x + 1 instead of x += 1), or save a .clone() before it."
            )
        return t

    def release(self):
        self._tensor = self._ref = self._alias = None


def _what_text(what):
    return f"argument {what}" if type(what) is int else str(what)


def _alias(t):
    """A new tensor over the same memory as ``t``, with no history (shares the version counter,
    which lives on the storage)."""
    return _core._from_parts(t.untyped_storage(), t.storage_offset(), t.shape, t.stride(), t.dtype)


def _freed_error(node):
    return RuntimeError(
        f"Trying to backward through the graph a second time (or to use the saved tensors of "
        f"{node.name() if node is not None else 'a node'} after they were freed): the saved "
        "tensors are freed after the first backward. Pass retain_graph=True to the first "
        "backward() or autograd.grad() call if you need to backward through it again."
    )


class RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` takes the hook off again."""

    __slots__ = ("_list", "_hook")

    def __init__(self, hooks, hook):
        self._list = hooks
        self._hook = hook

    def remove(self):
        try:
            self._list.remove(self._hook)
        except ValueError:
            pass


class AutogradMeta:
    """Per-tensor autograd state beyond the two slots (see Note [The backward graph])."""

    __slots__ = ("output_nr", "grad_accumulator", "retains_grad", "hooks", "post_hooks")

    def __init__(self):
        self.output_nr = 0
        self.grad_accumulator = None  # weakref to the leaf's AccumulateGrad
        self.retains_grad = False
        self.hooks = []  # tensor hooks of a leaf (a non-leaf's go on its grad_fn)
        self.post_hooks = []  # register_post_accumulate_grad_hook


def meta(t):
    """``t``'s AutogradMeta, made on first use."""
    m = t._autograd_meta
    if m is None:
        m = t._autograd_meta = AutogradMeta()
    return m


class Node:
    """One recorded op in the backward graph. See Note [The backward graph].

    Subclasses implement ``apply(grad_outputs) -> grad_inputs`` (one per ``next_functions``
    edge; None where no gradient flows).
    """

    __slots__ = (
        "next_functions",
        "input_meta",
        "sequence_nr",
        "_site",
        "_metadata",
        "_hooks",
        "_pre_hooks",
        "_tensor_pre_hooks",
        "_retain_hooks",
        "_anomaly_trace",
        "__weakref__",
    )

    def __init__(self, next_functions=(), input_meta=()):
        self.next_functions = tuple(next_functions)
        # (shape, dtype) of each forward input: the engine sums a broadcast gradient back to the
        # shape and casts it to the dtype (Note [Gradients take their input's shape] in engine.py)
        self.input_meta = tuple(input_meta)
        self.sequence_nr = next(_sequence)
        self._site = None  # user_site() of the forward call; see the source property
        self._metadata = None
        self._hooks = None
        self._pre_hooks = None
        self._tensor_pre_hooks = None
        self._retain_hooks = None
        self._anomaly_trace = None

    def name(self):
        return type(self).__name__

    @property
    def source(self):
        """``"file:line"`` of the user's call that made this node (None if unknown)."""
        return _site_text(self._site)

    @source.setter
    def source(self, value):
        self._site = value

    def __repr__(self):
        return f"<{self.name()} #{self.sequence_nr}>"

    @property
    def metadata(self):
        """A dict for the user's own annotations (as PyTorch's ``Node.metadata``)."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def apply(self, grad_outputs):
        raise NotImplementedError

    def release(self):
        """Free what was saved for backward (after a backward without retain_graph)."""

    def __call__(self, *grad_outputs):
        return self.apply(list(grad_outputs))

    # -- hooks ---------------------------------------------------------------------------------

    def register_hook(self, hook):
        """``hook(grad_inputs, grad_outputs)`` runs after the node; it may return new
        grad_inputs."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(hook)
        return RemovableHandle(self._hooks, hook)

    def register_prehook(self, hook):
        """``hook(grad_outputs)`` runs before the node; it may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = []
        self._pre_hooks.append(hook)
        return RemovableHandle(self._pre_hooks, hook)

    def _add_tensor_hook(self, output_nr, hook, retain=False):
        """A hook of the tensor that is output ``output_nr`` of this node (``register_hook`` or
        ``retain_grad`` on a non-leaf)."""
        attr = "_retain_hooks" if retain else "_tensor_pre_hooks"
        table = getattr(self, attr)
        if table is None:
            table = {}
            setattr(self, attr, table)
        hooks = table.setdefault(output_nr, [])
        hooks.append(hook)
        return RemovableHandle(hooks, hook)


class FormulaNode(Node):
    """The node of an op with a row in the derivatives table (``derivatives.py``).

    It keeps what the formula needs: the op's non-tensor arguments, its saved tensors
    (SavedTensor), the shapes of its outputs, and which inputs need a gradient.
    """

    __slots__ = ("op", "formula", "args", "kwargs", "saved", "needs", "out_meta", "_released")

    def __init__(self, op, formula, args, kwargs, next_functions, input_meta, needs):
        # Node.__init__ spelled out: this runs once per recorded op (Note [The Autograd hook])
        self.next_functions = next_functions
        self.input_meta = input_meta
        self.sequence_nr = next(_sequence)
        self._site = self._metadata = self._anomaly_trace = None
        self._hooks = self._pre_hooks = self._tensor_pre_hooks = self._retain_hooks = None
        self.op = op
        self.formula = formula
        self.args = args  # non-tensor arguments as given; tensors replaced by their SavedTensor
        self.kwargs = kwargs
        self.saved = {}
        self.needs = needs  # per forward argument: does it need a gradient?
        self.out_meta = ()
        self._released = False

    def name(self):
        return "".join(p.capitalize() for p in self.op.strip("_").split("_")) + "Backward"

    def apply(self, grad_outputs):
        if self._released:
            raise _freed_error(self)
        return self.formula(self, *grad_outputs)

    def saved_tensor(self, key):
        """Unpack a saved tensor (``key``: an argument position, or ``"result"``)."""
        return self.saved[key].unpack(self)

    def release(self):
        self._released = True
        for s in self.saved.values():
            s.release()


class AccumulateGrad(Node):
    """The node of a leaf: adds the gradient that reaches it into ``variable.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        # Node.__init__ spelled out, as in FormulaNode: a leaf's accumulator lives as long as
        # the graphs that use it, so one is made per leaf per step (per op, for a leaf used alone)
        self.next_functions = ()
        self.input_meta = ((variable.shape, variable.dtype),)
        self.sequence_nr = next(_sequence)
        self._site = self._metadata = self._anomaly_trace = None
        self._hooks = self._pre_hooks = self._tensor_pre_hooks = self._retain_hooks = None
        self.variable = variable

    def apply(self, grad_outputs):
        raise RuntimeError("AccumulateGrad is run by the engine (engine._accumulate)")


if _node is not None:  # its constructors store these classes' fields by their slots' offsets
    _node.setup(FormulaNode, AccumulateGrad, SavedTensor)


def grad_accumulator(t):
    """The AccumulateGrad of leaf ``t`` (one per leaf, kept alive by the graphs that use it)."""
    m = meta(t)
    acc = m.grad_accumulator() if m.grad_accumulator is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        m.grad_accumulator = weakref.ref(acc)
    return acc


# Note [Views after an in-place write]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``v = base.T`` records v's history as "the transpose of base's history *now*". An in-place
# write into base, or into another view of it (``base[0].mul_(w)``: Note [In-place ops] in
# recording.py), gives base a new history; v shares base's memory, so its values changed too,
# and its recorded history is stale. PyTorch checks a view's history lazily, against the version
# counter, and so does strided: every view node keeps the storage's version from when it was
# right (``view_version``), and ``gradient_edge``, the one place history is read to record a new
# op or start a backward, compares it with the current version. If they differ, the view gets a
# new history, an ``as_strided`` view of its base's current one (``_regenerate_view`` in
# recording.py). Writes that changed nothing autograd cares about (under no_grad) regenerate too:
# the new history is right, only its backward is the general as_strided one. A non-view tensor
# pays one slot read (``_base`` is None) for this check.
_regenerate_view = None


def set_view_regenerator(fn):
    """Called once by recording.py, which defines view nodes (this module cannot import it)."""
    global _regenerate_view
    _regenerate_view = fn


def gradient_edge(t):
    """The edge a gradient for ``t`` must follow: its grad_fn, or its leaf accumulator."""
    fn = t.grad_fn
    if fn is not None:
        if t._base is not None and getattr(fn, "view_version", None) not in (None, t._version):
            fn = _regenerate_view(t)  # Note [Views after an in-place write]
        m = t._autograd_meta
        return (fn, m.output_nr if m is not None else 0)
    if t._requires_grad:
        return (grad_accumulator(t), 0)
    return None


def set_history(t, node, output_nr=0):
    """Make ``t`` output ``output_nr`` of ``node``."""
    t.grad_fn = node
    t._requires_grad = True
    if output_nr or t._autograd_meta is not None:
        meta(t).output_nr = output_nr


def anomaly_on():
    return state.anomaly
