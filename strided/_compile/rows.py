"""Row groups: consecutive fusion groups that reduce over the same trailing dims, run as one
loop over rows (Inductor's persistent reductions, reduced).

Note [One pass per row]
~~~~~~~~~~~~~~~~~~~~~~~
Softmax over the rows of a (4096, 1024) matrix decomposes into ``amax``, ``exp(x - m)`` with
its ``sum``, and ``e / s``: three fusion groups (Note [Fusion groups]), each a pass over the
whole matrix, and the middle one writes ``e`` (16 MiB) for the last to read back. Layer norm
is five: the mean, the squared deviations' sum, the scalars per row, the normalised output.
Every value of those groups depends only on its own row, so ``merge_rows`` joins such a run of
consecutive groups into one *row group* whose C is::

    for each row (in parallel):
        m = max over the row of x                   (one inner loop per reduction, the row
        s = sum over the row of exp(x - m)           read from L1/L2 after the first)
        for each element: out = exp(x - m) / s      (the values written, computed again)

The matrix is read from memory once and the output written once; an intermediate that a later
inner loop needs (``e``) is computed again from the row rather than stored (Inductor's choice
too: the row's loads are cache hits, its arithmetic is vectorised). The values are the three
groups' values exactly, in the same order of operations: the variance is still the mean of the
squared deviations from the mean, not Welford's running update, which would give other
roundings than eager's two passes.

A run starts at a group whose reduction keeps its dims (``keepdims=True``) and reduces the
trailing dims R of the loop shape S while leaving some dims kept, and takes each following
group that reads a value of the run and is pointwise over S, a reduction over the same R, or
pointwise over the kept shape (the scalars of a row: ``log(s)``, ``sqrt(var + eps)``); a
group that reads nothing of the run is looked past and the groups that join move before it
(a graph returning two softmaxes closes both quotients last, after the other's groups). The
tensors it reads over S must step by 1 along the last dim (else a row is not contiguous, and
the column layout of Note [The loop nest] is the better loop). In the C, pointwise values
over S are statements inside the inner loops that need them; values over the kept shape are
scalars of the row; the values that later steps read are written, over S in a last inner
loop.
"""

from __future__ import annotations

import math

from strided._compile.codegen import (
    C_TYPES,
    GRAIN,
    Group,
    _broadcast_strides,
    _loop,
    accumulator,
    node_statement,
    out_strides,
)

__all__ = ["RowGroup", "merge_rows", "generate_row_c"]


class RowGroup(Group):
    """Fusion groups joined into one loop over rows (Note [One pass per row])."""

    def __init__(self, index, shape, reduced, groups):
        super().__init__(index, shape)
        self.reduced = reduced
        self.nodes = [n for g in groups for n in g.nodes]
        self.reductions = [g.reduction for g in groups if g.reduction is not None]
        self.reduction = self.reductions[-1]  # not None: no buffer of it is written into
        self.closed = True

    def __repr__(self):
        return "row " + super().__repr__()


def _axes(red, nd):
    axis = red.kwargs.get("axis")
    axes = range(nd) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    return tuple(sorted({a % nd for a in axes})) if nd else ()


def _starts_run(g):
    red = g.reduction
    if red is None or not red.kwargs.get("keepdims"):
        return None
    nd = len(g.shape)
    axes = _axes(red, nd)
    if not axes or len(axes) == nd or axes != tuple(range(nd - len(axes), nd)):
        return None
    return axes


def _joins(g, shape, axes, kept_shape, members):
    if not any(p in members for n in g.nodes for p in n.all_input_nodes):
        return False
    if g.reduction is not None:
        return (
            g.shape == shape
            and g.reduction.kwargs.get("keepdims")
            and (_axes(g.reduction, len(shape)) == axes)
        )
    return g.shape in (shape, kept_shape)


def merge_rows(steps, strides_of):
    """``steps`` with each run of groups of Note [One pass per row] made one RowGroup (the
    groups' inputs and outputs must be known); ``strides_of(node)``: a read value's strides.
    A group that does not touch the run is looked past (softmax's quotient comes after the
    other row groups of a graph with several outputs): the groups that join move before it."""
    steps, i = list(steps), 0
    while i < len(steps):
        kind, g = steps[i]
        axes = _starts_run(g) if kind == "group" else None
        if axes is None:
            i += 1
            continue
        kept_shape = tuple(1 if d in axes else k for d, k in enumerate(g.shape))
        run, members = [g], set(g.nodes)
        skipped, passed = [], set()  # the independent groups looked past, and their nodes
        j = i + 1
        while j < len(steps) and steps[j][0] == "group":
            nxt = steps[j][1]
            reads = {p for n in nxt.nodes for p in n.all_input_nodes}
            if not reads & passed and _joins(nxt, g.shape, axes, kept_shape, members):
                run.append(nxt)
                members.update(nxt.nodes)
            elif not reads & members:
                skipped.append(steps[j])
                passed.update(nxt.nodes)
            else:
                break
            j += 1
        row = RowGroup(g.index, g.shape, axes, run) if len(run) > 1 else None
        if row is not None:
            _reads_and_writes(row, run)
            if _rows_contiguous(row, strides_of):
                steps[i:j] = [("group", row), *skipped]
        i += 1
    return steps


def _reads_and_writes(row, run):
    members = set(row.nodes)
    for g in run:
        for p in g.inputs:
            if p not in members and p not in row.inputs:
                row.inputs.append(p)
    for g in run:
        for n in g.outputs:
            if any(u not in members for u in n.users):
                row.outputs.append(n)


def _rows_contiguous(row, strides_of):
    for p in row.inputs:
        m, st = p.meta["tensor_meta"], strides_of(p)
        if tuple(m.shape) == row.shape and m.shape[-1] != 1 and (st is None or st[-1] != 1):
            return False
    return True


ROW_BUFFER = 8192  # elements of one row kept in a buffer on a thread's stack, at most


def _read_later(n, loop):
    """Whether a value computed in ``loop`` has a reader outside it (a later loop, a scalar
    of the row, or the output)."""
    return any(u not in loop for u in n.users)


def row_loop(row, strides_of):
    """The loop nest of a RowGroup: ``(cshape, cstrides, n_kept, full)``, the coalesced sizes
    outermost first (the kept dims, then the reduced ones), each operand's element strides over
    them (the inputs, then the outputs; 0 along the reduced dims for a value of the row), how
    many dims are kept, and the row's nodes over the whole shape S. The C and the CUDA
    generators share it."""
    shape, axes = list(row.shape), row.reduced
    nd0 = len(shape)
    kept = [d for d in range(nd0) if d not in axes]
    full = {n for n in row.nodes if tuple(n.meta["tensor_meta"].shape) == row.shape}
    full -= set(row.reductions)

    def over_shape(n):  # an output's strides over S: 0 along the reduced dims of a row value
        st = out_strides(n)
        return st if n in full else [0 if d in axes else s for d, s in enumerate(st)]

    outs = [over_shape(n) for n in row.outputs]
    ins = [_broadcast_strides(p.meta["tensor_meta"], strides_of(p), shape) for p in row.inputs]
    operands = outs + ins
    k_shape, k_st = _loop([shape[d] for d in kept], [[o[d] for d in kept] for o in operands])
    r_shape, r_st = _loop([shape[d] for d in axes], [[o[d] for d in axes] for o in ins + outs])
    r_st = r_st[len(ins) :] + r_st[: len(ins)]
    cshape = k_shape + r_shape
    cstrides = [a + b for a, b in zip(k_st, r_st, strict=True)]
    cstrides = cstrides[len(outs) :] + cstrides[: len(outs)]  # inputs, then outputs
    if not cshape:  # every dim of size 1: one row of one element
        cshape, cstrides = [1], [[0] for _ in operands]
    return cshape, cstrides, len(k_shape), full


def generate_row_c(name, row, strides_of):
    """The C function ``name(char** p)`` of a RowGroup (Note [One pass per row]): p holds the
    row group's inputs, then its outputs."""
    cshape, cstrides, n_kept, full = row_loop(row, strides_of)
    nd = len(cshape)
    idx = [f"i{d}" for d in range(nd)]

    def offset(k):
        terms = [i if s == 1 else f"{i}*{s}" for i, s in zip(idx, cstrides[k], strict=True) if s]
        return " + ".join(terms) or "0"

    n_in = len(row.inputs)
    lines = [f"void {name}(char** p) {{"]
    for k, node in enumerate(row.inputs):
        t = C_TYPES[node.meta["tensor_meta"].dtype.name]
        lines.append(f"  const {t}* in{k} = (const {t}*)p[{k}];")
    for j, node in enumerate(row.outputs):
        t = C_TYPES[node.meta["tensor_meta"].dtype.name]
        lines.append(f"  {t}* out{j} = ({t}*)p[{n_in + j}];")
    if math.prod(cshape) > GRAIN and n_kept:
        lines.append(f"  #pragma omp parallel for{f' collapse({n_kept})' if n_kept > 1 else ''}")
    for d in range(n_kept):
        lines.append("  " * (d + 1) + f"for (long i{d} = 0; i{d} < {cshape[d]}L; i{d}++) {{")
    pad = "  " * (n_kept + 1)
    value = {p: f"in{k}[{offset(k)}]" for k, p in enumerate(row.inputs)}  # over S or a row
    written = {n: j for j, n in enumerate(row.outputs)}
    body = []

    # values over S that a later loop reads again are kept in a buffer of the row rather
    # than computed again, when the row is one loop short enough for the stack
    row_len = math.prod(cshape[n_kept:])
    buffers = None if nd - n_kept != 1 or row_len > ROW_BUFFER else {}

    def inner_loop(targets, step=(), decl=(), clause="", write=False, consumer=None):
        """One loop over the row computing the full values ``targets`` need, then ``step``;
        ``write``: store the targets (the last loop)."""
        needed, stack = set(), list(targets)
        while stack:
            n = stack.pop()
            if n in full and n not in needed and n not in (buffers or ()):
                needed.add(n)
                stack.extend(n.all_input_nodes)
        inner = {**value, **{n: f"v_{n.name}" for n in needed}}
        inner.update({n: f"{b}[i{nd - 1}]" for n, b in (buffers or {}).items()})
        stmts = [node_statement(n, inner) for n in row.nodes if n in needed]
        stmts += [f"out{written[n]}[{offset(n_in + written[n])}] = {inner[n]};"
                  for n in targets if write]  # fmt: skip
        if buffers is not None and not write:
            loop = needed | {consumer}
            for n in (n for n in row.nodes if n in needed and _read_later(n, loop)):
                buffers[n] = f"buf_{n.name}"
                t = C_TYPES[n.meta["tensor_meta"].dtype.name]
                decl = [*decl, f"{t} buf_{n.name}[{row_len}];"]
                stmts.append(f"buf_{n.name}[i{nd - 1}] = v_{n.name};")
        body.extend(decl)
        for d in range(n_kept, nd):
            if d == nd - 1:
                body.append("  " * (d - n_kept) + f"#pragma omp simd {clause}".rstrip())
            body.append(
                "  " * (d - n_kept) + f"for (long i{d} = 0; i{d} < {cshape[d]}L; i{d}++) {{"
            )
        body.extend("  " * (nd - n_kept) + b for b in [*stmts, *step])
        body.extend("  " * (d - n_kept) + "}" for d in reversed(range(n_kept, nd)))
        return inner

    reductions = set(row.reductions)
    for node in row.nodes:
        t = C_TYPES[node.meta["tensor_meta"].dtype.name]
        if node in reductions:
            src = node.all_input_nodes[0]
            acc, nan = f"acc_{node.name}", f"nan_{node.name}"
            src_value = value[src] if src not in full else f"v_{src.name}"
            if buffers and src in buffers:  # made by an earlier loop of the row
                src_value = f"{buffers[src]}[i{nd - 1}]"
            decl, step, clause, result, _ = accumulator(node, src_value, acc, nan)
            inner_loop([src], step, decl, clause, consumer=node)
            body.append(f"const {t} s_{node.name} = ({t}){result};")
        elif node in full:
            continue  # computed inside the inner loops that need it
        else:  # a value of the row: a scalar
            body.append(node_statement(node, value, prefix="s_"))
        value[node] = f"s_{node.name}"
        if node in written:
            body.append(f"out{written[node]}[{offset(n_in + written[node])}] = s_{node.name};")
    last = [n for n in row.outputs if n in full]
    if last:
        inner_loop(last, write=True)
    lines += [pad + b for b in body]
    lines += ["  " * (d + 1) + "}" for d in reversed(range(n_kept))]
    lines.append("}")
    return "\n".join(lines)
