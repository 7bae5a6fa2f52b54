"""NumPy's ``a.flat`` and ``a.flags`` for ``strided.Tensor``: the elements in row-major order as
one sequence (read, assigned, iterated), and the memory-layout questions NumPy answers with
flags.

Note [Flat positions]
~~~~~~~~~~~~~~~~~~~~~
``a.flat[k]`` is the k-th element in row-major order, whatever ``a``'s strides. Reading goes
through ``reshape(-1)``, a view where the strides allow it and a copy otherwise (a read needs
nothing more). A write must land in ``a`` itself, so it goes through ``strided.put``, which
writes flat positions into any layout: the index (an int, slice, list, tensor or mask) is first
turned into the positions it selects by indexing ``arange(a.size)``, and ``put`` repeats the
values cyclically, as NumPy's ``a.flat[...] = v`` does.
"""

from __future__ import annotations

import numpy as np

from strided import _views
from strided._ops import creation as _creation

__all__ = ["FlatIter", "Flags"]


class FlatIter:
    """NumPy's ``flatiter`` over a tensor: ``len``, iteration, ``[index]`` to read and write
    (Note [Flat positions]), ``copy()`` and ``base``.

    Examples
    --------
    >>> import strided
    >>> a = strided.arange(6).reshape(2, 3).T
    >>> a.flat[1:4]
    tensor([3, 1, 4])
    >>> a.flat[[0, 5]] = -1
    >>> a
    tensor([[-1,  3],
            [ 1,  4],
            [ 2, -1]])
    """

    __slots__ = ("base",)

    def __init__(self, base):
        self.base = base

    def __len__(self):
        return self.base.numel()

    def __iter__(self):
        return iter(self.base.reshape(-1))

    def __getitem__(self, index):
        return self.base.reshape(-1)[index]

    def __setitem__(self, index, values):
        from strided._ops.placing import put

        positions = _creation.arange(self.base.numel())[index]
        put(self.base, positions, values)

    def copy(self):
        """The elements as a new 1-D tensor (NumPy's ``a.flat.copy()``)."""
        return self.base.flatten()

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.base.reshape(-1).cpu(), dtype=dtype)

    def __repr__(self):
        return f"<flat iterator over a tensor of shape {self.base.shape}>"


# NumPy's flag names and their one- or two-letter keys, as ``a.flags[key]`` takes them
_KEYS = {
    "C_CONTIGUOUS": "c_contiguous",
    "C": "c_contiguous",
    "CONTIGUOUS": "c_contiguous",
    "F_CONTIGUOUS": "f_contiguous",
    "F": "f_contiguous",
    "FORTRAN": "f_contiguous",
    "WRITEABLE": "writeable",
    "W": "writeable",
    "ALIGNED": "aligned",
    "A": "aligned",
    "OWNDATA": "owndata",
    "O": "owndata",
    "WRITEBACKIFCOPY": "writebackifcopy",
    "X": "writebackifcopy",
    "FNC": "fnc",
    "FORC": "forc",
    "BEHAVED": "behaved",
    "B": "behaved",
    "CARRAY": "carray",
    "CA": "carray",
    "FARRAY": "farray",
    "FA": "farray",
}


class Flags:
    """NumPy's ``a.flags`` of a tensor, read-only: C and F contiguity as NumPy counts it (size-1
    dims ignored), ``owndata`` (no ``base``); every strided tensor is writeable and aligned, and
    none writes back a copy. Attribute (``flags.c_contiguous``) or key (``flags["C"]``)."""

    __slots__ = ("_t",)

    def __init__(self, t):
        object.__setattr__(self, "_t", t)

    @property
    def c_contiguous(self):
        return self._t.numel() == 0 or self._t.is_contiguous()  # NumPy: empty is both

    @property
    def f_contiguous(self):
        return self._t.numel() == 0 or _views.reverse_dims(self._t).is_contiguous()

    contiguous = c_contiguous
    fortran = f_contiguous
    writeable = aligned = behaved = True
    writebackifcopy = False

    @property
    def owndata(self):
        return self._t._base is None

    @property
    def fnc(self):
        return self.f_contiguous and not self.c_contiguous

    @property
    def forc(self):
        return self.f_contiguous or self.c_contiguous

    @property
    def carray(self):
        return self.c_contiguous

    @property
    def farray(self):
        # NumPy documents "behaved, F- and not C-contiguous" but computes behaved and not
        # C-contiguous (arrayflags_farray_get); its answer is what NumPy code reads
        return not self.c_contiguous

    def __getitem__(self, key):
        name = _KEYS.get(str(key).upper())
        if name is None:
            raise KeyError(f"flags: unknown flag {key!r}; NumPy's are {sorted(_KEYS)}")
        return getattr(self, name)

    def __setattr__(self, name, value):
        check_flags_write(**{name: value})

    def __setitem__(self, key, value):
        check_flags_write(**{_KEYS.get(str(key).upper(), str(key)): value})

    def __repr__(self):
        names = ("c_contiguous", "f_contiguous", "owndata", "writeable", "aligned")
        return "\n".join(f"  {n.upper()} : {getattr(self, n)}" for n in names)


def check_flags_write(**flags):
    """Refuse a flag change strided cannot make: tensors are always writeable and aligned."""
    for name, value in flags.items():
        if name in ("writeable", "write", "aligned", "align") and value is not None:
            if not value:
                raise ValueError(
                    f"flags: {name}=False is not supported: strided tensors are always "
                    "writeable and aligned"
                )
        elif name in ("uic", "writebackifcopy") and value:
            raise ValueError(f"flags: {name}=True is not supported (no write-back copies)")
        elif name not in ("writeable", "write", "aligned", "align", "uic", "writebackifcopy"):
            raise AttributeError(f"flags: {name!r} cannot be set")
