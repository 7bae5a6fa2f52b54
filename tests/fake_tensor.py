"""A fake tensor for the tests of the pure-Python text faces, ``strided/_format.py`` (repr) and
``strided/_explain.py`` (explain): a NumPy buffer seen through ``as_strided``, with the
attributes those modules read and nothing else, so that their tests run before, and
independently of, the compiled package. ``load`` reads such a module from its file.
"""

import importlib.util
import pathlib

import numpy as np
from numpy.lib.stride_tricks import as_strided


def load(name):
    """``strided/<name>.py`` loaded from its file, without importing the strided package."""
    path = pathlib.Path(__file__).resolve().parents[1] / "strided" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_explain = load("_explain")  # contiguous_strides, for the fake's own strides


# ---------------------------------------------------------------------------------------------
# A fake tensor: the attributes _format and _explain read, and nothing else
# ---------------------------------------------------------------------------------------------


class FakeDType:
    def __init__(self, name):
        self.numpy = np.dtype(name)
        self.name = name
        self.itemsize = self.numpy.itemsize
        self.kind = self.numpy.kind


class FakeStorage:
    def __init__(self, nbytes):
        self.nbytes = nbytes


class FakeGradFn:
    def __init__(self, name):
        self._name = name

    def name(self):
        return self._name


class FakeTensor:
    """A view (shape, strides, offset) onto ``buffer``, a 1-d NumPy array standing for storage."""

    def __init__(self, buffer, shape, strides, offset=0, base=None, device="cpu"):
        self._buffer = buffer
        self.shape = tuple(shape)
        self.ndim = len(self.shape)
        self._strides = tuple(strides)
        self._offset = offset
        self._base = base
        self.dtype = FakeDType(buffer.dtype.name)
        self.device = device
        self.requires_grad = False
        self.grad_fn = None

    @classmethod
    def of(cls, array):
        """A contiguous tensor owning a copy of ``array``."""
        array = np.array(array, order="C")  # not ascontiguousarray: it makes 0-d 1-d
        return cls(array.reshape(-1), array.shape, _explain.contiguous_strides(array.shape))

    def view(self, shape, strides, offset=0):
        return FakeTensor(self._buffer, shape, strides, offset, base=self._base or self)

    def stride(self):
        return self._strides

    def storage_offset(self):
        return self._offset

    def untyped_storage(self):
        return FakeStorage(self._buffer.nbytes)

    def numel(self):
        return int(np.prod(self.shape))

    def is_contiguous(self):
        # PyTorch's rule: empty tensors are contiguous, size-1 dims' strides do not matter.
        if self.numel() == 0:
            return True
        wanted = _explain.contiguous_strides(self.shape)
        return all(
            n == 1 or s == w for n, s, w in zip(self.shape, self._strides, wanted, strict=True)
        )

    def numpy(self):
        if self.device != "cpu":
            raise TypeError("can't convert a cuda tensor to numpy: use .cpu() first")
        itemsize = self._buffer.itemsize
        return as_strided(
            self._buffer[self._offset :],
            shape=self.shape,
            strides=[s * itemsize for s in self._strides],
        )

    def cpu(self):
        return FakeTensor(self._buffer, self.shape, self._strides, self._offset, self._base)


def arange(n, dtype="float64"):
    return FakeTensor.of(np.arange(n, dtype=dtype))
