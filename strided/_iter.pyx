"""The elementwise iterator: broadcast, promote, allocate, then run a loop plan.

This is the dtype and allocation half of PyTorch's TensorIterator
(``aten/src/ATen/TensorIterator.cpp``); the shape half, the loop plan that reorders, coalesces
and runs the 1-D loops, is in _loop_plan.pyx (Note [The loop plan]). Here: Note [The elementwise
iterator], the small fast path, and the one ``out=`` check every op uses.
"""

import numpy as np

from libc.stdint cimport int64_t, uint16_t
from libc.string cimport memcpy

from strided._core cimport (
    alloc_storage,
    cpu_device,
    MAX_DIMS,
    Device,
    Storage,
    TensorBase,
    empty_tensor,
    is_contiguous_c,
    make_tensor,
    may_have_internal_overlap,
    storage_overlap,
)
from strided._dtype cimport (
    DType,
    default_float_dtype,
    dtype_from_num,
    float_for_integers,
    kBFloat16,
    kBool,
    kComplex64,
    kComplex128,
    kFloat16,
    kFloat32,
    kFloat64,
    kInt8,
    kInt64,
    promote_types,
)

from strided._cpu.scalar_math cimport strided_f64_to_bf16, strided_f64_to_f16

from strided._threads cimport num_threads

from strided._dtype import can_cast, result_type
# The loop plan's Python names, re-exported: ``_iter.loop_dims`` and ``_iter._plan_for`` were
# defined here until issue 17 gave the loop plan its own file (the CUDA launches and the tests
# use them; the C side re-exports LoopPlan and plan_* in _iter.pxd the same way).
from strided._loop_plan import _plan_for, loop_dims  # no-cython-lint

# =============================================================================================
# The elementwise iterator: broadcast, promote, allocate, plan. See Note [The elementwise
# iterator].
# =============================================================================================

# Note [The elementwise iterator]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``prepare_elementwise(name, inputs, out, result_kind)`` does all the shape and dtype work of an
# elementwise op, so that its kernel is only a 1-D loop over pointers (PyTorch's
# TensorIteratorConfig().add_output(out).add_input(a).add_input(b).build()):
#
# 1. **Dtypes.** The inputs' common dtype comes from ``promote_types`` over the tensors, with
#    Python scalars weak (NEP 50: ``int8_tensor + 1`` stays int8). ``result_kind`` then says what
#    the op computes in and writes: the common dtype (add), bool (equal), a float (divide and
#    exp turn integers into the default float) or a real dtype (abs of complex).
# 2. **Shapes.** The broadcast shape of all inputs; each input gets stride 0 along the dims it
#    is broadcast over, so it is never materialised. ``out=`` must have exactly that shape.
# 3. **Inputs.** A tensor whose dtype is not the computation dtype is cast into a temporary (the
#    copy kernel's cast loop). A Python scalar becomes 16 bytes in a buffer, read with stride 0.
# 4. **Output.** Without ``out=``, a fresh tensor is allocated *in the inputs' memory order*:
#    the dims are ordered as the loop plan orders them for the inputs (Note [The loop plan] in
#    _loop_plan.pyx), and strides are laid out densely in that order. So ``x.T + 1`` is as fast
#    as ``x + 1`` and its result is transposed too, as in PyTorch and NumPy's ``order='K'``.
# 5. **out= checks.** Right device and shape; the result dtype must cast to out's dtype under
#    NumPy's ``same_kind`` rule; out must not have overlapping elements. If out shares memory
#    with an input in any other way than "same element at same index" (``a += b`` is fine,
#    ``a[1:] += a[:-1]`` is not), the kernel writes into a temporary that is copied into out at
#    the end. Likewise when out's dtype differs from what the kernel writes.
#
# Nothing is written before every check has passed, so a failing call leaves out= untouched.

cdef loop1d_fn _cast_loop = NULL
cdef object _device_copy = None


def set_device_copy(fn):
    """Called once by strided.cuda: ``fn(dst, src)`` copies (and casts) between tensors on one
    CUDA device. The iterator uses it for input casts and for temporaries on such devices."""
    global _device_copy
    _device_copy = fn


cdef object register_cast(loop1d_fn cast):
    """Called once by _cpu/copy.pyx.tp: the iterator casts inputs with the copy kernel's loop."""
    global _cast_loop
    _cast_loop = cast


cdef int scalar_to_bytes(object value, DType dtype, char* buf) except -1:
    """Store ``value`` (a Python scalar or 0-d tensor) as one element of ``dtype`` at buf.

    The common cases are converted in C; the rest go through NumPy, which applies NEP 50's value
    checks (``int8_tensor + 300`` raises OverflowError, as in NumPy 2).
    """
    cdef int num = dtype.num
    cdef type tp = type(value)
    if tp is float:
        if num == kFloat64:
            (<double*>buf)[0] = value
            return 0
        if num == kFloat32:
            (<float*>buf)[0] = <float>(<double>value)
            return 0
    elif tp is int and num == kInt64 and -0x7FFFFFFFFFFFFFFF - 1 <= value <= 0x7FFFFFFFFFFFFFFF:
        (<int64_t*>buf)[0] = value
        return 0
    if isinstance(value, TensorBase):
        if (<TensorBase>value)._ndim != 0:
            raise ValueError(f"the value must be a scalar or a 0-d tensor, got shape {value.shape}")
        value = value.item()
    elif hasattr(value, "dtype") and hasattr(value, "item") and not isinstance(value, np.generic):
        if getattr(value, "ndim", 0) != 0:
            raise ValueError(f"the value must be a scalar or a 0-d array, got shape {value.shape}")
        value = value.item()
    if isinstance(value, complex) and dtype.kind != "c":
        raise TypeError(f"cannot store the complex value {value!r} in a tensor of dtype "
                        f"{dtype.name}; use a complex dtype")
    if num == kFloat16 or num == kBFloat16:
        # a half is rounded from the value as a double, by the cast kernels' own conversion
        # (NumPy's for float16; bfloat16 has no NumPy type to ask)
        try:
            d = float(value)
        except (TypeError, ValueError) as e:
            raise TypeError(f"cannot convert {value!r} to dtype {dtype.name}: {e}") from None
        (<uint16_t*>buf)[0] = strided_f64_to_f16(d) if num == kFloat16 else strided_f64_to_bf16(d)
        return 0
    try:
        data = np.asarray(value, dtype=dtype.numpy).tobytes()
    except OverflowError:
        raise OverflowError(f"the value {value!r} does not fit in dtype {dtype.name}") from None
    except (TypeError, ValueError) as e:
        raise TypeError(f"cannot convert {value!r} to dtype {dtype.name}: {e}") from None
    memcpy(buf, <char*>data, dtype.itemsize)
    return 0


cdef inline bint _is_scalar(object x):
    return type(x) is float or type(x) is int or type(x) is bool or type(x) is complex


cdef DType _common_dtype(str name, tuple inputs):
    """The inputs' common dtype: promote_types over tensors, Python scalars weak (NEP 50)."""
    cdef DType strong = None
    cdef bint any_scalar = False
    for x in inputs:
        if isinstance(x, TensorBase):
            d = (<TensorBase>x).dtype
            strong = d if strong is None else promote_types(strong, d)
        elif _is_scalar(x):
            any_scalar = True
        else:
            raise TypeError(f"{name}: expected tensors or Python scalars, got "
                            f"{type(x).__name__}")
    if strong is None:
        raise TypeError(f"{name}: at least one argument must be a tensor")
    if any_scalar:
        # A weak scalar changes nothing unless its kind is higher than the tensors' (Note [Type
        # promotion] in _dtype.pyx): check that in C, and let result_type decide the rest.
        for x in inputs:
            if not isinstance(x, TensorBase) and _scalar_rank(x) > _KIND_RANK[strong.num]:
                return result_type(strong, *[y for y in inputs if not isinstance(y, TensorBase)])
    return strong


# Note [Bools read as int8]
# ~~~~~~~~~~~~~~~~~~~~~~~~~
# NumPy has no bool loop for some arithmetic ufuncs (square, reciprocal, floor_divide,
# remainder, fmod, power, left_shift, right_shift, conjugate), and a ufunc without a loop for
# its inputs runs the first of its loops they cast to safely: bool's first is int8's. So
# ``np.square(True)`` is int8 1 and ``np.left_shift(True, True)`` int8 2. Other ops refuse
# bools outright (``np.negative``, ``np.subtract``: TypeError, "use ~ or logical_not"), so the
# rule is not "every op without a bool loop": it is a result kind of its own,
# RESULT_INT8_BOOL, which the op tables (_cpu/unary.pyx.tp, binary.pyx.tp) give the ops NumPy
# reads this way. Only an all-bool call is affected: a bool with any other dtype, or with a
# Python int (NEP 50: int64), promotes to that dtype first, as before. PyTorch refuses most of
# these calls on bools, so NumPy's answer contradicts no PyTorch one (Note [NumPy first]).

cdef DType _float_for_integer_inputs(tuple inputs, DType common):
    """The float a float function computes integer and bool inputs in: the smallest float every
    input casts to exactly (Note [Float results of integer input] in _dtype.pyx). It is decided
    per input, as NumPy's loop choice is: int8 and uint8 give float16, although their common
    dtype, int16, would need float32."""
    cdef DType f = None, strong = None, d
    for x in inputs:
        if isinstance(x, TensorBase):
            d = (<TensorBase>x).dtype
            strong = d if strong is None else promote_types(strong, d)
            d = float_for_integers(d)
            f = d if f is None else promote_types(f, d)
    if strong is not common:
        # a Python int raised bools to int64 (NEP 50: ``arctan2(bools, 2)`` is float64)
        f = promote_types(f, float_for_integers(common))
    return f


def float_result_dtype(*inputs):
    """The dtype a float function of ``inputs`` (tensors and weak Python scalars) computes in:
    RESULT_FLOAT's rule, for the float functions written in Python (heaviside, logaddexp2), so
    that they choose as the kernels do (Note [Float results of integer input] in _dtype.pyx).

    Examples
    --------
    >>> import strided
    >>> from strided._iter import float_result_dtype
    >>> i8, u8 = strided.ones(2, dtype="int8"), strided.ones(2, dtype="uint8")
    >>> float_result_dtype(i8, u8), float_result_dtype(i8, 2), float_result_dtype(i8, 2.5)
    (strided.float16, strided.float16, strided.float64)
    """
    cdef DType common = _common_dtype("float_result_dtype", inputs)
    if common.kind in "biu":
        return _float_for_integer_inputs(inputs, common)
    return common


# bool < integer < real floating < complex: the ladder a weak scalar climbs, per ScalarType
cdef int _KIND_RANK[13]
_KIND_RANK[:] = [0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 3]


cdef inline int _scalar_rank(object x):
    cdef type tp = type(x)
    if tp is bool:
        return 0
    if tp is int:
        return 1
    if tp is float:
        return 2
    return 3


cdef DType _real_of(DType d):
    if d.num == kComplex64:
        return dtype_from_num(kFloat32)
    if d.num == kComplex128:
        return dtype_from_num(kFloat64)
    return d


cdef bint _same_elements(TensorBase a, TensorBase b, const Py_ssize_t* b_strides):
    """Whether b (with broadcast strides b_strides over a's shape) reads exactly a's elements at
    the same indices: then an elementwise op may write a while reading b."""
    cdef int i
    if a._data() != b._data() or a.dtype.itemsize != b.dtype.itemsize:
        return False
    for i in range(a._ndim):
        if a._sizes[i] != 1 and a._strides[i] != b_strides[i]:
            return False
    return True


cdef class ElementwisePlan:
    """Everything an elementwise kernel needs, and what the iterator decided (for explain())."""

    cdef int run(self, loop1d_fn loop, void* ctx) except -1:
        """Run ``loop`` over the plan, then finish: copy a temporary into out, bump versions."""
        cdef LoopPlan cplan
        cdef int codes[2]
        cdef TensorBase dst, src
        if not self._write_to._storage.device.is_cpu:
            raise RuntimeError(f"{self.name}: this plan's tensors live on {self.out.device}; a "
                               "CPU loop cannot run over them (the CUDA kernel launches it)")
        if self.loop.numel < GRAIN_SIZE:
            # a small loop keeps the GIL: releasing and taking it back would cost more
            self.parallel = plan_run(&self.loop, loop, ctx)
        else:
            with nogil:  # a big loop lets other Python threads run meanwhile
                self.parallel = plan_run(&self.loop, loop, ctx)
        if self._write_to is not self.out:
            # the kernel wrote into a temporary (overlap, or another dtype): cast-copy it over
            dst = self.out
            src = self._write_to
            plan_init(&cplan, 2, dst._ndim, dst._sizes)
            plan_set_operand(&cplan, 0, dst._data(), dst._strides, dst.dtype.itemsize)
            plan_set_operand(&cplan, 1, src._data(), src._strides, src.dtype.itemsize)
            plan_reorder(&cplan)
            plan_coalesce(&cplan)
            codes[0] = dst.dtype.num
            codes[1] = src.dtype.num
            with nogil:
                plan_run(&cplan, _cast_loop, codes)
        self.out._storage.version += 1
        return 0

    @property
    def shape(self):
        """The broadcast shape: the result's shape."""
        return tuple([self.shape_[d] for d in range(self.ndim)])

    @property
    def write_to(self):
        """Where the kernel writes: ``out``, or a temporary that ``finish_device`` copies over."""
        return self._write_to

    def geometry(self):
        """The loop as plain numbers, for a kernel on another device (see Note [The CUDA
        launch] in strided/cuda/_launch.py): ``(shape, stride_bytes, data, scalars)``.

        ``shape`` is the reordered, coalesced loop shape, innermost dim first; ``stride_bytes[k]``
        operand k's byte strides in the same order (operand 0 is the output); ``data[k]`` its
        address, and ``scalars[k]`` the bytes of a Python scalar operand (else None).
        """
        cdef int d, k
        shape = [self.loop.shape[d] for d in range(self.loop.ndim)]
        strides = [[self.loop.stride_bytes[d][k] for d in range(self.loop.ndim)]
                   for k in range(self.loop.noperands)]
        data = []
        scalars = []
        for k in range(self.loop.noperands):
            if k > 0 and self.loop.data[k] == <char*>&self._scalars[k - 1]:
                data.append(0)
                scalars.append((<char*>&self._scalars[k - 1])[:self.dtype.itemsize])
            else:
                data.append(<Py_ssize_t>self.loop.data[k])
                scalars.append(None)
        return shape, strides, data, scalars

    def finish_device(self):
        """After a device kernel ran: copy a temporary into out (with a cast), bump the
        version. The device twin of the end of ``run``."""
        if self._write_to is not self.out:
            _device_copy(self.out, self._write_to)
        self.out._storage.version += 1
        return self.out

    def explain(self):
        """What the iterator did: shapes, dtypes, the loop after reordering and coalescing."""
        lines = [f"{self.name}: broadcast shape {self.shape}; computes in {self.dtype.name}, "
                 f"writes {self.out_dtype.name}"]
        lines.extend(self.notes or ())
        lines.append(
            f"loop: shape {tuple([self.loop.shape[d] for d in range(self.loop.ndim)][::-1])} "
            f"after reordering and coalescing; byte strides per operand (out first): "
            + ", ".join(str(tuple([self.loop.stride_bytes[d][k]
                                   for d in range(self.loop.ndim)][::-1]))
                        for k in range(self.loop.noperands)))
        if num_threads() > 1 and self.loop.numel >= 2 * GRAIN_SIZE:
            lines.append(f"threads: up to {num_threads()} in parallel ({self.loop.numel} "
                         "elements: split when the loop's measured serial time is worth it, "
                         "Note [When a loop is split] in _loop_plan.pyx)")
        else:
            lines.append(f"threads: one ({self.loop.numel} elements; loops of fewer than "
                         f"{2 * GRAIN_SIZE} run on one thread)")
        return "\n".join(lines)


cdef ElementwisePlan prepare_elementwise(str name, tuple inputs, TensorBase out,
                                         int result_kind, bint check_overlap=True):
    """Broadcast, promote, check and allocate: see Note [The elementwise iterator]."""
    cdef ElementwisePlan p = ElementwisePlan.__new__(ElementwisePlan)
    cdef int nin = len(inputs), ndim = 0, k, j, d
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef Py_ssize_t in_strides[MAX_OPERANDS][MAX_DIMS]
    cdef Py_ssize_t out_strides[MAX_DIMS]
    cdef Py_ssize_t acc, s
    cdef TensorBase t, target
    cdef DType common, compute, written, want
    cdef Device device = None
    cdef list notes = None
    if nin + 1 > MAX_OPERANDS:
        raise ValueError(f"{name}: at most {MAX_OPERANDS - 1} inputs")
    p.nin = nin
    p._keep = []

    # -- 1. dtypes ------------------------------------------------------------------------------
    # RESULT_WHERE: input 0 is a condition, read as bool; only the others decide the dtype
    common = _common_dtype(name, inputs[1:] if result_kind == RESULT_WHERE else inputs)
    compute = common
    if result_kind == RESULT_FLOAT or result_kind == RESULT_FLOAT_REAL:
        if common.kind in "biu":
            compute = _float_for_integer_inputs(inputs, common)
    elif result_kind == RESULT_DEFAULT_FLOAT:
        if common.kind in "biu":
            compute = default_float_dtype()
    elif result_kind == RESULT_INT8_BOOL:
        if common.num == kBool:
            compute = dtype_from_num(kInt8)  # Note [Bools read as int8]
    written = compute
    if result_kind == RESULT_BOOL:
        written = dtype_from_num(kBool)
    elif result_kind == RESULT_REAL or result_kind == RESULT_FLOAT_REAL:
        written = _real_of(compute)
    p.dtype = compute
    p.out_dtype = written

    # -- 2. the broadcast shape (NumPy's rule: align trailing dims; 1 stretches) ----------------
    # Note [CPU scalars on a GPU]: as in PyTorch, a 0-d CPU tensor may join an op on another
    # device; it counts as a tensor for the dtype (strong, unlike a Python scalar), and its one
    # value travels to the kernel by value, as a Python scalar's does.
    tensors = [None] * nin
    for k in range(nin):
        if isinstance(inputs[k], TensorBase):
            t = <TensorBase>inputs[k]
            tensors[k] = t
            if t._ndim == 0 and t._storage.device.is_cpu:
                continue
            if device is None:
                device = t._storage.device
            elif t._storage.device is not device:
                raise RuntimeError(f"{name}: expected all tensors on one device, got {device} "
                                   f"and {t._storage.device}")
            if t._ndim > ndim:
                ndim = t._ndim
    if device is None:
        device = cpu_device
    elif not device.is_cpu:
        for k in range(nin):
            if tensors[k] is not None and (<TensorBase>tensors[k])._ndim == 0 and \
                    (<TensorBase>tensors[k])._storage.device.is_cpu:
                tensors[k] = None  # a CPU scalar: passed by value below
    for d in range(ndim):
        shape[d] = 1
    for k in range(nin):
        if tensors[k] is None:
            continue
        t = <TensorBase>tensors[k]
        for d in range(t._ndim):
            j = d + ndim - t._ndim
            s = t._sizes[d]
            if shape[j] == 1:
                shape[j] = s
            elif s != 1 and s != shape[j]:
                shapes = [y.shape for y in tensors if y is not None]
                raise ValueError(
                    f"{name}: shapes {' and '.join(str(sh) for sh in shapes)} cannot be "
                    f"broadcast together: at dim {j} of the result, size {s} meets size "
                    f"{shape[j]} (sizes must be equal, or one of them 1)")
    p.name = name
    p.ndim = ndim
    for d in range(ndim):
        p.shape_[d] = shape[d]

    # -- 3. out= checks (Note [Checking out=]) --------------------------------------------------
    if out is not None:
        check_out_c(name, out, ndim, shape, written, device)

    # -- 4. inputs: strides over the broadcast shape; casts; scalars ----------------------------
    plan_init(&p.loop, nin + 1, ndim, shape)
    for k in range(nin):
        want = dtype_from_num(kBool) if (k == 0 and result_kind == RESULT_WHERE) else compute
        for d in range(ndim):
            in_strides[k][d] = 0
        if tensors[k] is not None:
            t = <TensorBase>tensors[k]
            if t.dtype is not want:
                t = _cast_copy(t, want)
                notes = notes or []
                notes.append(f"input {k}: cast {(<TensorBase>tensors[k]).dtype.name} -> "
                             f"{want.name} into a temporary")
            p._keep.append(t)
            for d in range(t._ndim):
                j = d + ndim - t._ndim
                in_strides[k][j] = t._strides[d] if t._sizes[d] != 1 else 0
            plan_set_operand(&p.loop, k + 1, t._data(), in_strides[k], want.itemsize)
        else:
            scalar_to_bytes(inputs[k], want, <char*>&p._scalars[k])
            plan_set_operand(&p.loop, k + 1, <char*>&p._scalars[k], in_strides[k],
                             want.itemsize)

    # -- 5. the output --------------------------------------------------------------------------
    target = None
    if out is not None:
        target = out
        if out.dtype is not written:
            target = None
            notes = notes or []
            notes.append(f"out= is {out.dtype.name}: the kernel writes {written.name} into a "
                         "temporary, then casts it into out=")
        elif check_overlap:
            for k in range(nin):
                if tensors[k] is not None and storage_overlap(out, <TensorBase>tensors[k]):
                    if not _same_elements(out, <TensorBase>tensors[k], in_strides[k]) or \
                            (<TensorBase>tensors[k]).dtype is not compute:
                        target = None
                        notes = notes or []
                        notes.append(f"out= overlaps input {k}: computed into a temporary "
                                     "first")
                        break
        p.out = out
    # operand 0 strides: from target, or dense in the inputs' memory order
    for d in range(ndim):
        out_strides[d] = 0
    plan_set_operand(&p.loop, 0, NULL, out_strides, written.itemsize)
    if target is not None:
        plan_set_operand(&p.loop, 0, target._data(), target._strides, written.itemsize)
    plan_reorder(&p.loop)
    if target is None:
        # dense strides following the plan's order (dim 0 of the plan is the fastest)
        acc = plan_dense_operand(&p.loop, 0, out_strides, written.itemsize)
        storage = alloc_storage(acc * written.itemsize, device, False)
        target = make_tensor(<Storage>storage, 0, ndim, shape, out_strides, written)
        p.loop.data[0] = target._data()
        if out is None:
            p.out = target
    p._write_to = target
    plan_coalesce(&p.loop)
    p.notes = notes
    return p


# Note [Checking out=]
# ~~~~~~~~~~~~~~~~~~~~
# Every op that takes ``out=`` checks it here, with one wording, before any work (so a refused
# out= is left untouched and costs nothing): the elementwise iterator, matmul on both devices,
# the reductions, the FFTs, concatenate. In order:
#
# * out= is a strided tensor (TypeError);
# * on the inputs' device (RuntimeError: strided never copies across the bus on its own);
# * of exactly the result's shape (ValueError: no broadcasting into out=, as in NumPy);
# * of a dtype the result casts to under NumPy's ``same_kind`` rule (TypeError: float64 into a
#   float32 out= is fine, float into an int out= is not);
# * writable (ValueError), without elements that share memory (RuntimeError: an expanded view
#   would be written many times over, in an order that decides the answer).
#
# Each message names the op and the argument, says what was given and what would work.
# ``check_out_c`` is the C entry (shapes as C arrays, for the iterator's hot path); ``check_out``
# the Python one, for ops written in Python; both raise the same errors.

cdef inline str _who(str name):
    return f"{name}: " if name else ""


cdef int check_out_c(str name, TensorBase out, int ndim, const Py_ssize_t* shape, DType dtype,
                     Device device) except -1:
    """Check ``out=`` of op ``name`` against the result (Note [Checking out=]); ``device`` None
    skips the device check."""
    cdef int d
    cdef bint same_shape = out._ndim == ndim
    if device is not None and out._storage.device is not device:
        raise RuntimeError(f"{_who(name)}out= is on {out._storage.device}, the inputs on "
                           f"{device}; give an out= on the inputs' device")
    for d in range(min(ndim, out._ndim)):
        if out._sizes[d] != shape[d]:
            same_shape = False
    if not same_shape:
        raise ValueError(f"{_who(name)}out= has shape {out.shape}, but the result has shape "
                         f"{tuple([shape[d] for d in range(ndim)])}; out= must have exactly "
                         "the result's shape")
    if dtype is not None and dtype is not out.dtype and \
            not can_cast(dtype, out.dtype, "same_kind"):
        raise TypeError(f"{_who(name)}cannot write the {dtype.name} result into out= of dtype "
                        f"{out.dtype.name} (NumPy's 'same_kind' casting rule); use an out= of "
                        f"dtype {dtype.name}, or astype() afterwards")
    if not out._storage.writable:
        raise ValueError(f"{_who(name)}out= is read-only; give a writable tensor")
    if may_have_internal_overlap(out):
        raise RuntimeError(
            f"{_who(name)}out= has elements that share memory (an expanded or overlapping view "
            f"with strides {out.stride()}); write into a .clone() instead")
    return 0


def check_out(str name, out, shape, DType dtype=None, Device device=None, str hint=""):
    """Check ``out=`` of op ``name`` against a result of ``shape`` and ``dtype`` on ``device``
    (None: not checked), and return it (Note [Checking out=]). ``hint`` is added to the message
    when out= is not a tensor at all.

    Examples
    --------
    >>> import strided
    >>> from strided._iter import check_out
    >>> check_out("f", strided.zeros(3), (2,))
    Traceback (most recent call last):
    ...
    ValueError: f: out= has shape (3,), but the result has shape (2,); out= must have exactly ...
    """
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int d, ndim = len(shape)
    if not isinstance(out, TensorBase):
        raise TypeError(f"{_who(name)}out= must be a strided tensor, got "
                        f"{type(out).__name__}{hint}")
    if ndim > MAX_DIMS:
        raise ValueError(f"{_who(name)}the result has {ndim} dims, more than {MAX_DIMS}")
    for d in range(ndim):
        sizes[d] = shape[d]
    check_out_c(name, <TensorBase>out, ndim, sizes, dtype, device)
    return out


# Note [The small fast path]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# For ``a + b`` of 100 elements, broadcasting, promotion, the output's layout and the loop plan
# (steps 1-5 of Note [The elementwise iterator]) cost several times the arithmetic. One common
# case needs none of that work, because its answer is known in advance: ``a`` a contiguous CPU
# tensor of fewer than GRAIN_SIZE elements, and ``b`` either absent (a unary op), a contiguous
# tensor of a's dtype, shape and device, or a Python float/int that keeps a's dtype (a weak
# scalar, NEP 50); and an op whose result dtype is a's own, or bool (or, for a float ``a``, the
# float-result ops). The general path would then allocate a fresh contiguous result of that
# dtype, and reorder and coalesce every dim into one contiguous run of ``a.numel()`` elements.
# ``prepare_small`` returns exactly that (the result, and the data pointers and byte strides
# of the one 1-D loop), or None for anything else, which then takes the general path. Being the
# same decision made sooner, it lives here, beside the general one, and tests/test_iter.py
# checks that the two agree.

cdef DType _BOOL = dtype_from_num(kBool)


cdef TensorBase prepare_small(int result_kind, TensorBase a, object b, bint unary,
                              char** data, Py_ssize_t* strides, ScalarBuf* scalar):
    """The small fast path (Note [The small fast path]): the fresh result of ``a op b`` (or of
    ``op a`` when ``unary``), with ``data``/``strides`` set for one 1-D loop over
    ``a._numel`` elements (operand 0 the result, 1 a, 2 b); None when the case is not covered."""
    cdef TensorBase tb, result
    cdef DType written = a.dtype
    cdef type tp
    cdef int i
    if a._numel >= GRAIN_SIZE or not a._storage.device.is_cpu or \
            not is_contiguous_c(a._ndim, a._sizes, a._strides):
        return None
    if result_kind == RESULT_BOOL:
        written = _BOOL
    elif result_kind == RESULT_FLOAT or result_kind == RESULT_DEFAULT_FLOAT:
        if a.dtype.kind not in "fc":
            return None
    elif result_kind == RESULT_REAL:
        if not unary or a.dtype.kind == "c":
            return None
    elif result_kind == RESULT_INT8_BOOL:
        if a.dtype.num == kBool:
            return None
    elif result_kind != RESULT_SAME:
        return None
    if not unary:
        if isinstance(b, TensorBase):
            tb = <TensorBase>b
            if tb.dtype is not a.dtype or tb._ndim != a._ndim or \
                    tb._storage.device is not a._storage.device:
                return None
            for i in range(a._ndim):
                if tb._sizes[i] != a._sizes[i]:
                    return None
            if not is_contiguous_c(tb._ndim, tb._sizes, tb._strides):
                return None
            data[2] = tb._data()
            strides[2] = a.dtype.itemsize
        else:
            tp = type(b)
            # a weak scalar that keeps a's dtype: a float with a float tensor, an int with an int
            if not ((tp is float and a.dtype.kind == "f") or (tp is int and a.dtype.kind in "iu")):
                return None
            try:
                scalar_to_bytes(b, a.dtype, <char*>scalar)
            except OverflowError:
                return None   # let the general path raise or answer (comparisons)
            data[2] = <char*>scalar
            strides[2] = 0
    result = empty_tensor(a._ndim, a._sizes, written, a._storage.device)
    data[0] = result._data()
    data[1] = a._data()
    strides[0] = written.itemsize
    strides[1] = a.dtype.itemsize
    return result


def _small_layout(int result_kind, TensorBase a, b=None, bint unary=False):
    """For tests: what the small fast path decides for ``a op b``, as ``(dtype, shape,
    strides)`` of its result, or None when it does not apply (Note [The small fast path])."""
    cdef char* data[3]
    cdef Py_ssize_t strides[3]
    cdef ScalarBuf scalar
    result = prepare_small(result_kind, a, b, unary, data, strides, &scalar)
    if result is None:
        return None
    return result.dtype, result.shape, result.stride()


cdef TensorBase _cast_copy(TensorBase t, DType dtype):
    """t's values in a fresh contiguous tensor of ``dtype``, via the registered cast loop."""
    cdef TensorBase out = empty_tensor(t._ndim, t._sizes, dtype, t._storage.device)
    cdef LoopPlan plan
    cdef int codes[2]
    if not t._storage.device.is_cpu:
        _device_copy(out, t)
        return out
    plan_init(&plan, 2, t._ndim, t._sizes)
    plan_set_operand(&plan, 0, out._data(), out._strides, dtype.itemsize)
    plan_set_operand(&plan, 1, t._data(), t._strides, t.dtype.itemsize)
    plan_reorder(&plan)
    plan_coalesce(&plan)
    codes[0] = dtype.num
    codes[1] = t.dtype.num
    with nogil:
        plan_run(&plan, _cast_loop, codes)
    return out
