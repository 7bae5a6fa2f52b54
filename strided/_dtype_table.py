"""The one table of strided's dtypes: every other list of dtypes is made from it.

Note [The dtype table]
~~~~~~~~~~~~~~~~~~~~~~
A dtype is a row of ``ROWS`` below. Its position is its ``ScalarType`` code, the integer every
kernel switches on. Everything that used to keep its own list reads this one:

- ``_dtype.pyx`` makes one ``DType`` object per row (``strided.float32`` and friends), and
  ``_dtype.pxd`` (rendered from ``_dtype.pxd.tp``) declares the ``ScalarType`` enum from it;
- ``setup.py`` hands the rows to every Tempita template (``*.tp``) as ``DTYPES``, so the
  generated kernels of ``_cpu/binary``, ``unary`` and ``reduce`` have one loop and one table
  entry per row, and the dtype switches, fused types and ``ScalarType`` cimports of
  ``_cpu/copy``, ``sort`` (and ``sort.pxd``'s sortable types), ``select``, ``search``,
  ``unique``, ``index``, ``scan`` and ``random`` have one branch per row (each template's
  header says which rows it takes and how bool reads);
- ``_fused.pxd`` (rendered from ``_fused.pxd.tp``) makes every other fused type of the
  kernels from the rows' kinds and widths: the lists by kind (``integer_t``, ``real_t``,
  ``complex_t``, ...), by width (``word_t``), and the few deliberate subsets a kernel needs
  (``blas.pyx``'s matmul accumulators, ``count.pyx``'s ``minmax_t``), named there;
- ``strided/cuda/_launch.py`` takes its CUDA C type names (``C_TYPES``) from the ``cuda``
  column.

So a new dtype is a new row here (and its arithmetic rules: promotion in ``_dtype.pyx``, its
scalar math in the kernels). ``tests/test_dtype_table.py`` checks that every kernel family
covers every dtype this table says it should, that each fused list of ``_fused.pxd`` is the
rows its kinds name, and that no module spells a list of dtypes out by hand.

This module imports nothing: ``setup.py`` reads it by path, before anything is compiled.
"""

from __future__ import annotations

from collections import namedtuple

__all__ = [
    "ROWS",
    "NATIVE_ROWS",
    "DTYPES",
    "HALVES",
    "KIND_NAMES",
    "REAL_OF",
    "DTYPE_NAMES",
    "MATH_SUFFIX",
    "Row",
]

Row = namedtuple(
    "Row",
    ["code", "name", "kind", "itemsize", "c_type", "kernel", "cuda", "format", "half"],
    defaults=(None,),
)
Row.__doc__ = """One dtype.

- ``code``: its ``ScalarType`` enum name in Cython (``kFloat32``); its value is the row's index;
- ``name``, ``kind`` (NumPy's kind letter: b, i, u, f, c), ``itemsize`` in bytes;
- ``c_type``: its C spelling (``DType.c_type``);
- ``kernel``: the Cython type the CPU kernels read it as (bool is ``uint8_t``: it holds only 0
  and 1, and as a C type it is the same unsigned char, which a fused type cannot tell apart;
  complex is the ``cfloat_t``/``cdouble_t`` typedef each kernel module declares);
- ``cuda``: the C++ type the CUDA sources spell it with (``strided/cuda/kernels/common.cuh``);
- ``format``: its PEP 3118 buffer-protocol format ("" for bfloat16, which has none: the
  buffer protocol cannot export it, DLPack and ``__array__`` can);
- ``half``: for the two 16-bit float formats, the suffix of their conversions in
  ``_cpu/scalar_math.h`` (``strided_f32_to_f16``); None for every other row.
"""

ROWS = (
    Row("kBool", "bool", "b", 1, "unsigned char", "uint8_t", "bool_t", "?"),
    Row("kInt8", "int8", "i", 1, "int8_t", "int8_t", "int8_t", "b"),
    Row("kInt16", "int16", "i", 2, "int16_t", "int16_t", "int16_t", "h"),
    Row("kInt32", "int32", "i", 4, "int32_t", "int32_t", "int32_t", "i"),
    Row("kInt64", "int64", "i", 8, "int64_t", "int64_t", "int64_t", "q"),
    Row("kUInt8", "uint8", "u", 1, "uint8_t", "uint8_t", "uint8_t", "B"),
    Row("kUInt16", "uint16", "u", 2, "uint16_t", "uint16_t", "uint16_t", "H"),
    Row("kUInt32", "uint32", "u", 4, "uint32_t", "uint32_t", "uint32_t", "I"),
    Row("kUInt64", "uint64", "u", 8, "uint64_t", "uint64_t", "uint64_t", "Q"),
    Row("kFloat32", "float32", "f", 4, "float", "float", "float", "f"),
    Row("kFloat64", "float64", "f", 8, "double", "double", "double", "d"),
    Row("kComplex64", "complex64", "c", 8, "float complex", "cfloat_t", "complex64_t", "Zf"),
    Row("kComplex128", "complex128", "c", 16, "double complex", "cdouble_t", "complex128_t", "Zd"),
    Row("kFloat16", "float16", "f", 2, "uint16_t", "uint16_t", "half_t", "e", "f16"),
    Row("kBFloat16", "bfloat16", "f", 2, "uint16_t", "uint16_t", "bfloat16_t", "", "bf16"),
)

# Note [Half precision rows]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~
# float16 and bfloat16 are rows like the others (their codes, names, kinds: NumPy's kind "f"), but
# C has no arithmetic type for them: a kernel holds one as its 16 bits (kernel type uint16_t) and
# computes in float (Note [Half precision: 16 bits stored, float computed] in
# _cpu/scalar_math.h). So the templates see them apart from the other rows:
#
# - ``DTYPES`` and ``NATIVE_ROWS`` are the rows whose kernel type *is* their arithmetic: every
#   template loops over these as before, and no switch or fused list can mistake a float16 for
#   a uint16 (the two have the same kernel type);
# - ``HALVES`` are the two half rows, (code, name, conversion suffix), for the templates that
#   give them loops of their own: casts (copy.pyx.tp), the elementwise ops (binary, unary: load,
#   compute in float, round once), and the moves that only care about width;
# - every other kernel (reductions, sorts, scans, matmul) runs a half tensor through float32:
#   ``strided/_half.py`` widens it (exactly), runs the float32 kernel, and rounds the result once,
#   which is the arithmetic NumPy and PyTorch define for these types (accumulate in float, round
#   at the end).
#
# The half rows come last, so that adding them kept every other row's ScalarType code.

# What the Tempita templates loop over: (enum name, dtype name, kernel C type, kind) per row whose
# kernel type does its arithmetic (Note [Half precision rows]).
NATIVE_ROWS = tuple(r for r in ROWS if r.half is None)
DTYPES = tuple((r.code, r.name, r.kernel, r.kind) for r in NATIVE_ROWS)
HALVES = tuple((r.code, r.name, r.half) for r in ROWS if r.half is not None)
DTYPE_NAMES = tuple(r.name for r in ROWS)

# The real dtype's kernel type of each complex one (the type of its .real and abs()).
REAL_OF = {"complex64": "float", "complex128": "double"}

# The suffix that names a dtype's functions in strided/_cpu/scalar_math.h (strided_floordiv_i32,
# strided_maximum_f64): its kind and bits (Note [One scalar-math source] there). bool reads as
# uint8_t in the kernels, so it takes uint8's functions.
MATH_SUFFIX = {
    r.name: ("u" if r.kind == "b" else r.kind) + str(8 * r.itemsize) for r in NATIVE_ROWS
}

# How error messages name a kind (the Array API's names, as ``isdtype`` takes them).
KIND_NAMES = {
    "b": "bool",
    "i": "signed integer",
    "u": "unsigned integer",
    "f": "real floating",
    "c": "complex floating",
}
