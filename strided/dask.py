"""strided tensors as the chunks of Dask arrays: more than one core, more than one machine.

Dask (https://docs.dask.org) cuts a big array into a grid of chunks, builds a graph of tasks
(one per chunk and operation) and runs it on threads, processes or a cluster of machines. Each
chunk is an array of some library: NumPy's ndarray usually, CuPy's on GPUs, and strided's
Tensor through this module. strided grows no scheduler of its own (DESIGN.md, "Beyond one
machine").

Two ways in::

    import dask, dask.array as da, strided
    x = da.from_array(strided.ones((20000, 2000)), chunks=(200, 2000))   # chunks are tensors
    with dask.config.set({"array.backend": "strided"}):
        y = da.ones((20000, 2000), chunks=(200, 2000))                   # so are these

Nothing here runs when strided is imported: Dask finds this module itself, through the two
entry points in pyproject.toml (``dask.sizeof``, read whenever Dask is imported, in every
process of a cluster; ``dask.array.backends``, read when the backend is named). See
Note [How Dask decides chunk types and meta].

Note [How Dask decides chunk types and meta]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A Dask array never looks into its chunks while building a graph; it carries a *meta*: a
zero-size array of the chunks' type (``x._meta``, e.g. ``tensor([], shape=(0, 0))``), and
learns the result of every operation by running the operation on the metas. ``x._meta`` is
where ``x.dtype`` comes from (so strided's DType must answer as a ``numpy.dtype``: ``.type``,
``.kind``, ``.char``; see Note [DType as a numpy.dtype] in _dtype.pyx), and what
``compute()``'s result is checked against. Where the meta comes from:

- ``da.from_array(t, chunks=...)`` slices ``t`` to size zero (``t[:0, :0]``): a tensor. Dask
  keeps the chunks as they are (it would call ``np.asarray`` on them only if the type did not
  define ``__array_function__``, NEP 18, which strided's Tensor does).
- ``da.ones(...)`` and the other creation functions, and ``da.random``, ask the backend named by
  ``dask.config`` ``array.backend`` ("numpy" by default) through ``array_creation_dispatch``.
  ``StridedBackendEntrypoint`` below is that backend for strided: it hands Dask
  ``meta=strided.empty(())``, and Dask's own creation code makes every chunk like the meta
  (``np.ones_like(meta, shape=...)``, which NumPy passes to strided by NEP 18).
- an operation on Dask arrays (``x + y``, ``x.sum(0)``, ``da.where``) runs NumPy's function on
  the metas (``np.add(meta_x, meta_y)``); NEP 13/18 send that to strided, so the result's
  meta, and every chunk of it, is a tensor. ``map_blocks(f, x)`` calls ``f`` on the meta too
  (hence ``f`` should work on empty tensors, or be given ``meta=``).

Where NumPy's protocols do not reach, Dask looks a function up by the chunk's type in its own
dispatch tables (``dask.array.dispatch``: ``concatenate_lookup``, ``tensordot_lookup``,
``einsum_lookup``, ``take_lookup``, ``percentile_lookup``, ``numel_lookup``,
``nannumel_lookup``, ``to_numpy_dispatch``; and ``dask.sizeof.sizeof``). Each has an entry for
``object`` (NumPy's function, which strided then receives by NEP 18) except ``percentile`` and
``to_numpy``; ``register`` below fills all of them with strided's functions, so no call takes
the detour and none finds nothing. A graph's names are hashes of its inputs: Dask asks
``Tensor.__dask_tokenize__`` (a hash of dtype, shape, device and elements, as for an ndarray).

Each process of a cluster has its own tables, so ``register`` must run in each, and nobody
imports this module by hand. Three hooks see to it:

- the ``dask.sizeof`` entry point (``_sizeof_plugin``) runs whenever a process imports Dask,
  the client and every worker (restarted ones too). Dask is half-imported at that moment (its
  tokenizer, its arrays not yet), so the plugin only asks ``sizeof`` to run ``register`` the
  first time it meets a type from the ``strided`` package (``register_lazy``). A worker measures
  every tensor it stores (for its memory limits) before another task reads it, so each worker
  has registered before its tasks need a table. The cost: ``import dask`` imports strided
  (the plugin lives in strided's package), as any sizeof plugin imports its library.
- ``Tensor.__dask_tokenize__`` runs ``register`` in the client: hashing the tensor is the first
  thing ``da.from_array`` does.
- the ``dask.array.backends`` entry point, when ``array.backend`` is "strided".

Where the entry points are not installed (strided on ``sys.path`` without ``pip install``, or
hidden by a stale ``strided.egg-info`` in the working directory), call ``register()`` by hand,
and on a cluster ``client.run(strided.dask.register)``.

``da.register_chunk_type(Tensor)`` tells Dask that a tensor is a chunk type that ranks below
a Dask array: ``dask_array + tensor`` is Dask's to compute (the tensor broadcast into each
block), and ``tensor + dask_array`` is too, because strided's operators return NotImplemented
for an array type they do not know (Note [NumPy's protocols], rule 4).

Threads: a Dask worker runs one task per thread it has, and Dask's nanny starts each worker with
OMP_NUM_THREADS=1 so that NumPy's BLAS does not add threads of its own. strided reads that
variable too when ``STRIDED_NUM_THREADS`` is unset (Note [Thread settings] in _threads.pyx), so
each worker's kernels run on one thread; without it, two workers' kernels would each start a
thread per core and fight over them.

A chunk sent between processes is pickled (protocol 5: its bytes travel out of band, as an
ndarray's do) and keeps its dtype; a view arrives as a contiguous copy, as NumPy's do.

Dask also runs graphs on ``cuda``/``cuda-emulated`` chunks: ``da.from_array`` of a CUDA
tensor keeps CUDA chunks and meta, and the backend puts its meta on
``dask.config.get("strided.device")`` when that is set. ``to_numpy_dispatch`` copies such chunks
to the host.

Note [Cubed]
~~~~~~~~~~~~
Cubed (https://cubed-dev.github.io), the other chunked-array engine, takes any Array API
namespace for its chunks and needs no code here: with ``CUBED_BACKEND_ARRAY_API_MODULE=strided``
(checked with cubed 0.27 and zarr 3.1: elementwise, mean/std/var, argmax, max with keepdims,
stepped slices, where, concat, rechunk, matmul) ``cubed.array_api`` computes on tensors and
returns tensors, equal to NumPy's. Its intermediate chunks go through Zarr storage, which
reads tensors through the buffer protocol. Not in CI: Cubed is not one of strided's extras.
"""

from __future__ import annotations

from functools import partial

import numpy as np

import strided
from strided._tensor import Tensor

__all__ = ["StridedBackendEntrypoint", "register"]  # noqa: F822 - made by __getattr__

_registered = False


def register():
    """Register strided's Tensor with Dask's chunk-type list and dispatch tables (idempotent).

    Dask calls this itself through strided's entry points (see Note [How Dask decides chunk
    types and meta]); calling it by hand is needed only where they are not installed (strided
    on ``sys.path`` without ``pip install``), or to mix a NumPy-backed Dask array with tensors
    before Dask has met one. On a cluster without the entry points, run it on the workers too:
    ``client.run(strided.dask.register)``.

    Examples
    --------
    >>> import strided.dask
    >>> strided.dask.register()
    """
    global _registered
    if _registered:
        return
    _registered = True
    import dask.array as da
    from dask.array import backends as dab
    from dask.array import dispatch as dad
    from dask.sizeof import sizeof

    da.register_chunk_type(Tensor)
    dad.concatenate_lookup.register(Tensor, _concatenate)
    dad.tensordot_lookup.register(Tensor, strided.tensordot)
    dad.einsum_lookup.register(Tensor, _einsum)
    dad.take_lookup.register(Tensor, strided.take)
    dad.empty_lookup.register(Tensor, strided.empty)
    dad.percentile_lookup.register(Tensor, dab.percentile)  # Dask's, on strided.percentile
    dad.numel_lookup.register(Tensor, dab._numel_arraylike)  # counts stay tensors
    dad.nannumel_lookup.register(Tensor, dab._nannumel)
    dad.to_numpy_dispatch.register(Tensor, _to_numpy)
    sizeof.register(Tensor, _sizeof)
    # the backend too, as the entry point would: "strided" works where the installed metadata
    # is missing or shadowed (a stale strided.egg-info in the working directory)
    dab.array_creation_dispatch.register_backend("strided", _backend_entrypoint_class()())


def _sizeof_plugin(sizeof):
    """Dask's ``dask.sizeof`` entry point: ``register`` runs when Dask first measures a tensor.

    Called while Dask itself is being imported, so it may touch nothing of Dask but ``sizeof``.
    """
    sizeof.register_lazy("strided", register)


# -- the dispatch-table entries -------------------------------------------------------------


def _concatenate(arrays, axis=0):
    """Dask's ``concatenate(list, axis=)``: strided's, on the chunks of one block row."""
    return strided.concatenate(list(arrays), axis=axis)


def _einsum(subscripts, *operands, dtype=None, casting="safe", optimize=False, **kwargs):
    """Dask's chunk einsum passes ``dtype=`` and NumPy's keywords; strided takes the same."""
    return strided.einsum(subscripts, *operands, dtype=dtype, casting=casting, optimize=optimize)


def _to_numpy(data, **kwargs):
    """``x.to_backend("numpy")``: a NumPy copy of a chunk (CUDA chunks come to the host)."""
    return np.array(data.cpu() if not data.device.is_cpu else data)


def _sizeof(t):
    """Bytes a chunk holds for Dask's memory accounting: NumPy's rule (a broadcast dim, stride
    0, counts once)."""
    if 0 in t.stride():
        t = t[tuple(slice(None) if s != 0 else slice(1) for s in t.stride())]
    return int(t.nbytes)


def _normalize_token(t):
    """A deterministic token: dtype, shape, device and a hash of the elements (NumPy's).

    ``Tensor.__dask_tokenize__`` calls it, and registers strided with Dask on the way.
    """
    from dask.tokenize import normalize_token

    register()
    host = t if t.device.is_cpu else t.cpu()
    return ("strided.Tensor", str(t.device), normalize_token(np.asarray(host)))


# -- the backend: dask.config.set({"array.backend": "strided"}) -----------------------------


def _meta():
    """The zero-size tensor creation functions hand Dask (on ``strided.device``, if set)."""
    import dask

    return strided.empty((), device=dask.config.get("strided.device", None) or "cpu")


def _with_strided_meta(name, *args, meta=None, **kwargs):
    """Run ``dask.array.<name>`` as the NumPy backend would, with a tensor as its meta."""
    import dask
    import dask.array as da

    with dask.config.set({"array.backend": "numpy"}):
        return getattr(da, name)(*args, meta=_meta() if meta is None else meta, **kwargs)


class PhiloxSeed(np.random.SeedSequence):
    """What Dask calls a bit generator for ``da.random.default_rng()`` on the strided backend.

    Dask spawns one per chunk (``bitgen._seed_seq.spawn(n)``, then ``type(bitgen)(seed)``) and
    each chunk's task calls ``strided.random.default_rng(bitgen)``, which hashes a SeedSequence
    to the 64-bit key of strided's Philox stream. The type's module names the library Dask
    imports for that call (``strided``).
    """

    def __init__(self, entropy=None, **kwargs):
        if isinstance(entropy, np.random.SeedSequence):  # a spawned child, made a PhiloxSeed
            kwargs = {"spawn_key": entropy.spawn_key, "pool_size": entropy.pool_size}
            entropy = entropy.entropy
        super().__init__(entropy, **kwargs)

    @property
    def _seed_seq(self):
        return self


class RandomState:
    """NumPy's legacy ``RandomState`` names on strided's Generator, for ``da.random.random``
    and the other module-level functions Dask sends to the backend's ``RandomState``.

    Dask seeds one per chunk with an array of 624 uint32 (its ``random_state_data``), hashed
    here by ``SeedSequence`` to a Philox key.
    """

    _LEGACY = {"random_sample": "random", "ranf": "random", "sample": "random"}

    def __init__(self, seed=None):
        self._generator = strided.random.default_rng(
            None if seed is None else np.random.SeedSequence(np.asarray(seed).ravel().tolist())
        )

    def randint(self, low, high=None, size=None, dtype="int64"):
        return self._generator.integers(low, high, size=size, dtype=dtype)

    def __getattr__(self, name):
        return getattr(self._generator, self._LEGACY.get(name, name))


def _backend_entrypoint_class():
    """``StridedBackendEntrypoint`` subclasses Dask's class, so it is made on first use."""
    if "StridedBackendEntrypoint" in globals():
        return globals()["StridedBackendEntrypoint"]
    from dask.array.backends import ArrayBackendEntrypoint

    class StridedBackendEntrypoint(ArrayBackendEntrypoint):
        """``dask.config.set({"array.backend": "strided"})``: creation functions and
        ``da.random`` make strided chunks (found through the ``dask.array.backends`` entry
        point)."""

        def __init__(self):
            register()

        @classmethod
        def to_backend_dispatch(cls):
            return _to_strided_dispatch()

        @classmethod
        def to_backend(cls, data, **kwargs):
            if isinstance(data._meta, Tensor):
                return data  # already strided
            return data.map_blocks(cls.to_backend_dispatch(), **kwargs)

        @property
        def RandomState(self):  # noqa: N802 - Dask's name
            return RandomState

        @property
        def default_bit_generator(self):
            return PhiloxSeed

        # ones, zeros, empty, full: Dask's own, with a tensor for the meta (set below)

        @staticmethod
        def arange(*args, like=None, **kwargs):
            import dask
            import dask.array as da

            with dask.config.set({"array.backend": "numpy"}):
                return da.arange(*args, like=_meta() if like is None else like, **kwargs)

    for name in ("ones", "zeros", "empty", "full"):
        setattr(StridedBackendEntrypoint, name, staticmethod(partial(_with_strided_meta, name)))
    StridedBackendEntrypoint.__module__ = __name__
    globals()["StridedBackendEntrypoint"] = StridedBackendEntrypoint
    return StridedBackendEntrypoint


_to_strided = None


def _to_strided_dispatch():
    """A Dask ``Dispatch`` that makes a chunk of any library a tensor (``x.to_backend
    ("strided")``): an ndarray by sharing its memory, anything else through ``asarray``."""
    global _to_strided
    if _to_strided is None:
        from dask.utils import Dispatch

        _to_strided = Dispatch("to_strided_dispatch")
        _to_strided.register(object, lambda data, **kwargs: strided.asarray(data))
        _to_strided.register(Tensor, lambda data, **kwargs: data)
    return _to_strided


def __getattr__(name):
    # ``strided.dask.StridedBackendEntrypoint`` (the entry point's target) without importing
    # Dask when this module is imported by the sizeof plugin, during Dask's own import
    if name == "StridedBackendEntrypoint":
        return _backend_entrypoint_class()
    raise AttributeError(f"module 'strided.dask' has no attribute {name!r}")
