"""NumPy's ``packbits`` and ``unpackbits``: bools (or the truth of any values) packed eight to
a uint8 byte, and bytes unpacked into their bits, composed of elementwise ops and a sum, so
they run on every device.

Note [Bits in bytes]
~~~~~~~~~~~~~~~~~~~~
``packbits`` reads each element as a bit (non-zero is 1) and packs groups of eight along
``axis`` (the flattened input when None) into one uint8, the first element into the highest
bit (``bitorder="big"``) or the lowest (``"little"``); a last group of fewer than eight is
padded with zeros. That is a reshape of the (padded) axis into (n / 8, 8) and a sum of the bits
times their weights 128, 64, ... 1, which no byte can overflow. ``unpackbits`` is the inverse:
each uint8 shifted right by 7, 6, ... 0 (or 0 ... 7) and masked with 1, the new axis of eight
folded into the old one, then ``count`` bits kept (a negative count drops that many from the
end; a count beyond the bits there pads with zeros), as NumPy does.
"""

from __future__ import annotations

from strided import _check
from strided._dtype import uint8
from strided._ops import creation as _cr
from strided._ops import elementwise as _ew
from strided._ops import reduction as _red
from strided._ops import shape as _shape

__all__ = ["packbits", "unpackbits"]

_tensor = _check.tensor


def _bit_order(name, bitorder):
    if bitorder not in ("big", "little"):
        raise ValueError(f"{name}: bitorder must be 'big' or 'little', got {bitorder!r}")
    return bitorder == "big"


def _along_last(name, x, axis):
    """x flattened (axis None) or with ``axis`` moved last, and the axis it goes back to."""
    if axis is None:
        return x.reshape(-1), None
    axis = _check.axis(axis, x.ndim, name)
    return x.moveaxis(axis, -1), axis


def packbits(a, /, axis=None, bitorder="big"):
    """Pack the truth of ``a``'s elements into the bits of uint8 bytes along ``axis`` (the
    flattened ``a`` if None), eight to a byte, zero-padded: Note [Bits in bytes].

    Examples
    --------
    >>> import strided
    >>> strided.packbits(strided.asarray([1, 0, 1, 1, 0, 0, 0, 1, 1]))
    tensor([177, 128], dtype=strided.uint8)
    >>> strided.packbits(strided.asarray([1, 1, 0]), bitorder="little")
    tensor([3], dtype=strided.uint8)
    """
    big = _bit_order("packbits", bitorder)
    a = _tensor(a)
    if a.dtype.kind not in "biu":
        raise TypeError(f"packbits: a must be of integer or bool type, got {a.dtype.name}")
    x, axis = _along_last("packbits", a, axis)
    n = x.shape[-1]
    groups = (n + 7) // 8
    bits = _ew.not_equal(x, 0).astype(uint8)
    if groups * 8 != n:
        pad = _cr.zeros(x.shape[:-1] + (groups * 8 - n,), dtype=uint8, device=a.device)
        bits = _shape.concat([bits, pad], axis=-1)
    bits = bits.reshape(x.shape[:-1] + (groups, 8))
    weights = [128, 64, 32, 16, 8, 4, 2, 1] if big else [1, 2, 4, 8, 16, 32, 64, 128]
    packed = _red.sum(_ew.multiply(bits, _cr.asarray(weights, dtype=uint8, device=a.device)),
                      axis=-1, dtype=uint8)  # fmt: skip
    return packed if axis is None else packed.moveaxis(-1, axis)


def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """Unpack each uint8 of ``a`` into its eight bits (uint8 0 or 1) along ``axis`` (the
    flattened ``a`` if None), keeping ``count`` of them: Note [Bits in bytes].

    Examples
    --------
    >>> import strided
    >>> strided.unpackbits(strided.asarray([177], dtype=strided.uint8))
    tensor([1, 0, 1, 1, 0, 0, 0, 1], dtype=strided.uint8)
    >>> strided.unpackbits(strided.asarray([3], dtype=strided.uint8), count=3, bitorder="little")
    tensor([1, 1, 0], dtype=strided.uint8)
    """
    big = _bit_order("unpackbits", bitorder)
    a = _tensor(a)
    if a.dtype is not uint8:
        raise TypeError(f"unpackbits: a must be of dtype uint8, got {a.dtype.name}")
    x, axis = _along_last("unpackbits", a, axis)
    shifts = [7, 6, 5, 4, 3, 2, 1, 0] if big else [0, 1, 2, 3, 4, 5, 6, 7]
    shifts = _cr.asarray(shifts, dtype=uint8, device=a.device)
    bits = _ew.bitwise_and(_ew.bitwise_right_shift(x.reshape(x.shape + (1,)), shifts), 1)
    bits = bits.reshape(x.shape[:-1] + (x.shape[-1] * 8,))
    if count is not None:
        count = _check.integer(count, "unpackbits", "count")
        n = bits.shape[-1]
        keep = count if count >= 0 else max(n + count, 0)
        if keep <= n:
            bits = bits[..., :keep]
        else:
            pad = _cr.zeros(bits.shape[:-1] + (keep - n,), dtype=uint8, device=a.device)
            bits = _shape.concat([bits, pad], axis=-1)
    return bits if axis is None else bits.moveaxis(-1, axis)
