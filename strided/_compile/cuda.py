"""Fused elementwise kernels for CUDA devices: CUDA C++ through the existing NVRTC path, so they
run on a GPU and on ``cuda-emulated`` (the emulator compiles the same text with g++).

Note [Fused CUDA kernels]
~~~~~~~~~~~~~~~~~~~~~~~~~
A pointwise fusion group (Note [Fusion groups] in codegen.py) on a CUDA device becomes one
``__global__`` function: a grid-stride loop over the group's coalesced loop, each thread
turning its linear index into one offset per operand (the strides are compile-time constants,
as in the C version), then one statement per node. The per-op arithmetic is the eager CUDA
kernels' own: each node calls its functor from kernels/ops.cuh (``op_exp{}(x)``,
``op_add{}(a, b, &flag)``), which calls scalar_math.h where NumPy's meaning differs from C's,
so fused and eager CUDA results agree as the C loops agree with the eager CPU ones.

The source is ops.cuh (with its includes pasted, ``_launch.source``) followed by the generated
functions; it is compiled by ``backend.compile``, i.e. NVRTC through CuPy on a GPU and g++ for
the emulator, both of which cache by the text. A reduction group becomes a kernel of its own
shape (Note [Fused CUDA reductions] below), and a row group (softmax, layer norm: Note [One
pass per row] in rows.py) one kernel with a block per row (Note [Fused CUDA rows]).
"""

from __future__ import annotations

import hashlib
import math

import numpy as np

from strided._compile.codegen import (
    _broadcast_strides,
    _loop,
    group_loop,
    node_statement,
    out_strides,
)

__all__ = ["generate_cuda", "CudaKernels"]

CUDA_TYPES = {"float32": "float", "float64": "double", "bool": "bool"}


def cuda_expression(fname, dname, vals):
    """The eager CUDA kernels' functor call for op ``fname`` in dtype ``dname`` (ops.cuh's
    ``op_exp{}(x)``, ``op_add{}(a, b, &flag)``) on operand texts."""
    from strided.cuda._elementwise import _functor

    args = ", ".join(vals) + (", &flag" if len(vals) == 2 else "")
    return f"{_functor(fname, dname)}{{}}({args})"


class Launch:
    """How the host launches one generated kernel (Note [Fused CUDA reductions]): ``kind``
    "pointwise" (a grid-stride loop over ``n`` elements), "block" (a block per output, ``grid``
    blocks, ``chunks`` blocks per output along y), "thread" (a thread per output) or "row" (a
    warp or a block per row, ``block`` (threads per row, rows per block), Note [Fused CUDA
    rows]); a split reduction's
    ``partials`` (count, dtype name) and its second kernel ``combine``."""

    def __init__(self, kind, n=0, grid=(1, 1), partials=None, combine=None, block=(256, 1)):
        self.kind, self.n, self.grid, self.block = kind, n, grid, block
        self.partials, self.combine = partials, combine


def _unravel(index, rest, dims, cshape, pad, idx="long long"):
    """Lines splitting the linear ``index`` into the indices ``i<d>`` of ``dims`` (outermost
    first), innermost first, through the running remainder ``rest``, in the C type ``idx``."""
    ll = "LL" if idx == "long long" else ""
    lines = [f"{pad}{idx} {rest} = {index};"]
    for d in reversed(dims):
        if d == dims[0]:
            lines.append(f"{pad}const {idx} i{d} = {rest};")
        else:
            lines.append(
                f"{pad}const {idx} i{d} = {rest} % {cshape[d]}{ll}; {rest} /= {cshape[d]}{ll};"
            )
    return lines


def _offsets(cstrides, idx="long long"):
    ll = "LL" if idx == "long long" else ""

    def offset(k):
        terms = [f"i{d}*{s}{ll}" for d, s in enumerate(cstrides[k]) if s != 0]
        return " + ".join(terms) or "0"

    return offset


def _body(group, value, offset, outputs, pad):
    """One statement per pointwise node, then the stores of the values ``outputs`` (the j-th
    at pointer p<inputs + j>)."""
    lines = []
    for node in group.nodes:
        if node is group.reduction:
            break
        statement = node_statement(node, value, types=CUDA_TYPES, expression=cuda_expression,
                                   cast_where=True)  # fmt: skip
        lines.append(pad + statement)
        value[node] = f"v_{node.name}"
    n_in = len(group.inputs)
    for j, node in enumerate(outputs):
        ctype = CUDA_TYPES[node.meta["tensor_meta"].dtype.name]
        lines.append(f"{pad}(({ctype}*)p{n_in + j})[{offset(n_in + j)}] = {value[node]};")
    return lines


def _input_values(group, offset):
    value = {}
    for k, node in enumerate(group.inputs):
        ctype = CUDA_TYPES[node.meta["tensor_meta"].dtype.name]
        value[node] = f"(({ctype}*)p{k})[{offset(k)}]"
    return value


def generate_cuda(name, group, strides_of):
    """``(source, Launch)`` of one group: a pointwise group's ``__global__`` function
    ``name(char* p0, ..., long long n)`` (Note [Fused CUDA kernels]), a row group's (Note
    [Fused CUDA rows]) or a reduction group's kernels (Note [Fused CUDA reductions])."""
    from strided._compile.rows import RowGroup

    if isinstance(group, RowGroup):
        return _generate_rows(name, group, strides_of)
    if group.reduction is not None:
        return _generate_reduction(name, group, strides_of)
    shape = list(group.shape)
    outs = [out_strides(n) for n in group.outputs]
    ins = [_broadcast_strides(p.meta["tensor_meta"], strides_of(p), shape) for p in group.inputs]
    cshape, cstrides = _loop(shape, outs + ins)  # the loop plan's order: outputs first
    cstrides = cstrides[len(outs) :] + cstrides[: len(outs)]  # inputs, then outputs
    operands = cstrides
    if not cshape:
        cshape, cstrides = [1], [[0] for _ in operands]
    nd = len(cshape)
    lines = []
    n_ptr = len(group.inputs) + len(group.outputs)
    params = ", ".join(f"char* p{k}" for k in range(n_ptr))
    lines.append(f"__global__ void {name}({params}, long long n) {{")
    lines.append("  int flag = 0;  // the integer ops' error flag: unused by float ops")
    lines.append(
        "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;"
        " i += (long long)blockDim.x * gridDim.x) {"
    )
    lines += _unravel("i", "r", list(range(nd)), cshape, "    ")
    offset = _offsets(cstrides)
    lines += _body(group, _input_values(group, offset), offset, group.outputs, "    ")
    lines += ["  }", "  (void)flag;", "}"]
    n = math.prod(cshape)
    return "\n".join(lines), Launch("pointwise", n=n)


# Note [Fused CUDA reductions]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# A reduction group (an elementwise chain and the sum, prod, amax or amin that consumes it,
# Note [Fusion groups]) becomes one kernel over the loop nest the C generator uses
# (``group_loop``: kept dims, then reduced dims, coalesced, strides compile-time constants).
# Two shapes of kernel, as the eager CUDA reductions choose (Note [CUDA reductions]):
#
# * **a block per output** (the reduced dims include the input's fastest one: a row sum, a
#   sum of everything): the block's 256 threads stride over the output's reduced elements,
#   each computing the chain in registers and folding it into its accumulator, then the block
#   combines its threads by a tree in shared memory. With few outputs and many elements (a
#   whole-tensor sum) one block per output would leave the GPU idle, so the reduced elements
#   are cut into ``chunks`` blocks along gridDim.y; each writes a partial accumulator and a
#   second kernel (``<name>_combine``) combines an output's partials in chunk order.
# * **a thread per output** (the kept dim is the input's fastest one: a column sum, the bias
#   gradient of a linear layer): each thread walks its output's reduced elements in order, so
#   neighbouring threads read neighbouring addresses.
#
# Sums and products accumulate in a double, max and min in the input's type with NumPy's NaN
# rule (a NaN wins), as the fused C does; the order is fixed by the shape, so a result is the
# same on every run. A pointwise value of the group that a later step reads is stored by the
# thread that computes it: each element of the loop is visited by exactly one thread.
#
# What has run where: every kernel shape (pointwise, a block per output with and without the
# split, a thread per output) runs on ``cuda-emulated`` in tests/test_compile.py against the
# eager result, and the generated source is compiled by NVRTC for sm_80 and sm_90 there; none
# of it has run on a GPU yet, so the launch sizes (256 threads, the chunk count) are reasoned,
# not measured.

BLOCK = 256
CHUNK = 8192  # reduced elements per block at least, when a few outputs are split over blocks

_PREAMBLE = r"""
// the fused reductions' pieces (Note [Fused CUDA reductions] in strided/_compile/cuda.py)
template <typename T> __device__ __forceinline__ T strided_fused_inf();
template <> __device__ __forceinline__ float strided_fused_inf<float>() {
    return __int_as_float(0x7f800000);
}
template <> __device__ __forceinline__ double strided_fused_inf<double>() {
    return __longlong_as_double(0x7ff0000000000000LL);
}
struct strided_fused_sum {
    template <typename A> __device__ __forceinline__ static A combine(A a, A b) { return a + b; }
};
struct strided_fused_prod {
    template <typename A> __device__ __forceinline__ static A combine(A a, A b) { return a * b; }
};
struct strided_fused_amax {  // NumPy's maximum: a NaN wins
    template <typename A> __device__ __forceinline__ static A combine(A a, A b) {
        return (a != a || a >= b) ? a : b;
    }
};
struct strided_fused_amin {
    template <typename A> __device__ __forceinline__ static A combine(A a, A b) {
        return (a != a || a <= b) ? a : b;
    }
};
// every thread's v combined within its warp by shuffles, then the warps' values in warp
// order from shared memory (sh: blockDim.x / 32 slots); every thread gets lane 0's result, so
// all agree even where the combine is not symmetric (the sign of a zero in max), and sh is
// free again when it returns (Note [Fused CUDA rows])
template <typename Op, typename A>
__device__ __forceinline__ A strided_fused_row(A v, A* sh) {
    for (int s = 16; s > 0; s >>= 1) v = Op::combine(v, __shfl_xor_sync(0xffffffffu, v, s));
    v = __shfl_sync(0xffffffffu, v, 0);
    const int warps = blockDim.x / 32;
    if (warps == 1) return v;
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x / 32] = v;
    __syncthreads();
    v = sh[0];
    for (int w = 1; w < warps; w++) v = Op::combine(v, sh[w]);
    __syncthreads();
    return v;
}
// every thread's v combined by a tree in shared memory (blockDim.x a power of two, at most
// 256), returned to every thread; sh is free again when it returns
template <typename Op, typename A>
__device__ __forceinline__ A strided_fused_block(A v, A* sh) {
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s)
            sh[threadIdx.x] = Op::combine(sh[threadIdx.x], sh[threadIdx.x + s]);
        __syncthreads();
    }
    v = sh[0];
    __syncthreads();
    return v;
}
"""


def _accumulator(red):
    """(C type, dtype name, initial value, combining struct) of reduction ``red``."""
    rname = red.target.__name__
    if rname in ("sum", "prod"):
        return "double", "float64", "0.0" if rname == "sum" else "1.0", f"strided_fused_{rname}"
    dname = red.all_input_nodes[0].meta["tensor_meta"].dtype.name
    ctype = CUDA_TYPES[dname]
    sign = "-" if rname == "amax" else ""
    return ctype, dname, f"{sign}strided_fused_inf<{ctype}>()", f"strided_fused_{rname}"


def _generate_reduction(name, group, strides_of):
    red = group.reduction
    cshape, cstrides, n_kept, pointwise_outputs = group_loop(group, strides_of)
    nd = len(cshape)
    kept, reduced = list(range(n_kept)), list(range(n_kept, nd))
    M, R = math.prod(cshape[:n_kept]), math.prod(cshape[n_kept:])
    acc_t, acc_dtype, init, op = _accumulator(red)
    otype = CUDA_TYPES[red.meta["tensor_meta"].dtype.name]
    offset = _offsets(cstrides)
    n_in = len(group.inputs)
    j_red = n_in + len(pointwise_outputs)  # the reduction's output pointer
    value = _input_values(group, offset)
    params = ", ".join(f"char* p{k}" for k in range(j_red + 1))

    def fold(head):
        """The loop over an output's reduced elements ``r`` (``head`` opens it): the chain's
        statements, the stores of its written values, the value folded into ``acc``."""
        lines = ["    " + head, *_unravel("r", "t", reduced, cshape, "      ")]
        lines += _body(group, value, offset, pointwise_outputs, "      ")
        src = value[red.all_input_nodes[0]]
        return [*lines, f"      acc = {op}::combine(acc, ({acc_t})({src}));", "    }"]

    vertical = 0 < n_kept < nd and cstrides[0][n_kept - 1] == 1 and cstrides[0][-1] != 1
    if vertical:  # a thread per output
        lines = [f"__global__ void {name}({params}) {{", "  int flag = 0;"]
        lines.append(
            f"  for (long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x; o < {M}LL;"
            " o += (long long)blockDim.x * gridDim.x) {"
        )
        lines += _unravel("o", "q", kept, cshape, "    ")
        lines.append(f"    {acc_t} acc = {init};")
        lines += fold(f"for (long long r = 0; r < {R}LL; r++) {{")
        lines.append(f"    (({otype}*)p{j_red})[{offset(j_red)}] = ({otype})acc;")
        lines += ["  }", "  (void)flag;", "}"]
        grid = (min(-(-M // BLOCK), 65535), 1)
        return "\n".join(lines), Launch("thread", n=M, grid=grid)
    chunks = 1 if M >= 64 else max(1, min(-(-R // CHUNK), 1024 // M))
    chunk = -(-R // chunks)
    lines = [f"__global__ void {name}({params}, char* partials) {{"]
    lines += [f"  __shared__ {acc_t} sh[{BLOCK}];", "  int flag = 0;"]
    lines.append(f"  const long long r0 = blockIdx.y * {chunk}LL;")
    lines.append(f"  const long long r1 = r0 + {chunk}LL < {R}LL ? r0 + {chunk}LL : {R}LL;")
    lines.append(f"  for (long long o = blockIdx.x; o < {M}LL; o += gridDim.x) {{")
    if kept:
        lines += _unravel("o", "q", kept, cshape, "    ")
    lines.append(f"    {acc_t} acc = {init};")
    lines += fold("for (long long r = r0 + threadIdx.x; r < r1; r += blockDim.x) {")
    lines.append(f"    acc = strided_fused_block<{op}>(acc, sh);")
    if chunks == 1:
        lines.append(
            f"    if (threadIdx.x == 0) (({otype}*)p{j_red})[{offset(j_red)}] = ({otype})acc;"
        )
    else:
        lines.append(
            f"    if (threadIdx.x == 0) (({acc_t}*)partials)[blockIdx.y * {M}LL + o] = acc;"
        )
    lines += ["  }", "  (void)flag;", "  (void)partials;", "}"]
    grid = (min(M, 65535), chunks)
    if chunks == 1:
        return "\n".join(lines), Launch("block", grid=grid)
    # the second pass: an output's partials combined in chunk order (a block per output)
    comb = f"{name}_combine"
    lines += ["", f"__global__ void {comb}(char* partials, char* p{j_red}) {{"]
    lines.append(f"  __shared__ {acc_t} sh[{BLOCK}];")
    lines.append(f"  for (long long o = blockIdx.x; o < {M}LL; o += gridDim.x) {{")
    lines.append(f"    {acc_t} acc = {init};")
    lines.append(f"    for (long long c = threadIdx.x; c < {chunks}LL; c += blockDim.x)")
    lines.append(f"      acc = {op}::combine(acc, (({acc_t}*)partials)[c * {M}LL + o]);")
    lines.append(f"    acc = strided_fused_block<{op}>(acc, sh);")
    out_at = offset(j_red)
    if kept:
        lines += _unravel("o", "q", kept, cshape, "    ")
    lines.append(f"    if (threadIdx.x == 0) (({otype}*)p{j_red})[{out_at}] = ({otype})acc;")
    lines += ["  }", "}"]
    launch = Launch("block", grid=grid, partials=(chunks * M, acc_dtype), combine=comb)
    return "\n".join(lines), launch


# Note [Fused CUDA rows]
# ~~~~~~~~~~~~~~~~~~~~~~
# A row group (Note [One pass per row] in rows.py: softmax's max, sum of exponentials and
# quotient; log_softmax's; layer norm's mean, variance and normalised output) is one kernel
# with a warp or a block per row, where its groups would be three to five kernels, each reading
# the matrix from memory and some writing an intermediate (``e``) for the next to read back.
# As eager's softmax kernel chooses (Note [Fused softmax] in strided/cuda/_softmax.py), a row
# of up to 1024 elements gets a warp (T = 32 threads, eight rows to a block of 256: threadIdx.y
# picks the row), a longer one a block of T = 256 or 512 threads (below). The T threads take
# the row's elements ``r = threadIdx.x + e*T``: neighbouring threads read neighbouring
# addresses. For each reduction of the row every thread folds its elements into an accumulator
# (the chain before it computed in registers), the threads combine them
# (``strided_fused_row``: shuffles within the warp, then for a block the warps' values in
# order), and every thread holds the row's scalar; the scalars of the row (``log(s)``,
# ``rsqrt(var + eps)``) are computed by every thread; the last loop computes and writes the
# values over the row. What the matrix costs is one read and one write.
#
# The row is kept in registers when it fits: the elements of the row's own tensors (those
# that step along the row and from row to row; layer norm's weight and bias, the same for
# every row, are read where they are needed, from L1), K = ceil(L / T) per thread and tensor,
# are loaded once into arrays the unrolled loops index with constants (so the arrays are
# registers), up to ROW_REGISTERS values a thread; each later loop reads them there, so the
# kernel has one load of each element of the input. A row longer than 256 * ROW_REGISTERS
# elements gets 512 threads, so that 16384 float32 still fit; a longer one is read again from
# memory by each loop, where the previous pass left it in L2 (such a row is 64 KiB and more of
# float32, against 50 MB of L2). 1024 threads would keep 32768 in registers, but on an H200 a
# block of 1024 holding an 8192-wide row ran at 0.58x the 256-thread block's speed (232
# against 135 us for 8192x8192 float32), slower even than 256 threads reading the row three
# times from L2 (188 us).
#
# What decides the speed is registers, which decide how many rows a multiprocessor has in
# flight. The loops' indices are ``int`` wherever every offset of the loop nest fits in 32 bits
# (``_fits_int32``; else ``long long``), and only a thread's last element is checked against
# the row's end (``e < K - 1 || r < L``: the earlier ones lie inside it, and the check folds
# away in the unrolled loop; none at all where T divides L). With 64-bit indices and a check
# on every element the softmax(2x) kernel of an 8192x8192 float32 matrix took 122 registers a
# thread (two blocks of 256 on a multiprocessor) and ran in 545 us on an H200; with these 55
# (four blocks) it runs in 135 us, 3.99 TB/s counting the read and the write, where a
# device-to-device copy of the matrix takes 128.5 us; layer norm 209 -> 134 us. Its results
# were bit for bit the same (the same statements in the same order).
#
# Softmax's online rescaling (one pass computing max and sum together, ``s * exp(m_old -
# m_new)``) is not needed for one read and rounds differently from eager's max-then-sum; the
# loops here are the CPU row group's, so the values are the three groups' values in the same
# order of operations, with the sums in a double (Note [Fused CUDA reductions]). The double
# costs nothing measurable here: a float accumulator ran in the same 135 us; nor does
# computing ``exp(x - m)`` again in the last loop (keeping it in the row's registers instead
# ran in 134.4 us against 134.7): at the memory's speed the arithmetic is hidden.
#
# What has run where: on ``cuda-emulated`` (tests/test_compile.py, against eager: float32 and
# float64, odd row lengths, rows longer than a block and longer than the registers, one-
# element rows, non-contiguous inputs, 64-bit indices) and compiled by NVRTC for sm_80 and
# sm_90; on an H200 the 8192x8192 kernels (softmax(2x) with T = 256, 512 and 1024, layer norm
# with 256 and 512) gave the results above, bit for bit those of the 64-bit kernels, and
# compute-sanitizer's memcheck and racecheck found nothing in softmax's three and layer norm's
# 512-thread one.

ROW_REGISTERS = 32  # elements of the row a thread keeps in registers, at most
WARP_MAX_ROW = 1024  # rows up to this long get a warp each, longer ones a block
ROW_THREADS = (256, 512)  # a long row's block: the fewest that keep it in registers


def _row_threads(L, n_own):
    """Threads per row of ``L`` elements with ``n_own`` tensors of its own to keep in
    registers (Note [Fused CUDA rows])."""
    if L <= WARP_MAX_ROW:
        return 32
    for T in ROW_THREADS:
        if -(-L // T) * n_own <= ROW_REGISTERS:
            return T
    return BLOCK


def _fits_int32(cshape, cstrides):
    """Whether every index and element offset of a loop nest, and the loop's count twice over
    (a grid-stride step past the end), fit a 32-bit int."""
    reach = max((sum((n - 1) * abs(s) for n, s in zip(cshape, st, strict=True))
                 for st in cstrides), default=0)  # fmt: skip
    return max(reach, 2 * math.prod(cshape)) < 2**31


def _generate_rows(name, row, strides_of):
    """A row group's kernel, a warp or a block per row (Note [Fused CUDA rows])."""
    from strided._compile.rows import row_loop

    cshape, cstrides, n_kept, full = row_loop(row, strides_of)
    nd = len(cshape)
    kept, reduced = list(range(n_kept)), list(range(n_kept, nd))
    M, L = math.prod(cshape[:n_kept]), math.prod(cshape[n_kept:])
    n_in = len(row.inputs)
    along = [k for k in range(n_in) if any(cstrides[k][d] for d in reduced)]
    own = [k for k in along if any(cstrides[k][d] for d in kept)]  # kept in registers
    T = _row_threads(L, len(own))  # threads per row
    rows = max(BLOCK // T, 1)  # rows per block, threadIdx.y
    K = -(-L // T)
    cached = K * len(own) <= ROW_REGISTERS
    idx = "int" if _fits_int32(cshape, cstrides) else "long long"
    ll = "LL" if idx == "long long" else ""
    offset = _offsets(cstrides, idx)
    ctype = {p: CUDA_TYPES[p.meta["tensor_meta"].dtype.name] for p in row.inputs + row.outputs}
    params = ", ".join(f"char* p{k}" for k in range(n_in + len(row.outputs)))
    lines = [f"__global__ void {name}({params}) {{"]
    lines += [f"  __shared__ double sh[{T // 32}];", "  int flag = 0;"]
    lines.append(
        f"  for ({idx} o = blockIdx.x * {rows}{ll} + threadIdx.y; o < {M}{ll};"
        f" o += ({idx})gridDim.x * {rows}) {{"
    )
    if kept:
        lines += _unravel("o", "q", kept, cshape, "    ", idx)

    def loads(k):
        p = row.inputs[k]
        return f"(({ctype[p]}*)p{k})[{offset(k)}]"

    # an input is x<k>: read once per row (a value of the row) or per element (along it)
    value = {p: f"x{k}" for k, p in enumerate(row.inputs)}
    lines += [f"    const {ctype[p]} x{k} = {loads(k)};" for k, p in enumerate(row.inputs)
              if k not in along]  # fmt: skip
    written = {n: j for j, n in enumerate(row.outputs)}

    def loop(stmts, unroll=cached):
        """The loop over a thread's elements of the row running ``stmts``."""
        head = [f"    for (int e = 0; e < {K}; e++) {{"]
        if unroll:
            head.insert(0, "    #pragma unroll")
        out = [*head, f"      const {idx} r = ({idx})threadIdx.x + e * {T}{ll};"]
        # only a thread's last element can lie past the row's end
        out.append(f"      if ({'true' if L % T == 0 else f'e < {K - 1} || r < {L}{ll}'}) {{")
        if reduced:
            out += _unravel("r", "t", reduced, cshape, "        ", idx)
        out += ["        " + s for s in stmts]
        return [*out, "      }", "    }"]

    if cached and own:
        for k in own:
            lines.append(f"    {ctype[row.inputs[k]]} c{k}[{K}];")
        lines += loop([f"c{k}[e] = {loads(k)};" for k in own])
    element_loads = [
        f"const {ctype[row.inputs[k]]} x{k} = {f'c{k}[e]' if cached and k in own else loads(k)};"
        for k in along
    ]

    def statements(targets):
        """The statements of the values over the row that ``targets`` need, in graph order."""
        needed, stack = set(), list(targets)
        while stack:
            n = stack.pop()
            if n in full and n not in needed:
                needed.add(n)
                stack.extend(n.all_input_nodes)
        inner = {**value, **{n: f"v_{n.name}" for n in needed}}
        stmts = [
            node_statement(
                n, inner, types=CUDA_TYPES, expression=cuda_expression, cast_where=True
            )  # fmt: skip
            for n in row.nodes
            if n in needed
        ]
        return element_loads + stmts, inner

    reductions = set(row.reductions)
    for node in row.nodes:
        t = CUDA_TYPES[node.meta["tensor_meta"].dtype.name]
        if node in reductions:
            src = node.all_input_nodes[0]
            acc_t, _, init, op = _accumulator(node)
            stmts, inner = statements([src])
            acc = f"acc_{node.name}"
            lines.append(f"    {acc_t} {acc} = {init};")
            lines += loop([*stmts, f"{acc} = {op}::combine({acc}, ({acc_t})({inner[src]}));"])
            lines.append(f"    {acc} = strided_fused_row<{op}>({acc}, ({acc_t}*)sh);")
            lines.append(f"    const {t} s_{node.name} = ({t}){acc};")
        elif node in full:
            continue  # computed inside the loops that need it
        else:  # a value of the row: a scalar every thread computes
            statement = node_statement(node, value, prefix="s_", types=CUDA_TYPES,
                                       expression=cuda_expression, cast_where=True)  # fmt: skip
            lines.append("    " + statement)
        value[node] = f"s_{node.name}"
        if node in written:
            j = n_in + written[node]
            lines.append(f"    if (threadIdx.x == 0) (({t}*)p{j})[{offset(j)}] = s_{node.name};")
    last = [n for n in row.outputs if n in full]
    if last:
        stmts, inner = statements(last)
        stores = [
            f"(({ctype[n]}*)p{n_in + written[n]})[{offset(n_in + written[n])}] = {inner[n]};"
            for n in last
        ]
        lines += loop([*stmts, *stores])
    lines += ["  }", "  (void)flag;", "}"]
    grid = (min(-(-M // rows), 65535), 1)
    return "\n".join(lines), Launch("row", grid=grid, block=(T, rows))


class CudaKernels:
    """The fused kernels of one graph on CUDA devices: one module, compiled per backend on
    first use (Note [Fused CUDA kernels])."""

    def __init__(self, functions):
        self.functions = functions  # [(name, source, Launch)]
        from strided.cuda import _launch

        # every __global__ function: the groups' kernels and the split reductions' second ones
        self.names = [f for f, _, _ in functions]
        self.names += [spec.combine for _, _, spec in functions if spec.combine]
        body = "\n\n".join(src for _, src, _ in functions)
        if any(spec.kind != "pointwise" for _, _, spec in functions):
            body = _PREAMBLE + "\n" + body
        self.source = _launch.source("ops.cuh") + "\n// generated by strided.compile\n" + body
        self.generated = body
        self.key = hashlib.sha256(self.source.encode()).hexdigest()[:16]
        self._compiled = {}

    def kernel(self, index, device):
        """A callable (the kernel's tensors, inputs then outputs) -> None launching kernel
        ``index``."""
        from strided.cuda import _launch
        from strided.cuda._backend import backend_for

        backend = backend_for(device)
        name, _, spec = self.functions[index]
        module = self._compiled.get(id(backend))
        if module is None:  # NVRTC (CuPy) or g++ (the emulator); both cache by the text
            module = backend.compile(self.source, self.names, _launch.NVRTC_OPTIONS)
            self._compiled[id(backend)] = module
        fn = module.get_function(name)
        if spec.kind == "pointwise":
            if spec.n == 0:
                return lambda *tensors: None
            n = np.int64(spec.n)
            grid = _launch.grid_1d(spec.n)

            def launch(*tensors):  # _launch.launch_1d, its grid worked out once
                backend.launch(fn, grid, (_launch.BLOCK,), (*_pointers(tensors), n))

            return launch
        if spec.kind == "row":
            return lambda *tensors: backend.launch(fn, spec.grid, spec.block, _pointers(tensors))
        if spec.kind == "thread":
            return lambda *tensors: backend.launch(fn, spec.grid, (BLOCK,), _pointers(tensors))
        combine = module.get_function(spec.combine) if spec.combine else None
        null = np.uint64(0)

        def launch_block(*tensors):
            import strided

            if combine is None:
                backend.launch(fn, spec.grid, (BLOCK,), (*_pointers(tensors), null))
                return
            # Note [Fused CUDA reductions]: the partials of a split reduction
            count, dtype = spec.partials
            scratch = strided.empty((count,), dtype=dtype, device=device)
            extra = np.uint64(scratch.data_ptr())
            backend.launch(fn, spec.grid, (BLOCK,), (*_pointers(tensors), extra))
            out = _pointers(tensors[-1:])[0]
            backend.launch(combine, (spec.grid[0],), (BLOCK,), (extra, out))

        return launch_block


def _pointers(tensors):
    """The tensors' data pointers as kernel arguments: each the 8 bytes of the address, which
    both backends take as a parameter's bytes (Note [Kernel parameters] in
    strided/cuda/_params.pyx), at a third of the cost of a NumPy uint64 each."""
    return tuple([t.data_ptr().to_bytes(8, "little") for t in tensors])
