"""Random tensors: a Generator that is just (seed, offset), and the functions built on it.

The numbers come from the Philox4x32-10 kernels of ``_cpu/random.pyx.tp``; see Note
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

Names follow both parents: ``default_rng`` and the ``Generator`` methods are NumPy's
(``random``, ``uniform``, ``normal``, ``standard_normal``, ``integers``, ``permutation``,
``shuffle``, and the distributions of ``_random_dists.py``: ``choice``, ``gamma``, ``poisson``,
``binomial``, ...) plus PyTorch's
seed methods (``manual_seed``, ``seed``, ``initial_seed``, ``get_state``, ``set_state``); the
functions are PyTorch's (``rand``, ``randn``, ``randint``, ``manual_seed``).
"""

from __future__ import annotations

import operator
import os
import threading

import numpy as np

import strided as _s
from strided import _core
from strided._cpu import random as _random
from strided._dtype import as_dtype, get_default_dtype
from strided._dtype import int64 as _int64
from strided._ops import copying as _copying
from strided._ops.creation import _check_device, _on, _shape_arg
from strided._random_dists import Distributions

__all__ = [
    "Generator",
    "default_generator",
    "default_rng",
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


class Generator(Distributions):
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

    def random(self, size=None, dtype=None, out=None):
        """Uniform values in [0, 1).

        Parameters
        ----------
        size : int or tuple of ints, optional
            The shape; ``None`` gives a 0-d tensor (or ``out``'s shape).
        dtype : DType, optional
            A floating or complex dtype (complex: both parts uniform); default float if None.
        out : Tensor, optional
            Filled in place and returned (NumPy's ``out=``); its dtype is the result's.

        Examples
        --------
        >>> import strided
        >>> strided.random.Generator(0).random((2, 2), dtype="float32")
        tensor([[0.3990..., 0.8805...],
                [0.7357..., 0.6054...]], dtype=strided.float32)
        """
        if out is not None:
            return self._fill_out("random", _kernels(out).uniform_fill, out, size, dtype, 0.0, 1.0)
        return self.uniform(0.0, 1.0, size, dtype)

    def _fill_out(self, fn, kernel, out, size, dtype, *args):
        """Fill ``out`` (NumPy's out=): in place when contiguous, else through a fresh draw."""
        if not isinstance(out, _core.TensorBase):
            raise TypeError(f"{fn}: out must be a strided tensor, got {type(out).__name__}")
        if dtype is not None and as_dtype(dtype) != out.dtype:
            raise TypeError(
                f"{fn}: out has dtype {out.dtype.name} but dtype={as_dtype(dtype).name} was asked"
            )
        if out.dtype.name not in ("float32", "float64"):
            raise TypeError(f"{fn}: out must be float32 or float64, got {out.dtype.name}")
        if size is not None and _size(size, fn) != tuple(out.shape):
            raise ValueError(f"{fn}: size {_size(size, fn)} does not match out's shape {out.shape}")
        if out.is_contiguous():
            return self._fill(kernel, out, *args)
        out.copy_(self._fill(kernel, _core._empty(tuple(out.shape), out.dtype, out.device), *args))
        return out

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
        if _is_array(low) or _is_array(high):
            return self._broadcast_draw("uniform", size, dtype, device, low, high)
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
        if _is_array(loc) or _is_array(scale):
            return self._broadcast_draw("normal", size, dtype, device, loc, scale)
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

    def _broadcast_draw(self, fn, size, dtype, device, a, b):
        """uniform/normal with array-valued parameters, broadcast as NumPy's:
        ``low + (high - low) * U`` or ``loc + scale * Z`` over float64 draws."""
        from strided import _random_dists as rd

        d = rd._result_dtype(dtype, fn)
        device = _check_device(device)
        names = ("low", "high") if fn == "uniform" else ("loc", "scale")
        a, b = rd._param(a, names[0], fn, device), rd._param(b, names[1], fn, device)
        shape = rd._shape(fn, size, a, b)
        if fn == "uniform":
            return (a + (b - a) * self.uniform(0.0, 1.0, shape, "float64", device)).astype(d)
        rd._require(b < 0, fn, "scale < 0", "scale must be >= 0")
        return (a + b * self.normal(0.0, 1.0, shape, "float64", device)).astype(d)

    def standard_normal(self, size=None, dtype=None, out=None):
        """Normal values with mean 0 and standard deviation 1 (``out=`` as in ``random``).

        Examples
        --------
        >>> import strided
        >>> strided.random.Generator(0).standard_normal(3)
        tensor([-0.3976..., -0.3103...,  1.3868...])
        """
        if out is not None:
            kernel = _kernels(out).normal_fill
            return self._fill_out("standard_normal", kernel, out, size, dtype, 0.0, 1.0)
        return self.normal(0.0, 1.0, size, dtype)

    def integers(self, low, high=None, size=None, dtype="int64", endpoint=False, *, device=None):
        """Integers in [low, high), or in [0, low) when ``high`` is None, every value equally
        likely (see Note [Unbiased bounded integers] in ``_cpu/random.pyx.tp``); [low, high]
        with ``endpoint=True``.

        Parameters
        ----------
        low, high : int or array_like of ints
            The range, which must lie within ``dtype``'s (``high`` may be its max + 1).
            Arrays broadcast against each other and ``size``, as NumPy's (see Note [Integers
            with array bounds]).
        size : int or tuple of ints, optional
        dtype : DType, optional
            Any integer dtype, or bool (for ``integers(0, 2, dtype=bool)``). Default int64.
        endpoint : bool, optional
            Include ``high``.

        Examples
        --------
        >>> import strided
        >>> strided.random.Generator(0).integers(1, 7, size=8)
        tensor([6, 4, 3, 1, 2, 2, 3, 3])
        >>> strided.random.Generator(0).integers(1, 6, size=8, endpoint=True)
        tensor([6, 4, 3, 1, 2, 2, 3, 3])
        """
        if high is None:
            low, high = 0, low
        d = as_dtype(dtype)
        if d.kind not in "iub":
            raise TypeError(f"integers: dtype must be an integer or bool dtype, got {d.name}")
        if d.kind == "b":
            lo, hi = 0, 1
        else:
            lo, hi = int(np.iinfo(d.numpy).min), int(np.iinfo(d.numpy).max)
        if _is_array(low) or _is_array(high):
            return self._integers_broadcast(low, high, size, d, endpoint, device, lo, hi)
        low, high = _int(low, "low", "integers"), _int(high, "high", "integers")
        high += bool(endpoint)
        if not low < high:
            raise ValueError(f"integers: low must be < high, got low={low}, high={high}")
        if low < lo or high > hi + 1:
            raise ValueError(
                f"integers: [{low}, {high}) is outside the range of {d.name}, [{lo}, {hi}]"
            )
        out = _core._empty(_size(size, "integers"), d, _check_device(device))
        return self._fill(_kernels(out).integers_fill, out, low, high)

    def _integers_broadcast(self, low, high, size, d, endpoint, device, lo, hi):
        """integers with array-valued bounds.

        Note [Integers with array bounds]
        ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
        The integer kernel takes one range per draw. With a range per element the draw is
        ``low + floor(U * (high - low))`` over 53-bit uniforms U, composed from tensor ops: a
        value's probability is then off by at most ``range * 2**-53`` relative (the multiply-
        shift argument of Note [Unbiased bounded integers], with 53 bits), below 1e-6 for
        ranges up to 2**33 and far below anything a test could see. Ranges above 2**53 are
        refused rather than drawn coarsely.
        """
        from strided import _random_dists as rd

        device = _check_device(device)
        a, b = (
            rd._param(low, "low", "integers", device),
            rd._param(high, "high", "integers", device),
        )
        shape = rd._shape("integers", size, a, b)
        a = _s.asarray(a, dtype=_int64, device=device)
        b = _s.asarray(b, dtype=_int64, device=device) + (1 if endpoint else 0)
        rd._require(a >= b, "integers", "low >= high", "every low must be < high")
        rd._require(
            (a < lo) | (b > hi + 1),
            "integers",
            f"bounds outside the range of {d.name}",
            f"[{lo}, {hi}]",
        )
        span = (b - a).astype("float64")
        rd._require(
            span > 2.0**53, "integers", "high - low > 2**53", "array bounds need ranges up to 2**53"
        )
        u = self.uniform(0.0, 1.0, shape, "float64", device)
        k = _s.minimum(_s.floor(u * span), span - 1.0)
        return (a + k.astype("int64")).astype(d)

    def permutation(self, x, axis=0):
        """A random permutation of ``range(x)`` (an int), or a shuffled copy of the tensor (or
        array-like) ``x`` along ``axis``. Fisher-Yates driven by the generator: deterministic.

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
            if not isinstance(x, (list, tuple, np.ndarray)):
                raise TypeError(f"permutation: expected an int or a tensor, got {type(x).__name__}")
            x = _s.asarray(x)
        if x.ndim == 0:
            raise ValueError("permutation: a 0-d tensor has no dim to shuffle")
        axis = operator.index(axis)
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"permutation: axis {axis} is out of bounds for {x.ndim} dims")
        idx = self.permutation(x.shape[axis])
        return _s.take(x, _on(idx, x.device), axis=axis)

    def shuffle(self, x, axis=0):
        """Shuffle the tensor ``x`` in place along ``axis``; return None.

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
        _copying.copy_(x, self.permutation(x, axis))

    def spawn(self, n_children):
        """``n_children`` new, independent generators (NumPy's ``Generator.spawn``).

        Child i of the j-th spawned is seeded with the 64 bits of Philox4x32-10 at counter
        (j, 0, 0x5350574e, 0) under this generator's seed as key: a keyed bijection, so
        children differ from each other and from the parent's own stream (whose counters have
        word 2 zero). Spawning does not move the parent's offset.

        Examples
        --------
        >>> import strided
        >>> a, b = strided.random.default_rng(0).spawn(2)
        >>> a.initial_seed() != b.initial_seed()
        True
        """
        n = operator.index(n_children)
        if n < 0:
            raise ValueError(f"spawn: n_children must be >= 0, got {n}")
        key = (self._seed & 0xFFFFFFFF, self._seed >> 32)
        with self._lock:
            first = getattr(self, "_spawned", 0)
            self._spawned = first + n
        children = []
        for j in range(first, first + n):
            r = _random.philox((j & 0xFFFFFFFF, j >> 32, 0x5350574E, 0), key)
            children.append(Generator(r[0] | (r[1] << 32)))
        return children


def _is_array(x):
    """Whether a distribution parameter is array-valued (so it broadcasts, as NumPy's)."""
    if isinstance(x, _core.TensorBase):
        return x.ndim > 0
    return isinstance(x, (list, tuple, np.ndarray))


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


def default_rng(seed=None):
    """A new ``Generator`` (NumPy's constructor), on strided's Philox stream.

    Parameters
    ----------
    seed : None, int, sequence of ints, numpy.random.SeedSequence or Generator, optional
        None takes a fresh seed from the operating system; an int in [0, 2**64) is the
        Philox key itself (so ``default_rng(s)`` draws what ``Generator(s)`` draws, on every
        device); larger ints, sequences and SeedSequences are hashed to 64 bits by NumPy's
        ``SeedSequence``; a strided Generator is returned unaltered, as NumPy's is.

    Examples
    --------
    >>> import strided
    >>> rng = strided.random.default_rng(42)
    >>> rng.random(3).tolist() == strided.random.Generator(42).random(3).tolist()
    True
    """
    if seed is None:
        return Generator()
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        s = int(seed)
        if s < 0:
            raise ValueError(f"default_rng: seed must be non-negative, got {s}")
        if s < _U64:
            return Generator(s)
    elif isinstance(seed, (np.random.Generator, np.random.BitGenerator)):
        raise TypeError(
            "default_rng: a NumPy Generator or BitGenerator cannot drive strided's Philox "
            "stream; pass an int seed"
        )
    try:
        ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    except (TypeError, ValueError) as e:
        raise type(e)(
            f"default_rng: seed must be None, an int >= 0, a sequence of them or a "
            f"SeedSequence; got {seed!r} ({e})"
        ) from None
    return Generator(int(ss.generate_state(1, np.uint64)[0]))


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
# place on the device, bit for bit (the normals' log and sincos are one shared source, Note
# [Box-Muller math that vectorises]). Only permutation, a serial Fisher-Yates shuffle, is drawn on
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
    return _gen(generator).integers(low, high, size, dtype, device=device)


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
