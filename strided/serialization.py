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
"""

from __future__ import annotations

import json
import math
import os
import struct

import numpy as np

from strided import _core
from strided._dtype import all_dtypes
from strided._ops import creation as _creation

__all__ = ["save", "load"]

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


def save(obj, f):
    """Write ``obj`` (a tensor, or dicts/lists/tuples of tensors and plain values, such as a
    ``state_dict``) to the path or binary file ``f``. See Note [A file format that cannot run
    code].

    Examples
    --------
    >>> import io, strided
    >>> buf = io.BytesIO()
    >>> strided.save({"w": strided.arange(6.0).reshape(2, 3).T, "step": 3}, buf)
    >>> _ = buf.seek(0)
    >>> strided.load(buf)
    {'w': tensor([[0., 3.],
            [1., 4.],
            [2., 5.]]), 'step': 3}
    """
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
    own = isinstance(f, (str, os.PathLike))
    fh = open(f, "wb") if own else f
    try:
        fh.write(MAGIC)
        fh.write(struct.pack("<Q", len(hbytes)))
        fh.write(hbytes)
        pos = 0
        for meta, data in w.tensors:
            fh.write(b"\0" * (meta["offset"] - pos))
            fh.write(data)
            pos = meta["offset"] + len(data)
    finally:
        if own:
            fh.close()


def _refuse(what, found, source):
    return ValueError(f"strided.load: {source} is not a strided file ({what}); {found}")


def _describe_magic(head):
    if head[:1] == b"\x80" or head[:1] in (b"(", b"]", b"}") or head.startswith(b"c"):
        return (
            "it starts like a Python pickle. strided.load never unpickles, because unpickling "
            "runs whatever code the file names; load it with pickle only if you trust its "
            "author, then strided.save the tensors"
        )
    if head.startswith(b"PK"):
        return (
            "it is a zip archive (PyTorch's torch.save format, or NumPy's .npz); convert it "
            "with torch.load(..., weights_only=True) or numpy.load(..., allow_pickle=False)"
        )
    if head.startswith(b"\x93NUMPY"):
        return "it is a NumPy .npy file: use numpy.load(..., allow_pickle=False)"
    return f"it starts with {head[:8]!r}, not the magic {MAGIC!r}"


def load(f, device=None):
    """Read what ``save`` wrote, from a path or binary file. Tensors load contiguous, on the CPU
    unless ``device`` says otherwise. Refuses anything that is not a strided file, without
    running it (Note [A file format that cannot run code])."""
    own = isinstance(f, (str, os.PathLike))
    source = repr(os.fspath(f)) if own else "the file"
    fh = open(f, "rb") if own else f
    try:
        blob = fh.read()
    finally:
        if own:
            fh.close()
    if not isinstance(blob, (bytes, bytearray)):
        raise TypeError("strided.load: the file must be opened in binary mode ('rb')")
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
