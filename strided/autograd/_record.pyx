"""The recorded op's bookkeeping in compiled code (Note [The compiled recorder]).

Note [The compiled recorder]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Recording one op is bookkeeping, not arithmetic: an edge per argument, the node, the saved
tensors, the user's source line, the outputs' history. recording.py spells it out three times,
from the most readable to the fastest:

* ``record_call``: the reference, every case (out=, in-place, anomaly mode, ``prepare=`` rows);
* ``_fast_kernel``: the same steps for a functional call with a plain row, in one Python frame
  (Note [The recorded op's fast path] in recording.py). It is the textbook version of this file:
  read it first; it runs where this module is not built (``recording.COMPILED`` is then False);
* ``RecordedOp`` here: ``_fast_kernel``'s steps, line for line, compiled. What it saves is the
  cost of Python doing them: each argument's edge and (shape, dtype, device) read from the
  TensorBase's C slots, no frame for the kernel itself, and the walk up to the user's source
  line through the C API's frames (``_user_site``) instead of ``sys._getframe`` and attribute
  reads.

Measured (benchmarks/issue20_before_after.py, one thread, the shared 2-core Zen 3 under load,
medians of 7 rounds): a recorded one-element add 7.1 us with ``_fast_kernel``, 5.8 us with
``RecordedOp``, PyTorch 3.1 us. What was left then was Python's share outside this module:
the dispatcher's ``call`` frame, the node and saved-tensor classes' ``__init__``, a leaf's
``AccumulateGrad`` made again when no graph kept the last one alive, and the grad-mode
state's thread-local reads; Note [A compiled Node base] takes them out.

``needs_autograd``, the dispatcher's question on every call once autograd is active, is here
too, the same function as recording.py's (which stays the reference, and is used where this
module is not built).

What stays in Python, on purpose: the node and saved-tensor classes (graph.py: a student reads
them, and the engine, hooks and classroom kit use them as Python objects; _node.pyx only
makes their objects), a view's regenerated history, in-place writes, and every call that is
not the plain case: they go to ``general`` (``record_call``), as from ``_fast_kernel``.

The row's fields (formula, save, outputs, result) are read at each call, never kept: the
classroom kit (tests/test_classroom.py) swaps a student's formula into a row at run time.

Note [A compiled Node base]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
The step toward PyTorch's 2 us (issue 20), built. Measured before it (2026-11-27, one thread,
the 2-core Zen 3 under load): a recorded one-element add ~5-7.6 us, PyTorch ~3.8; inside it
``FormulaNode.__init__`` ~0.5 us, the leaf's ``AccumulateGrad`` (made again each step: only
the graph holds it) ~0.5-0.7, a ``SavedTensor`` ~0.5, the grad-mode flag's four
``threading.local`` reads and writes ~0.6, the dispatcher's ``call`` frame ~0.4.

What was built, one piece per cost:

* the nodes (_node.pyx): the recorder makes graph.py's FormulaNode, AccumulateGrad and
  SavedTensor without their Python ``__init__``: one allocation and a store per field, at the
  offsets that the classes' own slot descriptors hold (read once, at import). The first design
  was a ``cdef class NodeBase`` with the fields as ``cdef public`` attributes under graph.py's
  classes; it was built and measured, and rejected: Cython makes such attributes properties
  (getset descriptors), which Python reads and writes at about half the speed of a slot (31
  against 14 ns a read), and the engine, the views' and custom functions' Python
  ``__init__``s and every hook read them, so the Python road got slower (FormulaNode's
  ``__init__`` 0.5 -> 0.6 us, a ViewNode's likewise). With the offsets, graph.py's classes are
  unchanged, plain Python with ``__slots__``, and the recorder's tests compare the two roads'
  nodes field by field (tests/test_autograd_node.py).
* the grad-mode flags (_grad_state.pyx, Note [Grad mode in C]): C thread-locals, read here
  with a C call.
* the dispatcher's ``call`` (_dispatch_call.pyx, Note [The compiled call] in _dispatch.py).
* here: the tuples of edges, metadata and needs filled in place, the shapes read from the C
  array, the leaf's accumulator made and its weak reference kept without graph.py's Python
  ``grad_accumulator``.

The in-place error that names both ops and their source lines is untouched: the node's
``_site`` is still filled by ``_user_site`` here (the line itself found when the message is
built: Note [The user's line, found when read]), and the message is still built in
``SavedTensor.unpack`` (graph.py). Rejected, as before: the recorder building plain tuples
instead of nodes (the engine, hooks and ``grad_fn`` expect node objects with methods), and
the classes moved wholly into Cython (graph.py is the file students read first).

Then (Note [Fewer objects per recorded op], Note [The user's line, found when read]), one
thread on the project's 2-core AMD EPYC (AVX-512), benchmarks/bench_recorded_op.py run in the
old and the new checkout by turns, 3 processes each, the least disturbed process's median (the
machine's load was 2-8 meanwhile): a + b 1.50 -> 1.25 us, a * b 1.67 -> 1.34, a.exp() 2.39 ->
1.49 (its saved result and the method's wrapper frame), an 8x8 a @ b 2.33 -> 1.92 (the
operator's and the front's frames); PyTorch 1.51, 1.52, 1.31 and 1.85 us in the same runs.
The MLP and CNN eager steps moved within the noise of those runs (MLP 0.63-0.75 ms, CNN
1.1-1.3 ms, PyTorch 0.68 and 1.29 at best).
"""

from cpython.ref cimport Py_INCREF, Py_XDECREF, PyObject
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.unicode cimport PyUnicode_Tailmatch
from cpython.weakref cimport PyWeakref_GetObject, PyWeakref_NewRef

from strided._core cimport TensorBase
from strided.autograd._grad_state cimport anomaly_enabled, grad_enabled, set_grad_enabled
from strided.autograd._node cimport (
    new_accumulate_grad,
    new_formula_node,
    new_saved_input,
    new_saved_output,
)


cdef extern from "Python.h":
    ctypedef struct PyFrameObject:
        pass
    PyFrameObject* PyEval_GetFrame()  # borrowed
    PyFrameObject* PyFrame_GetBack(PyFrameObject* frame)  # new reference, or NULL
    int PyFrame_GetLasti(PyFrameObject* frame)

cdef extern from *:
    """
    /* PyFrame_GetCode, typed as an object (Python.h says PyCodeObject*): a new reference */
    static PyObject* strided_frame_code(PyFrameObject* f) { return (PyObject*)PyFrame_GetCode(f); }
    """
    object strided_frame_code(PyFrameObject* frame)


# The Python pieces, handed over once by recording.py (``setup``): graph.py's saved-tensor
# class and helpers, the functions for the rare cases, the dispatcher's key-set state. (The
# node classes are _node's: Note [A compiled Node base].)
cdef type _SavedTensor = None
cdef object _meta = None
cdef object _gradient_edge = None
cdef object _finish = None
cdef dict _inplace_log = None
cdef Py_ssize_t _inplace_log_max = 0
cdef object _Kernel = None
cdef object _possible = None
cdef int _not_cpu_only = 0
cdef str _pkg = ""


def setup(SavedTensor, meta, gradient_edge, finish, dict inplace_log, Py_ssize_t inplace_log_max,
          Kernel, possible, int not_cpu_only, str pkg):
    """Called once by recording.py: the Python pieces this module works with."""
    global _SavedTensor, _meta, _gradient_edge, _finish
    global _inplace_log, _inplace_log_max, _Kernel, _possible, _not_cpu_only, _pkg
    _SavedTensor, _meta, _gradient_edge, _finish = SavedTensor, meta, gradient_edge, finish
    _inplace_log, _inplace_log_max = inplace_log, inplace_log_max
    _Kernel, _possible = Kernel, possible
    _not_cpu_only, _pkg = not_cpu_only, pkg


# Note [The user's line, found when read]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Every recorded op and every in-place write keeps the user's call site, for the message that
# names the op that saved a tensor and the write that changed it (Note [Saved tensors and the
# version counter] in graph.py). The message is rare; the site is kept on every op. A frame's
# line number is not stored anywhere: CPython finds it by walking the code object's line table
# up to the frame's current instruction (``PyFrame_GetLineNumber``), which was a quarter of
# the compiled recorder's own time (perf, a recorded one-element multiply). So the recorder
# keeps what the frame has at hand, its code object and the offset of its current instruction
# (``PyFrame_GetLasti``), and the line is looked up in the same table only when a message or
# ``node.source`` reads it (graph.site_location). A code object lives as long as its function
# or module, and holds none of the frame's locals.

cdef object _user_site():
    """The user's call site: ``(code, instruction offset)`` of the innermost Python frame
    outside the strided package, or None (Note [The user's line, found when read]). Compiled
    code has no frame, so the walk starts at the innermost Python one (the dispatcher's,
    inside the package: skipped like any other)."""
    cdef PyFrameObject* f = PyEval_GetFrame()
    cdef PyFrameObject* back
    cdef object code
    cdef Py_ssize_t n = len(_pkg)
    while f != NULL:
        code = strided_frame_code(f)
        if PyUnicode_Tailmatch(code.co_filename, _pkg, 0, n, -1) == 0:
            return (code, PyFrame_GetLasti(f))
        back = PyFrame_GetBack(f)
        # The frame object is also held by its frame on the stack, which outlives this walk:
        # the new reference can go at once and the pointer stay usable.
        Py_XDECREF(<PyObject*>back)
        f = back
    return None


def user_site():
    """The user's call site as the recorder keeps it, ``(code, instruction offset)``, or None
    (for tests; graph.site_location reads it as ``(file, line)``)."""
    return _user_site()


cdef inline void _set(tuple tup, Py_ssize_t i, object x) noexcept:
    """Fill slot ``i`` of a tuple made by PyTuple_New (each slot once)."""
    Py_INCREF(x)
    PyTuple_SET_ITEM(tup, i, x)


cdef inline tuple _shape(TensorBase t):
    """``t.shape``, read from the C array."""
    cdef tuple out = PyTuple_New(t._ndim)
    cdef Py_ssize_t i
    cdef object size
    for i in range(t._ndim):
        size = t._sizes[i]
        _set(out, i, size)
    return out


cdef object _accumulator(TensorBase t):
    """graph.grad_accumulator(t): the leaf's AccumulateGrad while a graph keeps it alive (the
    AutogradMeta holds only a weak reference), else a new one, made by _node's constructor."""
    m = t._autograd_meta
    if m is None:
        m = _meta(t)
    ref = m.grad_accumulator
    if ref is not None:
        acc = <object>PyWeakref_GetObject(ref)
        if acc is not None:
            return acc
    acc = new_accumulate_grad(t, ((_shape(t), t.dtype),))
    m.grad_accumulator = PyWeakref_NewRef(acc, None)
    return acc


cdef inline object _edge(TensorBase t):
    """graph.gradient_edge(t) for a tensor that requires grad."""
    fn = t.grad_fn
    if fn is None:  # a leaf
        return (_accumulator(t), 0)
    if t._base is not None:
        return _gradient_edge(t)  # a view: Note [Views after an in-place write] in graph.py
    m = t._autograd_meta
    return (fn, 0 if m is None else m.output_nr)


cdef _record_inplace(str op_name, TensorBase t):
    """graph.record_inplace, compiled: remember that ``op_name`` is about to write into ``t``'s
    storage, and the user's line (Note [Saved tensors and the version counter] in graph.py).
    Every in-place write pays it once autograd is active (an optimizer's updates under
    no_grad too), so the storage is read from its C slots and the line found by _user_site."""
    storage = t._storage
    if len(_inplace_log) >= _inplace_log_max:
        _inplace_log.clear()  # a bound, not a cache policy: only the messages get poorer
    _inplace_log[id(storage)] = (storage.data_ptr(), t._storage.version + 1, op_name,
                                 _user_site())


cdef inline bint _requires_grad_through(TensorBase t):
    if t._requires_grad:
        return True
    base = t._base
    return base is not None and (<TensorBase>base)._requires_grad


def needs_autograd(str name, tuple args, kwargs):
    """recording.needs_autograd, compiled: does this call need the Autograd kernel?"""
    out = kwargs.get("out") if kwargs else None
    cdef bint inplace = name.endswith("_")
    if out is None and inplace and args:
        out = args[0]  # index_put_, scatter_, ...: they write into their first argument
    if out is not None and isinstance(out, TensorBase):
        if inplace:
            _record_inplace(name, <TensorBase>out)
        else:  # a.add_(b) is add(a, b, out=a): name it as the user wrote it
            _record_inplace(name + "_" if args and args[0] is out else name + "(out=)",
                            <TensorBase>out)
        if grad_enabled() and _requires_grad_through(<TensorBase>out):
            return True
    if not grad_enabled():
        return False
    for a in args:
        if isinstance(a, TensorBase) and (<TensorBase>a)._requires_grad:
            return True
    return False


# Note [Fewer objects per recorded op]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# Every object a recorded op makes is an allocation now and a deallocation at the end of the
# step, and most are tracked by the cyclic garbage collector, whose collections a training
# step pays for in proportion. Three of them carry nothing of their own and are shared:
#
# * ``needs``, a tuple of bools: one per pattern, made once (``_NEEDS[n][mask]``, n <= 4);
# * ``args`` of a node whose arguments are all tensors: all None (``_NONES[n]``);
# * the output's (shape, dtype, device): where the output has an input's shape, dtype and
#   device (``a + b``, ``a.exp()``), that input's metadata tuple, shape included.
#
# Tuples are immutable, so a shared one is indistinguishable from a fresh one with the same
# items (the tests compare the compiled nodes with the Python ones field by field). A saved
# output's SavedTensor is made by _node's constructor, alias included, without graph.py's
# ``__init__`` and ``_alias`` frames. The recorded call no longer carries ``out=None``
# (Note [The CPU-or-Autograd path] in _dispatch.py), so a node keeps the dict of the call's
# real keywords.

cdef enum:
    MAX_SHARED = 4  # the most arguments whose needs/args tuples are shared

cdef tuple _NONES = tuple([(None,) * k for k in range(MAX_SHARED + 1)])
cdef tuple _NEEDS = tuple([
    tuple([tuple([bool(m >> i & 1) for i in range(k)]) for m in range(1 << k)])
    for k in range(MAX_SHARED + 1)
])


cdef inline object _same_meta(TensorBase t, tuple args, tuple metas):
    """``(t.shape, t.dtype, t.device)``: an argument's own tuple where it has the same
    (Note [Fewer objects per recorded op]), else a new one."""
    cdef Py_ssize_t i, d
    cdef TensorBase a
    for i in range(len(args)):
        if metas[i] is None:
            continue
        a = <TensorBase>args[i]
        if (a._ndim != t._ndim or a.dtype is not t.dtype
                or a._storage.device is not t._storage.device):
            continue
        for d in range(t._ndim):
            if a._sizes[d] != t._sizes[d]:
                break
        else:
            return metas[i]
    return (_shape(t), t.dtype, t._storage.device)


cdef class RecordedOp:
    """The Autograd kernel of one op: recording._fast_kernel, compiled (Note [The compiled
    recorder])."""

    cdef readonly str name
    cdef readonly object entry  # the op's row of the derivatives table
    cdef object run  # the device kernel below the Autograd key (redispatch)
    cdef object general  # record_call's kernel, for every call that is not the plain case
    cdef dict kernels  # the dispatcher's {key: kernel} of this op

    def __init__(self, str name, entry, run, general, dict kernels):
        self.name = name
        self.entry = entry
        self.run = run
        self.general = general
        self.kernels = kernels

    @property
    def __qualname__(self):  # what trace_dispatch() shows as the kernel
        return f"autograd[{self.name}]"

    def __call__(self, *args, **kwargs):
        if (kwargs and kwargs.get("out") is not None) or anomaly_enabled():
            return self.general(*args, **kwargs)
        # one edge, (shape, dtype, device) and "needs a gradient" per argument, and the
        # arguments as the node keeps them (tensors replaced by None: the row saves those it
        # needs); tuples filled in place, slot by slot, or shared (Note [Fewer objects per
        # recorded op])
        cdef Py_ssize_t n = len(args), i
        cdef tuple edges = PyTuple_New(n), metas = PyTuple_New(n), needs, stored
        cdef TensorBase t
        cdef unsigned mask = 0  # bit i: argument i needs a gradient
        cdef bint all_tensors = True
        for i in range(n):
            a = args[i]
            if isinstance(a, TensorBase):
                t = <TensorBase>a
                if t._requires_grad:
                    _set(edges, i, _edge(t))
                    if i < MAX_SHARED:
                        mask |= 1u << i
                else:
                    _set(edges, i, None)
                _set(metas, i, (_shape(t), t.dtype, t._storage.device))
            else:
                _set(edges, i, None)
                _set(metas, i, None)
                all_tensors = False
        if n <= MAX_SHARED:
            needs = <tuple>_NEEDS[n][mask]
        else:
            needs = PyTuple_New(n)
            for i in range(n):
                _set(needs, i, edges[i] is not None)
        if all_tensors and n <= MAX_SHARED:
            stored = <tuple>_NONES[n]
        else:
            stored = PyTuple_New(n)
            for i in range(n):
                _set(stored, i, None if metas[i] is not None else args[i])
        cdef bint prev = grad_enabled()
        set_grad_enabled(False)  # below_autograd(), spelled out
        try:
            cpu = None if (<int>_possible[0]) & _not_cpu_only else self.kernels.get("CPU")
            if cpu is None:
                result = self.run(*args, **kwargs)
            elif type(cpu) is _Kernel and (not kwargs or (len(kwargs) == 1 and "out" in kwargs)):
                # _Kernel.__call__ (out is None), inlined; one or two arguments without a
                # tuple built for the call
                if n == 2:
                    result = cpu.run(self.name, args[0], args[1], None)
                elif n == 1:
                    result = cpu.run(self.name, args[0], None)
                else:
                    result = cpu.run(self.name, *args, None)
            else:
                result = cpu(*args, **kwargs)
        finally:
            set_grad_enabled(prev)
        # the node's fields gathered first, then stored at once by _node's constructor
        entry = self.entry
        cdef dict saved = {}
        for i in entry.save:
            a = args[i]
            if isinstance(a, TensorBase):
                saved[i] = new_saved_input(a, (<TensorBase>a)._storage.version, i)
        site = _user_site()
        keep = entry.outputs
        cdef bint differentiable
        if not isinstance(result, (tuple, list)):  # one output (a namedtuple is several)
            if keep is None or 0 in keep:
                differentiable = (isinstance(result, TensorBase)
                                  and (<TensorBase>result).dtype.kind in "fc")
                node = new_formula_node(
                    self.name, entry.formula, stored, kwargs, edges, metas, needs, saved,
                    (_same_meta(<TensorBase>result, args, metas),) if differentiable
                    else _NONES[1], site)
                if differentiable:
                    t = <TensorBase>result
                    t.grad_fn = node
                    t._requires_grad = True
                    if t._autograd_meta is not None:
                        t._autograd_meta.output_nr = 0
                if entry.result:
                    if isinstance(result, TensorBase):
                        saved["result"] = new_saved_output(<TensorBase>result, "result")
                    else:
                        saved["result"] = _SavedTensor(result, True, 0, "result")
                return result
        node = new_formula_node(self.name, entry.formula, stored, kwargs, edges, metas, needs,
                                saved, (), site)
        return _finish(node, entry, result)


# Note [A view's backward in one pass]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A view's backward adds each element of its gradient into the storage cell the view read it
# from (``strided_backward`` in formulas.py). Note [A view's backward by taps] does that with
# one strided in-place add per tap, which is right but, for conv2d's window view, runs its
# elementwise loop over runs of only C neighbouring elements nine times (for the digits CNN's
# 64x16x8x8 input: 9 adds of 65,536 elements, ~2-4 ms on the 2-core Zen 3, more than the rest
# of the convolution's backward). ``scatter_view`` is the same sum in one pass over the
# gradient, in its own dim order, with the cell's address stepped along by the view's
# strides: PyTorch's col2im, for any view. The innermost dim is a plain loop that the compiler
# vectorises when both strides are 1 (the channels, for conv2d). Each cell gets its terms in
# the gradient's row-major order, as index_add would add them. It is the taps' fast form on
# the CPU for float32 and float64 (formulas.py calls it where this module is built); the taps
# stay the reference, and the road for other devices and dtypes.

from strided._fused cimport real_t as real  # float, double: from the one dtype table


cdef void _scatter(real* out, const real* src, int ndim, const Py_ssize_t* shape,
                   const Py_ssize_t* out_strides, const Py_ssize_t* src_strides) noexcept nogil:
    """out[sum(i * out_strides)] += src[sum(i * src_strides)] for every index i of ``shape``
    (ndim >= 1, no dim of size 0; strides in elements)."""
    cdef Py_ssize_t idx[64]
    cdef Py_ssize_t n = shape[ndim - 1], so = out_strides[ndim - 1], ss = src_strides[ndim - 1]
    cdef Py_ssize_t o = 0, s = 0, k
    cdef int d
    for d in range(ndim):
        idx[d] = 0
    while True:
        if so == 1 and ss == 1:
            for k in range(n):
                out[o + k] += src[s + k]
        else:
            for k in range(n):
                out[o + k * so] += src[s + k * ss]
        d = ndim - 2  # the next index, odometer-wise, over the outer dims
        while d >= 0:
            idx[d] += 1
            o += out_strides[d]
            s += src_strides[d]
            if idx[d] < shape[d]:
                break
            o -= out_strides[d] * shape[d]
            s -= src_strides[d] * shape[d]
            idx[d] = 0
            d -= 1
        if d < 0:
            return


def scatter_view(TensorBase flat, tuple geometry, TensorBase g):
    """Add each element of ``g`` into the cell of ``flat`` (a contiguous 1-D tensor over the
    view's storage cells) that the view ``geometry`` (shape, strides, offset) read it from, in
    place (Note [A view's backward in one pass]). False, doing nothing, where this does not
    apply: a device other than the CPU, a dtype other than float32/float64, shapes that
    differ; the caller then takes the taps."""
    shape, strides, offset = geometry
    cdef int ndim = len(shape), d
    cdef Py_ssize_t out_strides[64]
    cdef Py_ssize_t sizes[64]
    cdef Py_ssize_t lo = offset, hi = offset, cells = flat._numel
    if (not flat._storage.device.is_cpu or not g._storage.device.is_cpu or ndim > 64
            or g._ndim != ndim or flat._ndim != 1 or flat.dtype is not g.dtype
            or g.dtype.kind != "f" or g.dtype.itemsize not in (4, 8)
            or (flat._strides[0] != 1 and cells > 1)):
        return False
    for d in range(ndim):
        sizes[d] = shape[d]
        out_strides[d] = strides[d]
        if g._sizes[d] != sizes[d]:
            return False
        if sizes[d] == 0:
            return True  # nothing to add
        if out_strides[d] < 0:
            lo += (sizes[d] - 1) * out_strides[d]
        else:
            hi += (sizes[d] - 1) * out_strides[d]
    if lo < 0 or hi >= cells:  # every cell the view reads must be one of flat's
        raise ValueError(f"scatter_view: the view {geometry} reaches outside {cells} cells")
    cdef Py_ssize_t off = offset
    cdef char* out_data = flat._data()
    cdef char* src_data = g._data()
    if ndim == 0:  # one element
        if g.dtype.itemsize == 4:
            (<float*>out_data)[off] += (<float*>src_data)[0]
        else:
            (<double*>out_data)[off] += (<double*>src_data)[0]
        return True
    if g.dtype.itemsize == 4:
        with nogil:
            _scatter((<float*>out_data) + off, <const float*>src_data, ndim, sizes,
                     out_strides, g._strides)
    else:
        with nogil:
            _scatter((<double*>out_data) + off, <const double*>src_data, ndim, sizes,
                     out_strides, g._strides)
    return True
