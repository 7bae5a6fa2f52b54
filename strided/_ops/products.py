"""NumPy's products: ``einsum``, ``dot``, ``inner``, ``vdot``, ``kron``, ``cross``, ``convolve``
and ``correlate``, composed of views, elementwise ops and ``matmul``, as PyTorch's
CompositeImplicitAutograd ops are: no kernel of their own, so they run on every device and
autograd differentiates them through their parts.

``einsum("bij,bjk->bik", a, b)`` names every dim of every operand with a letter. A letter shared
by two operands and kept in the output is a *batch* dim; shared and not kept, a *contracted* dim
(summed over); in one operand only, a *free* dim. Contracting two operands is then one batched
matrix product: permute ``a`` to (batch, free of a, contracted) and ``b`` to (batch, contracted,
free of b), reshape each to (batch, M, K) and (batch, K, N) by flattening the groups, call
``matmul``, and reshape the (batch, M, N) result back to (batch, free of a, free of b). A letter
repeated in one operand (``"ii->i"``) first takes that diagonal (``strided.diagonal``, a view);
a letter in no other operand and not in the output is summed away before any product. More
operands are contracted two at a time until one is left, which is permuted to the output order.
"""

from __future__ import annotations

import math
import operator

from strided import _check, _core
from strided._dtype import as_dtype, can_cast, result_type
from strided._ops import copying as _copying
from strided._ops import elementwise as _ew
from strided._ops import reduction as _red
from strided._ops import views as _vops
from strided._ops.linalg import matmul, tensordot
from strided._ops.padding import pad_pairs
from strided._ops.shape import stack

__all__ = [
    "convolve",
    "correlate",
    "cross",
    "dot",
    "einsum",
    "inner",
    "kron",
    "vdot",
]


_tensor = _check.tensor  # on ``like``'s device when given


def _tensors(a, b):
    """Both arguments as tensors, a non-tensor placed on the other's device."""
    if isinstance(a, _core.TensorBase):
        return a, _tensor(b, a)
    b = _tensor(b)
    return _tensor(a, b), b


def _finish(result, out):
    if out is None:
        return result
    return _copying.copy_(out, result)


def _sum_keep_dtype(x, axes, keepdims=False):
    """Sum over ``axes`` in ``x``'s own dtype (einsum accumulates in the result dtype, as NumPy;
    bool sums are ``any``)."""
    if not axes:
        return x
    if x.dtype.kind == "b":
        return _red.any(x, axis=tuple(axes), keepdims=keepdims)
    return _red.sum(x, axis=tuple(axes), keepdims=keepdims, dtype=x.dtype)


# ---------------------------------------------------------------------------------------------
# einsum
# ---------------------------------------------------------------------------------------------

# Note [einsum labels]
# ~~~~~~~~~~~~~~~~~~~~
# Each operand's subscript becomes a list of labels, one per dim: a letter is itself; the dims
# covered by "..." are the ints 0 .. E-1, right-aligned across operands (E is the most dims any
# "..." covers), so that ellipsis dims broadcast as NumPy's do. Every label, letter or not, is
# then treated alike: a dim of size 1 broadcasts against the same label's size elsewhere (as in
# NumPy, einsum("i,i", [1], [1, 2, 3]) is 6), any other mismatch raises. The implicit output
# (no "->") is the ellipsis dims, then the letters used once, in ASCII order (uppercase first).
# Sums and products accumulate in the result dtype, as NumPy's einsum does: int8 wraps around,
# bool gives the logical or of ands.


def _parse_term(term, where):
    """The letters of one subscript term, with None standing for its '...'."""
    labels = []
    i = 0
    while i < len(term):
        c = term[i]
        if term.startswith("...", i):
            if None in labels:
                raise ValueError(f"einsum: {where} {term!r} has more than one '...'")
            labels.append(None)
            i += 3
            continue
        if not c.isascii() or not c.isalpha():
            raise ValueError(
                f"einsum: {where} {term!r} has the character {c!r}; subscripts are the letters "
                "a-z and A-Z, '...', ',' and '->'"
            )
        labels.append(c)
        i += 1
    return labels


def _parse(subscripts, operands):
    """(labels of each operand, labels of the output): see Note [einsum labels]."""
    if not isinstance(subscripts, str):
        raise TypeError(
            "einsum: the first argument must be a subscripts string such as 'ij,jk->ik' (the "
            f"sublist form einsum(op, [0, 1], ...) is not supported), got {type(subscripts)}"
        )
    spec = subscripts.replace(" ", "")
    if spec.count("->") > 1:
        raise ValueError(f"einsum: subscripts {subscripts!r} have more than one '->'")
    inputs, arrow, output = spec.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands):
        raise ValueError(
            f"einsum: subscripts {subscripts!r} name {len(terms)} operand(s) but "
            f"{len(operands)} were given"
        )
    parsed = [_parse_term(t, f"the subscript of operand {i}") for i, t in enumerate(terms)]
    n_ell = 0
    for i, (labels, x) in enumerate(zip(parsed, operands, strict=True)):
        named = len(labels) - (None in labels)
        if None in labels and x.ndim >= named:
            n_ell = max(n_ell, x.ndim - named)
        elif x.ndim != named:
            raise ValueError(
                f"einsum: operand {i} has {x.ndim} dims (shape {x.shape}) but its subscript "
                f"{terms[i]!r} names {named}"
                + ("; add '...' to cover the others" if x.ndim > named else "")
            )
    in_labels = []
    for labels, x in zip(parsed, operands, strict=True):
        full = []
        for lab in labels:
            if lab is None:
                k = x.ndim - (len(labels) - 1)
                full.extend(range(n_ell - k, n_ell))
            else:
                full.append(lab)
        in_labels.append(full)
    letters = [c for labels in parsed for c in labels if c is not None]
    if arrow:
        out = _parse_term(output, "the output subscript")
        for c in out:
            if c is not None and out.count(c) > 1:
                raise ValueError(f"einsum: output subscript {output!r} repeats {c!r}")
            if c is not None and c not in letters:
                raise ValueError(
                    f"einsum: output subscript {output!r} has {c!r}, which no operand's "
                    f"subscript has (inputs: {inputs!r})"
                )
        if None not in out and n_ell:
            raise ValueError(
                f"einsum: '...' covers {n_ell} dim(s) of the operands but the output "
                f"subscript {output!r} has no '...'; add it (e.g. '...{output}')"
            )
        out_labels = []
        for c in out:
            out_labels.extend(range(n_ell) if c is None else [c])
    else:
        once = sorted(c for c in set(letters) if letters.count(c) == 1)
        out_labels = list(range(n_ell)) + once
    return in_labels, out_labels


def _label_name(lab):
    return repr(lab) if isinstance(lab, str) else f"'...' dim {lab}"


def _take_diagonals(x, labels, i):
    """Collapse each label repeated in one operand to its diagonal (a view)."""
    labels = list(labels)
    while True:
        dup = next((lab for lab in labels if labels.count(lab) > 1), None)
        if dup is None:
            return x, labels
        d1 = labels.index(dup)
        d2 = labels.index(dup, d1 + 1)
        if x.shape[d1] != x.shape[d2]:
            raise ValueError(
                f"einsum: operand {i} repeats subscript {dup!r} on dims of sizes "
                f"{x.shape[d1]} and {x.shape[d2]} (shape {x.shape}); a repeated subscript takes "
                "a diagonal and needs equal sizes"
            )
        x = _vops.diagonal(x, 0, d1, d2)  # removes both dims, appends the diagonal last
        labels = [lab for k, lab in enumerate(labels) if k not in (d1, d2)] + [dup]


def _check_sizes(operands, labels):
    """The size of every label, after broadcasting size-1 dims; raise on a real mismatch."""
    sizes, seen = {}, {}
    for i, (x, labs) in enumerate(zip(operands, labels, strict=True)):
        for lab, n in zip(labs, x.shape, strict=True):
            if lab not in sizes or (sizes[lab] == 1 and n != 1):
                sizes[lab], seen[lab] = n, (i, n)
            elif n not in (1, sizes[lab]):
                j, m = seen[lab]
                raise ValueError(
                    f"einsum: subscript {_label_name(lab)} has size {m} in operand {j} "
                    f"(shape {operands[j].shape}) but size {n} in operand {i} (shape {x.shape}); "
                    "sizes must be equal, or 1 to broadcast"
                )
    return sizes


def _contract(a, la, b, lb, keep):
    """Contract two operands (see the module docstring); returns (result, its labels)."""
    batch = [lab for lab in la if lab in lb and lab in keep]
    summed = [lab for lab in la if lab in lb and lab not in keep]
    a_only = [lab for lab in la if lab not in lb]
    b_only = [lab for lab in lb if lab not in la]
    # A contracted label of size 1 on one side only: sum the other side first (keeping the dim).
    for lab in summed:
        na, nb = a.shape[la.index(lab)], b.shape[lb.index(lab)]
        if na != nb:
            if na == 1:
                b = _sum_keep_dtype(b, [lb.index(lab)], keepdims=True)
            else:
                a = _sum_keep_dtype(a, [la.index(lab)], keepdims=True)
    a = _vops.permute_dims(a, [la.index(lab) for lab in batch + a_only + summed])
    b = _vops.permute_dims(b, [lb.index(lab) for lab in batch + summed + b_only])
    nb_ = len(batch)
    a_free = a.shape[nb_ : nb_ + len(a_only)]
    b_free = b.shape[nb_ + len(summed) :]
    k = math.prod(a.shape[nb_ + len(a_only) :])
    a = _vops.reshape(a, a.shape[:nb_] + (math.prod(a_free), k))
    b = _vops.reshape(b, b.shape[:nb_] + (k, math.prod(b_free)))
    r = matmul(a, b)
    r = _vops.reshape(r, r.shape[:nb_] + a_free + b_free)
    return r, batch + a_only + b_only


def einsum(subscripts, /, *operands, out=None, dtype=None, casting="safe", optimize=False):
    """The Einstein summation of ``operands`` described by ``subscripts``, as ``numpy.einsum``.

    ``subscripts`` names each operand's dims with letters, separated by commas, then
    optionally ``->`` and the output's letters: ``"ij,jk->ik"`` is a matrix product,
    ``"ii"`` a trace, ``"ii->i"`` a diagonal, ``"ij->ji"`` a transpose, ``"i,j->ij"`` an
    outer product, ``"...ij,...jk"`` a batched matrix product. Without ``->``, the output is
    the ``...`` dims, then the letters used once, in alphabetical order. Letters shared by two
    operands and missing from the output are summed over; dims of size 1 broadcast. The result
    dtype is that of the operands promoted together (or ``dtype``), and sums accumulate in it
    (see Note [einsum labels]). ``optimize`` (``True``, ``"greedy"`` or ``"optimal"``)
    contracts first the pair of operands whose product is smallest; with ``False`` they are
    contracted left to right. The values are the same either way. The sublist form
    ``einsum(a, [0, 1], b, [1, 2])`` is not supported.

    Computed as described in the module docstring: views, sums and one ``matmul`` per pair
    of operands, so it is differentiable and runs on every device.

    Examples
    --------
    >>> import strided
    >>> a = strided.arange(6.0).reshape(2, 3)
    >>> strided.einsum("ij,kj->ik", a, a)
    tensor([[ 5., 14.],
            [14., 50.]])
    >>> strided.einsum("ii", strided.eye(3))
    tensor(3.)
    >>> strided.einsum("ij", a).shape, strided.einsum("ji", a).shape
    ((2, 3), (3, 2))
    >>> strided.einsum("...j->...", a)
    tensor([ 3., 12.])
    """
    if not operands:
        raise ValueError("einsum: no operands given; pass at least one after the subscripts")
    device_of = next((x for x in operands if isinstance(x, _core.TensorBase)), None)
    ops = [_tensor(x, device_of) for x in operands]
    in_labels, out_labels = _parse(subscripts, ops)
    dt = result_type(*ops) if dtype is None else as_dtype(dtype)
    for i, x in enumerate(ops):
        if dtype is not None and not can_cast(x.dtype, dt, casting):
            raise TypeError(
                f"einsum: operand {i} ({x.dtype}) cannot be cast to dtype={dt} under "
                f"casting={casting!r}; pass casting='unsafe' (or 'same_kind') to allow it"
            )
    ops = [x if x.dtype is dt else _vops.astype(x, dt) for x in ops]
    diagonals = [_take_diagonals(x, in_labels[i], i) for i, x in enumerate(ops)]
    ops = [p[0] for p in diagonals]
    labels = [p[1] for p in diagonals]
    sizes = _check_sizes(ops, labels)

    def needed(skip):
        """Labels some other operand or the output still needs."""
        keep = set(out_labels)
        for j, labs in enumerate(labels):
            if j not in skip:
                keep.update(labs)
        return keep

    # Sum away the labels only this operand has (and the output does not).
    for i in range(len(ops)):
        keep = needed({i})
        axes = [d for d, lab in enumerate(labels[i]) if lab not in keep]
        ops[i] = _sum_keep_dtype(ops[i], axes)
        labels[i] = [lab for lab in labels[i] if lab in keep]

    while len(ops) > 1:
        if optimize and len(ops) > 2:
            # greedy: the pair whose product has the fewest elements
            pairs = [(i, j) for i in range(len(ops)) for j in range(i + 1, len(ops))]
            costs = [
                math.prod(sizes[lab] for lab in set(labels[i]) | set(labels[j]) if lab in keep)
                for i, j in pairs
                for keep in (needed({i, j}),)
            ]
            i, j = pairs[costs.index(min(costs))]
        else:
            i, j = 0, 1
        keep = needed({i, j})
        r, lr = _contract(ops[i], labels[i], ops[j], labels[j], keep)
        ops = [r] + [x for k, x in enumerate(ops) if k not in (i, j)]
        labels = [lr] + [lab for k, lab in enumerate(labels) if k not in (i, j)]

    (x,), (labs,) = ops, labels
    x = _sum_keep_dtype(x, [d for d, lab in enumerate(labs) if lab not in out_labels])
    labs = [lab for lab in labs if lab in out_labels]
    x = _vops.permute_dims(x, [labs.index(lab) for lab in out_labels])
    return _finish(x, out)


# ---------------------------------------------------------------------------------------------
# dot, inner, vdot, kron
# ---------------------------------------------------------------------------------------------


def _check_len(name, x1, ax1, x2, ax2):
    if x1.shape[ax1] != x2.shape[ax2]:
        raise ValueError(
            f"{name}: shapes {x1.shape} and {x2.shape} are not aligned: dim {ax1 % x1.ndim} of "
            f"x1 (size {x1.shape[ax1]}) must equal dim {ax2 % x2.ndim} of x2 "
            f"(size {x2.shape[ax2]})"
        )


def dot(a, b, /, out=None):
    """The dot product of ``a`` and ``b`` by NumPy's rules (no conjugation).

    1-D and 1-D: the inner product (0-d). 2-D and 2-D: the matrix product. Either 0-d: the
    elementwise product. N-D and 1-D: the sum product over the last dim of ``a`` and ``b``.
    N-D and M-D (M >= 2): the sum product over the last dim of ``a`` and the second-to-last of
    ``b``, ``dot(a, b)[i, j, k, m] = sum(a[i, j, :] * b[k, :, m])`` (unlike ``matmul``, the
    other dims do not broadcast: the result has all of them). Computed with ``tensordot``.

    Examples
    --------
    >>> import strided
    >>> strided.dot(strided.asarray([1, 2, 3]), strided.asarray([4, 5, 6]))
    tensor(32)
    >>> strided.dot(strided.ones((2, 3, 4)), strided.ones((5, 4, 6))).shape
    (2, 3, 5, 6)
    """
    a, b = _tensors(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return _ew.multiply(a, b, out=out)
    if a.ndim <= 2 and b.ndim <= 2:
        _check_len("dot", a, -1, b, 0 if b.ndim == 1 else -2)
        return matmul(a, b, out=out)
    axb = 0 if b.ndim == 1 else b.ndim - 2
    _check_len("dot", a, -1, b, axb)
    return _finish(tensordot(a, b, axes=([a.ndim - 1], [axb])), out)


def inner(a, b, /):
    """The inner product over the last dims of ``a`` and ``b`` (no conjugation), as
    ``numpy.inner``: ``inner(a, b)[i, j, k, m] = sum(a[i, j, :] * b[k, m, :])``; either 0-d is
    the elementwise product.

    Examples
    --------
    >>> import strided
    >>> strided.inner(strided.asarray([1, 2, 3]), strided.asarray([0, 1, 0]))
    tensor(2)
    >>> strided.inner(strided.ones((2, 3)), strided.ones((4, 3))).shape
    (2, 4)
    """
    a, b = _tensors(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return _ew.multiply(a, b)
    _check_len("inner", a, -1, b, -1)
    return tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1]))


def vdot(a, b, /):
    """``sum(conj(a) * b)`` over all elements, both flattened (row-major order) to vectors of
    the same length, as ``numpy.vdot``; a 0-d result.

    Examples
    --------
    >>> import strided
    >>> strided.vdot(strided.asarray([1j, 2]), strided.asarray([1j, 3]))
    tensor(7.+0.j, dtype=strided.complex128)
    >>> strided.vdot(strided.ones((2, 2)), strided.ones(4))
    tensor(4.)
    """
    a, b = _tensors(a, b)
    if a.numel() != b.numel():
        raise ValueError(
            f"vdot: a (shape {a.shape}, {a.numel()} elements) and b (shape {b.shape}, {b.numel()} "
            "elements) must have the same number of elements"
        )
    a = _vops.reshape(a, (-1,))
    b = _vops.reshape(b, (-1,))
    if a.dtype.kind == "c":
        a = _ew.conj(a)
    return matmul(a, b)


def kron(a, b, /):
    """The Kronecker product: blocks of ``b`` scaled by each element of ``a``, as
    ``numpy.kron``. The input with fewer dims gets leading 1s; the result's shape is the
    product of the shapes, dim by dim. Computed as ``a`` reshaped to ``(a0, 1, a1, 1, ...)``
    times ``b`` reshaped to ``(1, b0, 1, b1, ...)``, flattened back in pairs.

    Examples
    --------
    >>> import strided
    >>> strided.kron(strided.eye(2, dtype=strided.int64), strided.asarray([[1, 2], [3, 4]]))
    tensor([[1, 2, 0, 0],
            [3, 4, 0, 0],
            [0, 0, 1, 2],
            [0, 0, 3, 4]])
    >>> strided.kron(strided.asarray([1, 10]), strided.asarray([1, 2, 3]))
    tensor([ 1,  2,  3, 10, 20, 30])
    """
    a, b = _tensors(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return _ew.multiply(a, b)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    a = _vops.reshape(a, tuple(v for n in sa for v in (n, 1)))
    b = _vops.reshape(b, tuple(v for n in sb for v in (1, n)))
    return _vops.reshape(_ew.multiply(a, b), tuple(x * y for x, y in zip(sa, sb, strict=True)))


# ---------------------------------------------------------------------------------------------
# cross
# ---------------------------------------------------------------------------------------------


def _axis(name, axis, x, argname):
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(
            f"cross: {name}={axis} is out of range for {argname} with {x.ndim} dims "
            f"(shape {x.shape})"
        )
    return axis % x.ndim


def cross(a, b, /, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of the vectors of ``a`` and ``b`` (along ``axisa`` and ``axisb``), as
    ``numpy.cross``; the other dims broadcast. ``axis``, when given, sets all three axes.

    Vectors have 3 components, or 2 (the z component taken as 0). Two 2-vectors give the z
    component of their product (a scalar per pair, with no vector dim); otherwise the result
    has 3-vectors along ``axisc``. (NumPy 2 deprecates 2-vectors; they are supported here
    without a warning.)

    Examples
    --------
    >>> import strided
    >>> strided.cross(strided.asarray([1, 0, 0]), strided.asarray([0, 1, 0]))
    tensor([0, 0, 1])
    >>> strided.cross(strided.asarray([1.0, 2.0]), strided.asarray([3.0, 4.0]))
    tensor(-2.)
    """
    a, b = _tensors(a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    for x, argname in ((a, "a"), (b, "b")):
        if x.ndim == 0:
            raise ValueError(f"cross: {argname} is 0-d; it must hold vectors of 2 or 3 components")
    a = _vops.movedim(a, _axis("axisa", axisa, a, "a"), -1)
    b = _vops.movedim(b, _axis("axisb", axisb, b, "b"), -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError(
            f"cross: incompatible vector sizes {a.shape[-1]} (a) and {b.shape[-1]} (b); each "
            "must be 2 or 3 (the vectors lie along axisa and axisb)"
        )
    dt = result_type(a, b)
    if dt.kind == "b":
        raise TypeError("cross: bool inputs are not supported (it subtracts); cast to an integer")
    a0, a1 = a[..., 0], a[..., 1]
    b0, b1 = b[..., 0], b[..., 1]
    z = _ew.subtract(_ew.multiply(a0, b1), _ew.multiply(a1, b0))
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return z
    if a.shape[-1] == 3 and b.shape[-1] == 3:
        a2, b2 = a[..., 2], b[..., 2]
        x = _ew.subtract(_ew.multiply(a1, b2), _ew.multiply(a2, b1))
        y = _ew.subtract(_ew.multiply(a2, b0), _ew.multiply(a0, b2))
    elif a.shape[-1] == 3:  # b's z is 0
        a2 = a[..., 2]
        x = _ew.negative(_ew.multiply(a2, b1))
        y = _ew.multiply(a2, b0)
    else:  # a's z is 0
        b2 = b[..., 2]
        x = _ew.multiply(a1, b2)
        y = _ew.negative(_ew.multiply(a0, b2))
    x, y, z = (v if v.dtype is dt else _vops.astype(v, dt) for v in (x, y, z))
    x, y, z = _vops.broadcast_arrays(x, y, z)
    result = stack([x, y, z], axis=-1)
    return _vops.movedim(result, -1, _axis("axisc", axisc, result, "the result"))


# ---------------------------------------------------------------------------------------------
# convolve, correlate
# ---------------------------------------------------------------------------------------------

# Note [Convolution as a matrix product]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# After swapping so that ``a`` is the longer input (n >= m, as NumPy does: convolution
# commutes), ``a`` is zero-padded (``pad``, a fresh contiguous tensor) and viewed through
# ``as_strided`` as a matrix of overlapping windows, row i holding padded[i : i + m] (strides
# (1, 1), no copy); the windows times the reversed ``v`` (a negative-stride view) is one
# matrix-vector product. The padding picks the mode: "full" m - 1 zeros on each side (n + m - 1
# outputs), "same" m // 2 before and (m - 1) // 2 after (n outputs, centred as NumPy's; for an
# even m, NumPy's correlate of a shorter ``a`` centres one place later, and so does ours),
# "valid" none (n - m + 1 outputs). as_strided's backward adds the gradient of every window
# back into the padded input, and pad's backward crops it, so the result is differentiable.


# Note [Convolution in blocks of m outputs]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The window matrix above is a view, but matmul must copy it (no BLAS layout has overlapping
# rows), and it holds n_out * m elements: 1e7 for a 1e5-long signal and 101 taps. Blocking cuts
# that to 2 * n_out. Write output k = q*m + r (0 <= r < m): it needs padded[q*m + r + j] for
# j < m, all inside the 2m-long row ``padded[q*m : q*m + 2m]``. So with those rows as a
# (Q, 2m) view (stride m: neighbours overlap by m) and the (2m, m) Toeplitz matrix T[i, r] =
# w[i - r] (0 where i - r is outside 0..m-1, itself an as_strided view of w padded with zeros,
# stride -1 along r), ``rows @ T`` holds output q*m + r at [q, r]: one GEMM of Q x 2m x m, twice
# the multiply-adds of the windows but through BLAS, over a copy of 2 * n_out elements. T has
# 2m^2 elements, so long filters (m > _BLOCKED_TAPS) keep the window matrix.
_BLOCKED_TAPS = 512


def _vector(name, x, argname):
    if x.ndim != 1:
        raise ValueError(f"{name}: {argname} must be 1-D, got shape {x.shape}")
    if x.shape[0] == 0:
        raise ValueError(f"{name}: {argname} cannot be empty")


def _convolve(name, a, v, mode, late=False):
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"{name}: mode must be 'full', 'same' or 'valid', got {mode!r}")
    a, v = _tensors(a, v)
    _vector(name, a, "a")
    _vector(name, v, "v")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    n, m = a.shape[0], v.shape[0]
    dt = result_type(a, v)
    a = a if a.dtype is dt else _vops.astype(a, dt)
    v = v if v.dtype is dt else _vops.astype(v, dt)
    same = ((m - 1) // 2, m // 2) if late else (m // 2, (m - 1) // 2)
    before, after = {"full": (m - 1, m - 1), "same": same, "valid": (0, 0)}[mode]
    w = _vops.flip(v, axis=0)
    n_out = n + before + after - m + 1
    if m <= _BLOCKED_TAPS:  # see Note [Convolution in blocks of m outputs]
        q = -(-n_out // m)  # blocks of m outputs
        padded = pad_pairs(a, [(before, (q + 1) * m - n - before)])  # room for q rows of 2m
        rows = _vops.as_strided(padded, (q, 2 * m), (m, 1), None)
        z = pad_pairs(w, [(m, m)])  # toeplitz[i, r] = w[i - r], 0 outside: z[m + i - r]
        toeplitz = _vops.as_strided(z, (2 * m, m), (1, -1), m)
        out = _vops.reshape(matmul(rows, toeplitz), (-1,))
        return out[:n_out]
    padded = pad_pairs(a, [(before, after)])  # see Note [Convolution as a matrix product]
    windows = _vops.as_strided(padded, (n_out, m), (padded.stride(0), padded.stride(0)), None)
    return matmul(windows, w)


def convolve(a, v, /, mode="full"):
    """The discrete linear convolution of two 1-D sequences, as ``numpy.convolve``:
    ``out[k] = sum_j a[j] * v[k - j]``.

    ``mode``: ``"full"`` (default) every overlap, ``max(n, m) + min(n, m) - 1`` values;
    ``"same"`` ``max(n, m)`` values centred on the full result; ``"valid"`` only complete
    overlaps, ``max(n, m) - min(n, m) + 1`` values. See Note [Convolution as a matrix product].

    Examples
    --------
    >>> import strided
    >>> strided.convolve(strided.asarray([1, 2, 3]), strided.asarray([0, 1, 0.5]))
    tensor([0. , 1. , 2.5, 4. , 1.5])
    >>> strided.convolve(strided.asarray([1, 2, 3]), strided.asarray([0, 1, 0.5]), "valid")
    tensor([2.5])
    """
    return _convolve("convolve", a, v, mode)


def correlate(a, v, /, mode="valid"):
    """The cross-correlation of two 1-D sequences, as ``numpy.correlate``:
    ``out[k] = sum_n a[n + k] * conj(v[n])``, which is ``convolve(a, conj(v[::-1]), mode)``.

    ``mode`` as in ``convolve``, but defaulting to ``"valid"``. ``v`` is conjugated (NumPy's
    convention since 1.5; some texts conjugate ``a`` instead).

    Examples
    --------
    >>> import strided
    >>> strided.correlate(strided.asarray([1, 2, 3]), strided.asarray([0, 1, 0.5]))
    tensor([3.5])
    >>> strided.correlate(strided.asarray([1, 2, 3]), strided.asarray([0, 1, 0.5]), "full")
    tensor([0.5, 2. , 3.5, 3. , 0. ])
    """
    a, v = _tensors(a, v)
    if v.ndim == 1 and v.dtype.kind == "c":
        v = _ew.conj(v)
    # NumPy correlates a shorter a by swapping the two and reversing the result, which moves
    # the "same" window of an even-length a one place later.
    late = a.ndim == 1 and v.ndim == 1 and v.shape[0] > a.shape[0]
    return _convolve("correlate", a, _vops.flip(v, axis=0) if v.ndim == 1 else v, mode, late)
