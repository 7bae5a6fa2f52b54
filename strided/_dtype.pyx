"""dtypes and type promotion: the only list of dtypes in strided.

Every other layer asks this module what a dtype is: the core asks for its itemsize, the CPU kernels
switch on its ``num`` (a ``ScalarType`` code), the CUDA backend asks for its ``cuda_type``, and the
operators ask ``result_type`` what dtype an expression produces.

The dtypes are the rows of the one table, ``strided/_dtype_table.py`` (Note [The dtype table]
there): this module makes one ``DType`` object per row, whose position is its ``ScalarType``
code (the enum of ``_dtype.pxd``, rendered from the same table). There is exactly one ``DType``
object per dtype, so ``a.dtype is strided.float32`` works, as it does for ``torch.float32``.

Note [Type promotion]
~~~~~~~~~~~~~~~~~~~~~
``promote_types(a, b)`` is a lookup in ``_PROMOTE``, a 13x13 table written out in full so that a
student can read the answer instead of deriving it. Within a kind it follows the Array API standard
(2024.12); across kinds, where the standard is silent, it follows NumPy 2: int64 with uint64 gives
float64, int32 with float32 gives float64, int8 with float32 gives float32. The test suite checks
every cell against ``numpy.promote_types``.

Python scalars are *weak* (NEP 50, and the standard's rule for "array with Python scalar"): a
Python scalar takes the dtype of the tensor it meets if its kind fits, so ``int8_tensor + 1`` stays
int8 and ``float32_tensor * 2.0`` stays float32. Only when the scalar's kind is higher does it
decide: ``int_tensor + 1.5`` is the default float dtype, ``float32_tensor * 1j`` is complex64.
"""

import numpy as np

__all__ = [
    "DType",
    "bool_",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "float16",
    "bfloat16",
    "promote_types",
    "result_type",
    "can_cast",
    "finfo",
    "iinfo",
    "isdtype",
    "set_default_dtype",
    "get_default_dtype",
    "all_dtypes",
]

# name, kind, itemsize, C type, CUDA type, PEP 3118 format. The row index is the ScalarType code.
from strided._dtype_table import ROWS as _TABLE  # the one table: Note [The dtype table]


cdef class DType:
    """One element type. There is exactly one instance per dtype: compare with ``is`` or ``==``.

    Examples
    --------
    >>> import strided
    >>> strided.float32.itemsize, strided.float32.c_type
    (4, 'float')
    >>> strided.float32 == "float32"
    True
    """

    def __init__(self, *args):
        raise TypeError(
            "strided dtypes are fixed objects: use strided.float32 (or a name such as "
            "'float32' wherever dtype= is accepted) instead of constructing DType"
        )

    def __repr__(self):
        return "strided." + self.name

    def __str__(self):
        return self.name

    # Note [DType equality and hash]
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # A strided dtype is equal to what its NumPy dtype is equal to, so that NumPy code keeps
    # working on ``x.dtype``: itself, the matching ``numpy.dtype``, NumPy's scalar type
    # (``np.float32``), the Python type NumPy maps to it (``float`` for float64) and the
    # strings NumPy reads as it (``"float32"``, ``"f4"``), both ways round (NumPy's side calls
    # ``np.dtype(other)``, which reads our ``.dtype`` attribute). Anything else is unequal and
    # never an error: a dict, a list, a tensor, None (below).
    #
    # Equal objects must hash equal, and here that cannot hold for every pair: ``"float32"``,
    # ``np.float32`` and ``np.dtype("float32")`` are equal to one another and hash differently
    # in NumPy itself. The hash is the NumPy dtype's, so a strided dtype and its NumPy dtype are
    # one key of a dict or a set (``{np.dtype("f4"): 1}[strided.float32]``): the pair that
    # code mixing the two libraries (Dask, scikit-learn, the Array API tests) relies on. Look a
    # dtype up by name with ``d.name``.

    def __hash__(self):
        return hash(self.numpy)

    def __eq__(self, other):
        # See Note [DType equality and hash].
        if isinstance(other, DType):
            return self is other
        if isinstance(other, str):
            if other == self.name:
                return True
            if other in _BY_NAME:
                return False  # another dtype's name: no need for NumPy's parser
        if other is None:
            # np.dtype(None) is float64, so NumPy's float64 == None is True; a dtype that equals
            # None breaks every ``table.get(key) == dtype`` (the Array API suite's can_cast test)
            return NotImplemented
        if self.numpy is None:
            return NotImplemented  # bfloat16 without ml_dtypes: NumPy has no name for it
        try:
            return np.dtype(other) == self.numpy
        except Exception:
            # not a dtype at all (a dict, a list of fields NumPy rejects, ...): not equal, as
            # for any other object; never an exception (the Array API test suite compares
            # dtypes with dicts)
            return NotImplemented

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    @property
    def dtype(self):
        """The matching ``numpy.dtype``. NumPy reads this attribute when it is handed an object
        it does not know as a dtype, so ``np.dtype(strided.float32)`` is ``np.float32``'s dtype
        (and NumPy functions, scikit-learn and Dask accept strided dtypes)."""
        return self.numpy

    # Note [DType as a numpy.dtype]
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # Code written for NumPy reads more of a dtype than strided's own attributes: ``.type``
    # (``issubclass(x.dtype.type, np.complexfloating)``), ``.char``, ``.str``, ``.fields``,
    # ``.names``, ``.hasobject``, ``.byteorder``. Dask reads them on ``x.dtype``, which is its
    # meta's dtype: a strided DType when the chunks are tensors (see Note [How Dask decides
    # chunk types and meta] in dask.py). Every public attribute strided does not define is
    # answered by the matching numpy.dtype, so a strided dtype reads as NumPy's wherever NumPy
    # gives the name a meaning (Note [NumPy first]); strided's own names (``num``, ``kind``,
    # ``itemsize``, ``name``) come first. Names with a leading underscore are not forwarded:
    # Python and libraries probe those to learn what kind of object this is.

    def __getattr__(self, name):
        # Only called when normal lookup failed. See Note [DType as a numpy.dtype].
        if name.startswith("_"):
            raise AttributeError(f"'strided.DType' object has no attribute {name!r}")
        return getattr(self.numpy, name)

    def __reduce__(self):
        # Pickling a dtype pickles its name; unpickling finds the one instance again.
        return (as_dtype, (self.name,))

    @property
    def is_floating_point(self):
        return self.kind == "f"

    @property
    def is_complex(self):
        return self.kind == "c"

    @property
    def is_signed(self):
        return self.kind in "ifc"

    @property
    def bits(self):
        return self.itemsize * 8


cdef list _DTYPES = []
cdef dict _BY_NAME = {}


def _numpy_dtype(str name):
    """The numpy.dtype of a strided dtype. NumPy has no bfloat16: the ml_dtypes package (JAX's and
    TensorFlow's, the one NumPy-side bfloat16 there is) provides it when installed; without it,
    bfloat16 has no NumPy dtype (None), and converting a bfloat16 tensor to NumPy says so."""
    if name != "bfloat16":
        return np.dtype(name)
    try:
        import ml_dtypes
    except ImportError:
        return None
    return np.dtype(ml_dtypes.bfloat16)


cdef DType _make(int num, row):
    cdef DType d = DType.__new__(DType)
    d.name, d.kind, d.itemsize, d.c_type, d.cuda_type, d.format = (
        row.name, row.kind, row.itemsize, row.c_type, row.cuda, row.format
    )
    d.num = num
    d.numpy = _numpy_dtype(d.name)
    d._format_bytes = d.format.encode("ascii")
    return d


for _num, _row in enumerate(_TABLE):
    _d = _make(_num, _row)
    _DTYPES.append(_d)
    _BY_NAME[_d.name] = _d

# ``bool`` would shadow the builtin inside this module: it is exported as ``strided.bool`` by
# strided/__init__.py.
bool_ = _DTYPES[kBool]
int8 = _DTYPES[kInt8]
int16 = _DTYPES[kInt16]
int32 = _DTYPES[kInt32]
int64 = _DTYPES[kInt64]
uint8 = _DTYPES[kUInt8]
uint16 = _DTYPES[kUInt16]
uint32 = _DTYPES[kUInt32]
uint64 = _DTYPES[kUInt64]
float32 = _DTYPES[kFloat32]
float64 = _DTYPES[kFloat64]
complex64 = _DTYPES[kComplex64]
complex128 = _DTYPES[kComplex128]
float16 = _DTYPES[kFloat16]
bfloat16 = _DTYPES[kBFloat16]

# Names NumPy and PyTorch users also reach for.
_ALIASES = {
    "bool_": bool_, "?": bool_, "b1": bool_,
    "float": float64, "double": float64, "float_": float64, "half": float16, "f2": float16,
    "e": float16,
    "int": int64, "long": int64, "int_": int64, "intp": int64,
    "cfloat": complex64, "cdouble": complex128, "complex": complex128,
    "uint": uint64, "uintp": uint64,
}


def all_dtypes():
    """Every dtype strided supports, in ScalarType order."""
    return tuple(_DTYPES)


cdef DType dtype_from_num(int num):
    return <DType>_DTYPES[num]


cpdef DType as_dtype(object obj):
    """Turn ``obj`` (a DType, a name, a NumPy dtype or a Python type) into a strided DType.

    Raises TypeError naming the object and listing what would work.
    """
    if isinstance(obj, DType):
        return <DType>obj
    cdef object found = None
    if isinstance(obj, str):
        found = _BY_NAME.get(obj)
        if found is None:
            found = _ALIASES.get(obj)
        if found is None and obj not in _ALIASES:
            try:
                found = _BY_NAME.get(np.dtype(obj).name)
            except TypeError:
                found = None
    elif obj is bool:
        found = bool_
    elif obj is int:
        found = int64
    elif obj is float:
        found = _default_float
    elif obj is complex:
        found = complex128 if _default_float is float64 else complex64
    else:
        try:
            found = _BY_NAME.get(np.dtype(obj).name)
        except TypeError:
            found = None
    if found is None:
        raise TypeError(
            f"dtype {obj!r} is not supported by strided; use one of "
            + ", ".join([(<DType>d).name for d in _DTYPES])
        )
    return <DType>found


# ---------------------------------------------------------------------------------------------
# Promotion. See Note [Type promotion].
# ---------------------------------------------------------------------------------------------

_CODES = {
    "b1": kBool, "i1": kInt8, "i2": kInt16, "i4": kInt32, "i8": kInt64,
    "u1": kUInt8, "u2": kUInt16, "u4": kUInt32, "u8": kUInt64,
    "f4": kFloat32, "f8": kFloat64, "c8": kComplex64, "c16": kComplex128,
    "f2": kFloat16, "bf2": kBFloat16,
}

# Row: the first dtype; column: the second. Read ``i4 x f4`` as row i4, column f4 -> f8.
# f2 is float16 and bf2 bfloat16 (Note [Promoting the half types]).
_PROMOTE_TEXT = """
         b1  i1  i2  i4  i8  u1  u2  u4  u8  f4  f8  c8 c16  f2 bf2
  b1:    b1  i1  i2  i4  i8  u1  u2  u4  u8  f4  f8  c8 c16  f2 bf2
  i1:    i1  i1  i2  i4  i8  i2  i4  i8  f8  f4  f8  c8 c16  f2 bf2
  i2:    i2  i2  i2  i4  i8  i2  i4  i8  f8  f4  f8  c8 c16  f4  f4
  i4:    i4  i4  i4  i4  i8  i4  i4  i8  f8  f8  f8 c16 c16  f8  f8
  i8:    i8  i8  i8  i8  i8  i8  i8  i8  f8  f8  f8 c16 c16  f8  f8
  u1:    u1  i2  i2  i4  i8  u1  u2  u4  u8  f4  f8  c8 c16  f2 bf2
  u2:    u2  i4  i4  i4  i8  u2  u2  u4  u8  f4  f8  c8 c16  f4  f4
  u4:    u4  i8  i8  i8  i8  u4  u4  u4  u8  f8  f8 c16 c16  f8  f8
  u8:    u8  f8  f8  f8  f8  u8  u8  u8  u8  f8  f8 c16 c16  f8  f8
  f4:    f4  f4  f4  f8  f8  f4  f4  f8  f8  f4  f8  c8 c16  f4  f4
  f8:    f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8 c16 c16  f8  f8
  c8:    c8  c8  c8 c16 c16  c8  c8 c16 c16  c8 c16  c8 c16  c8  c8
 c16:   c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16
  f2:    f2  f2  f4  f8  f8  f2  f4  f8  f8  f4  f8  c8 c16  f2  f4
 bf2:   bf2 bf2  f4  f8  f8 bf2  f4  f8  f8  f4  f8  c8 c16  f4 bf2
"""

# Note [Promoting the half types]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# float16's row and column are NumPy's: it holds every int8 and uint8 exactly (11 significant
# bits), so those promote to it; int16/uint16 go to float32, wider integers to float64, as they
# do with float32. bfloat16 (8 significant bits: still every int8 and uint8) takes the same
# places. The one cell NumPy does not have, float16 with bfloat16, is PyTorch's: float32, the
# smallest dtype holding both (neither holds the other: float16 has the bits, bfloat16 the
# range).

cdef int _PROMOTE[NUM_SCALAR_TYPES][NUM_SCALAR_TYPES]


def _fill_promotion_table():
    lines = [ln.split() for ln in _PROMOTE_TEXT.strip().splitlines()]
    columns = [_CODES[c] for c in lines[0]]
    for row in lines[1:]:
        a = _CODES[row[0].rstrip(":")]
        for b, cell in zip(columns, row[1:]):
            _PROMOTE[a][b] = _CODES[cell]


_fill_promotion_table()


cpdef DType promote_types(object a, object b):
    """The smallest dtype both ``a`` and ``b`` can be cast to safely (see Note [Type promotion]).

    Examples
    --------
    >>> import strided
    >>> strided.promote_types(strided.int8, strided.uint8)
    strided.int16
    >>> strided.promote_types("int32", "float32")
    strided.float64
    """
    cdef DType da = as_dtype(a)
    cdef DType db = as_dtype(b)
    return <DType>_DTYPES[_PROMOTE[da.num][db.num]]


cdef int _kind_rank(str kind):
    # bool < integer < real floating < complex floating: the ladder a weak scalar climbs.
    if kind == "b":
        return 0
    if kind == "i" or kind == "u":
        return 1
    if kind == "f":
        return 2
    return 3


cdef DType _scalar_dtype(object x):
    """The dtype a Python scalar gets when it stands alone."""
    if isinstance(x, bool):
        return bool_
    if isinstance(x, int):
        return int64
    if isinstance(x, float):
        return _default_float
    return complex128 if _default_float is float64 else complex64


cdef inline bint _is_py_scalar(object x):
    return isinstance(x, (int, float, complex)) and not isinstance(x, np.generic)


def result_type(*arrays_and_dtypes):
    """The dtype of an operation on these tensors, dtypes and Python scalars.

    Tensors and dtypes promote with ``promote_types``; Python scalars are weak (NEP 50): they
    only change the result when their kind (bool < int < float < complex) is higher than every
    other operand's. See Note [Type promotion].

    Examples
    --------
    >>> import strided
    >>> strided.result_type(strided.int8, 1)
    strided.int8
    >>> strided.result_type(strided.int8, 1.5)
    strided.float64
    >>> strided.result_type(strided.float32, 1j)
    strided.complex64
    """
    if len(arrays_and_dtypes) == 0:
        raise ValueError("result_type() needs at least one tensor, dtype or scalar")
    cdef DType strong = None
    cdef list weak = []
    for x in arrays_and_dtypes:
        if _is_py_scalar(x):
            weak.append(x)
            continue
        d = getattr(x, "dtype", x)
        strong = as_dtype(d) if strong is None else promote_types(strong, d)
    if strong is None:
        # Only scalars: they promote among themselves by their default dtypes.
        strong = _scalar_dtype(weak[0])
        for x in weak[1:]:
            strong = promote_types(strong, _scalar_dtype(x))
        return strong
    cdef int rank = _kind_rank(strong.kind)
    cdef int top = rank
    for x in weak:
        top = max(top, _kind_rank(_scalar_dtype(x).kind))
    if top == rank:
        return strong
    if top == 1:  # an int scalar with a bool tensor
        return int64
    if top == 2:  # a float scalar with a bool or integer tensor
        return _default_float
    # A complex scalar: keep the tensor's float precision if it had one.
    if strong is float32 or strong is float16 or strong is bfloat16:
        return complex64
    if strong is float64:
        return complex128
    return complex128 if _default_float is float64 else complex64


_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def can_cast(from_, to, casting="safe"):
    """Whether a value of dtype ``from_`` (a dtype or a tensor) can be cast to ``to`` under
    ``casting``: ``"no"``/``"equiv"`` (same dtype), ``"safe"`` (no value can change: the Array
    API's rule), ``"same_kind"`` (safe, or within a kind, e.g. float64 -> float32), ``"unsafe"``.

    Examples
    --------
    >>> import strided
    >>> strided.can_cast(strided.int8, strided.int16)
    True
    >>> strided.can_cast(strided.float64, strided.float32)
    False
    >>> strided.can_cast(strided.float64, strided.float32, casting="same_kind")
    True
    """
    if casting not in _CASTINGS:
        raise ValueError(f"can_cast: casting must be one of {_CASTINGS}, got {casting!r}")
    cdef DType f = as_dtype(getattr(from_, "dtype", from_))
    cdef DType t = as_dtype(to)
    if casting == "unsafe":
        return True
    if f is t:
        return True
    if casting in ("no", "equiv"):
        return False
    if _PROMOTE[f.num][t.num] == t.num:
        return True
    if casting == "safe":
        return False
    # same_kind: allowed when the target's kind is at least as high on NumPy's ladder
    # bool < unsigned < signed < float < complex (uint8 -> int8 is same-kind, int8 -> uint8 not).
    return "buifc".index(t.kind) >= "buifc".index(f.kind)


# ---------------------------------------------------------------------------------------------
# Machine limits and kinds
# ---------------------------------------------------------------------------------------------

class finfo:
    """Machine limits of a floating dtype (Array API ``finfo``): ``bits``, ``eps``, ``max``,
    ``min``, ``smallest_normal``, ``tiny``, ``resolution``, ``dtype``. For a complex dtype, the
    limits of its real part, as NumPy does.

    Examples
    --------
    >>> import strided
    >>> strided.finfo(strided.float32).bits
    32
    """

    def __init__(self, type):
        d = as_dtype(getattr(type, "dtype", type))
        if d.kind not in "fc":
            raise TypeError(f"finfo needs a floating or complex dtype, got {d.name}; use iinfo")
        real = float32 if d is float32 or d is complex64 else d if d.itemsize == 2 else float64
        self.dtype = real
        self.bits = real.itemsize * 8
        if real is bfloat16:
            # NumPy has no bfloat16 to ask: 8 exponent bits (float32's range), 8 significant
            # bits (7 stored), so eps = 2^-7; the values ml_dtypes.finfo gives
            self.eps = 2.0 ** -7
            self.max = (2.0 - 2.0 ** -7) * 2.0 ** 127
            self.min = -self.max
            self.smallest_normal = 2.0 ** -126
            self.resolution = 0.010009765625  # 0.01 in bfloat16, as NumPy gives 0.001 in float16
            self.precision = 2
        else:
            info = np.finfo(real.numpy)
            self.eps = float(info.eps)
            self.max = float(info.max)
            self.min = float(info.min)
            self.smallest_normal = float(info.smallest_normal)
            self.resolution = float(info.resolution)
            self.precision = int(info.precision)
        self.tiny = self.smallest_normal

    def __repr__(self):
        return (f"finfo(resolution={self.resolution}, min={self.min:.6e}, max={self.max:.6e}, "
                f"eps={self.eps:.6e}, smallest_normal={self.smallest_normal:.6e}, "
                f"dtype={self.dtype.name})")


class iinfo:
    """Machine limits of an integer dtype (Array API ``iinfo``): ``bits``, ``max``, ``min``,
    ``dtype``.

    Examples
    --------
    >>> import strided
    >>> strided.iinfo(strided.int8).min
    -128
    """

    def __init__(self, type):
        d = as_dtype(getattr(type, "dtype", type))
        if d.kind not in "iu":
            raise TypeError(f"iinfo needs an integer dtype, got {d.name}; use finfo for floats")
        info = np.iinfo(d.numpy)
        self.dtype = d
        self.bits = d.itemsize * 8
        self.max = int(info.max)
        self.min = int(info.min)

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype.name})"


_KINDS = {
    "bool": "b",
    "signed integer": "i",
    "unsigned integer": "u",
    "integral": "iu",
    "real floating": "f",
    "complex floating": "c",
    "numeric": "iufc",
}


def isdtype(dtype, kind):
    """Whether ``dtype`` is of ``kind``: a dtype, one of the Array API kind names ('bool',
    'signed integer', 'unsigned integer', 'integral', 'real floating', 'complex floating',
    'numeric'), or a tuple of those.

    Examples
    --------
    >>> import strided
    >>> strided.isdtype(strided.int8, "integral")
    True
    >>> strided.isdtype(strided.float32, ("integral", "complex floating"))
    False
    """
    cdef DType d = as_dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(d, k) for k in kind)
    if isinstance(kind, str):
        letters = _KINDS.get(kind)
        if letters is None:
            raise ValueError(
                f"isdtype: unknown kind {kind!r}; use a dtype or one of {list(_KINDS)}")
        return d.kind in letters
    return d is as_dtype(kind)


# ---------------------------------------------------------------------------------------------
# The default floating dtype (what Python floats and strided.arange(0.5) become)
# ---------------------------------------------------------------------------------------------

cdef DType _default_float = float64


cpdef DType default_float_dtype():
    return _default_float


def set_default_dtype(d):
    """Set the dtype Python floats become (float32 or float64; NumPy's float64 is the start).

    Examples
    --------
    >>> import strided
    >>> strided.set_default_dtype(strided.float32)
    >>> strided.get_default_dtype()
    strided.float32
    >>> strided.set_default_dtype(strided.float64)
    """
    global _default_float
    cdef DType dd = as_dtype(d)
    if dd is not float32 and dd is not float64:
        raise TypeError(
            f"set_default_dtype: only float32 or float64 can be the default, got {dd.name}")
    _default_float = dd


def get_default_dtype():
    """The dtype Python floats become (float64 unless ``set_default_dtype`` changed it)."""
    return _default_float


# Note [Float results of integer input]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A float function (sqrt, exp, sin, arctan2, hypot, logaddexp, cbrt, deg2rad...) given integers
# or bools must first choose a float dtype to compute in. NumPy's ufuncs take the first of their
# loops the input casts to safely, and the loops are ordered float16, float32, float64: so
# bool, int8 and uint8 give float16 (every value fits exactly), int16 and uint16 float32, and
# wider integers float64 (`np.sqrt(np.int8(4))` is a float16 2.0). PyTorch gives its default
# float, float32, for all of them. strided follows NumPy (the NumPy-first rule), with one
# extension: where `set_default_dtype(float32)` has made float32 the default, wide integers give
# float32 too, as Python floats then do.
#
# Two kinds of names keep the default float for every integer dtype instead:
#   - true division (`divide`, `/`): NumPy's own rule, whatever the integers' width
#     (`np.int8(1) / np.int8(2)` is a float64);
#   - functions NumPy has no ufunc for (erf, erfc, sigmoid, softplus): SciPy's ufuncs
#     (`scipy.special.erf`, `expit`) and PyTorch both give their default float.
# The elementwise iterator applies the first rule for RESULT_FLOAT ops and the second for
# RESULT_DEFAULT_FLOAT ops (_iter.pxd); functions written in Python call float_for_integers.

cpdef DType float_for_integers(DType d):
    """The float dtype a float function computes integer or bool dtype ``d`` in (NumPy's
    rule, Note [Float results of integer input]); float and complex dtypes are returned as
    they are.

    Examples
    --------
    >>> from strided._dtype import float_for_integers
    >>> import strided
    >>> float_for_integers(strided.int8), float_for_integers(strided.uint16)
    (strided.float16, strided.float32)
    >>> float_for_integers(strided.int64), float_for_integers(strided.complex64)
    (strided.float64, strided.complex64)
    """
    if d.kind not in "biu":
        return d
    if d.itemsize == 1:
        return float16
    if d.itemsize == 2:
        return float32
    return _default_float
