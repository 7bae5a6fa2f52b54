"""``strided.save`` and ``strided.load``: tensors and nested containers in a file that is only
ever *parsed* on load, never executed.

Note [A file format that cannot run code]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``pickle`` (and so ``torch.load`` without ``weights_only``) rebuilds objects by calling whatever
callables the file names: loading a downloaded checkpoint can run any code its author wants. A
strided file is instead, in the spirit of safetensors::

    8 bytes   magic  b"STRIDED1"
    8 bytes   n      little-endian unsigned length of the header
    n bytes   header JSON, UTF-8
    ...       data   the raw bytes of every tensor, each at a 64-byte-aligned offset

The header holds ``{"format": "strided", "version": 1, "tree": ..., "tensors": [...]}``. The
tree is the saved object with containers spelled out: ``{"dict": [[key, value], ...]}`` (keys
keep their type, int or str, so an optimizer's ``{0: ...}`` survives), ``{"list": [...]}``,
``{"tuple": [...]}``, ``{"tensor": i}``, and JSON's own numbers, strings, booleans and null
(non-finite floats as ``{"float": "nan"}``). Tensor ``i`` is ``{"dtype", "shape", "offset",
"nbytes", "requires_grad"}``.

``load`` reads the JSON with ``json.loads`` (which builds only dicts, lists, strings and
numbers), then checks everything before touching the data: the dtype is one of strided's names,
the shape non-negative ints whose product times the itemsize equals ``nbytes``, the byte range
inside the file. Anything else -- a pickle, a zip (PyTorch's ``.pt``), a truncated file, a header
that names an unknown type -- is refused with an error that says what was found. No code path
in ``load`` calls anything the file names.

What is kept: dtype, shape, values, ``requires_grad``. What is not: strides and sharing. A
non-contiguous tensor is written in row-major order and loads contiguous; two views of one
storage load as two independent tensors (as NumPy's ``.npy``; unlike ``torch.save``, which keeps
storages).

NumPy's files
~~~~~~~~~~~~~
``save(file, arr)``, ``load``, ``savez``/``savez_compressed`` and ``loadtxt``/``savetxt``/
``genfromtxt`` are NumPy's, written and read by NumPy's own code (``numpy.save``,
``numpy.lib.format``, ``numpy.load``), so the bytes are NumPy's bytes: NumPy reads what strided
writes and the other way round. strided only converts at the edges (a tensor becomes the NumPy
array that shares its memory, a loaded array becomes the tensor that shares its memory) and
checks dtypes, since strided has no object, string, structured or float16 dtype.

Note [Two saves]
~~~~~~~~~~~~~~~~
NumPy spells ``save(file, arr)``; PyTorch spells ``save(obj, f)``. Both are in use, so
``strided.save`` tells them apart by the types of its arguments: a path (``str``,
``os.PathLike``) or a file (anything with ``.write``) first and something that is neither second
is NumPy's order and writes a ``.npy`` (adding the ``.npy`` extension to a path that lacks it,
as ``numpy.save`` does); a path or file second is PyTorch's order and writes strided's own
format (which also holds the dicts and lists of a ``state_dict``; Note [A file format that
cannot run code]). The one ambiguous call, two strings, follows NumPy (Note [NumPy first]): the
first is the path. The keywords settle it too: ``save(file=..., arr=...)`` is NumPy's,
``save(obj=..., f=...)`` PyTorch's. ``load`` needs no such rule: it reads the file's first bytes
(``\x93NUMPY``: a ``.npy``; ``PK``: a zip, that is an ``.npz``; ``STRIDED1``: strided's own) and
says what it found when it is none of them (a pickle, PyTorch's zip, text).

Note [Never unpickle]
~~~~~~~~~~~~~~~~~~~~~
``allow_pickle`` is accepted for NumPy's sake and is always, in effect, False: a strided tensor
never holds Python objects, so saving never needs pickle, and loading an object array would mean
unpickling, which runs whatever code the file names. ``load`` reads the ``.npy`` header first
(``numpy.lib.format``) and refuses an object dtype before reading any data, whatever
``allow_pickle`` says.

Note [Atomic writes]
~~~~~~~~~~~~~~~~~~~~
A save that fails half-way (a full disk, a Ctrl-C, an array that cannot be converted) must not
leave a half-written file, or clobber the good file that was there. Writing to a path therefore
goes to a fresh temporary file in the same directory (same file system, so the rename is
atomic), named ``.<random>.<name>`` so that it keeps the name's extension (``numpy.savetxt``
compresses when the name ends in ``.gz``), and only a complete file is renamed over the target
with ``os.replace``; on an error the temporary file is removed and the target is untouched. The
temporary file is created with mode 0o666 filtered by the umask, as ``open`` would create the
target. There is no ``fsync``: a crash of the machine itself may still lose the new file (as
with NumPy); an exception never leaves a partial one. An open file object that the caller passes
cannot be replaced atomically; there every check and conversion happens before the first write.

Note [Memory-mapped loading]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``load(path, mmap_mode="r")`` (or ``"r+"``, ``"c"``, ``"w+"``) maps a ``.npy`` with
``numpy.load`` and wraps the ``numpy.memmap`` zero-copy (``from_numpy``): the tensor's storage is
the mapped file, pages are read when touched, and the map stays open as long as the tensor (or
any view of it) lives. Mode ``"r"`` gives a read-only tensor (writes raise); ``"r+"`` writes go
to the file; ``"c"`` is copy-on-write. Two cases cannot be zero-copy and copy instead: a file
written in the other byte order (strided computes in native order only) and a ``device`` other
than the CPU. An ``.npz`` is never mapped (NumPy ignores ``mmap_mode`` there too), and strided's
own format is read into memory.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import secrets
import struct
from collections.abc import Mapping

import numpy as np

from strided import _core
from strided._dtype import all_dtypes
from strided._ops import creation as _creation

__all__ = [
    "NpzFile",
    "fromfile",
    "fromiter",
    "fromstring",
    "genfromtxt",
    "load",
    "loadtxt",
    "save",
    "savetxt",
    "savez",
    "savez_compressed",
]

MAGIC = b"STRIDED1"
_ALIGN = 64
_DTYPES = {d.name: d for d in all_dtypes()}
_MAX_HEADER = 100 * 1024 * 1024  # a header larger than this is not one strided wrote


class _Writer:
    def __init__(self):
        self.tensors = []  # (meta, bytes)
        self.offset = 0

    def tensor(self, t):
        from strided._ops import views as _views

        src = t.detach() if t.device.type == "cpu" else t.detach().to("cpu")
        data = np.ascontiguousarray(np.asarray(_views.contiguous(src))).tobytes()
        self.offset = -(-self.offset // _ALIGN) * _ALIGN
        meta = {
            "dtype": t.dtype.name,
            "shape": list(t.shape),
            "offset": self.offset,
            "nbytes": len(data),
            "requires_grad": bool(t.requires_grad),
        }
        self.tensors.append((meta, data))
        self.offset += len(data)
        return {"tensor": len(self.tensors) - 1}

    def encode(self, obj, path):
        if isinstance(obj, _core.TensorBase):
            return self.tensor(obj)
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, int):
            return obj
        if isinstance(obj, float):
            return obj if math.isfinite(obj) else {"float": repr(obj)}
        if isinstance(obj, dict):
            items = []
            for k, v in obj.items():
                if not isinstance(k, (str, int)) or isinstance(k, bool):
                    raise TypeError(
                        f"strided.save: dict key {k!r} at {path} is a {type(k).__name__}; keys "
                        "must be str or int"
                    )
                items.append([k, self.encode(v, f"{path}[{k!r}]")])
            return {"dict": items}
        if isinstance(obj, (list, tuple)):
            kind = "list" if isinstance(obj, list) else "tuple"
            return {kind: [self.encode(v, f"{path}[{i}]") for i, v in enumerate(obj)]}
        raise TypeError(
            f"strided.save: cannot save a {type(obj).__name__} at {path}: only tensors, dicts, "
            "lists, tuples, str, int, float, bool and None can be saved (a file that may hold "
            "arbitrary objects could run code when loaded: Note [A file format that cannot run "
            "code])"
        )


def _save_strided(obj, f):
    """Write ``obj`` in strided's own format to the path or binary file ``f`` (a path is
    written atomically: Note [Atomic writes])."""
    w = _Writer()
    tree = w.encode(obj, "the top")
    header = {
        "format": "strided",
        "version": 1,
        "tree": tree,
        "tensors": [m for m, _ in w.tensors],
    }
    hbytes = json.dumps(header, separators=(",", ":"), allow_nan=False).encode("utf-8")
    start = len(MAGIC) + 8 + len(hbytes)
    pad = -start % _ALIGN  # the data section starts aligned too
    hbytes += b" " * pad

    def write(fh):
        fh.write(MAGIC)
        fh.write(struct.pack("<Q", len(hbytes)))
        fh.write(hbytes)
        pos = 0
        for meta, data in w.tensors:
            fh.write(b"\0" * (meta["offset"] - pos))
            fh.write(data)
            pos = meta["offset"] + len(data)

    if _is_path(f):
        with _atomic_path(os.fspath(f)) as tmp, open(tmp, "wb") as fh:
            write(fh)
    else:
        write(f)


def _refuse(what, found, source):
    return ValueError(f"strided.load: {source} is not a strided file ({what}); {found}")


def _describe_magic(head):
    if head[:1] == b"\x80" or head[:1] in (b"(", b"]", b"}") or head.startswith(b"c"):
        return (
            "it starts like a Python pickle. strided.load never unpickles, because unpickling "
            "runs whatever code the file names; load it with pickle only if you trust its "
            "author, then strided.save the tensors"
        )
    return f"it starts with {head[:8]!r}, not the magic {MAGIC!r}"


def _load_strided(f, source, device):
    """Read a file in strided's own format, from a path or binary file. Tensors load contiguous,
    on the CPU unless ``device`` says otherwise (Note [A file format that cannot run code])."""
    own = _is_path(f)
    fh = open(f, "rb") if own else f
    try:
        blob = fh.read()
    finally:
        if own:
            fh.close()
    if len(blob) < 16 or blob[:8] != MAGIC:
        raise _refuse("wrong magic bytes", _describe_magic(bytes(blob[:16])), source)
    (n,) = struct.unpack("<Q", blob[8:16])
    if n > _MAX_HEADER or 16 + n > len(blob):
        raise _refuse(
            "corrupt header", f"it declares a {n}-byte header in a {len(blob)}-byte file", source
        )
    try:
        header = json.loads(blob[16 : 16 + n].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise _refuse("corrupt header", f"its header is not JSON: {e}", source) from None
    if not isinstance(header, dict) or header.get("format") != "strided":
        raise _refuse("corrupt header", "the header does not say format 'strided'", source)
    if header.get("version") != 1:
        raise ValueError(
            f"strided.load: {source} has format version {header.get('version')!r}; this "
            "strided reads version 1"
        )
    data = memoryview(blob)[16 + n :]
    metas = header.get("tensors")
    if not isinstance(metas, list):
        raise _refuse("corrupt header", "'tensors' is not a list", source)
    tensors = [_read_tensor(m, i, data, source, device) for i, m in enumerate(metas)]
    return _decode(header.get("tree"), tensors, source)


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _read_tensor(meta, i, data, source, device):
    def bad(why):
        return _refuse("corrupt header", f"tensor {i}: {why}", source)

    if not isinstance(meta, dict):
        raise bad("its description is not an object")
    dtype = _DTYPES.get(meta.get("dtype")) if isinstance(meta.get("dtype"), str) else None
    if dtype is None:
        raise bad(f"unknown dtype {meta.get('dtype')!r} (known: {', '.join(_DTYPES)})")
    shape = meta.get("shape")
    if not isinstance(shape, list) or not all(_is_int(s) and s >= 0 for s in shape):
        raise bad(f"shape {shape!r} is not a list of non-negative ints")
    if len(shape) > 64:
        raise bad(f"{len(shape)} dims is more than strided supports")
    offset, nbytes = meta.get("offset"), meta.get("nbytes")
    if not (_is_int(offset) and _is_int(nbytes) and offset >= 0 and nbytes >= 0):
        raise bad(f"offset {offset!r} and nbytes {nbytes!r} must be non-negative ints")
    if math.prod(shape) * dtype.itemsize != nbytes:
        raise bad(
            f"shape {shape} of {dtype.name} needs {math.prod(shape) * dtype.itemsize} "
            f"bytes, the header says {nbytes}"
        )
    if offset + nbytes > len(data):
        raise bad(
            f"bytes {offset}..{offset + nbytes} lie past the end of the data "
            f"({len(data)} bytes): the file is truncated"
        )
    if dtype.numpy is None:  # bfloat16 without ml_dtypes
        raise bad(f"it holds {dtype.name}, which needs the ml_dtypes package to be read")
    arr = np.frombuffer(data[offset : offset + nbytes], dtype=dtype.numpy).reshape(shape)
    t = _creation.asarray(arr.copy())
    if device is not None:
        t = t.to(device)
    if meta.get("requires_grad") is True:
        t.requires_grad_()
    return t


def _decode(node, tensors, source, depth=0):
    if depth > 1000:
        raise _refuse("corrupt header", "the tree nests more than 1000 levels", source)
    if node is None or isinstance(node, (bool, str, int, float)):
        return node
    if isinstance(node, dict) and len(node) == 1:
        ((kind, v),) = node.items()
        if kind == "tensor" and _is_int(v) and 0 <= v < len(tensors):
            return tensors[v]
        if kind in ("list", "tuple") and isinstance(v, list):
            items = [_decode(x, tensors, source, depth + 1) for x in v]
            return items if kind == "list" else tuple(items)
        if kind == "dict" and isinstance(v, list):
            out = {}
            for pair in v:
                if not (isinstance(pair, list) and len(pair) == 2):
                    break
                key = pair[0]
                if not (isinstance(key, str) or _is_int(key)):
                    break
                out[key] = _decode(pair[1], tensors, source, depth + 1)
            else:
                return out
        if kind == "float" and v in ("nan", "inf", "-inf"):
            return float(v)
    raise _refuse("corrupt header", f"unknown entry {str(node)[:80]!r} in the tree", source)


# ---------------------------------------------------------------------------------------------
# Paths, atomic writes, and the magic bytes of each format
# ---------------------------------------------------------------------------------------------

_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")  # a zip with entries, an empty zip (as numpy.load)
_NUMPY_DTYPES = {d.numpy: d for d in all_dtypes()}


def _is_path(f):
    """Whether ``f`` names a file (rather than being an open file object)."""
    return isinstance(f, (str, bytes, os.PathLike))


def _is_file_arg(f):
    """Whether ``f`` is a path or an open file: the test of Note [Two saves]."""
    return _is_path(f) or hasattr(f, "write")


def _with_suffix(f, suffix):
    """``f`` as a ``str`` path ending in ``suffix`` (added if missing, as NumPy does)."""
    path = os.fsdecode(os.fspath(f))
    return path if path.endswith(suffix) else path + suffix


@contextlib.contextmanager
def _atomic_path(path):
    """Yield a temporary path next to ``path``; rename it over ``path`` only on success.

    See Note [Atomic writes].
    """
    path = os.fsdecode(os.fspath(path))
    folder, name = os.path.split(path)
    while True:
        tmp = os.path.join(folder, f".{secrets.token_hex(6)}.{name}")
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            break
        except FileExistsError:  # pragma: no cover - a 48-bit random name already taken
            continue
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _source_name(f):
    """How messages name the file: its path, else "the file"."""
    return repr(os.fsdecode(os.fspath(f))) if _is_path(f) else "the file"


def _head(f, n=16):
    """The first ``n`` bytes of a path or binary file, leaving a file object where it was."""
    if _is_path(f):
        with open(f, "rb") as fh:
            return fh.read(n)
    if not hasattr(f, "read"):
        raise TypeError(
            f"strided.load: expected a path or a binary file opened for reading, got a "
            f"{type(f).__name__}"
        )
    pos = f.tell()
    head = f.read(n)
    f.seek(pos)
    if not isinstance(head, (bytes, bytearray)):
        raise TypeError("strided.load: the file must be opened in binary mode ('rb')")
    return bytes(head)


def _describe_unknown(head):
    """What a file that is none of strided's formats seems to be (from its first bytes)."""
    if not head:
        return "it is empty"
    described = _describe_magic(head)
    if not described.startswith("it starts with"):
        return described
    if all(32 <= b < 127 or b in b"\t\r\n" for b in head):
        return (
            f"it starts with {head[:8]!r}, which looks like text: read text files with "
            "strided.loadtxt or strided.genfromtxt"
        )
    return (
        f"it starts with {head[:8]!r}; a .npy starts with {_NPY_MAGIC!r}, an .npz with "
        f"{_ZIP_MAGICS[0]!r} and a strided file with {MAGIC!r}"
    )


# ---------------------------------------------------------------------------------------------
# Tensors to NumPy arrays and back, checking dtypes on the way
# ---------------------------------------------------------------------------------------------


def _strided_dtype_of(np_dtype, what):
    """The strided dtype for a NumPy dtype (byte order aside), or a TypeError saying why not."""
    if np_dtype.hasobject:  # a ValueError, as numpy.load's refusal
        raise ValueError(
            f"{what} has dtype {np_dtype} (Python objects); strided never loads or saves "
            "those: unpickling them can run any code (Note [Never unpickle])"
        )
    dtype = _NUMPY_DTYPES.get(np_dtype.newbyteorder("="))
    if dtype is None:
        raise TypeError(
            f"{what} has dtype {np_dtype}, which strided does not have (it has "
            f"{', '.join(d.name for d in all_dtypes())}); convert it with numpy first, "
            "e.g. numpy.load(...).astype('float32')"
        )
    return dtype


def _to_numpy(arr, what):
    """The NumPy array to write for ``arr``: a tensor's own memory (any strides), or
    ``arr`` converted as ``strided.asarray`` would."""
    if isinstance(arr, _core.TensorBase):
        t = arr.detach() if arr.requires_grad else arr
        if t.dtype.name == "bfloat16":
            # ml_dtypes' bfloat16 is written to a .npy as "|V2", raw bytes no reader (NumPy or
            # strided) can turn back into numbers: refuse rather than write such a file
            raise TypeError(
                f"{what}: the .npy format has no bfloat16 (NumPy would record raw 2-byte "
                "voids); save t.astype('float32'), or use strided's own format, "
                "strided.save(obj, f), which records the dtype"
            )
        if t.device.type != "cpu":
            t = t.to("cpu")
        return np.asarray(t)
    if isinstance(arr, (dict, set)):
        raise TypeError(
            f"{what}: a {type(arr).__name__} is not an array; NumPy would pickle it, strided "
            "never does. Save several tensors with strided.savez(file, name=tensor, ...), or a "
            "state_dict in strided's own format with strided.save(obj, f) (Note [Two saves])"
        )
    if isinstance(arr, np.ndarray):
        _strided_dtype_of(arr.dtype, what)
        return arr
    return np.asarray(_creation.asarray(arr))


def _to_tensor(arr, what, device=None):
    """A tensor sharing ``arr``'s memory (copied only to change byte order or device)."""
    if np.ma.isMaskedArray(arr):
        raise TypeError(
            f"{what} is a masked array, which strided does not have (use usemask=False)"
        )
    _strided_dtype_of(arr.dtype, what)
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    t = _creation.from_numpy(arr)
    return t if device is None else t.to(device)


# ---------------------------------------------------------------------------------------------
# save and load
# ---------------------------------------------------------------------------------------------

_MISSING = object()


def save(file=_MISSING, arr=_MISSING, allow_pickle=False, *, obj=_MISSING, f=_MISSING):
    """Save an array to a NumPy ``.npy`` file, ``numpy.save``'s way; or, given PyTorch's
    order ``save(obj, f)``, a tensor or ``state_dict`` in strided's own format.

    Which one is meant is read from the arguments' types (Note [Two saves]). A path is written
    atomically: on an error nothing is left behind (Note [Atomic writes]).

    Parameters
    ----------
    file : str, os.PathLike or binary file
        Where to write; ``.npy`` is added to a path that does not end in it.
    arr : Tensor or array_like
        The array to save. A non-contiguous tensor is written as NumPy writes an array of its
        layout (Fortran order for a transposed one); a GPU tensor is copied to the host.
    allow_pickle : bool, optional
        Accepted for NumPy's sake; tensors never need pickling (Note [Never unpickle]).
    obj, f
        PyTorch's names: ``save(obj, f)`` writes strided's own format, which also holds dicts,
        lists and plain values (Note [A file format that cannot run code]).

    Raises
    ------
    TypeError
        If ``arr`` is not an array strided has a dtype for (a dict, an object array).

    Examples
    --------
    >>> import io, numpy, strided
    >>> buf = io.BytesIO()
    >>> strided.save(buf, strided.arange(6.0).reshape(2, 3).T)  # NumPy's order: a .npy
    >>> _ = buf.seek(0)
    >>> numpy.load(buf)
    array([[0., 3.],
           [1., 4.],
           [2., 5.]])
    >>> buf = io.BytesIO()
    >>> strided.save({"w": strided.ones(2), "step": 3}, buf)  # PyTorch's order
    >>> _ = buf.seek(0)
    >>> strided.load(buf)
    {'w': tensor([1., 1.]), 'step': 3}
    """
    if obj is not _MISSING or f is not _MISSING:
        if file is not _MISSING or arr is not _MISSING:
            raise TypeError(
                "strided.save: give either NumPy's (file, arr) or PyTorch's (obj, f), not a mix"
            )
        if obj is _MISSING or f is _MISSING:
            raise TypeError("strided.save: PyTorch's spelling needs both obj= and f=")
        return _save_strided(obj, f)
    if file is _MISSING or arr is _MISSING:
        raise TypeError("strided.save needs two arguments: save(file, arr) or save(obj, f)")
    if _is_file_arg(file) and not (_is_file_arg(arr) and not isinstance(arr, (str, bytes))):
        return _save_npy(file, arr)
    if _is_file_arg(arr):
        return _save_strided(file, arr)
    raise TypeError(
        f"strided.save: neither argument is a path or a binary file (got a "
        f"{type(file).__name__} and a {type(arr).__name__}); call save(file, arr) as NumPy "
        "does, or save(obj, f) as PyTorch does"
    )


def _save_npy(file, arr):
    """``numpy.save`` of ``arr`` to ``file``, atomically for a path."""
    a = _to_numpy(arr, "strided.save: arr")
    if _is_path(file):
        with _atomic_path(_with_suffix(file, ".npy")) as tmp:
            np.save(tmp, a, allow_pickle=False)
    else:
        np.save(file, a, allow_pickle=False)


def load(
    file,
    mmap_mode=None,
    allow_pickle=False,
    fix_imports=True,
    encoding="ASCII",
    *,
    max_header_size=10000,
    device=None,
    weights_only=None,
):
    """Load a NumPy ``.npy`` or ``.npz`` file, or a file in strided's own format.

    The format is read from the file's first bytes (Note [Two saves]); nothing in any of them is
    ever executed (Note [Never unpickle]).

    Parameters
    ----------
    file : str, os.PathLike or binary file
        What to read (a file object must be seekable).
    mmap_mode : {None, 'r', 'r+', 'c', 'w+'}, optional
        Map a ``.npy`` file instead of reading it: the tensor views the mapped memory
        (Note [Memory-mapped loading]).
    allow_pickle : bool, optional
        Accepted for NumPy's sake; object arrays are refused whatever it says.
    fix_imports, encoding
        Accepted for NumPy's sake; they only concern pickles, which strided never reads.
    max_header_size : int, optional
        The largest ``.npy`` header read (NumPy's guard against hostile headers).
    device : str or Device, optional
        Where the tensors go (strided's and PyTorch's ``map_location``); the CPU by default.
    weights_only : bool, optional
        Accepted for PyTorch's sake: strided's format only ever holds tensors and plain values.

    Returns
    -------
    Tensor, NpzFile, or what ``save(obj, f)`` saved
        A tensor for a ``.npy``; a lazy mapping of name to tensor for an ``.npz`` (close it, or
        use it in a ``with`` block); the saved object for strided's format.

    Raises
    ------
    ValueError
        If the file is none of these formats (the message says what it seems to be), is
        truncated, or its header is corrupt.
    TypeError
        If it holds a dtype strided does not have (objects, strings, float16...).

    Examples
    --------
    >>> import io, numpy, strided
    >>> buf = io.BytesIO()
    >>> numpy.save(buf, numpy.arange(3, dtype=numpy.int32))
    >>> _ = buf.seek(0)
    >>> strided.load(buf)
    tensor([0, 1, 2], dtype=strided.int32)
    """
    del allow_pickle, fix_imports, encoding, weights_only  # see the docstring
    source = _source_name(file)
    head = _head(file)
    if head.startswith(MAGIC):
        if mmap_mode is not None:
            raise ValueError(
                f"strided.load: mmap_mode works on .npy files; {source} is in strided's own "
                "format, which is read into memory (Note [Memory-mapped loading])"
            )
        return _load_strided(file, source, device)
    if head.startswith(_NPY_MAGIC):
        return _load_npy(file, source, mmap_mode, max_header_size, device)
    if head.startswith(_ZIP_MAGICS):
        return NpzFile(file, source, max_header_size, device)
    raise ValueError(
        f"strided.load: {source} is not a .npy, .npz or strided file: {_describe_unknown(head)}"
    )


def _npy_header(fh, max_header_size):
    """(shape, fortran_order, dtype) from a ``.npy`` header, read by ``numpy.lib.format``."""
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        return np.lib.format.read_array_header_1_0(fh, max_header_size=max_header_size)
    if version == (2, 0):
        return np.lib.format.read_array_header_2_0(fh, max_header_size=max_header_size)
    if version == (3, 0):
        return None  # utf-8 field names: a structured dtype, which np.load reads and we refuse
    raise ValueError(f"unknown .npy format version {version} (NumPy writes 1.0, 2.0 and 3.0)")


def _load_npy(file, source, mmap_mode, max_header_size, device):
    """A ``.npy`` as a tensor: header checked first (Note [Never unpickle]), then
    ``numpy.load``."""
    what = f"strided.load: {source}"
    try:
        if _is_path(file):
            with open(file, "rb") as fh:
                header = _npy_header(fh, max_header_size)
        else:
            pos = file.tell()
            header = _npy_header(file, max_header_size)
            file.seek(pos)
    except (ValueError, EOFError) as e:
        raise ValueError(f"{what} is a .npy file with a corrupt or truncated header: {e}") from None
    if header is not None:
        _strided_dtype_of(header[2], what)
    try:
        arr = np.load(
            file, mmap_mode=mmap_mode, allow_pickle=False, max_header_size=max_header_size
        )
    except (ValueError, EOFError) as e:
        raise ValueError(
            f"{what} is a truncated or corrupt .npy file: NumPy could not read "
            f"{'the shape ' + str(header[0]) + ' of ' + str(header[2]) if header else 'it'} "
            f"that its header promises ({e})"
        ) from None
    return _to_tensor(arr, what, device)


class NpzFile(Mapping):
    """The arrays of an ``.npz`` file, read one at a time as tensors when asked for by name.

    What ``strided.load`` returns for an ``.npz``: a read-only mapping, as NumPy's ``NpzFile``
    (``files``, ``keys()``, ``[name]``, ``close()``, a context manager), whose values are
    strided tensors. The file stays open until ``close()`` or the end of a ``with`` block.

    Examples
    --------
    >>> import io, strided
    >>> buf = io.BytesIO()
    >>> strided.savez(buf, strided.arange(3), w=strided.ones((2, 2)))
    >>> _ = buf.seek(0)
    >>> with strided.load(buf) as npz:
    ...     print(npz.files, npz["arr_0"])
    ['w', 'arr_0'] tensor([0, 1, 2])
    """

    def __init__(self, file, source="the file", max_header_size=10000, device=None):
        self._source = source
        self._device = device
        try:
            self._npz = np.load(file, allow_pickle=False, max_header_size=max_header_size)
        except Exception as e:  # zipfile.BadZipFile and friends
            raise ValueError(f"strided.load: {source} is a corrupt or truncated zip: {e}") from None
        names = self._npz.zip.namelist()
        if any(n.endswith("data.pkl") for n in names):
            self._npz.close()
            raise ValueError(
                f"strided.load: {source} is a zip holding a pickle: PyTorch's torch.save format, "
                "not an .npz. strided never unpickles; convert it with torch.load(..., "
                "weights_only=True) and save the tensors with strided.save"
            )
        self.files = self._npz.files

    def __getitem__(self, key):
        if key not in self._npz.files:
            raise KeyError(f"{key!r} is not in {self._source} (it holds {self.files})")
        what = f"strided.load: {self._source}[{key!r}]"
        try:
            arr = self._npz[key]
        except (ValueError, EOFError) as e:
            raise ValueError(f"{what} is corrupt, holds objects, or is truncated: {e}") from None
        return _to_tensor(arr, what, self._device)

    def __iter__(self):
        return iter(self.files)

    def __len__(self):
        return len(self.files)

    def __contains__(self, key):
        return key in self._npz.files

    def close(self):
        """Close the underlying file."""
        self._npz.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<strided NpzFile of {self._source} with keys: {', '.join(self.files)}>"


def savez(file, *args, allow_pickle=False, **kwds):
    """Save several arrays into one uncompressed ``.npz``, ``numpy.savez``'s way.

    Positional arrays are named ``arr_0``, ``arr_1``, ...; keyword arrays by their keyword.
    ``.npz`` is added to a path that lacks it; a path is written atomically (Note [Atomic
    writes]). ``allow_pickle`` is accepted and changes nothing (Note [Never unpickle]).

    Examples
    --------
    >>> import io, numpy, strided
    >>> buf = io.BytesIO()
    >>> strided.savez(buf, x=strided.arange(3), y=strided.eye(2))
    >>> _ = buf.seek(0)
    >>> sorted(numpy.load(buf).files)
    ['x', 'y']
    """
    _savez(np.savez, file, args, kwds)


def savez_compressed(file, *args, allow_pickle=False, **kwds):
    """Save several arrays into one compressed (deflated) ``.npz``, ``numpy.savez_compressed``'s
    way; otherwise as ``savez``.

    Examples
    --------
    >>> import io, strided
    >>> buf = io.BytesIO()
    >>> strided.savez_compressed(buf, z=strided.zeros(1000))
    >>> len(buf.getvalue()) < 1000
    True
    """
    _savez(np.savez_compressed, file, args, kwds)


def _savez(writer, file, args, kwds):
    """Convert every array first (so a bad one writes nothing), then let NumPy write them."""
    name = writer.__name__
    arrays = [_to_numpy(a, f"strided.{name}: argument {i}") for i, a in enumerate(args)]
    named = {k: _to_numpy(v, f"strided.{name}: {k}=") for k, v in kwds.items()}
    if _is_path(file):
        with _atomic_path(_with_suffix(file, ".npz")) as tmp:
            writer(tmp, *arrays, allow_pickle=False, **named)
    else:
        writer(file, *arrays, allow_pickle=False, **named)


# ---------------------------------------------------------------------------------------------
# Text files: NumPy's readers and writer, results wrapped as tensors
# ---------------------------------------------------------------------------------------------


def _numpy_dtype(dtype):
    """A dtype argument as NumPy reads it (strided's dtypes become their NumPy twins)."""
    return dtype.numpy if isinstance(dtype, type(all_dtypes()[0])) else dtype


def _wrap_text_result(result, name):
    if isinstance(result, (tuple, list)):
        return tuple(_to_tensor(r, f"strided.{name}: column {i}") for i, r in enumerate(result))
    if result.dtype.names is not None:
        raise TypeError(
            f"strided.{name}: the file reads as a structured array (fields "
            f"{result.dtype.names}), which strided does not have; pass one plain dtype (not "
            "names=True or a list of dtypes), or use numpy directly"
        )
    return _to_tensor(result, f"strided.{name}: the result")


def loadtxt(fname, dtype=float, *args, **kwargs):
    """Read a text file of numbers into a tensor: ``numpy.loadtxt``, every argument as NumPy's,
    with the result wrapped (zero-copy) as a tensor (a tuple of tensors for ``unpack=True``
    with a structured dtype).

    Examples
    --------
    >>> import io, strided
    >>> strided.loadtxt(io.StringIO("1 2\\n3 4"), dtype=strided.int32)
    tensor([[1, 2],
            [3, 4]], dtype=strided.int32)
    """
    result = np.loadtxt(fname, _numpy_dtype(dtype), *args, **kwargs)
    return _wrap_text_result(result, "loadtxt")


def genfromtxt(fname, dtype=float, *args, **kwargs):
    """Read a text file with missing values into a tensor: ``numpy.genfromtxt``, every argument
    as NumPy's (missing entries become ``nan`` or ``filling_values``), the result wrapped as a
    tensor. Masked (``usemask=True``) and structured (``names=True``) results are refused:
    strided has neither.

    Examples
    --------
    >>> import io, strided
    >>> strided.genfromtxt(io.StringIO("1,2\\n3,"), delimiter=",")
    tensor([[ 1.,  2.],
            [ 3., nan]])
    """
    result = np.genfromtxt(fname, _numpy_dtype(dtype), *args, **kwargs)
    if np.ma.isMaskedArray(result):
        raise TypeError(
            "strided.genfromtxt: usemask=True makes a masked array, which strided "
            "does not have; leave usemask=False (missing values become nan)"
        )
    return _wrap_text_result(result, "genfromtxt")


def _read_as(result, dtype, name):
    """NumPy's ``result`` as a tensor of ``dtype`` (bfloat16, which NumPy lacks, read as float32
    and rounded once)."""
    t = _to_tensor(result, f"strided.{name}: the result")
    return t.astype(dtype) if _numpy_dtype(dtype) is None else t


def _read_dtype(dtype):
    return np.float32 if _numpy_dtype(dtype) is None else _numpy_dtype(dtype)


def fromfile(file, dtype=float, count=-1, sep="", offset=0, *, like=None):
    """Read a tensor from a binary file (``sep=""``) or a text file of numbers separated by
    ``sep``: ``numpy.fromfile``, every argument as NumPy's, the result wrapped as a tensor.
    ``tofile``'s reverse; ``load`` reads strided's own format with its dtype and shape.

    Examples
    --------
    >>> import os, tempfile, strided
    >>> path = os.path.join(tempfile.mkdtemp(), "x.bin")
    >>> strided.asarray([1.5, 2.5]).numpy().tofile(path)
    >>> strided.fromfile(path)
    tensor([1.5, 2.5])
    """
    result = np.fromfile(file, _read_dtype(dtype), count=count, sep=sep, offset=offset)
    return _read_as(result, dtype, "fromfile")


def fromstring(string, dtype=float, count=-1, *, sep, like=None):
    """The numbers of a text ``string`` separated by ``sep``: ``numpy.fromstring`` (whose binary
    mode, ``sep=""``, NumPy has removed: use ``frombuffer``).

    Examples
    --------
    >>> import strided
    >>> strided.fromstring("1 2 3", dtype=strided.int32, sep=" ")
    tensor([1, 2, 3], dtype=strided.int32)
    """
    result = np.fromstring(string, _read_dtype(dtype), count=count, sep=sep)
    return _read_as(result, dtype, "fromstring")


def fromiter(iter, dtype, count=-1, *, like=None):  # noqa: A002 - NumPy's argument name
    """A 1-D tensor of the values an iterable yields: ``numpy.fromiter``, every argument as
    NumPy's (``count`` reads at most that many; NumPy's structured and object dtypes are not
    strided's).

    Examples
    --------
    >>> import strided
    >>> strided.fromiter((i * i for i in range(4)), dtype=strided.int64)
    tensor([0, 1, 4, 9])
    """
    return _read_as(np.fromiter(iter, _read_dtype(dtype), count=count), dtype, "fromiter")


def savetxt(fname, X, *args, **kwargs):
    """Write a 1-D or 2-D tensor to a text file: ``numpy.savetxt``, every argument as NumPy's.
    A path is written atomically (Note [Atomic writes]); a name ending in ``.gz`` is gzipped.

    Examples
    --------
    >>> import io, strided
    >>> buf = io.StringIO()
    >>> strided.savetxt(buf, strided.asarray([[1, 2], [3, 4]]), fmt="%d")
    >>> print(buf.getvalue(), end="")
    1 2
    3 4
    """
    a = _to_numpy(X, "strided.savetxt: X")
    if _is_path(fname):
        with _atomic_path(fname) as tmp:
            np.savetxt(tmp, a, *args, **kwargs)
    else:
        np.savetxt(fname, a, *args, **kwargs)
