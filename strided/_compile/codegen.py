"""Fusion groups and their C: a decomposed graph with shapes becomes a list of steps, each a
fused loop nest (C with OpenMP) or one node run eagerly (Inductor's scheduler and C++ codegen,
reduced).

Note [Fusion groups]
~~~~~~~~~~~~~~~~~~~~
The nodes are visited in graph order. A *pointwise* node (a unary, binary or ternary primitive,
Note [The primitive set] in fx/passes.py) of a float32, float64 or bool result joins the open
group of its producers when its shape is the group's loop shape; else it opens a group of its
own. A *reduction* (sum, amax, amin, prod of a float) whose input is in an open group of its
shape joins it as the group's last node: the reduction consumes the elementwise values in
registers, so ``((x * 2 + 1).exp() * y).sum()`` is one loop that reads x and y once and writes
one number. Every other node (matmul, a custom op, indexing, an op on another dtype) runs
eagerly. A CUDA device gets the same groups, as CUDA C++ (Notes [Fused CUDA kernels] and
[Fused CUDA reductions] in cuda.py).

A group runs when it is *closed*: before the first node outside it that reads one of its
values, and at once after a reduction joins it. So every value a group reads from outside was
made by an earlier step, and every value of the group that a later step or the output reads is
written to memory (the others live only in registers: the intermediates fusion saves).

Note [The loop nest]
~~~~~~~~~~~~~~~~~~~~
A group's loop shape is its pointwise nodes' shape; each tensor it reads is seen broadcast to
that shape (stride 0 in a broadcast dim), each tensor it writes is fresh and contiguous. The
strides are compile-time constants (the guards pin every input's strides, and the eager nodes'
outputs are checked against the strides they had when captured), so the C compiler sees
``x[i0 * 1024 + i1]`` and vectorises the inner loop. Dims are coalesced first, as the iterator
does (Note [The loop plan] in _loop_plan.pyx): adjacent dims merge when every operand steps
through them as one; a contiguous group becomes one flat loop. The outer loops run in parallel
(``omp parallel for collapse``) above a grain of 32k elements, the inner one is ``omp simd``
(the grain is applied when generating, not with OpenMP's ``if()`` clause, which stops GCC from
vectorising the loop).

A reduction puts the reduced dims innermost: the kept dims are the parallel outer loops, each
iteration reducing its slice into a scalar accumulator (double for float32, as NumPy's pairwise
sum is close to a double one); a reduction over everything is split across threads and the
partial results combined (a float32 sum in float blocks: Note [A float32 sum in blocks]).
amax/amin propagate NaN, as NumPy's do. When the kept dim is the input's contiguous one (a sum
over axis 0 of a row-major matrix, the bias gradient of every linear layer), that order would
walk down columns; instead each thread takes a block of 256 kept elements with one accumulator
each and runs the reduced dims outside, the block inside, along memory (the eager kernels' "two
strategies", Note [Reductions] in _cpu/reduce.pyx.tp).

Note [Loads before selects]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
The loop body first reads every input into a local (``const float r1 = in1[...];``), then
computes the nodes from the locals. Written inline, ``where(mask, x, 0)`` became
``mask[i] ? in1[j] : 0.0f``: C evaluates only the chosen side, so the compiler may not read
``in1[j]`` when the mask is false and must branch per element. On a mask it cannot predict
(max-pool's backward marks one element of each window, a ReLU's sign pattern) that is a
misprediction every few elements: the digits CNN's max-pool backward, ``where`` over
64x4x2x4x2x16 float32, took ~300 us (4.6 ns an element; NumPy's ``where`` on the same
broadcast 240 us). With both sides loaded the ternary is a select of two values, which GCC
turns into a vector blend: 12 us. The inputs are all read anyway by some node, so the loads
cost nothing more.
"""

from __future__ import annotations

import ast
import math
import os

import strided
from strided._dtype_table import MATH_SUFFIX
from strided._loop_plan import loop_dims as _loop_dims
from strided.fx.passes import PRIMITIVES

__all__ = ["plan_steps", "generate_c", "Group", "expression_table"]

C_TYPES = {"float32": "float", "float64": "double", "bool": "uint8_t"}
GRAIN = 32768
_CPU_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_cpu")


# -- the elementwise expressions, read from the CPU kernels' own tables --------------------------


def _read_table(filename, name, brackets="[]"):
    """The literal ``name = [...]`` (or ``{...}``) of a kernel template, as Python."""
    with open(os.path.join(_CPU_DIR, filename)) as f:
        text = f.read()
    start = text.index(f"\n{name} = {brackets[0]}") + len(name) + 4
    end = text.index(f"\n{brackets[1]}\n", start) + 2
    return ast.literal_eval(text[start:end])


class _ToC(ast.NodeVisitor):
    """A kernel-table expression (Cython, Python syntax) as C."""

    OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.BitAnd: "&"}
    OPS.update({ast.BitOr: "|", ast.BitXor: "^"})
    CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}

    def visit_BinOp(self, n):
        return f"({self.visit(n.left)} {self.OPS[type(n.op)]} {self.visit(n.right)})"

    def visit_Compare(self, n):
        return f"({self.visit(n.left)} {self.CMP[type(n.ops[0])]} {self.visit(n.comparators[0])})"

    def visit_BoolOp(self, n):
        op = " && " if isinstance(n.op, ast.And) else " || "
        return "(" + op.join(self.visit(v) for v in n.values) + ")"

    def visit_UnaryOp(self, n):
        op = {ast.USub: "-", ast.Not: "!", ast.Invert: "~", ast.UAdd: "+"}[type(n.op)]
        return f"({op}{self.visit(n.operand)})"

    def visit_IfExp(self, n):
        return f"({self.visit(n.test)} ? {self.visit(n.body)} : {self.visit(n.orelse)})"

    def visit_Call(self, n):
        return f"{n.func.id}({', '.join(self.visit(a) for a in n.args)})"

    def visit_Name(self, n):
        return n.id

    def visit_Constant(self, n):
        return repr(n.value)


def _pick(table, dname, kind):
    if dname in table:
        return table[dname]
    if kind in table:
        return table[kind]
    for key, expr in table.items():
        if len(key) > 1 and key != "*" and kind in key and key not in C_TYPES:
            return expr
    return table.get("*")


_TABLES = None


def expression_table():
    """{(op, dtype name): C expression in ``x`` (unary) or ``a``, ``b`` (binary)}, for the
    float dtypes, from _cpu/unary.pyx.tp and _cpu/binary.pyx.tp (one table per concept)."""
    global _TABLES
    if _TABLES is None:
        out = {}
        for filename, name in (("unary.pyx.tp", "UNARY"), ("binary.pyx.tp", "BINARY")):
            for op, kinds, _result, table in _read_table(filename, name):
                if "f" not in kinds:
                    continue
                for dname in ("float32", "float64"):
                    expr = _pick(table, dname, "f")
                    if expr is None or "flag" in expr:
                        continue
                    single = dname == "float32"
                    expr = expr.replace("{f}", "f" if single else "").replace(
                        "{r}", "float" if single else "double"
                    )
                    expr = expr.replace("{t}", MATH_SUFFIX[dname])
                    out[op, dname] = _ToC().visit(ast.parse(expr, mode="eval").body)
        out["square", "float32"] = out["square", "float64"] = "(x * x)"
        _TABLES = out
    return _TABLES


_CPU_TABLE = None


def cpu_expression_table():
    """expression_table() with the CPU loops' vectorised functions where eager uses them for
    every element (Note [The CPU loops' functions in fused C]).

    Note [The CPU loops' functions in fused C]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    Eager's float loops replace some C library calls by the inlinable functions of vecmath.h
    (unary.pyx.tp's and binary.pyx.tp's VECTORISED: float32 erf is ``strided_verff``, 1.1 ulp,
    ~5x erff; float32 logaddexp ``strided_vlogaddexpf``), so the generated C uses the same ones:
    the fused value is then the eager value (both round the same float arithmetic), and the loop
    vectorises, where a call to ``erff`` is one call per element (GELU's epilogue over 4096x1024
    spent ~80 ms of its ~115 ms in them on the 2-core Zen 3). An op that also has a FIXUP row
    (log, sin, ...: the vector code is wrong for rare arguments, and eager recomputes those with
    the C library in a second pass) keeps the C library's expression here: a per-element select
    of a call is a call in every lane, and the C library's value is within an ulp of the eager
    one. The CUDA kernels keep the C library's functions (expression_table)."""
    global _CPU_TABLE
    if _CPU_TABLE is None:
        out = dict(expression_table())
        for filename in ("unary.pyx.tp", "binary.pyx.tp"):
            vectorised = _read_table(filename, "VECTORISED", "{}")
            fixup = _read_table(filename, "FIXUP", "{}")
            for key, expr in vectorised.items():
                if key in out and key not in fixup:
                    out[key] = _ToC().visit(ast.parse(expr, mode="eval").body)
        _CPU_TABLE = out
    return _CPU_TABLE


# -- grouping ------------------------------------------------------------------------------------


def _meta(n):
    return n.meta.get("tensor_meta")


def _is_tensor_meta(m):
    return m is not None and hasattr(m, "shape") and hasattr(m, "dtype")


def _kind(node, device="cpu"):
    """'pointwise', 'reduction' or None (run eagerly) for a node of the decomposed graph whose
    tensors are on ``device`` (on a CUDA device too: Note [Fused CUDA reductions] in
    cuda.py)."""
    if node.op != "call_function":
        return None
    name = getattr(node.target, "__name__", None)
    if getattr(strided, name or "", None) is not node.target:
        return None
    kind = PRIMITIVES.get(name)
    m = _meta(node)
    if kind is None or not _is_tensor_meta(m) or m.device != device:
        return None
    tensors = [_meta(a) for a in node.all_input_nodes]
    if not all(_is_tensor_meta(t) and t.device == device for t in tensors):
        return None
    if 0 in m.shape or any(0 in t.shape for t in tensors):
        return None  # empty: nothing to loop over, eager gives the empty result
    if any(t.dtype.name not in C_TYPES for t in tensors):
        return None
    if kind == "reduction":
        if m.dtype.name not in ("float32", "float64"):
            return None
        if tensors[0].dtype != m.dtype and not (
            # a count in a float type (max_min_backward's ties): the bools summed as doubles
            node.target is strided.sum
            and tensors[0].dtype.name == "bool"
            and node.kwargs.get("dtype") == m.dtype
        ):
            return None
        if node.kwargs.get("axis", None) is not None and not isinstance(
            node.kwargs["axis"], (int, tuple)
        ):
            return None
        return "reduction"
    if m.dtype.name not in C_TYPES:
        return None
    for a in node.args:
        if not (hasattr(a, "op") or isinstance(a, (int, float, bool))):
            return None
    if kind == "ternary":
        return "pointwise"
    dname = _compute_dtype(node)
    if dname is None or (name, dname) not in expression_table():
        return None
    return "pointwise"


def _compute_dtype(node):
    """The dtype an elementwise op computes in: the promoted dtype of its tensor operands
    (Python scalars are weak, NEP 50), float32 or float64, else None."""
    dtypes = [_meta(a).dtype for a in node.all_input_nodes]
    if not dtypes:
        return None
    d = dtypes[0]
    for other in dtypes[1:]:
        d = strided.promote_types(d, other)
    if d.name == "bool" and any(isinstance(a, float) for a in node.args):
        return None
    return d.name if d.name in ("float32", "float64") else None


class Group:
    """One fused kernel: its nodes in order, the values it reads and those it writes."""

    def __init__(self, index, shape):
        self.index, self.shape = index, tuple(shape)
        self.nodes = []
        self.reduction = None
        self.inputs = []  # nodes read from memory
        self.outputs = []  # nodes written to memory
        self.closed = False

    def __repr__(self):
        names = ", ".join(n.name for n in self.nodes)
        return f"group {self.index} [{names}] over {list(self.shape)}"


def plan_steps(graph, device="cpu"):
    """[("group", Group) | ("eager", node)] in run order (Note [Fusion groups])."""
    steps, group_of, open_groups = [], {}, []

    def close(g):
        if g.closed:
            return
        g.closed = True
        open_groups.remove(g)
        steps.append(("group", g))

    for node in graph.nodes:
        if node.op in ("placeholder", "output"):
            if node.op == "output":
                for g in list(open_groups):
                    close(g)
            continue
        kind = _kind(node, device)
        # in the order the groups were opened, never a set's: the plan and so the C source
        # must be the same in every process, or the disk cache misses (Note [The kernel cache])
        producers = [group_of[p] for p in node.all_input_nodes if p in group_of]
        open_producers = sorted({g for g in producers if not g.closed}, key=lambda g: g.index)
        target = None
        if kind == "pointwise":
            shape = _meta(node).shape
            for g in open_producers:  # the oldest: the longest chain so far
                if g.shape == shape and g.reduction is None:
                    target = g
                    break
        elif kind == "reduction":
            src = node.all_input_nodes[0]
            g = group_of.get(src)
            if g is not None and not g.closed and g.shape == _meta(src).shape:
                target = g
        for g in open_producers:
            if g is not target:
                close(g)
        if kind is None:
            steps.append(("eager", node))
            continue
        if target is None:
            shape = (
                _meta(node.all_input_nodes[0]).shape if kind == "reduction" else _meta(node).shape
            )
            target = Group(len([s for s in steps if s[0] == "group"]) + len(open_groups), shape)
            open_groups.append(target)
        target.nodes.append(node)
        group_of[node] = target
        if kind == "reduction":
            target.reduction = node
            close(target)
    # what each group reads and writes
    for _, g in (s for s in steps if s[0] == "group"):
        members = set(g.nodes)
        for n in g.nodes:
            for p in n.all_input_nodes:
                if p not in members and p not in g.inputs:
                    g.inputs.append(p)
        for n in g.nodes:
            if n is g.reduction or any(u not in members for u in n.users):
                g.outputs.append(n)
    # Note [One pass per row] in rows.py, on every device (Note [Fused CUDA rows] in cuda.py)
    from strided._compile.rows import merge_rows

    steps = merge_rows(steps, lambda n: n.meta.get("strides"))
    return steps


# -- C -------------------------------------------------------------------------------------------


def _broadcast_strides(meta, strides, shape):
    """Element strides of a tensor seen broadcast to ``shape`` (0 in broadcast dims)."""
    nd = len(shape)
    own = list(meta.shape)
    out = [0] * nd
    for i in range(len(own)):
        d = nd - len(own) + i
        out[d] = 0 if own[i] == 1 and shape[d] != 1 else strides[i]
    return out


def _contiguous_strides(shape):
    out, step = [], 1
    for s in reversed(shape):
        out.append(step)
        step *= s
    return list(reversed(out))


def _literal(v, ctype):
    if isinstance(v, bool):
        return f"(({ctype}){int(v)})"
    if isinstance(v, float) and not math.isfinite(v):
        inf = "INFINITY" if v > 0 else "-INFINITY"
        return f"(({ctype}){'NAN' if v != v else inf})"
    return f"(({ctype}){v!r})"


def dense_order(shape, strides):
    """The dims of a dense (gap-free) layout from outermost to innermost, or None: how an
    output is allocated in the memory order eager gave it (``x.T * 2`` is column-major)."""
    dims = sorted(range(len(shape)), key=lambda d: (-abs(strides[d]), d))
    step = 1
    for d in reversed(dims):
        if shape[d] != 1 and strides[d] != step:
            return None
        step *= shape[d]
    return dims


def out_strides(node):
    """The element strides a group writes ``node`` with: eager's (recorded at capture) when
    they are a dense layout, else row-major."""
    m = node.meta["tensor_meta"]
    st = node.meta.get("strides")
    if st is not None and dense_order(m.shape, st) is not None:
        return list(st)
    return _contiguous_strides(m.shape)


def _loop(sizes, operands):
    """Outermost-first (sizes, per-operand strides) of a loop, from the loop plan's own
    reorder-and-coalesce (``loop_dims``, Note [The loop plan]): dims sorted by the first
    operand's strides, merged where every operand allows, size-1 dims dropped. The plan holds
    at most MAX_OPERANDS (4) operands in its C struct, and a fused group often has more; those
    take ``_loop_py``, the same two steps written out here."""
    if not sizes:
        return [], [[] for _ in operands]
    if len(operands) > 4:
        return _loop_py(sizes, operands)
    cs, st = _loop_dims(sizes, operands, reorder=True)
    return list(reversed(cs)), [list(reversed(s)) for s in st]


def _loop_py(sizes, operands):
    """``_loop`` for any number of operands: drop size-1 dims, sort the rest by the first
    operand's stride (largest outermost, stable), merge neighbours every operand steps through
    as one run."""
    dims = [d for d in range(len(sizes)) if sizes[d] != 1]
    dims.sort(key=lambda d: -abs(operands[0][d]))
    out_sizes, out_st = [], [[] for _ in operands]
    for d in dims:
        if out_sizes and all(
            st[-1] == op[d] * sizes[d] for st, op in zip(out_st, operands, strict=True)
        ):
            out_sizes[-1] *= sizes[d]
            for st, op in zip(out_st, operands, strict=True):
                st[-1] = op[d]
            continue
        out_sizes.append(sizes[d])
        for st, op in zip(out_st, operands, strict=True):
            st.append(op[d])
    return out_sizes, out_st


def group_loop(group, strides_of):
    """The loop nest of a group (Note [The loop nest]): ``(cshape, cstrides, n_kept, pointwise
    outputs)``, the coalesced sizes outermost first (the kept dims, then the reduced ones),
    each operand's element strides over them (the inputs, then the pointwise outputs, then
    the reduction's output, which steps by 0 along the reduced dims), and how many of the dims
    are kept. The C and the CUDA generators share it."""
    shape = list(group.shape)
    nd0 = len(shape)
    red = group.reduction
    reduced = []
    if red is not None:
        axis = red.kwargs.get("axis")
        axes = range(nd0) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
        reduced = sorted({a % nd0 for a in axes}) if nd0 else []
    kept = [d for d in range(nd0) if d not in reduced]
    pointwise_outputs = [n for n in group.outputs if n is not red]
    # every operand's strides over the loop shape: outputs first (the loop follows the memory
    # order of what it writes, as the iterator's does), then the inputs (0 where broadcast)
    outs = [out_strides(n) for n in pointwise_outputs]
    if red is not None:
        ost, keep = out_strides(red), bool(red.kwargs.get("keepdims"))
        st = [0] * nd0
        for i, d in enumerate(kept):
            st[d] = ost[d] if keep else ost[i]
        outs.append(st)
    ins = [_broadcast_strides(p.meta["tensor_meta"], strides_of(p), shape) for p in group.inputs]
    operands = outs + ins  # reordered below into the kernel's order: inputs, then outputs
    k_shape, k_st = _loop([shape[d] for d in kept], [[o[d] for d in kept] for o in operands])
    r_shape, r_st = _loop(
        [shape[d] for d in reduced], [[o[d] for d in reduced] for o in ins + outs]
    )
    r_st = r_st[len(ins) :] + r_st[: len(ins)]  # back to outputs-first
    cshape = k_shape + r_shape
    cstrides = [a + b for a, b in zip(k_st, r_st, strict=True)]
    cstrides = cstrides[len(outs) :] + cstrides[: len(outs)]  # inputs, then outputs
    n_kept = len(k_shape)
    if not cshape:  # a 0-d group: one iteration of a loop of one
        cshape, cstrides = [1], [[0] for _ in operands]
        n_kept = 0 if red is not None else 1
    return cshape, cstrides, n_kept, pointwise_outputs


def generate_c(name, group, strides_of):
    """The C function ``name(char** p)`` of one group; ``strides_of(node)``: the element
    strides of a value the group reads. p[k] is the k-th of group.inputs then group.outputs."""
    red = group.reduction
    cshape, cstrides, n_kept, pointwise_outputs = group_loop(group, strides_of)
    nd = len(cshape)
    idx = [f"i{d}" for d in range(nd)]

    def offset(k):
        terms = [
            i if s == 1 else f"{i}*{s}" for i, s in zip(idx, cstrides[k], strict=True) if s != 0
        ]
        return " + ".join(terms) or "0"

    lines = [f"void {name}(char** p) {{"]
    n_in = len(group.inputs)
    for k, node in enumerate(group.inputs):
        lines.append(
            f"  const {C_TYPES[node.meta['tensor_meta'].dtype.name]}* in{k} = "
            f"(const {C_TYPES[node.meta['tensor_meta'].dtype.name]}*)p[{k}];"
        )
    for j, node in enumerate(pointwise_outputs + ([red] if red is not None else [])):
        ctype = C_TYPES[node.meta["tensor_meta"].dtype.name]
        lines.append(f"  {ctype}* out{j} = ({ctype}*)p[{n_in + j}];")
    # the body: each input read once, unconditionally (Note [Loads before selects]), then one
    # C statement per node
    body = []
    value = {}
    for k, node in enumerate(group.inputs):
        body.append(
            f"const {C_TYPES[node.meta['tensor_meta'].dtype.name]} r{k} = in{k}[{offset(k)}];"
        )
        value[node] = f"r{k}"
    for node in group.nodes:
        if node is red:
            break
        body.append(node_statement(node, value))
        value[node] = f"v_{node.name}"
    for j, node in enumerate(pointwise_outputs):
        body.append(f"out{j}[{offset(n_in + j)}] = {value[node]};")
    total = math.prod(cshape) if cshape else 1
    # threads above the grain only; decided here, not by an OpenMP if() clause: with one, GCC 12
    # no longer vectorises the loop (measured: 57 ns -> 2 ns per element of a 12-op chain)
    par = total > GRAIN
    if red is None:
        if nd == 0:
            lines += ["  { " + " ".join(body) + " }", "}"]
            return "\n".join(lines)
        if nd == 1:
            lines.append("  #pragma omp parallel for simd" if par else "  #pragma omp simd")
        else:
            if par:
                lines.append(f"  #pragma omp parallel for collapse({nd - 1})")
        for d in range(nd):
            if d == nd - 1 and nd > 1:
                lines.append("  " * (d + 1) + "#pragma omp simd")
            lines.append("  " * (d + 1) + f"for (long i{d} = 0; i{d} < {cshape[d]}L; i{d}++) {{")
        lines += ["  " * (nd + 1) + b for b in body]
        lines += ["  " * (d + 1) + "}" for d in reversed(range(nd))]
        lines.append("}")
        return "\n".join(lines)
    # a reduction over outer dims of its input (a column sum): the kept dim is the contiguous
    # one, so the accumulators become a vector along it (Note [The loop nest])
    vertical = (
        n_in > 0 and 0 < n_kept < nd and cstrides[0][n_kept - 1] == 1 and cstrides[0][-1] != 1
    )
    return _reduction_c(
        lines, red, value, body, cshape, n_kept, len(pointwise_outputs), n_in, offset, par,
        vertical,
    )  # fmt: skip


def accumulator(red, v, acc="acc", nan="nan"):
    """(declarations, the step per element, the OpenMP clause, the result, the initial value)
    of reduction ``red`` over values ``v`` (Note [The loop nest]): sums and products in a
    double, max/min in the input's type with a "saw a NaN" flag."""
    rname = red.target.__name__
    itype = C_TYPES[red.all_input_nodes[0].meta["tensor_meta"].dtype.name]
    if rname in ("sum", "prod"):
        init = "0.0" if rname == "sum" else "1.0"
        op = "+" if rname == "sum" else "*"
        # Note [Counting bools in a vector loop]
        # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
        # A count of bools in a float type (max's backward counts the ties of each window) is
        # a sum of uint8_t values widened to double. GCC 12 does not vectorise that widening
        # in an ``omp simd`` loop that also handles floats ("no vectype" for the loop: a
        # vector of uint8_t has four times the lanes of one of floats), so the whole loop ran
        # one element at a time: the digits CNN's max-pool backward (the ties of 65536
        # elements counted, and the mask written) took 51 us. The select ``b ? 1.0 : 0.0``
        # gives the same doubles and vectorises as a masked blend: 11 us.
        term = f"({v} ? 1.0 : 0.0)" if itype == "uint8_t" else f"(double)({v})"
        return (
            [f"double {acc} = {init};"],
            [f"{acc} {op}= {term};"],
            f"reduction({op}:{acc})",
            acc,
            init,
        )
    init = "-INFINITY" if rname == "amax" else "INFINITY"
    cmp = ">" if rname == "amax" else "<"
    return (
        [f"{itype} {acc} = {init};", f"int {nan} = 0;"],
        [f"{acc} = {v} {cmp} {acc} ? {v} : {acc};", f"{nan} |= {v} != {v};"],
        f"reduction({'max' if rname == 'amax' else 'min'}:{acc}) reduction(|:{nan})",
        f"({nan} ? NAN : {acc})",
        init,
    )


def _reduction_c(lines, red, value, body, cshape, n_kept, j_out, n_in, offset, par, vertical):
    """A reduction group's loops (Note [The loop nest]). Every reduction is an OpenMP
    ``reduction`` clause, so the inner loop vectorises and a reduction over everything is split
    across threads: sums and products in a double accumulator, max/min in the input's type with
    a separate "saw a NaN" flag (OpenMP's max drops NaN; NumPy's propagates it)."""
    otype = C_TYPES[red.meta["tensor_meta"].dtype.name]
    decl, step, clause, result, init = accumulator(red, value[red.all_input_nodes[0]])
    nd = len(cshape)
    inner = body + step

    def loops(first, last, indent):
        return [
            "  " * (indent + d - first) + f"for (long i{d} = 0; i{d} < {cshape[d]}L; i{d}++) {{"
            for d in range(first, last)
        ]

    def closes(first, last, indent):
        return ["  " * (indent + d - first) + "}" for d in reversed(range(first, last))]

    if vertical:
        return _vertical_c(lines, decl, inner, result, cshape, n_kept, j_out, n_in, offset, par,
                           init, otype, loops, closes)  # fmt: skip
    if n_kept == 0 and nd == 1 and _blocked_sum(red, cshape[0]):
        return _blocked_sum_c(lines, red, value, body, cshape[0], j_out, otype, par)
    if n_kept == 0:  # everything reduced: the threads split the loop, OpenMP combines
        lines += ["  " + d for d in decl]
        collapse = f" collapse({nd})" if nd > 1 else ""
        head = "parallel for simd" if par else "simd"
        lines.append(f"  #pragma omp {head}{collapse} {clause}")
        lines += loops(0, nd, 1)
        lines += ["  " * (nd + 1) + b for b in inner]
        lines += closes(0, nd, 1)
        lines += [f"  out{j_out}[0] = ({otype}){result};", "}"]
        return "\n".join(lines)
    # kept dims outside (parallel), reduced dims inside, the innermost vectorised
    collapse = f" collapse({n_kept})" if n_kept > 1 else ""
    if par:
        lines.append(f"  #pragma omp parallel for{collapse}")
    lines += loops(0, n_kept, 1)
    pad = "  " * (n_kept + 1)
    lines += [pad + d for d in decl]
    reduced = loops(n_kept, nd, n_kept + 1)
    reduced.insert(len(reduced) - 1, "  " * nd + f"#pragma omp simd {clause}")
    lines += reduced
    lines += ["  " * (nd + 1) + b for b in inner]
    lines += closes(n_kept, nd, n_kept + 1)
    lines.append(pad + f"out{j_out}[{offset(n_in + j_out)}] = ({otype}){result};")
    lines += closes(0, n_kept, 1)
    lines.append("}")
    return "\n".join(lines)


SUM_BLOCK = 1024  # float32 values summed in float before their sum joins the double total
SUM_RUN = 16  # blocks a thread takes at a time (16k float32: ~40 us of the exp chain)
SUM_RUNS = 1024  # at most this many runs (their totals live on the stack), longer ones beyond


def _blocked_sum(red, n):
    """Whether a whole float32 sum of ``n`` elements takes float blocks (Note [A float32 sum in
    blocks])."""
    return (
        red.target.__name__ == "sum"
        and red.all_input_nodes[0].meta["tensor_meta"].dtype.name == "float32"
        and n >= 2 * SUM_BLOCK
    )


def _blocked_sum_c(lines, red, value, body, n, j_out, otype, par):
    """A float32 sum over everything as float blocks, their runs' double totals added in order.

    Note [A float32 sum in blocks]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    A sum of float32 keeps a double accumulator (Note [The loop nest]). Written as one ``omp
    parallel for simd reduction(+:acc)`` over the whole loop, its threads were not what cost:
    OpenMP gives each thread a static share and a private accumulator (in a register: no false
    sharing) and combines them after one parallel region per call, a few microseconds of a
    millisecond; and the exp is vecmath's ``strided_expf``, inlined and vectorised 16 floats
    wide, not a call to ``expf``. What cost was the sum itself: each vector of 16 floats was
    widened to two vectors of 8 doubles and added to two double accumulators, ~5 instructions
    per 16 elements beside the ~30 of the exp, every iteration. On 1e7 float32 of
    ``((x * 2 + 1).exp() * y).sum()`` (AVX-512 EPYC, x86-64-v4) that loop took 3.3 ms at one
    thread and 1.7 at two, where torch.compile's takes 2.6 and 1.4-1.5 (0.77x and 0.83-0.88x):
    Inductor sums in float vectors (a cascade of float partials every 4096 values), each thread
    into its slot of an array, added in thread order after the region. So here a loop of at
    least two blocks runs in blocks of SUM_BLOCK (1024) elements: a block is summed by ``omp
    simd`` in a float, lane-wise (16 lanes of 64 values at AVX-512, 8 of 128 at AVX2), and only
    its sum is widened and added to a double. The inner loop is then the float loop Inductor
    writes: 2.6 ms at one thread (0.97x torch.compile) and 1.3-1.4 ms at two (1.02-1.08x);
    blocks of 512 to 4096 are within the noise of each other, and 1024 keeps a block's float
    error that of 64-128 terms (on the benchmark's uniform values the float32 result is the same
    bits as before, and as eager's).

    The blocks are grouped into runs of SUM_RUN (16; more when there would be over SUM_RUNS,
    1024, runs), which the threads take as they come (``schedule(dynamic, 1)``: on a shared
    machine a thread that woke late, or shares its core, takes fewer); each run's double total
    goes into its own slot of ``totals``, and the slots are added in order after the loop (the
    tail under a block last). The order of every addition is then fixed by the size and the
    vector width alone: a call gives the same bits on every run and at every thread count, one
    thread or many (OpenMP's ``reduction`` clause combined the threads in the order they
    finished, so three or more could move the last bit from one call to the next, and each
    thread count had its own split). Inductor splits statically, one slot per thread. A float
    block can overflow where a double would not (values near FLT_MAX of both signs), as NumPy's
    float32 pairwise sum does too. float64 sums, products and loops of several dims keep the
    single loop: a double needs no widening, a float product of 1024 terms leaves the float
    range far sooner than a double one."""
    v = value[red.all_input_nodes[0]]
    nb, B = n // SUM_BLOCK, SUM_BLOCK
    rest = n - nb * B

    def block(first, last, indent):
        pad = " " * indent
        return [
            pad + "float part = 0.0f;",
            pad + "#pragma omp simd reduction(+:part)",
            pad + f"for (long i0 = {first}; i0 < {last}; i0++) {{",
            *[pad + "  " + b for b in body],
            pad + f"  part += {v};",
            pad + "}",
        ]

    # runs of whole blocks, the threads taking them as they come; a run's total in its slot
    per = max(SUM_RUN, -(-nb // SUM_RUNS))
    runs = -(-nb // per)
    lines += [
        f"  double totals[{runs}];",
        *(["  #pragma omp parallel for schedule(dynamic, 1)"] if par and runs > 1 else []),
        f"  for (long c = 0; c < {runs}L; c++) {{",
        "    double acc = 0.0;",
        f"    const long end = c * {per}L + {per}L < {nb}L ? c * {per}L + {per}L : {nb}L;",
        f"    for (long b = c * {per}L; b < end; b++) {{",
        *block(f"b * {B}L", f"b * {B}L + {B}L", 6),
        "      acc += (double)part;",
        "    }",
        "    totals[c] = acc;",
        "  }",
        "  double acc = 0.0;",
        f"  for (long c = 0; c < {runs}L; c++) acc += totals[c];",
    ]
    if rest:
        lines += ["  {", *block(f"{nb * B}L", f"{n}L", 4), "    acc += (double)part;", "  }"]
    lines += [f"  out{j_out}[0] = ({otype})acc;", "}"]
    return "\n".join(lines)


VBLOCK = 256  # kept elements reduced side by side by one thread (a column sum's accumulators)


def _vertical_c(lines, decl, inner, result, cshape, n_kept, j_out, n_in, offset, par, init,
                otype, loops, closes):  # fmt: skip
    """A reduction whose innermost kept dim is the input's contiguous one (a sum over axis 0 of
    a row-major matrix): each thread takes a block of VBLOCK kept elements and keeps one
    accumulator per element, so the innermost loop runs along memory and vectorises, where the
    usual order would stride down a column for every output."""
    import re

    j, nd = n_kept - 1, len(cshape)
    K = cshape[j]
    nb = -(-K // VBLOCK)
    b = min(VBLOCK, K)
    slot = f"[i{j} - lo]"

    def per_element(text):
        return re.sub(r"\b(acc|nan)\b", lambda m: m.group(1) + slot, text)

    if par:
        lines.append(f"  #pragma omp parallel for collapse({n_kept})" if n_kept > 1
                     else "  #pragma omp parallel for")  # fmt: skip
    lines += loops(0, j, 1)
    pad = "  " * (j + 2)
    lines.append("  " * (j + 1) + f"for (long jb = 0; jb < {nb}L; jb++) {{")
    lines.append(pad + f"const long lo = jb * {b}L, hi = lo + {b}L < {K}L ? lo + {b}L : {K}L;")
    lines += [pad + d.replace(" = ", f"[{b}];", 1).split(";")[0] + ";" for d in decl]
    lines.append(pad + f"for (long t = 0; t < {b}L; t++) {{")
    lines += [pad + "  " + d.split(" ", 1)[1].replace(" = ", "[t] = ", 1) for d in decl]
    lines.append(pad + "}")
    lines += loops(n_kept, nd, j + 2)
    ipad = "  " * (j + 2 + nd - n_kept)
    lines.append(ipad + "#pragma omp simd")
    lines.append(ipad + f"for (long i{j} = lo; i{j} < hi; i{j}++) {{")
    lines += [ipad + "  " + (per_element(b_) if "acc" in b_ or "nan" in b_ else b_) for b_ in inner]
    lines.append(ipad + "}")
    lines += closes(n_kept, nd, j + 2)
    lines.append(pad + f"for (long i{j} = lo; i{j} < hi; i{j}++) {{")
    lines.append(pad + f"  out{j_out}[{offset(n_in + j_out)}] = ({otype}){per_element(result)};")
    lines.append(pad + "}")
    lines.append("  " * (j + 1) + "}")
    lines += closes(0, j, 1)
    lines.append("}")
    return "\n".join(lines)


def node_statement(node, value, prefix="v_", types=None, expression=None, cast_where=False):
    """The C statement computing pointwise ``node`` into ``<prefix><name>`` from the C
    expressions of its operands (``value``: node -> expression). The CPU and CUDA generators
    share it and differ only in what they pass: ``types`` (dtype name -> C type, C_TYPES by
    default), ``expression(op name, dtype name, operand texts)`` (the C expression of a unary
    or binary op: the CPU loops' table by default, ``cpu_expression``), and ``cast_where``
    (cast a ``where``'s operands to its type too, the CUDA kernels' spelling)."""
    types = C_TYPES if types is None else types
    expression = cpu_expression if expression is None else expression
    ctype = types[node.meta["tensor_meta"].dtype.name]
    fname = node.target.__name__
    if PRIMITIVES[fname] == "ternary":
        c, a, b = (_operand(x, value, ctype, cast=cast_where) for x in node.args)
        expr = f"({c} ? {a} : {b})"
    else:
        dname = _compute_dtype(node)
        vals = [_operand(x, value, types[dname], cast=True) for x in node.args]
        expr = expression(fname, dname, vals)
    return f"const {ctype} {prefix}{node.name} = ({ctype})({expr});"


def cpu_expression(fname, dname, vals):
    """The CPU loops' C expression of op ``fname`` in dtype ``dname`` on operand texts."""
    expr = cpu_expression_table()[fname, dname]
    if len(vals) == 1:
        return _subst(expr, {"x": vals[0]})
    return _subst(expr, {"a": vals[0], "b": vals[1]})


def _operand(x, value, ctype, cast=False):
    if hasattr(x, "op"):
        v = value[x]
        return f"(({ctype}){v})" if cast else v
    return _literal(x, ctype)


def _subst(expr, names):
    """Replace the whole-word names of an expression (x; a, b) by operand text."""
    import re

    return re.sub(r"\b(" + "|".join(names) + r")\b", lambda m: names[m.group(1)], expr)
