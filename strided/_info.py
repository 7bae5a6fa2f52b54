"""``strided.__array_namespace_info__()``: what this library offers, as the Array API asks.

Note [What the inspection namespace promises]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Generic code (scikit-learn, SciPy, array-api-compat) reads these answers to decide what it may
call, so each must be true, not modest:

- ``capabilities()``: boolean-mask indexing (``x[mask]``, ``x[mask] = v``) and the functions
  whose result's shape depends on the data (``nonzero``, ``unique_*``, ``repeat`` with a tensor
  of counts) all work, so both are True. "max dimensions" is ``MAX_DIMS`` (64, as NumPy): the
  iterator keeps fixed-size arrays of that length, and a 65-dim shape is refused by name.
- ``default_device()``: the Array API 2025.12 lets a library answer None when its default device
  cannot be predicted (a device context, placement by the runtime). strided has neither: a tensor
  made without ``device=`` is always on the CPU, so the answer is the CPU device.
- ``devices()``: a tuple (2025.12; a list before), the CPU and then each GPU CuPy can reach. The
  emulated CUDA device is left out: it runs the CUDA kernels on the CPU so that they can be tested
  without a GPU, it is not a place to keep data, and generic code that loops over ``devices()``
  (as the Array API test suite does) should not compile every kernel with g++ to visit it.
- ``dtypes(device=)`` and ``default_dtypes(device=)``: every device has the whole dtype table, so
  the device only has to be a valid one (an unknown name is a ValueError).

Note [Array API conformance]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The standard's own test suite (github.com/data-apis/array-api-tests, with its array-api
submodule), run from its checkout at its default 100 examples::

    ARRAY_API_TESTS_MODULE=strided ARRAY_API_TESTS_VERSION=2025.12 \
        python -m pytest array_api_tests -n 2 -q -p no:cacheprovider

gave, on 2026-11-26 (the counts move by a few from run to run: Hypothesis draws new examples
each time, and a loaded machine can miss its 800 ms deadline; ``--derandomize`` fixes the draws):

=================================  ======  ======  =======  ======
module, version                    passed  failed  skipped  errors
=================================  ======  ======  =======  ======
strided, 2025.12                   1361    22      5        0
array_api_strict 2.6.1, 2025.12    1358    25      5        0
strided, 2024.12                   1344    22      14       0
numpy 2.4, 2024.12                 1318    48      14       0
=================================  ======  ======  =======  ======

What strided fails, it fails on purpose (Note [NumPy first] in DESIGN.md): ``floor_divide`` of
an infinity by a finite number, and of a finite number by an infinity, is NumPy's (and
Python's) NaN and -1, not the standard's infinities and -0 (18 tests); ``linalg.eig`` and
``eigvals`` of a real matrix are real when every eigenvalue is, as NumPy's (2 tests);
``expm1(-0+0j)`` is NumPy's -0+0j and ``tanh(inf+yj)`` NumPy's 1+copysign(0, sin 2y)j, where the
standard writes 0+0j and 1+0j (drawn in some runs only). At 2024.12, ``meshgrid``,
``broadcast_arrays`` and ``devices()`` return tuples where that revision wanted lists (3 tests;
see Note [Which Array API versions] below).
"""

from strided import _core, _dtype

__all__ = ["__array_namespace_info__"]

# Note [Which Array API versions]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# strided implements the Array API 2025.12, its ``__array_api_version__``. A caller may ask
# ``x.__array_namespace__(api_version=...)`` for 2024.12 or 2023.12 too, and gets the same
# namespace: each revision since 2023.12 only added to the one before, except that 2025.12
# returns tuples where 2024.12 said lists (``meshgrid``, ``broadcast_arrays``, ``devices()``),
# and code written for lists loops over, indexes and unpacks a tuple alike. Older revisions are
# refused, naming the ones accepted (NumPy 2.4 still accepts 2021.12 and 2022.12).
API_VERSIONS = ("2023.12", "2024.12", "2025.12")


def check_api_version(api_version):
    """Refuse an ``api_version`` this namespace does not implement (None means the newest)."""
    if api_version is not None and api_version not in API_VERSIONS:
        raise ValueError(
            f"api_version {api_version!r} is not supported; strided implements the Array API "
            f"{API_VERSIONS[-1]} and accepts api_version in {API_VERSIONS} or None"
        )


_MAX_DIMS = 64  # MAX_DIMS of strided/_core.pxd (a C constant); tests/test_info.py ties the two


class _Info:
    """The Array API's inspection object. See Note [What the inspection namespace promises]."""

    def capabilities(self):
        return {
            "boolean indexing": True,
            "data-dependent shapes": True,
            "max dimensions": _MAX_DIMS,
        }

    def default_device(self):
        return _core.as_device("cpu")

    def devices(self):
        from strided import cuda

        gpus = tuple(_core.as_device(f"cuda:{i}") for i in range(cuda.device_count()))
        return (_core.as_device("cpu"), *gpus)

    def default_dtypes(self, *, device=None):
        _core.as_device(device)  # an unknown device is an error, even though the answer is one
        f = _dtype.get_default_dtype()
        return {
            "real floating": f,
            "complex floating": _dtype.complex128 if f is _dtype.float64 else _dtype.complex64,
            "integral": _dtype.int64,
            "indexing": _dtype.int64,
        }

    def dtypes(self, *, device=None, kind=None):
        _core.as_device(device)
        out = {}
        for d in _dtype.all_dtypes():
            if kind is None or _dtype.isdtype(d, kind):
                out[d.name] = d
        return out


def __array_namespace_info__():
    """The Array API's inspection namespace.

    Examples
    --------
    >>> import strided
    >>> info = strided.__array_namespace_info__()
    >>> info.default_dtypes()["integral"]
    strided.int64
    >>> info.capabilities()["boolean indexing"], info.default_device() in info.devices()
    (True, True)
    """
    return _Info()
