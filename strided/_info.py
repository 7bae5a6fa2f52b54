"""``strided.__array_namespace_info__()``: what this library offers, as the Array API asks."""

from strided import _core, _dtype

__all__ = ["__array_namespace_info__"]


class _Info:
    """The Array API's inspection object."""

    def capabilities(self):
        # Boolean-mask indexing and data-dependent shapes arrive with the indexing ops.
        return {"boolean indexing": False, "data-dependent shapes": False, "max dimensions": 64}

    def default_device(self):
        return _core.as_device("cpu")

    def devices(self):
        return [_core.as_device("cpu")]

    def default_dtypes(self, *, device=None):
        f = _dtype.get_default_dtype()
        return {
            "real floating": f,
            "complex floating": _dtype.complex128 if f is _dtype.float64 else _dtype.complex64,
            "integral": _dtype.int64,
            "indexing": _dtype.int64,
        }

    def dtypes(self, *, device=None, kind=None):
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
    >>> strided.__array_namespace_info__().default_dtypes()["integral"]
    strided.int64
    """
    return _Info()
