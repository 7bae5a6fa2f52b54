"""The Autograd dispatch key: record the graph while ops run forward.

Note [The Autograd kernel]
~~~~~~~~~~~~~~~~~~~~~~~~~~
For every op the dispatcher knows, this module registers a kernel under the ``Autograd`` key
(Note [Two dispatches] in _dispatch.py). When a call involves a tensor that requires grad, the
dispatcher picks it, and it:

1. runs the op's device kernel with ``redispatch(name, "Autograd", ...)``, with grad mode off
   meanwhile (``below_autograd``), so that a kernel that calls other public ops does not record
   an inner graph of its own;
2. makes a ``FormulaNode`` (graph.py) holding the op's row of the derivatives table, the saved
   tensors the row asks for, and one edge per argument (``gradient_edge``);
3. makes the outputs that can carry a gradient (floating dtypes) outputs of that node.

Note [The Autograd hook]
~~~~~~~~~~~~~~~~~~~~~~~~
The dispatcher asks ``needs_autograd(name, args, kwargs)`` on every call, so it must be cheap:
one thread-local read (grad mode) and a scan of the positional arguments for a tensor with
``_requires_grad`` set (a C slot). Writes are the one case that costs more: for ``out=`` calls
and in-place ops (names ending in ``_``) the hook records the op and the user's source line for
the version-counter message (graph.record_inplace), and asks whether the written tensor, or
the tensor it is a view of, requires grad (then history must be rebased: Note [In-place ops]).

Autograd is *activated* the first time any tensor is made to require grad (``activate``): until
then Autograd is not a possible dispatch key (Note [Dispatch key sets] in _dispatch.py), so a
program that never uses autograd pays nothing for it. Once active it stays active.

Note [In-place ops]
~~~~~~~~~~~~~~~~~~~
``a.mul_(b)`` is ``multiply(a, b, out=a)``. Its node is the ``multiply`` node, with the edge of
argument 0 leading to ``a``'s *old* history; afterwards ``a.grad_fn`` is the new node. If the
formula needs the old value of the written argument, it is cloned before the write. Three
cases refuse or need more:

* ``a`` is a leaf that requires grad: its ``.grad`` would belong to values that no longer exist,
  so we raise (use ``no_grad()`` for parameter updates, or ``clone()`` first).
* ``out=`` names a tensor that is none of the inputs while an input requires grad: not
  differentiable (as PyTorch); we raise and suggest the functional form.
* ``a`` is a view of ``base`` (``a = base[0]``): the write changes ``base`` too, so ``base``'s
  history is rebased onto a ``CopySlices`` node (PyTorch's name): in backward it takes base's
  gradient, sends the part outside the view to base's old history, runs the op's formula on the
  part inside it, and sends the op's input gradients on. ``a`` itself becomes a view of the new
  base. Other views of ``base`` made *before* the write get a new history when next used, as
  in PyTorch (Note [Views after an in-place write] in graph.py).

Note [The view kernel]
~~~~~~~~~~~~~~~~~~~~~~
Views (``_views.pyx``) are dispatcher ops too, for the CPU and CUDA keys alike, and they reach
the dispatcher only when their tensor requires grad (Note [Views through the Autograd key] in
_views.pyx). Their Autograd kernel (``_view_kernel``) runs the view below this key, with grad
mode off, and records a ``ViewNode``: the input's and the view's geometry over the same
storage, and the formula that takes the view's gradient back to the input (``VIEW_TABLE``).
The copies (``copy_``, ``fill_``, ``contiguous_copy`` in _ops/copying.py) are dispatcher ops
with rows of the derivatives table, called through the dispatcher when this hook says they need
it (Note [Copies through the dispatcher] there).
Nothing here replaces another module's functions: whoever bound ``copy_`` or ``narrow``, and
whenever, the call comes through the dispatcher to this key.
"""

from __future__ import annotations

import contextlib
import functools
import threading

from strided import _core, _dispatch, _dtype, _views
from strided._ops import copying as _copying
from strided._ops import elementwise as _e
from strided.autograd import derivatives as _d
from strided.autograd import formulas as _F
from strided.autograd import graph as _graph
from strided.autograd.grad_mode import state
from strided.autograd.graph import (
    FormulaNode,
    Node,
    SavedTensor,
    gradient_edge,
    record_inplace,
    set_history,
    user_site,
)

__all__ = ["activate", "below_autograd", "needs_autograd", "unrecorded", "ViewNode", "CopySlices"]

try:  # Note [The compiled recorder]: built by setup.py; its Python form is this module's
    from strided.autograd import _record
except ImportError:  # a checkout whose compiled modules predate it
    _record = None
COMPILED = _record is not None

_TensorBase = _core.TensorBase
_int64 = _dtype.int64
_activated = False
_activation_lock = threading.Lock()


@contextlib.contextmanager
def below_autograd():
    """Grad mode off for the kernels below the Autograd key (see Note [The Autograd kernel])."""
    prev = state.enabled
    state.enabled = False
    try:
        yield
    finally:
        state.enabled = prev


def _requires_grad_through(t):
    """Whether writing into ``t`` touches history: it, or the tensor it views, requires grad."""
    if t._requires_grad:
        return True
    base = t._base
    return base is not None and base._requires_grad


def needs_autograd(name, args, kwargs):
    """The dispatcher's question: does this call need the Autograd kernel?"""
    out = kwargs.get("out") if kwargs else None
    if out is None and name[-1] == "_" and args:
        out = args[0]  # index_put_, scatter_, ...: they write into their first argument
    if out is not None and isinstance(out, _TensorBase):
        if name[-1] == "_":
            record_inplace(name, out)
        else:  # a.add_(b) is add(a, b, out=a): name it as the user wrote it
            record_inplace(name + "_" if args and args[0] is out else name + "(out=)", out)
        if state.enabled and _requires_grad_through(out):
            return True
    if not state.enabled:
        return False
    for a in args:
        if isinstance(a, _TensorBase) and a._requires_grad:
            return True
    return False


def _edges(args):
    """One edge per argument (None for non-tensors and tensors that need no gradient), the
    (shape, dtype, device) of each tensor argument, which arguments need a gradient, and the
    arguments as a node keeps them (tensors replaced by None: the row saves those it needs)."""
    edges, metas, needs, stored = [], [], [], []
    for a in args:
        if isinstance(a, _TensorBase):
            e = gradient_edge(a) if a._requires_grad else None
            edges.append(e)
            metas.append((a.shape, a.dtype, a.device))
            needs.append(e is not None)
            stored.append(None)
        else:
            edges.append(None)
            metas.append(None)
            needs.append(False)
            stored.append(a)
    return tuple(edges), tuple(metas), tuple(needs), tuple(stored)


def _differentiable(t):
    return isinstance(t, _TensorBase) and t.dtype.kind in "fc"


def _make_node(name, entry, kwargs, edges, metas, needs, stored, saved_args):
    node = FormulaNode(name, entry.formula, stored, kwargs, edges, metas, needs)
    for i in entry.save:
        a = saved_args[i]
        if isinstance(a, _TensorBase):
            node.saved[i] = SavedTensor(a, what=i)
    node._site = user_site()
    if state.anomaly:
        from strided.autograd.anomaly_mode import record_trace

        record_trace(node)
    return node


def _finish(node, entry, result):
    """Make the differentiable outputs of ``result`` outputs of ``node``; save what the row
    asks of the result. A list result (meshgrid) is several outputs, as a tuple is."""
    outputs = result if isinstance(result, (tuple, list)) else (result,)
    keep = entry.outputs
    metas = []
    for nr, o in enumerate(outputs):
        if o is not None and _differentiable(o) and (keep is None or nr in keep):
            set_history(o, node, nr)
            metas.append((o.shape, o.dtype, o.device))
        else:
            metas.append(None)
    node.out_meta = tuple(metas)
    if entry.result:
        node.saved["result"] = SavedTensor(outputs[0], is_output=True, what="result")
    if keep is not None and len(outputs) > 1 and isinstance(outputs[1], _TensorBase):
        node.saved["indices"] = SavedTensor(outputs[1], what="indices")  # sort, topk
    return result


def _not_differentiable(name):
    return RuntimeError(
        f"{name}: autograd has no derivative formula for this op, and an input requires grad; "
        "call it under strided.no_grad() (or on x.detach()) if no gradient is needed through it"
    )


def record_call(name, entry, run, args, kwargs, out):
    """Run ``run(*args, **kwargs)`` below autograd and record it (the body of every Autograd
    kernel; ``out``: the tensor the call writes into, or None)."""
    if out is not None:
        return _inplace(name, entry, run, args, kwargs, out)
    if entry is None:
        if name in _d.NOT_DIFFERENTIABLE:
            with below_autograd():
                return run(*args, **kwargs)
        raise _not_differentiable(name)
    edges, metas, needs, stored = _edges(args)
    call_args = entry.prepare(args) if entry.prepare is not None else args
    # below_autograd(), spelled out: a generator-based context manager costs about a
    # microsecond, a tenth of this whole function
    prev = state.enabled
    state.enabled = False
    try:
        result = run(*call_args, **kwargs)
    finally:
        state.enabled = prev
    node = _make_node(name, entry, kwargs, edges, metas, needs, stored, args)
    return _finish(node, entry, result)


def _autograd_kernel(name, compiled=None):
    """The Autograd kernel of op ``name``: ``record_call``'s, or for a plain functional row the
    fast one, compiled (Note [The compiled recorder] in _record.pyx) unless ``compiled`` is
    False or the module is not built (then the Python ``_fast_kernel``, its textbook form)."""
    entry = _d.TABLE.get(name)
    mutates = name.endswith("_")
    # the device kernel below this key; a partial, not a closure: no Python frame of its own
    run = functools.partial(_dispatch.redispatch, name, "Autograd")

    def kernel(*args, **kwargs):
        out = args[0] if mutates else kwargs.get("out")
        return record_call(name, entry, run, args, kwargs, out)

    if mutates or entry is None or entry.prepare is not None:
        kernel.__qualname__ = f"autograd[{name}]"
        return kernel
    if COMPILED and compiled is not False:
        return _record.RecordedOp(name, entry, run, kernel, _dispatch._kernels[name])
    return _fast_kernel(name, entry, run, kernel)


# Note [The recorded op's fast path]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Most recorded calls are functional (no out=), of an op with a plain row (no prepare=), with
# anomaly mode off, on the CPU. For them the Autograd kernel does ``record_call``'s steps in
# fewer Python frames (each costs about 0.1 us; the bookkeeping of a recorded add was ~5 us
# against PyTorch's 1.8 us): ``record_call`` and ``_make_node`` and ``_finish`` are inlined,
# the CPU kernel is called without ``redispatch`` (whose shortcut picks the same kernel: Note
# [The CPU-or-Autograd path] in _dispatch.py), an elementwise one without even its
# ``_Kernel.__call__`` frame, and the user's source line is looked for from this kernel's
# frame up (``user_site()``: the frames inside the package are passed over; a fixed skip past
# the dispatcher would skip a frame of the user's where ``_dispatch.call`` is compiled and has
# none, Note [The compiled call]). Every other call (out=, anomaly mode, rows with prepare=,
# in-place ops) goes through ``record_call``, the reference; both give the same node, fields
# and history.
#
# This is as far as Python goes. The same steps, compiled, are ``_record.RecordedOp`` (Note
# [The compiled recorder] in _record.pyx), the kernel registered where that module is built;
# this function is its readable form, and the kernel where it is not built.


def _fast_kernel(name, entry, run, general):
    """The Autograd kernel of ``name`` with Note [The recorded op's fast path]."""
    # (the row's fields are read at each call: the classroom grader swaps a student's in)
    kernels = _dispatch._kernels[name]
    possible = _dispatch.possible
    not_cpu_only = _dispatch.CUDA | _dispatch.TRACE
    TensorBase = _TensorBase
    site = user_site

    def kernel(*args, **kwargs):
        if (kwargs and kwargs.get("out") is not None) or state.anomaly:
            return general(*args, **kwargs)
        edges, metas, needs, stored = _edges(args)
        prev = state.enabled
        state.enabled = False  # below_autograd(), spelled out (see record_call)
        try:
            cpu = None if possible[0] & not_cpu_only else kernels.get("CPU")
            if cpu is None:
                result = run(*args, **kwargs)
            elif type(cpu) is _e._Kernel and (not kwargs or (len(kwargs) == 1 and "out" in kwargs)):
                result = cpu.run(name, *args, None)  # _Kernel.__call__ (out is None), inlined
            else:
                result = cpu(*args, **kwargs)
        finally:
            state.enabled = prev
        node = FormulaNode(name, entry.formula, stored, kwargs, edges, metas, needs)
        save, keep, save_result = entry.save, entry.outputs, entry.result
        for i in save:
            a = args[i]
            if isinstance(a, TensorBase):
                node.saved[i] = SavedTensor(a, what=i)
        node._site = site()  # from this frame up: its callers may be compiled (no frames)
        if not isinstance(result, (tuple, list)):  # one output (a namedtuple is several)
            if keep is None or 0 in keep:
                if isinstance(result, TensorBase) and result.dtype.kind in "fc":
                    result.grad_fn = node
                    result._requires_grad = True
                    if result._autograd_meta is not None:
                        result._autograd_meta.output_nr = 0
                    node.out_meta = ((result.shape, result.dtype, result.device),)
                else:
                    node.out_meta = (None,)
                if save_result:
                    node.saved["result"] = SavedTensor(result, is_output=True, what="result")
                return result
        return _finish(node, entry, result)

    kernel.__qualname__ = f"autograd[{name}]"
    return kernel


# -- in-place ------------------------------------------------------------------------------------


def _check_writable(name, t):
    if t._requires_grad and t.grad_fn is None and t._base is None:
        raise RuntimeError(
            f"{name}: a leaf tensor that requires grad ({t.dtype.name}{list(t.shape)}) is being "
            "used in an in-place operation; its .grad would belong to values that no longer "
            "exist. Update parameters under strided.no_grad(), or write into a .clone()."
        )
    base = t._base
    if base is not None and base._requires_grad and base.grad_fn is None:
        raise RuntimeError(
            f"{name}: a view of a leaf tensor that requires grad "
            f"({base.dtype.name}{list(base.shape)}) is being used in an in-place operation. "
            "Write into the leaf under strided.no_grad(), or into a .clone() of it."
        )


def _inplace(name, entry, run, args, kwargs, out):
    """See Note [In-place ops]."""
    pos = next((i for i, a in enumerate(args) if a is out), None)
    edges, metas, needs, stored = _edges(args)
    if not any(needs) and not _requires_grad_through(out):
        with below_autograd():
            return run(*args, **kwargs)
    if pos is None and any(needs):
        raise RuntimeError(
            f"{name}(..., out=): out= is not differentiable while an input requires grad; "
            f"use the functional form (y = {name}(...)) instead"
        )
    if entry is None:
        raise _not_differentiable(name)
    _check_writable(name, out)
    saved_args = list(args)
    if pos is not None and pos in entry.save:
        # the formula needs the value before the write: keep a copy of it
        saved_args[pos] = _copy_original(out)
    with below_autograd():
        result = run(*args, **kwargs)
    if out._base is not None and pos is not None and not needs[pos]:
        # CopySlices sends the written input's gradient on to the base's old history: the
        # formula must give it even though the view itself needs none
        needs = needs[:pos] + (True,) + needs[pos + 1 :]
    node = _make_node(name, entry, kwargs, edges, metas, needs, stored, saved_args)
    if out._base is not None:
        _rebase_view(node, out, pos)
        if entry.result:
            node.saved["result"] = SavedTensor(out, what="result")
        node.out_meta = ((out.shape, out.dtype, out.device),)
        return result
    if _differentiable(out):
        set_history(out, node, 0)
        node.out_meta = ((out.shape, out.dtype, out.device),)
    if entry.result:
        node.saved["result"] = SavedTensor(out, is_output=True, what="result")
    return result


class CopySlices(Node):
    """The history of a base tensor after an in-place op on one of its views (Note [In-place
    ops]). Edge 0 leads to the base's old history; the others are the op's inputs but the one
    it wrote into."""

    __slots__ = ("fn", "pos", "base_geometry", "view_geometry", "cells", "dtype")

    def __init__(self, base, view, fn, pos):
        others = [i for i in range(len(fn.next_functions)) if i != pos]
        super().__init__(
            [gradient_edge(base)] + [fn.next_functions[i] for i in others],
            [(base.shape, base.dtype, base.device)] + [fn.input_meta[i] for i in others],
        )
        self.fn = fn
        self.pos = pos
        self.base_geometry = _geometry(base)
        self.view_geometry = _geometry(view)
        self.cells = view.untyped_storage().nbytes // view.itemsize
        self.dtype = base.dtype
        self._site = fn._site

    def name(self):
        return f"CopySlices({self.fn.name()})"

    def apply(self, grad_outputs):
        from strided._ops import creation as _cr
        from strided.autograd.formulas import sum_to

        (g,) = grad_outputs
        if state.enabled:  # create_graph: this backward is itself recorded
            return self._apply_recorded(g)
        # The scratch storage lives on g's device: a bare ``_core.Storage(nbytes)`` is host
        # memory, and a CUDA gradient copied into it would come back as a CPU gradient.
        storage = _cr.empty(self.cells, dtype=g.dtype, device=g.device).untyped_storage()
        result = _core._from_parts(storage, *_reorder(self.base_geometry), g.dtype)
        _copying.copy_(result, g)
        region = _core._from_parts(storage, *_reorder(self.view_geometry), g.dtype)
        grads = self.fn.apply([_copying.contiguous_copy(region)])
        if self.pos is not None and grads[self.pos] is not None:
            _copying.copy_(region, sum_to(grads[self.pos], region.shape))
        else:
            _copying.fill_(region, 0)
        return [result] + [g for i, g in enumerate(grads) if i != self.pos]

    def _apply_recorded(self, g):
        """``apply`` with differentiable ops only, for double backward: the same steps, with
        the storage cells as a 1-D tensor, ``index_add`` to lay a gradient over cells and
        ``take`` to read cells back (the way strided_backward in formulas.py does)."""
        from strided._ops import creation as _cr
        from strided._ops import indexing as _ix
        from strided._ops import views as _v
        from strided.autograd.formulas import sum_to

        def cells_of(geometry):  # the storage cell of each element of a geometry, flattened
            shape, strides, offset = geometry
            ids = _cr.arange(self.cells, dtype="int64", device=g.device).untyped_storage()
            where = _core._from_parts(ids, offset, shape, strides, _int64)
            return _v.reshape(where, (-1,))

        base_cells, view_cells = cells_of(self.base_geometry), cells_of(self.view_geometry)
        zeros = _cr.zeros(self.cells, dtype=g.dtype, device=g.device)
        cells = _ix.index_add(zeros, 0, base_cells, _v.reshape(g, (-1,)))
        view_shape = self.view_geometry[0]
        grads = self.fn.apply([_v.reshape(_ix.take(cells, view_cells), view_shape)])
        # the view's cells get the op's input gradient (or nothing): clear them, then add it
        outside = _ix.index_put(
            _cr.ones(self.cells, dtype=g.dtype, device=g.device), (view_cells,), 0.0
        )
        cells = _e.multiply(cells, outside)
        if self.pos is not None and grads[self.pos] is not None:
            inside = _v.reshape(sum_to(grads[self.pos], view_shape), (-1,))
            cells = _ix.index_add(cells, 0, view_cells, inside)
        result = _v.reshape(_ix.take(cells, base_cells), self.base_geometry[0])
        return [result] + [g for i, g in enumerate(grads) if i != self.pos]

    def release(self):
        self.fn.release()


def _geometry(t):
    return (t.shape, t.stride(), t.storage_offset())


def _reorder(geometry):
    shape, strides, offset = geometry
    return offset, shape, strides


def _copy_original(t):
    """The value of ``t`` before an in-place write, for the formula: a copy *with* history when
    ``t`` has one, so that double backward sees how the saved value depends on the inputs."""
    if t._requires_grad and state.enabled:
        return _copying.contiguous_copy(t)  # recorded: Note [Copies through the dispatcher]
    return unrecorded("contiguous_copy", t)


def _rebase_view(node, view, pos):
    base = view._base
    copy_slices = CopySlices(base, view, node, pos)
    set_history(base, copy_slices, 0)
    view_node = ViewNode("as_strided", _d.VIEW_DEFAULT, base, view)
    view_node.next_functions = ((copy_slices, 0),)
    set_history(view, view_node, 0)


def _regenerate_view(view):
    """A fresh history for ``view``, read from its base's current one: see Note [Views after an
    in-place write] in graph.py."""
    base = view._base
    old = view.grad_fn
    node = ViewNode("as_strided", _d.VIEW_DEFAULT, base, view)
    node._site = old._site if old is not None else None
    set_history(view, node, 0)  # a view is output 0 of its node (split's pieces too)
    return node


_graph.set_view_regenerator(_regenerate_view)
if COMPILED:
    _record.setup(
        SavedTensor,
        _graph.meta,
        gradient_edge,
        _finish,
        _graph._inplace_log,
        _graph._INPLACE_LOG_MAX,
        _e._Kernel,
        _dispatch.possible,
        _dispatch.CUDA | _dispatch.TRACE,
        _graph._PKG_DIR,
    )


# -- views (Note [The view kernel]) -------------------------------------------------------------


class ViewNode(Node):
    """The node of a view op: the input's and the output's geometry over the same storage."""

    __slots__ = (
        "op",
        "formula",
        "in_geometry",
        "out_geometry",
        "storage_cells",
        "permutation",
        "flip_dims",
        "view_version",
    )

    def __init__(self, op, formula, src, view):
        super().__init__((gradient_edge(src),), ((src.shape, src.dtype, src.device),))
        self.op = op
        self.formula = formula
        self.in_geometry = _geometry(src)
        self.out_geometry = _geometry(view)
        self.storage_cells = src.untyped_storage().nbytes // max(src.itemsize, 1)
        self.permutation = None
        self.flip_dims = None
        # the storage's version when this history was right (Note [Views after an in-place
        # write] in graph.py)
        self.view_version = view._version

    def name(self):
        return "".join(p.capitalize() for p in self.op.split("_")) + "Backward"

    def apply(self, grad_outputs):
        return (self.formula(self, grad_outputs[0]),)


def _norm_dim(d, n):
    n = max(n, 1)
    return d % n


def _permutation(op, src, args):
    n = src.ndim
    if op == "permute":
        dims = args[0]
        if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
            dims = dims[0]
        return [_norm_dim(d, n) for d in dims]
    perm = list(range(n))
    if op == "transpose":
        a, b = _norm_dim(args[0], n), _norm_dim(args[1], n)
        perm[a], perm[b] = perm[b], perm[a]
    elif op == "reverse_dims":
        perm.reverse()
    elif op == "matrix_transpose":
        perm[-1], perm[-2] = perm[-2], perm[-1]
    elif op == "movedim":  # NumPy's moveaxis: the other dims keep their order
        src, dst = args[0], args[1]
        src = [_norm_dim(d, n) for d in (src if isinstance(src, (tuple, list)) else (src,))]
        dst = [_norm_dim(d, n) for d in (dst if isinstance(dst, (tuple, list)) else (dst,))]
        perm = [d for d in range(n) if d not in src]
        for d, s in sorted(zip(dst, src, strict=True)):
            perm.insert(d, s)
    return perm


def _record_view(op, src, view, args, kwargs):
    formula = _d.VIEW_TABLE.get(op, _d.VIEW_DEFAULT)
    node = ViewNode(op, formula, src, view)
    if formula is _F.permute_back:
        node.permutation = _permutation(op, src, args)
    elif formula is _F.flip_back:
        dims = args[0] if args else kwargs.get("dims")
        node.flip_dims = (
            tuple(range(src.ndim))
            if dims is None
            else tuple(
                _norm_dim(d, src.ndim)
                for d in (dims if isinstance(dims, (tuple, list)) else (dims,))
            )
        )
    node._site = user_site()
    set_history(view, node, 0)


def _view_kernel(op):
    """The Autograd kernel of view op ``op``: see Note [The view kernel]."""
    # the device kernel below this key; a partial, not a closure: no Python frame of its own
    run = functools.partial(_dispatch.redispatch, op, "Autograd")

    def kernel(t, *args, **kwargs):
        prev = state.enabled
        state.enabled = False  # below_autograd(), spelled out (see record_call)
        try:
            result = run(t, *args, **kwargs)
        finally:
            state.enabled = prev
        if op == "reshape_view":  # (view, None, None), or (None, reason, shape): no view
            if result[0] is not None:
                _record_view(op, t, result[0], args, kwargs)
            return result
        if isinstance(result, (tuple, list)):  # split, chunk, unbind: one node per piece
            for piece in result:
                _record_view(op, t, piece, args, kwargs)
        elif result is not None and result is not t:  # try_view gives None for a copy
            _record_view(op, t, result, args, kwargs)
        return result

    kernel.__qualname__ = f"autograd[{op}]"
    return kernel


def unrecorded(name, /, *args, **kwargs):
    """Run dispatcher op ``name`` below the Autograd key: its device kernel, never recorded,
    whatever the grad mode and whoever requires grad (the engine's own copies use it)."""
    return _dispatch.redispatch(name, "Autograd", *args, **kwargs)


def activate():
    """Turn autograd on for this process (idempotent; see Note [The Autograd hook])."""
    global _activated
    if _activated:
        return
    with _activation_lock:
        if _activated:
            return
        views = frozenset(_views.VIEW_OPS)
        for name in list(_dispatch.registered_ops()):
            kernel = _view_kernel(name) if name in views else _autograd_kernel(name)
            _dispatch.register(name, "Autograd", kernel)
        _views._set_grad_mode(state)  # Note [Views through the Autograd key] in _views.pyx
        hook = _record.needs_autograd if COMPILED else needs_autograd
        _copying._set_autograd_check(hook)  # Note [Copies through the dispatcher]
        _dispatch.set_autograd_hook(hook)
        _activated = True
