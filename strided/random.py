"""Random tensors: a Generator that is just (seed, offset), and the functions built on it.

The numbers come from the Philox4x32-10 kernels of ``_cpu/random.pyx``; see Note
[Counter-based random numbers] there for why a generator's whole state is two integers and why
the results do not depend on the number of threads.

Note [The default generator]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
The module-level functions (``rand``, ``randn``, ``randint``, ...) draw from one default
Generator, as ``torch.rand`` and ``numpy.random.rand`` do. It starts from a seed taken from
``os.urandom``, as NumPy's does (PyTorch starts from a fixed seed, which surprises people who
expect different numbers on each run). ``strided.manual_seed(s)`` (PyTorch's name) or
``strided.random.seed(s)`` (NumPy's) makes a program reproducible; ``seed()`` without an
argument picks a fresh random seed and returns it, so that it can be logged.

Names follow both parents: the ``Generator`` methods are NumPy's (``random``, ``uniform``,
``normal``, ``standard_normal``, ``integers``, ``permutation``, ``shuffle``) plus PyTorch's
seed methods (``manual_seed``, ``seed``, ``initial_seed``, ``get_state``, ``set_state``); the
functions are PyTorch's (``rand``, ``randn``, ``randint``, ``manual_seed``).
"""

from __future__ import annotations

import operator
import os
import threading

import numpy as np

from strided import _core
from strided._cpu import random as _random
from strided._dtype import as_dtype, get_default_dtype
from strided._dtype import int64 as _int64
from strided._ops import copying as _copying
from strided._ops.creation import _check_device, _on, _shape_arg

__all__ = [
    "Generator",
    "default_generator",
    "get_state",
    "initial_seed",
    "manual_seed",
    "normal",
    "permutation",
    "rand",
    "randint",
    "randn",
    "seed",
    "set_state",
    "shuffle",
    "uniform",
]

_ALGORITHM = "philox4x32-10"
_U64 = 2**64


def _kernels(out):
    """The module of fill kernels for ``out``'s device: the CPU's, or the CUDA twins (same
    signatures, same numbers)."""
    if out.device.is_cuda:
        from strided.cuda import _random as cuda_random

        return cuda_random
    return _random


def _check_seed(seed):
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise TypeError(f"seed must be an int, got {seed!r}")
    s = operator.index(seed)
    if not 0 <= s < _U64:
        raise ValueError(f"seed must be in [0, 2**64), got {s}")
    return s


def _fresh_seed():
    return int.from_bytes(os.urandom(8), "little")


def _size(size, fn):
    """``None`` -> a 0-d tensor's shape; an int -> 1-D; a sequence as it is."""
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        return (int(size),)
    if isinstance(size, (list, tuple)):
        return tuple(size)
    raise TypeError(f"{fn}: size must be None, an int or a sequence of ints, got {size!r}")


def _real(x, name, fn):
    """A finite Python float from a real number (or 0-d tensor), or raise naming it."""
    if isinstance(x, _core.TensorBase):
        if x.ndim != 0:
            raise TypeError(f"{fn}: {name} must be a scalar, got a tensor of shape {x.shape}")
        x = x.item()
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"{fn}: {name} must be a real number, got {x!r}")
    x = float(x)
    if x != x or x in (float("inf"), float("-inf")):
        raise ValueError(f"{fn}: {name} must be finite, got {x}")
    return x


def _float_dtype(dtype, fn):
    d = get_default_dtype() if dtype is None else as_dtype(dtype)
    if d.kind not in "fc":
        raise TypeError(
            f"{fn}: dtype must be a floating or complex dtype, got {d.name}; use randint or "
            "Generator.integers for integers"
        )
    return d


class Generator:
    """A source of random numbers: a seed and an offset into Philox4x32-10's counter stream.

    Two generators with the same seed produce the same numbers, whatever the thread count.
    ``seed=None`` takes a fresh seed from the operating system.

    Parameters
    ----------
    seed : int, optional
        In [0, 2**64).

    Examples
    --------
    >>> import strided
    >>> g = strided.random.Generator(42)
    >>> g.random(3)
    tensor([0.4685..., 0.3408..., 0.3270...])
    >>> g.manual_seed(42).random(3)
    tensor([0.4685..., 0.3408..., 0.3270...])
    """

    def __init__(self, seed=None):
        self._lock = threading.Lock()  # a draw reserves its blocks and fills them atomically
        self._seed = _fresh_seed() if seed is None else _check_seed(seed)
        self._offset = 0

    def __repr__(self):
        return f"Generator(seed={self._seed}, offset={self._offset})"

    def __reduce__(self):  # pickling keeps the state, not the lock
        return (_generator_from_state, (self.get_state(),))

    # -- the state --------------------------------------------------------------------------

    def manual_seed(self, seed):
        """Restart the stream from ``seed`` (offset 0); return the generator.

        Examples
        --------
        >>> import strided
        >>> g = strided.random.Generator().manual_seed(7)
        >>> g.initial_seed()
        7
        """
        s = _check_seed(seed)
        with self._lock:
            self._seed, self._offset = s, 0
        return self

    def seed(self):
        """Restart from a fresh, nondeterministic seed (from ``os.urandom``) and return it.

        Examples
        --------
        >>> import strided
        >>> g = strided.random.Generator(1)
        >>> s = g.seed()
        >>> g.initial_seed() == s
        True
        """
        s = _fresh_seed()
        self.manual_seed(s)
        return s

    def initial_seed(self):
        """The seed the stream started from.

        Examples
        --------
        >>> import strided
        >>> strided.random.Generator(3).initial_seed()
        3
        """
        return self._seed

    def get_state(self):
        """The whole state, ``("philox4x32-10", seed, offset)``: pass it to ``set_state`` to
        replay the draws that follow.

        Examples
        --------
        >>> import strided
        >>> g = strided.random.Generator(0)
        >>> _ = g.random(5)
        >>> g.get_state()
        ('philox4x32-10', 0, 3)
        """
        return (_ALGORITHM, self._seed, self._offset)

    def set_state(self, state):
        """Restore a state returned by ``get_state``.

        Examples
        --------
        >>> import strided
        >>> g = strided.random.Generator(0)
        >>> state = g.get_state()
        >>> a = g.random(4)
        >>> g.set_state(state)
        >>> g.random(4).tolist() == a.tolist()
        True
        """
        if not (isinstance(state, tuple) and len(state) == 3 and state[0] == _ALGORITHM):
            raise ValueError(
                f"set_state: expected a tuple ({_ALGORITHM!r}, seed, offset) from get_state(), "
                f"got {state!r}"
            )
        s = _check_seed(state[1])
        if (
            isinstance(state[2], bool)
            or not isinstance(state[2], int)
            or not (0 <= state[2] < _U64)
        ):
            raise ValueError(f"set_state: the offset must be an int in [0, 2**64), got {state[2]}")
        with self._lock:
            self._seed, self._offset = s, state[2]

    def _fill(self, kernel, out, *args):
        """Run one kernel on ``out`` from the current offset and advance past its blocks."""
        with self._lock:
            used = kernel(out, self._seed, self._offset, *args)
            self._offset = (self._offset + used) % _U64
        return out

    # -- draws ------------------------------------------------------------------------------

    def random(self, size=None, dtype=None):
        """Uniform values in [0, 1).

        Parameters
        ----------
        size : int or tuple of ints, optional
            The shape; ``None`` gives a 0-d tensor.
        dtype : DType, optional
            A floating or complex dtype (complex: both parts uniform); default float if None.

        Examples
        --------
        >>> import strided
        >>> strided.random.Generator(0).random((2, 2), dtype="float32")
        tensor([[0.3990..., 0.8805...],
                [0.7357..., 0.6054...]], dtype=strided.float32)
        """
        return self.uniform(0.0, 1.0, size, dtype)

    def uniform(self, low=0.0, high=1.0, size=None, dtype=None, device=None):
        """Uniform values in [low, high), never high itself.

        float32 uses 24 random bits per value, float64 53 (every representable multiple of
        2**-24 or 2**-53 in [0, 1) equally likely, then scaled).

        Examples
        --------
        >>> import strided
        >>> x = strided.random.Generator(0).uniform(-1.0, 1.0, size=1000).numpy()
        >>> bool((x >= -1).all() and (x < 1).all())
        True
        """
        low, high = _real(low, "low", "uniform"), _real(high, "high", "uniform")
        if not low < high:
            raise ValueError(f"uniform: low must be < high, got low={low}, high={high}")
        d = _float_dtype(dtype, "uniform")
        out = _core._empty(_size(size, "uniform"), d, _check_device(device))
        return self._fill(_kernels(out).uniform_fill, out, low, high)

    def normal(self, loc=0.0, scale=1.0, size=None, dtype=None, device=None):
        """Normal values with mean ``loc`` and standard deviation ``scale`` (Box-Muller).

        A complex dtype gives the circular complex normal: real and imaginary parts
        independent, each with standard deviation ``scale / sqrt(2)`` (so ``E|z - loc|**2 ==
        scale**2``, as in PyTorch); ``loc`` may then be complex.

        Examples
        --------
        >>> import strided
        >>> x = strided.random.Generator(0).normal(10.0, 2.0, size=100_000)
        >>> round(float(x.numpy().mean()), 1), round(float(x.numpy().std()), 1)
        (10.0, 2.0)
        """
        d = _float_dtype(dtype, "normal")
        if isinstance(loc, complex) or isinstance(loc, np.complexfloating):
            if d.kind != "c":
                raise TypeError(f"normal: a complex loc needs a complex dtype, not {d.name}")
            mean = complex(
                _real(loc.real, "loc.real", "normal"), _real(loc.imag, "loc.imag", "normal")
            )
        else:
            mean = _real(loc, "loc", "normal")
        scale = _real(scale, "scale", "normal")
        if scale < 0:
            raise ValueError(f"normal: scale must be >= 0, got {scale}")
        if d.kind == "c":
            scale *= 0.5**0.5
        out = _core._empty(_size(size, "normal"), d, _check_device(device))
        return self._fill(_kernels(out).normal_fill, out, mean, scale)

    def standard_normal(self, size=None, dtype=None):
        """Normal values with mean 0 and standard deviation 1.

        Examples
        --------
        >>> import strided
        >>> strided.random.Generator(0).standard_normal(3)
        tensor([-0.3976..., -0.3103...,  1.3868...])
        """
        return self.normal(0.0, 1.0, size, dtype)

    def integers(self, low, high=None, size=None, dtype="int64", device=None):
        """Integers in [low, high), or in [0, low) when ``high`` is None, every value equally
        likely (see Note [Unbiased bounded integers] in ``_cpu/random.pyx``).

        Parameters
        ----------
        low, high : int
            The range, which must lie within ``dtype``'s (``high`` may be its max + 1).
        size : int or tuple of ints, optional
        dtype : DType, optional
            Any integer dtype, or bool (for ``integers(0, 2, dtype=bool)``). Default int64.

        Examples
        --------
        >>> import strided
        >>> strided.random.Generator(0).integers(1, 7, size=8)
        tensor([6, 4, 3, 1, 2, 2, 3, 3])
        """
        if high is None:
            low, high = 0, low
        low, high = _int(low, "low", "integers"), _int(high, "high", "integers")
        d = as_dtype(dtype)
        if d.kind not in "iub":
            raise TypeError(f"integers: dtype must be an integer or bool dtype, got {d.name}")
        if not low < high:
            raise ValueError(f"integers: low must be < high, got low={low}, high={high}")
        if d.kind == "b":
            lo, hi = 0, 1
        else:
            lo, hi = int(np.iinfo(d.numpy).min), int(np.iinfo(d.numpy).max)
        if low < lo or high > hi + 1:
            raise ValueError(
                f"integers: [{low}, {high}) is outside the range of {d.name}, [{lo}, {hi}]"
            )
        out = _core._empty(_size(size, "integers"), d, _check_device(device))
        return self._fill(_kernels(out).integers_fill, out, low, high)

    def permutation(self, x):
        """A random permutation of ``range(x)`` (an int), or a shuffled copy of the tensor
        ``x`` along its first dim. Fisher-Yates driven by the generator: deterministic.

        Examples
        --------
        >>> import strided
        >>> strided.random.Generator(0).permutation(6)
        tensor([3, 2, 4, 0, 5, 1])
        """
        if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
            n = int(x)
            if n < 0:
                raise ValueError(f"permutation: n must be >= 0, got {n}")
            return self._fill(_random.permutation_fill, _core._empty((n,), _int64))
        if not isinstance(x, _core.TensorBase):
            raise TypeError(f"permutation: expected an int or a tensor, got {type(x).__name__}")
        if x.ndim == 0:
            raise ValueError("permutation: a 0-d tensor has no dim to shuffle")
        idx = self.permutation(x.shape[0])
        # Gathered through NumPy until strided has its own take/index kernel.
        return _core.from_numpy_array(np.take(np.asarray(x), idx.numpy(), axis=0))

    def shuffle(self, x):
        """Shuffle the tensor ``x`` in place along its first dim; return None.

        Examples
        --------
        >>> import strided
        >>> x = strided.arange(5)
        >>> strided.random.Generator(0).shuffle(x)
        >>> sorted(x.tolist())
        [0, 1, 2, 3, 4]
        """
        if not isinstance(x, _core.TensorBase):
            raise TypeError(f"shuffle: expected a tensor, got {type(x).__name__}")
        _copying.copy_(x, self.permutation(x))


def _generator_from_state(state):
    g = Generator(0)
    g.set_state(state)
    return g


def _int(x, name, fn):
    if isinstance(x, _core.TensorBase):
        if x.ndim != 0:
            raise TypeError(f"{fn}: {name} must be a scalar, got a tensor of shape {x.shape}")
        x = x.item()
    if isinstance(x, bool) or not hasattr(x, "__index__"):
        raise TypeError(f"{fn}: {name} must be an int, got {x!r}")
    return operator.index(x)


# =============================================================================================
# The default generator and the module-level functions. See Note [The default generator].
# =============================================================================================

default_generator = Generator()


def _gen(generator):
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(
            f"generator must be a strided.random.Generator, got {type(generator).__name__}"
        )
    return generator


def manual_seed(seed):
    """Seed the default generator (PyTorch's ``torch.manual_seed``); return it.

    Examples
    --------
    >>> import strided
    >>> _ = strided.manual_seed(0); a = strided.random.rand(3)
    >>> _ = strided.manual_seed(0); b = strided.random.rand(3)
    >>> a.tolist() == b.tolist()
    True
    """
    return default_generator.manual_seed(seed)


def seed(seed=None):
    """Seed the default generator with ``seed``, or with a fresh nondeterministic one when
    None (PyTorch's ``torch.seed()``); return the seed used.

    Examples
    --------
    >>> import strided
    >>> strided.random.seed(5)
    5
    >>> strided.random.initial_seed()
    5
    """
    if seed is None:
        return default_generator.seed()
    default_generator.manual_seed(seed)
    return default_generator.initial_seed()


def initial_seed():
    """The seed the default generator started from."""
    return default_generator.initial_seed()


def get_state():
    """The default generator's state (see ``Generator.get_state``)."""
    return default_generator.get_state()


def set_state(state):
    """Restore the default generator's state (see ``Generator.set_state``)."""
    default_generator.set_state(state)


# Note [Random numbers on CUDA devices]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# ``device=`` on these functions gives the same numbers on every device for the same seed:
# Philox is counter-based (element i needs only the key and i), so strided/cuda/kernels/
# random.cu computes, one thread per 128-bit block, the very numbers the CPU kernel does, in
# place on the device (uniform and integer draws bit for bit, normal ones up to the last bits
# of the GPU's logf/sinf/cosf). Only permutation, a serial Fisher-Yates shuffle, is drawn on
# the CPU and copied over.


def rand(*shape, dtype=None, device=None, generator=None):
    """Uniform values in [0, 1) of ``shape`` (``rand(2, 3)`` or ``rand((2, 3))``).

    Examples
    --------
    >>> import strided
    >>> _ = strided.manual_seed(0)
    >>> strided.random.rand(2, 2)
    tensor([[0.8805..., 0.6054...],
            [0.3620..., 0.0370...]])
    """
    _check_device(device)
    return _gen(generator).uniform(0.0, 1.0, _shape_arg(shape), _float_dtype(dtype, "rand"), device)


def randn(*shape, dtype=None, device=None, generator=None):
    """Standard normal values of ``shape`` (complex dtypes: circular, E|z|**2 = 1).

    Examples
    --------
    >>> import strided
    >>> _ = strided.manual_seed(0)
    >>> strided.random.randn(3)
    tensor([-0.3976..., -0.3103...,  1.3868...])
    """
    _check_device(device)
    return _gen(generator).normal(0.0, 1.0, _shape_arg(shape), _float_dtype(dtype, "randn"), device)


def randint(low, high=None, size=None, *, dtype="int64", device=None, generator=None):
    """Integers in [low, high), or in [0, low) when ``high`` is None (NumPy's form).
    PyTorch's ``randint(high, size)`` also works: a sequence as the second argument is a size.

    Examples
    --------
    >>> import strided
    >>> _ = strided.manual_seed(0)
    >>> strided.random.randint(0, 10, (5,))
    tensor([8, 6, 3, 0, 3])
    >>> strided.random.randint(2, size=4, dtype="bool")
    tensor([False, False,  True,  True])
    """
    _check_device(device)
    if isinstance(high, (tuple, list)) and size is None:
        high, size = None, high
    return _gen(generator).integers(low, high, size, dtype, device)


def uniform(low=0.0, high=1.0, size=None, *, dtype=None, device=None, generator=None):
    """Uniform values in [low, high).

    Examples
    --------
    >>> import strided
    >>> x = strided.random.uniform(2.0, 3.0, size=(2, 3))
    >>> x.shape, bool(((x.numpy() >= 2) & (x.numpy() < 3)).all())
    ((2, 3), True)
    """
    _check_device(device)
    return _gen(generator).uniform(low, high, size, dtype, device)


def normal(loc=0.0, scale=1.0, size=None, *, dtype=None, device=None, generator=None):
    """Normal values with mean ``loc`` and standard deviation ``scale``.

    Examples
    --------
    >>> import strided
    >>> strided.random.normal(0.0, 0.0, size=2)
    tensor([0., 0.])
    """
    _check_device(device)
    return _gen(generator).normal(loc, scale, size, dtype, device)


def permutation(x, *, device=None, generator=None):
    """A random permutation of ``range(x)``, or a shuffled copy of the tensor ``x``.

    Examples
    --------
    >>> import strided
    >>> sorted(strided.random.permutation(5).tolist())
    [0, 1, 2, 3, 4]
    """
    _check_device(device)
    return _on(_gen(generator).permutation(x), device)


def shuffle(x, *, generator=None):
    """Shuffle the tensor ``x`` in place along its first dim.

    Examples
    --------
    >>> import strided
    >>> x = strided.arange(4)
    >>> strided.random.shuffle(x)
    >>> sorted(x.tolist())
    [0, 1, 2, 3]
    """
    _gen(generator).shuffle(x)
