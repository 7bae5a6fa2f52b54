"""The CUDA kernels of the elementwise ops: unary, binary and where.

The CPU iterator plans the call (strided/_iter.pyx), these functions pick and launch the
instantiation of kernels/elementwise.cu (Note [The CUDA launch] in _launch.py). Each function
has the CPU kernel's signature and meaning, so the dispatcher can put it under the CUDA key.

Note [CUDA complex functions]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The CPU's complex functions are the C library's (csin, cexp, ...), which follow the special
cases of C99's Annex G at infinities and NaNs. The CUDA ones (kernels/ops.cuh) are the textbook
formulas (sin z = sin x cosh y + i cos x sinh y, asinh z = log(z + sqrt(z^2 + 1)), ...) written
to avoid cancellation: they agree with NumPy on finite inputs off the axes. Two differences
remain: at infinities and NaNs they may give NaN where Annex G gives an infinity, and on a
branch cut (asin of a real x > 1, say) they do not use the sign of a zero imaginary part to pick
the side, so the result may be the conjugate of NumPy's. Writing Annex G out in CUDA is possible
work; it is not done yet (tests/test_cuda.py compares these functions on finite values off the
axes).

Note [Flags from the GPU]
~~~~~~~~~~~~~~~~~~~~~~~~~
NumPy warns on an integer division by zero and refuses an integer to a negative power. The
kernel learns of it element by element and sets a flag in device memory: a slot of the
backend's deferred checks (Note [Errors found on the device are reported at the next
synchronisation] in _deferred.py), read back, with the warning or ValueError, when the host
next waits for the device. Only the ops that can set it (integer floor_divide, remainder, pow)
reserve a slot; none of them waits. One exception: an integer ``pow`` with ``out=`` computes
into a fresh tensor and waits for the flag before copying into ``out``, so that a refused
power leaves ``out`` untouched, as on the CPU.
"""

from __future__ import annotations

import functools

import numpy as np

from strided import _core, _dtype_table, _errstate
from strided._cpu import binary as _binary
from strided._cpu import unary as _unary
from strided._dtype import as_dtype
from strided.cuda import _deferred, _launch, _params
from strided.cuda._backend import backend_for

__all__ = ["binary", "unary", "where"]

_KIND_NAMES = _dtype_table.KIND_NAMES
_REAL = {"complex64": "float32", "complex128": "float64"}
_ALL = tuple(_launch.C_TYPES)
_KIND = {n: as_dtype(n).kind for n in _ALL}
_FLAGGING = ("floor_divide", "remainder", "pow")
_NO_FLAG = (np.uint64(0),)  # a binary kernel's flag slot when it has none


def _functor(name, dtype_name):
    """The functor of kernels/ops.cuh for op ``name`` on ``dtype_name`` (bool has a few of its
    own, as in the CPU table: add is or, multiply is and, invert is not; a half dtype wraps
    the float functor in ``half_op``, Note [CUDA half types] in kernels/common.cuh)."""
    if dtype_name in _launch.HALVES:
        return f"half_op<{_functor(name, 'float32')}>"
    if dtype_name == "bool":
        special = {
            "add": "op_add_bool",
            "multiply": "op_multiply_bool",
            "bitwise_invert": "op_logical_not",
        }
        if name in special:
            return special[name]
    return f"op_{name}"


def _written(result_kind, dtype_name):
    if result_kind == "RESULT_BOOL":
        return "bool"
    if result_kind in ("RESULT_REAL", "RESULT_FLOAT_REAL"):
        return _REAL.get(dtype_name, dtype_name)
    return dtype_name


def _variants():
    for index in ("int32_t", "int64_t"):
        for contig in ("true", "false"):
            yield index, contig


def _computed_dtypes(kinds, result_kind):
    # the iterator casts integer inputs of a float op to a float first: only the dtypes of
    # the op's kinds ever reach the kernel
    return [d for d in _ALL if _KIND[d] in kinds]


def _module_key(family, name, dtype_name):
    """The module of op ``name`` on ``dtype_name``: the half instantiations are a module of
    their own, compiled only when a half tensor meets the op."""
    if dtype_name in _launch.HALVES:
        return (family, name, "half")
    return (family, name)


def _instantiations(family, name, half=False):
    table = _binary if family == "binary" else _unary
    kinds = table.OPS[name][1]
    result_kind = table.RESULT_KINDS[name]
    names = []
    for d in _computed_dtypes(kinds, result_kind):
        if (d in _launch.HALVES) != half:
            continue
        out = _written(result_kind, d)
        for index, contig in _variants():
            names.append(
                f"strided_{family}<{_functor(name, d)}, {_launch.C_TYPES[d]}, "
                f"{_launch.C_TYPES[out]}, {index}, {contig}>"
            )
    return names


def _tiled_instantiations(name, half=False):
    """The binary op's loops through a shared tile (Note [A binary op with a transposed input
    through a shared tile] in kernels/elementwise.cu): a module of their own, compiled when a
    loop first needs one."""
    return [
        n.replace("strided_binary<", "strided_binary_tiled<").replace(", false>", ">")
        for n in _instantiations("binary", name, half)
        if n.endswith(", false>")
    ]


def _where_instantiations():
    return [f"strided_where<{_launch.C_TYPES[d]}, {i}, {c}>" for d in _ALL for i, c in _variants()]


def all_modules():
    """Every (module key, source, instantiations) of this file: what CI compiles."""
    mods = []
    for family, table in (("binary", _binary), ("unary", _unary)):
        for n in table.OPS:
            mods.append(((family, n), "elementwise.cu", _instantiations(family, n)))
            half = _instantiations(family, n, half=True)
            if half:
                mods.append(((family, n, "half"), "elementwise.cu", half))
            if family == "binary":
                mods.append((("binary_tiled", n), "elementwise.cu", _tiled_instantiations(n)))
                if half:
                    tiled_half = _tiled_instantiations(n, half=True)
                    mods.append((("binary_tiled", n, "half"), "elementwise.cu", tiled_half))
    mods.append((("where",), "elementwise.cu", _where_instantiations()))
    return mods


# Note [The host path of an elementwise launch]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# On a GPU a small op costs its host work: the GPU adds two 1-element tensors in a few
# microseconds, and strided's Python between the call and ``backend.launch`` was as long again
# (benchmarks/bench_cuda_host.py measures it with the device stubbed out). Most of that work
# depends only on the op and its dtypes: whether the op takes the dtype, the functor and its
# template arguments, the module and its list of instantiations, whether a flag slot is needed
# (Note [Flags from the GPU]). It is worked out once per (op, computation dtype, result dtype)
# and kept in a ``_Launch``, which also keeps, per (device, 32-bit index, contiguous), the
# backend and the compiled function. What is left per call is the iterator's plan (compiled),
# the loop geometry and the element count as the kernel's bytes (compiled,
# ``elementwise_geometry`` in _params.pyx), one dictionary lookup, the grid (``launch_1d``'s,
# inlined) and ``backend.launch``: the same steps on the emulator and on a GPU (Note [Two CUDA
# backends] in _backend.py), so the tests on the emulator test the path a GPU takes. Those
# steps are one compiled function, ``launch_elementwise`` in _params.pyx, and the functions
# are kept under the device's id, not the Device (whose hash is its name's: a string made at
# every lookup); Devices are canonical, one object per name. In Python they were nearly half
# of the stubbed one-element add's host time (bench_cuda_host.py).


class _Launch:
    """The launch of one elementwise op on one pair of dtypes: Note [The host path of an
    elementwise launch]."""

    __slots__ = (
        "family",
        "kernel",
        "module_key",
        "instantiations",
        "flags",
        "functions",
        "contiguous_per_block",
        "tiles",
    )

    def __init__(self, family, kernel, module_key, instantiations, widest, flags=False):
        self.family = family
        self.kernel = kernel  # the template arguments before ``index_t, CONTIG``
        self.module_key = module_key
        self.instantiations = instantiations  # () -> every name expression of the module
        self.flags = flags  # needs a flag slot: Note [Flags from the GPU]
        # (id of the device, 32-bit index, loop kind) -> (backend, function); the kind is 1
        # for a contiguous loop, 0 for a strided one, TILED for one through a shared tile
        self.functions = {}
        # a binary op's 2-D loops with an input transposed against the output go through a
        # shared tile (Note [A binary op with a transposed input through a shared tile] in
        # kernels/elementwise.cu; ``launch_elementwise`` in _params.pyx picks them)
        self.tiles = family == "binary"
        # a contiguous loop's elements per block: a thread takes max(UNROLL, vector width)
        # (Note [Vector loads in the contiguous elementwise loops] in kernels/elementwise.cu)
        self.contiguous_per_block = _launch.BLOCK * max(_launch.UNROLL, vector_width(widest))

    def function(self, device, idx32, kind):
        """(backend, compiled function) for the loop's index width and kind (contiguous,
        strided, TILED) on ``device``, compiled on first use (Note [The CUDA launch], step 3)."""
        backend = backend_for(device)
        index = "int32_t" if idx32 else "int64_t"
        if kind == TILED:
            fname = f"strided_binary_tiled<{self.kernel}, {index}>"
            name, half = self.module_key[1], self.module_key[-1] == "half"
            module = ("binary_tiled", *self.module_key[1:])
            fn = _launch.get_function(
                backend,
                module,
                "elementwise.cu",
                lambda: _tiled_instantiations(name, half),
                fname,
            )
        else:
            fname = f"strided_{self.family}<{self.kernel}, {index}, {'true' if kind else 'false'}>"
            fn = _launch.get_function(
                backend, self.module_key, "elementwise.cu", self.instantiations, fname
            )
        entry = self.functions[(id(device), idx32, kind)] = (backend, fn)
        return entry


def vector_width(widest):
    """Elements per vector load of a contiguous kernel whose widest operand is ``widest``
    bytes: ``vector_width`` of kernels/elementwise.cu (Note [Vector loads in the contiguous
    elementwise loops])."""
    return 1 if widest >= 16 else min(16 // widest, 8)


_PER_BLOCK = _launch.BLOCK * _launch.UNROLL
TILED = _params.TILED  # a loop kind: through a shared tile
_BLOCK = (_launch.BLOCK,)


# Launch ``plan``'s loop (Note [The CUDA launch], step 4): ``_run(launch, plan, extra=())``,
# ``extra`` the kernel's parameters after the geometry and the count (a binary kernel's flag
# slot, Note [Flags from the GPU]). The Geometry struct and the count go as their bytes (Note
# [Kernel parameters] in _params.pyx); the steps are those of the Note above, written in C,
# and a partial calls them without a Python frame.
_run = functools.partial(_params.launch_elementwise, _launch.MAX_DIMS, _PER_BLOCK, _BLOCK)


def _kernel(name, d, o):
    """The template arguments ``functor, T, Out`` of op ``name`` on dtypes d -> o."""
    return f"{_functor(name, d.name)}, {_launch.C_TYPES[d.name]}, {_launch.C_TYPES[o.name]}"


def _unsupported(name, dtype, kinds):
    raise TypeError(
        f"{name} does not support dtype {dtype.name}; it supports "
        + ", ".join(_KIND_NAMES[k] for k in kinds)
        + " dtypes"
    )


_LAUNCHES: dict = {}  # (family, op, computation dtype, result dtype) -> its _Launch


def _op_launch(family, name, d, o):
    """The _Launch of unary or binary op ``name`` computing in ``d`` and writing ``o`` (made
    once; an unsupported dtype raises and is not kept)."""
    kinds = (_binary if family == "binary" else _unary).OPS[name][1]
    if d.kind not in kinds:
        _unsupported(name, d, kinds)
    half = d.name in _launch.HALVES
    launch = _LAUNCHES[(family, name, d, o)] = _Launch(
        family,
        _kernel(name, d, o),
        _module_key(family, name, d.name),
        lambda: _instantiations(family, name, half),
        max(d.itemsize, o.itemsize),
        flags=family == "binary" and name in _FLAGGING and d.kind in "iu",
    )
    return launch


def binary(name, a, b, out=None):
    """The CUDA kernel of binary op ``name`` (same meaning as _cpu/binary.pyx.tp's binary)."""
    try:
        plan = _binary.binary_plan(name, a, b, out)
    except OverflowError:
        if name in _binary._COMPARISONS:
            return _compare_out_of_range(name, a, b, out)
        if name in _binary._LOGICAL:
            return binary(name, *_binary.truth_of_wide_ints(name, a, b), out)
        raise
    launch = _LAUNCHES.get(("binary", name, plan.dtype, plan.out_dtype))
    if launch is None:
        launch = _op_launch("binary", name, plan.dtype, plan.out_dtype)
    if launch.flags:
        return _flagging_binary(name, a, b, out, plan, launch)
    _run(launch, plan, _NO_FLAG)
    return plan.finish_device()


def _flagging_binary(name, a, b, out, plan, launch):
    """An integer floor_divide, remainder or pow: the kernel reports through a flag slot
    (Note [Flags from the GPU])."""
    backend = backend_for(plan.out.device)
    if name == "pow" and out is not None:
        # a negative exponent is found by the kernel: compute aside, wait for its flag (the
        # one wait, Note [Flags from the GPU]), and only then write out=
        result = binary(name, a, b, None)
        backend.synchronize()
        return _copy_into(out, result)
    flag = backend.checks.reserve(1, _flag_report(name, plan.out.device), fill=0)
    _run(launch, plan, (np.uint64(flag),))
    backend.checks.issued()
    return plan.finish_device()


def _flag_report(name, device):
    """What a flag slot of ``name`` means (Note [Flags from the GPU]): 1 warns, 2 raises."""

    def report(values):
        where = f"(found on {device}, reported when the host next waited for the device)"
        if values[0] == 1:  # a divide error: errstate decides (Note [Floating-point errors])
            try:
                _errstate.report(
                    "divide",
                    name,
                    f"{name}: integer division by zero (the result there is 0, as NumPy gives) "
                    + where,
                    stacklevel=_deferred.user_stacklevel(),
                )
            except FloatingPointError as e:
                return e
        elif values[0] == 2:
            return ValueError(
                f"{name}: integers to negative integer powers are not allowed; use a float "
                "dtype " + where
            )
        return None

    return report


def _copy_into(out, result):
    from strided.cuda._copy import copy_

    return copy_(out, result)


def _compare_out_of_range(name, a, b, out):
    """A Python int outside an integer tensor's range compares by value (see the CPU twin in
    _cpu/binary.pyx.tp): every element gets the same answer."""
    if not isinstance(b, int):
        a, b, name = b, a, _binary._MIRROR[name]
    if not isinstance(a, _core.TensorBase) or not isinstance(b, int) or isinstance(b, bool):
        raise OverflowError(f"{name}: a scalar does not fit the tensor's dtype")
    info = np.iinfo(a.dtype.numpy) if a.dtype.kind in "iu" else None
    if info is None or info.min <= b <= info.max:
        raise OverflowError(f"{name}: the value {b} does not fit in dtype {a.dtype.name}")
    below, above = _binary._COMPARISONS[name]
    from strided.cuda._copy import fill_

    result = binary("equal", a, a, out)
    return fill_(result, below if b < info.min else above)


def unary(name, x, out=None):
    """The CUDA kernel of unary op ``name`` (same meaning as _cpu/unary.pyx.tp's unary)."""
    kinds = _unary.OPS[name][1]
    result_kind = _unary.RESULT_KINDS[name]
    if (
        isinstance(x, _core.TensorBase)
        and x.dtype.kind not in kinds
        and not (result_kind in ("RESULT_FLOAT", "RESULT_DEFAULT_FLOAT") and x.dtype.kind in "biu")
        and not (result_kind == "RESULT_INT8_BOOL" and x.dtype.kind == "b")  # computes in int8
    ):
        _unsupported(name, x.dtype, kinds)
    plan = _unary.unary_plan(name, x, out)
    launch = _LAUNCHES.get(("unary", name, plan.dtype, plan.out_dtype))
    if launch is None:
        launch = _op_launch("unary", name, plan.dtype, plan.out_dtype)
    _run(launch, plan)
    return plan.finish_device()


def where(cond, a, b, out=None):
    """The CUDA kernel of where(cond, a, b)."""
    plan = _binary.where_plan(cond, a, b, out)
    launch = _LAUNCHES.get(("where", plan.dtype))
    if launch is None:
        launch = _LAUNCHES[("where", plan.dtype)] = _Launch(
            "where",
            _launch.C_TYPES[plan.dtype.name],
            ("where",),
            _where_instantiations,
            plan.dtype.itemsize,
        )
    _run(launch, plan)
    return plan.finish_device()
