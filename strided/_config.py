"""Process-wide switches that change *how* ops compute, never what they mean.

A module with no imports, so that any layer (the CUDA kernels' host code included) may read a
switch without importing upwards.

Note [Deterministic algorithms]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Every strided op gives the same bits on every run for a given input shape, with one exception:
the accumulating scatters on a GPU (``index_add_``, ``scatter_add_``, ``index_put_(...,
accumulate=True)``, and so the backward of every gather: indexing, ``take``, ``embedding``,
``take_along_axis``). There, threads that hit one cell add with ``atomicAdd`` in whatever order
they arrive, and a float sum rounds differently in each order (Note [Duplicate indices on a
GPU] in strided/cuda/_index.py). ``use_deterministic_algorithms(True)`` swaps them, for float and
complex dtypes, for a sort-based algorithm: stably sort the loop positions by the cell they
hit, then one thread per cell adds that cell's values in row-major order, starting from the
cell's value: exactly the CPU's sequence of additions, so the result equals the CPU's bit for
bit. It costs a sort of the positions, and a cell hit many times is summed by one thread
alone. Integer sums are exact in any order and keep the atomics. PyTorch's switch of the same
name makes the same trade.
"""

from __future__ import annotations

__all__ = ["are_deterministic_algorithms_enabled", "use_deterministic_algorithms"]

_deterministic = False


def use_deterministic_algorithms(mode):
    """Make every op give the same bits on every run, on a GPU too (Note [Deterministic
    algorithms]): ``True`` or ``False``.

    Examples
    --------
    >>> import strided
    >>> strided.use_deterministic_algorithms(True)
    >>> strided.are_deterministic_algorithms_enabled()
    True
    >>> strided.use_deterministic_algorithms(False)
    """
    global _deterministic
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms: mode must be True or False, got {mode!r}")
    _deterministic = mode


def are_deterministic_algorithms_enabled():
    """Whether ``use_deterministic_algorithms(True)`` is in force."""
    return _deterministic
