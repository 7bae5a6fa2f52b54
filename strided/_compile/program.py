"""A lowered graph's steps as one generated Python function, made once per plan, and the
kernels it calls.

Note [The plan's run loop]
~~~~~~~~~~~~~~~~~~~~~~~~~~
The steps of a plan are fixed once the guards pass, so what an Interpreter works out on every
call (which value each argument of a node names, a dict lookup per node, the nested ``map_arg``
walk over args and kwargs, ``getattr`` for the opcode's method) is worked out once, when the
plan is made, and written down as Python source: one function per lowered graph whose
parameters are the graph's placeholders and whose body is the steps in order. A fused group is
an allocation per output and one call of its kernel on the tensors it reads and writes, an
eager node the line ``GraphModule.code`` would have for it (fx.graph.CodeWriter), each value a
local variable named after its node. ``explain()`` prints the function, so the line of Python
a student wrote can be followed to the kernel call that runs it. PyTorch's compiled graphs make
the same move (Inductor emits one Python ``call`` function with the kernels' calls written
out).

This replaced a loop over a list of steps with numbered slots, itself the replacement of an
Interpreter: the MLP training step's forward and backward (6 + 8 fused kernels, 14 eager nodes,
most of them tiny) spent ~0.3 ms per call in the Interpreter's glue on the 2-core Zen 3, about
as much as its two small matmuls; the slot loop still cost ~1.5 us a call on a one-kernel
graph (a list of slots, a tuple unpacked per step, two list comprehensions of data pointers),
the generated function ~0.3 us (Note [The cost of a compiled call] in __init__.py).

The checks stay: each eager node's result's strides against the captured ones (an eager kernel
may lay out its result differently for other values, e.g. a view that had to copy), and, in a
backward's program, each input's (the incoming gradient is not guarded; a forward's inputs are,
stride by stride); a mismatch returns None and the caller runs the graph eagerly.

Note [Writing into a dead buffer]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A pointwise group whose input is a tensor this plan made (a group's output, or a matmul's
result: ``gelu(x @ w + b)``'s epilogue reads the product) and that no later step reads writes
its output into that input's memory when shape, dtype and strides are the same (Inductor's
buffer reuse). Element i is read before element i is written, at the same offset, so the loop
is the same loop; what it saves is a fresh allocation, whose pages the kernel would otherwise
fault in one by one (16 MiB for 4096x1024 float32) and the cache lines of a second output.
Inputs the caller passed are never written, nor views (an eager reshape may share its input's
memory), nor a reduction group's inputs. In the program it is the line ``out = input  #
written in place`` before the kernel's call.

Note [Intermediates in row order]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A group writes each output in eager's memory order (codegen.out_strides), so what the caller
gets is laid out as eager would lay it out. A value that only other fused groups read is never
seen by anyone, and eager's order there can be a bad one: in the digits CNN's max-pool
backward, the gradient arriving through a permuted matmul result made the count-divided
gradient ``(64, 2, 1, 2, 1, 32)`` come out with strides ``(128, 2, ., 1, ., 4)``, and the
``where`` over the 32768-element window grid that reads it gathered with stride 4 in its inner
loop (67 us). Such values are written row-major instead: the reader runs along memory, and the
writer (a quarter of the elements) takes the strided side (the two together ~5 us). A value an
eager step reads, or the graph returns (a forward's saved tensors too), keeps eager's order,
since the eager steps' results are checked against the strides they had at capture.

Note [Views the kernels need not see]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A fused kernel (and a planned cuBLAS call) takes only its tensors' data pointers: the strides
it reads them with were written into its source at capture. So an eager view step (reshape of
a row-major tensor, expand, broadcast_to, matrix_transpose, permute_dims: views that start at
their input's address) whose result only kernels read is not run: its name is bound to the
tensor it views (``expand = negative``), whose pointer is the view's. A backward is full of
them (the engine's reshapes and expands around each reduction: 8 of the MLP step's 14 eager
steps, ~1 us each with the check of their strides). And a group output that the graph returns
only through a reshape (a bias gradient: ``sum(g, axis=0, keepdims=True).reshape(n)``) is
allocated in the reshape's shape, the one tensor then standing for both: the caller gets a
tensor of its own rather than a view, which the autograd engine would copy before making it a
``.grad`` (a view may share memory with another gradient). A view's memory is its source's, so
Note [Writing into a dead buffer] counts a read of a view as a read of what it views.

Note [A plan's own buffers]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
On a CUDA device every tensor a step makes is an allocation from the pool (a host call of a
few microseconds on a GPU), and most of a training step's are never seen outside the plan: the
forward's ``x @ w1`` that the bias-and-ReLU kernel reads, the backward's partial sums and
gradients between kernels. A value that only kernels read (fused groups, planned cuBLAS calls,
through views bound to it: Notes [Views the kernels need not see], [A compiled matmul's cuBLAS
call]) and that is not returned (nor saved for the backward) gets a buffer the plan allocates
once, when its program is made, and every call writes it again: the MLP step's 16 of 32
allocations. Kernels run in the order they are launched on the stream, so the next call's
writes come after this call's reads. Two calls at once (threads) would share the buffers, so
a call holds the plan's lock while it runs and a second one, finding it taken, returns None:
the graph runs eagerly for it. Only values up to OWN_BUFFER_BYTES (1 MiB) are kept: a larger
one's kernel time dwarfs its allocation, and the plan would hold its memory for its lifetime.
Each value has its own buffer (no two share memory by lifetime, as Inductor's planner packs
them): the MLP's are 200 KB in all. Not on the CPU, where an allocation is cheap and Note
[Writing into a dead buffer] already reuses memory within a call. A plan used from two CUDA
streams would need a wait between them (not done: strided launches on the current stream).

Note [A compiled matmul's cuBLAS call]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
On a CUDA device an eager ``a @ b`` spends ~10 us of host time before cuBLAS is called: the
dispatcher, the shape checks, promotion, ``gemm_calls``' batch loops and its reading of each
operand as column-major (Note [cuBLAS on strided views] in strided/cuda/_linalg.py). In a plan
the shapes, dtypes and strides of a 2-D float matmul's operands are known when the plan is
made, so all of that is done once (``column_major_op``) and the program holds the one
``backend.gemm(...)`` call with its constants written in; what is left per call is the
result's allocation and three data pointers. An operand that is an eager
``matrix_transpose`` of a tensor is read from that tensor with the transposed op (a transpose
is a view at the same address), and a transpose no other step reads is not made at all: the
MLP backward's three. An operand the program did not lay out itself (a forward's input) has
its strides checked first, as an eager step's result is. Anything else (batched, a 1-D
operand, an integer or half dtype, an operand cuBLAS cannot read in place, an empty dim) stays
the eager step. The MLP training step on ``cuda-emulated`` with the device stubbed out
(benchmarks/bench_cuda_host.py): 5 matmuls of ~11 us of host time each become ~1.5 us.
"""

from __future__ import annotations

import ctypes
import keyword
import math
import operator
import threading

import strided
from strided import _core
from strided._compile.codegen import _contiguous_strides, dense_order, out_strides
from strided._device import as_device
from strided._dtype import as_dtype
from strided.fx.graph import CodeWriter, map_arg

try:  # the compiled hot path (Note [The cost of a compiled call] in __init__.py)
    from strided._compile._call import Kernel, empty
except ImportError:  # a checkout whose compiled modules predate it: ctypes and _core._empty
    Kernel = None

    def empty(shape, dtype, device):
        return _core._empty(shape, dtype, device)  # strided.empty less its argument checks


# A kernel over at least this many elements lets other Python threads run while it works (the
# CPU loops' OpenMP grain, Note [Threads] in strided/_threads.pyx); a smaller one keeps the GIL.
NOGIL_NUMEL = 32768

__all__ = ["cpu_kernel", "cuda_kernel", "make_program", "NOGIL_NUMEL"]


def cpu_kernel(lib, name, n_pointers, numel):
    """Kernel ``name`` of the loaded C library as a function of tensors: ``k(a, b, out)``."""
    f = getattr(lib, name)
    if Kernel is not None:
        return Kernel(ctypes.cast(f, ctypes.c_void_p).value, name, numel >= NOGIL_NUMEL)
    f.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    f.restype = None
    array = ctypes.c_void_p * n_pointers  # made once, not per call
    return lambda *tensors: f(array(*[t.data_ptr() for t in tensors]))


def cuda_kernel(launch):
    """A CUDA launcher (CudaKernels.kernel in cuda.py) as the program's kernel: the same
    function of tensors."""
    return launch


def _allocation(node):
    """How to allocate ``node``'s output in the layout the kernel writes (codegen.out_strides:
    eager's memory order, so ``x.T * 2`` compiled has eager's strides): (shape in memory
    order, the permutation back or None), worked out once per plan."""
    m = node.meta["tensor_meta"]
    order = dense_order(m.shape, out_strides(node))
    inverse = None if order == sorted(order) else [order.index(d) for d in range(len(order))]
    return tuple(m.shape[d] for d in order), inverse


def make_program(low, check_inputs):
    """(source, function) of ``low``'s steps as Python (Note [The plan's run loop]); the
    function takes the graph's inputs and returns its output, or None when a tensor's strides
    differ from the captured ones (the caller then runs the graph eagerly). ``check_inputs``:
    the inputs' strides are not guarded (a backward's incoming gradient), so check them."""
    nodes = low.gm.graph.nodes
    w = CodeWriter()
    taken = {n.name for n in nodes} | set(w.globals)

    named = {}  # id(value) -> its global's name (a dtype, a device: one name each)

    def name_for(value, hint):
        """A global holding ``value``, named ``hint`` unless a node or global has that name."""
        if id(value) in named:
            return named[id(value)]
        hint = "".join(c if c.isalnum() else "_" for c in hint)
        name, k = hint, 1
        while name in taken or keyword.iskeyword(name) or not name.isidentifier():
            name, k = f"{hint}_{k}", k + 1
        taken.add(name)
        w.globals[name] = value
        named[id(value)] = name
        return name

    w.globals["self"] = low.gm  # get_attr and call_module nodes read it
    empty_name = name_for(empty, "empty")
    reuse = _reusable(low) if low.device == "cpu" else {}
    placeholders = [n for n in nodes if n.op == "placeholder"]
    body = []
    if check_inputs:
        for n in placeholders:
            if n.meta.get("strides") is not None:
                body.append(f"if {n.name}.stride() != {n.meta['strides']!r}:")
                body.append("    return None  # laid out otherwise than at capture")
    gemms, folded = _gemm_steps(low, check_inputs) if low.device != "cpu" else ({}, set())
    views, reshaped = _view_steps(low, set(gemms) | folded, reuse)
    own = _own_buffers(low, set(gemms) | folded | set(views), reshaped)
    held = {}  # node -> the global holding its buffer (Note [A plan's own buffers])
    for n in own:
        shape, inverse = _allocation(n) if n not in gemms else (n.meta["tensor_meta"].shape, None)
        m = n.meta["tensor_meta"]
        t = empty(tuple(shape), as_dtype(m.dtype), as_device(m.device))
        held[n] = name_for(t if inverse is None else t.permute(inverse), f"buffer_{n.name}")
    for kind, what in low.steps:
        if kind == "eager" and what in folded:
            continue  # a transpose only cuBLAS calls read (Note [A compiled matmul's cuBLAS...])
        if kind == "eager" and what in gemms:
            body += _gemm_lines(what, gemms[what], empty_name, name_for, held.get(what))
            continue
        if kind == "eager" and what in views:  # Note [Views the kernels need not see]
            body.append(
                f"{what.name} = {views[what].name}  # its view: the kernels know the strides"
            )
            continue
        if kind == "eager" and what in reshaped.values():
            continue  # made with the group output it reshapes
        if kind == "eager":
            body.append(f"{what.name} = {_eager_expression(what, w, low.device, name_for)}")
            want = what.meta.get("strides")
            if want is not None:
                body.append(f"if {what.name}.stride() != {want!r}:")
                body.append("    return None  # the eager op laid its result out otherwise")
            continue
        kernel = name_for(low.kernels[what.index], f"{low.prefix}{what.index}")
        body.append(f"# {what!r}")
        for out in what.outputs:
            if out in reuse:  # Note [Writing into a dead buffer]
                body.append(f"{out.name} = {reuse[out].name}  # written in place")
                continue
            if out in held:
                body.append(f"{out.name} = {held[out]}  # the plan's own buffer")
                continue
            shape, inverse = _allocation(out)
            m = out.meta["tensor_meta"]
            dtype = as_dtype(m.dtype)
            dtype, device = name_for(dtype, dtype.name), name_for(as_device(m.device), m.device)
            target = out.name
            if out in reshaped:  # Note [Views the kernels need not see]: the reshape's shape
                target = f"{reshaped[out].name} = {out.name}"
                shape = tuple(reshaped[out].meta["tensor_meta"].shape)
            alloc = f"{empty_name}({shape!r}, {dtype}, {device})"
            body.append(f"{target} = {alloc}" + ("" if inverse is None else f".permute({inverse})"))
        args = ", ".join(n.name for n in (*what.inputs, *what.outputs))
        body.append(f"{kernel}({args})")
    body.append(f"return {w.arg_text(nodes[-1].args[0])}")
    if held:  # one call at a time uses the buffers; another (a thread) runs the graph eagerly
        lock = name_for(threading.Lock(), "buffers_lock")
        body = [f"if not {lock}.acquire(False):", "    return None  # the buffers are in use",
                "try:", *("    " + b for b in body),
                "finally:", f"    {lock}.release()"]  # fmt: skip
    params = ", ".join(n.name for n in placeholders)
    fname = "forward" if low.prefix == "kernel_" else low.prefix.rstrip("_")  # or "backward"
    source = f"def {fname}({params}):\n" + "".join(f"    {b}\n" for b in body)
    namespace = dict(w.globals)
    exec(compile(source, f"<strided.compile {fname}>", "exec"), namespace)  # noqa: S102
    return source, namespace[fname]


_VIEWS = None  # the eager views whose result starts at their input's address: {op: always}


def _view_steps(low, planned, reuse):
    """({eager view step: the tensor it views}, {group output: the eager reshape of it the
    graph returns}) of Note [Views the kernels need not see]. ``planned``: the matmul and
    transpose steps of Note [A compiled matmul's cuBLAS call], which read data pointers too;
    ``reuse``: the outputs written into a dead buffer (Note [Writing into a dead buffer])."""
    global _VIEWS

    if _VIEWS is None:  # reshape only of a row-major tensor: otherwise it may copy or move
        _VIEWS = {strided.reshape: False, strided.expand: True, strided.broadcast_to: True,
                  strided.matrix_transpose: True, strided.permute_dims: True}  # fmt: skip
    grouped = {}  # group output -> the strides its kernel writes
    members = set()
    for kind, g in low.steps:
        if kind == "group":
            members.update(g.nodes)
            grouped.update((n, tuple(out_strides(n))) for n in g.outputs)

    def row_major(n, strides):
        return strides == tuple(_contiguous_strides(n.meta["tensor_meta"].shape))

    def view_of(node):
        """The tensor ``node`` views at its address, or None."""
        always = _VIEWS.get(node.target) if node.op == "call_function" else None
        if always is None or not node.args or not hasattr(node.args[0], "meta"):
            return None
        src = node.args[0]
        if always:
            return src
        st = grouped.get(src, src.meta.get("strides"))
        if len(node.args) == 2 and not node.kwargs and st is not None and row_major(src, st):
            return src
        return None

    eager = [node for kind, node in low.steps if kind == "eager"]
    seen = set()  # views only kernels read, directly or through other such views: last first
    for node in reversed(eager):
        if view_of(node) is not None and all(
            u in members or u in planned or u in seen for u in node.users
        ):
            seen.add(node)
    views, reshaped = {}, {}
    for node in eager:
        src = view_of(node)
        if src is None:
            continue
        if node in seen:
            views[node] = views.get(src, src)
        elif (
            node.target is strided.reshape
            and src in grouped
            and src not in reuse
            and set(src.users) == {node}
            and row_major(src, grouped[src])
            and row_major(node, node.meta.get("strides"))
        ):
            reshaped[src] = node
    return views, reshaped


OWN_BUFFER_BYTES = 1 << 20  # the largest intermediate a plan keeps a buffer of its own for


def _own_buffers(low, kernel_steps, reshaped):
    """The values of a CUDA program that get a buffer of the plan's own (Note [A plan's own
    buffers]): the results of groups and planned matmuls (``kernel_steps``: those and the views
    bound to their tensors) that only kernels read, of at most OWN_BUFFER_BYTES."""
    if low.device == "cpu":
        return []
    members = set()
    made = []
    for kind, what in low.steps:
        if kind == "group":
            members.update(what.nodes)
            made += what.outputs
        elif what in kernel_steps and what.target in (operator.matmul, strided.matmul):
            made.append(what)
    own = []
    for n in made:
        m = n.meta["tensor_meta"]
        if n in reshaped or math.prod(m.shape) * as_dtype(m.dtype).itemsize > OWN_BUFFER_BYTES:
            continue
        if all(u in members or u in kernel_steps for u in n.users):
            own.append(n)
    return own


def _gemm_steps(low, check_inputs):
    """({matmul node: its cuBLAS call's plan}, {transpose nodes no other step reads}) of a
    CUDA program (Note [A compiled matmul's cuBLAS call])."""
    from strided.cuda._linalg import _INT32_MAX, column_major_op

    grouped = {n: tuple(out_strides(n)) for kind, g in low.steps if kind == "group"
               for n in g.outputs}  # fmt: skip
    eager = {what for kind, what in low.steps if kind == "eager"}

    def strides_of(n):
        return grouped[n] if n in grouped else n.meta.get("strides")

    def operand(n):
        """(tensor node read, its 2-D strides as cuBLAS reads them, transpose node or None)."""
        if (
            n in eager
            and n.op == "call_function"
            and n.target is strided.matrix_transpose
            and len(n.args) == 1
            and not n.kwargs
            and hasattr(n.args[0], "meta")
            and len(n.args[0].meta["tensor_meta"].shape) == 2
        ):
            st = strides_of(n.args[0])
            return (n.args[0], None if st is None else st[::-1], n)
        return (n, strides_of(n), None)

    def text(x, t):
        return f"{x.name}.mT" if t is not None else x.name

    gemms, readers = {}, {}
    for kind, node in low.steps:
        if kind != "eager" or node.op != "call_function" or node.kwargs:
            continue
        if node.target not in (operator.matmul, strided.matmul) or len(node.args) != 2:
            continue
        if not all(hasattr(a, "meta") and "tensor_meta" in a.meta for a in node.args):
            continue
        ma, mb, mc = (x.meta["tensor_meta"] for x in (*node.args, node))
        if not (len(ma.shape) == len(mb.shape) == 2 and ma.dtype == mb.dtype == mc.dtype):
            continue
        (m, k), n = ma.shape, mb.shape[1]
        if mc.dtype.name not in ("float32", "float64") or not 0 < max(m, n, k) <= _INT32_MAX:
            continue
        if min(m, n, k) == 0 or node.meta.get("strides") != (n, 1):
            continue
        (a, sa, ta), (b, sb, tb) = operand(node.args[0]), operand(node.args[1])
        if sa is None or sb is None:
            continue
        read_a, read_b = column_major_op(m, k, *sa), column_major_op(k, n, *sb)
        if read_a is None or read_b is None:
            continue
        # an operand whose strides nothing checked yet: a forward's input (an eager step's
        # result is checked where it is made, a backward's inputs at the top)
        checks = [(x, strides_of(x)) for x in (a, b)
                  if x.op == "placeholder" and not check_inputs]  # fmt: skip
        what = f"{text(a, ta)} @ {text(b, tb)}"
        gemms[node] = (a, read_a, b, read_b, (m, n, k), mc.dtype, checks, what)
        for t in (ta, tb):
            if t is not None:
                readers.setdefault(t, set()).add(node)
    folded = {t for t, by in readers.items() if set(t.users) <= by}
    return gemms, folded


def _gemm_lines(node, plan, empty_name, name_for, held=None):
    """The program's lines of one planned matmul: checks, the result, the cuBLAS call (cuBLAS
    computes C^T = B^T A^T: b is its A, Note [cuBLAS on strided views])."""
    from strided.cuda._backend import backend_for

    a, (op_a, lda), b, (op_b, ldb), (m, n, k), dtype, checks, what = plan
    m_ = node.meta["tensor_meta"]
    device = as_device(m_.device)
    backend = name_for(backend_for(device), "backend")
    lines = [f"# {node.name} = {what}: cuBLAS's gemm, planned at capture"]
    for x, st in checks:
        lines += [f"if {x.name}.stride() != {st!r}:", "    return None"]
    dt, dev = name_for(dtype, dtype.name), name_for(device, m_.device)
    if held is not None:
        lines.append(f"{node.name} = {held}  # the plan's own buffer")
    else:
        lines.append(f"{node.name} = {empty_name}({(m, n)!r}, {dt}, {dev})")
    lines.append(
        f"{backend}.gemm({dtype.name!r}, {op_b!r}, {op_a!r}, {n}, {m}, {k}, "
        f"{b.name}.data_ptr(), {ldb}, 0, {a.name}.data_ptr(), {lda}, 0, "
        f"{node.name}.data_ptr(), {n}, 0, 1)"
    )
    return lines


def _eager_expression(node, w, device, name_for):
    """The Python expression running ``node`` eagerly. A custom op whose call was checked
    against its schema at capture runs its CPU kernel directly, its defaults filled in (the
    plan runs below autograd)."""
    f = node.target
    schema = getattr(f, "schema", None) if node.op == "call_function" else None
    if schema is not None and device == "cpu" and not node.kwargs:
        from strided import _dispatch

        kernel = _dispatch._kernels.get(f.name, {}).get("CPU")
        rest = tuple(a.default for a in schema.arguments[len(node.args) :])
        if kernel is not None and ... not in rest:
            k = name_for(kernel, f"{f.name.replace('::', '_')}_cpu")
            return f"{k}({w.call_args((*node.args, *rest), {})})"
    return w.expression(node)


_FRESH = None  # the eager ops whose result is always a new tensor


def _reusable(low):
    """{output node of a pointwise group: the input node whose memory it is written into}
    (Note [Writing into a dead buffer])."""
    global _FRESH

    if _FRESH is None:
        _FRESH = {operator.matmul, strided.matmul}
    steps = low.steps
    fresh = set()  # nodes whose tensor this plan owns: a group's output, a matmul's result
    for kind, what in steps:
        if kind == "eager":
            if what.op == "call_function" and what.target in _FRESH:
                fresh.add(what)
        else:
            fresh.update(what.outputs)
    # an eager step other than a matmul may return a view of its inputs: a read of its
    # result is a read of them too
    viewing = {what: what.all_input_nodes for kind, what in steps
               if kind == "eager" and what not in fresh}  # fmt: skip
    last_read = {}  # node -> index of the last step that reads it (the output: past the end)

    def read(n, i):
        last_read[n] = max(i, last_read.get(n, -1))
        for m in viewing.get(n, ()):
            read(m, i)

    for i, (kind, what) in enumerate(steps):
        for n in what.inputs if kind == "group" else what.all_input_nodes:
            read(n, i)
    map_arg(low.gm.graph.nodes[-1].args, lambda n: read(n, len(steps)))
    reuse = {}
    for i, (kind, g) in enumerate(steps):
        if kind != "group" or g.reduction is not None:
            continue
        free = [n for n in g.inputs if n in fresh and last_read.get(n) == i]
        for out in g.outputs:
            for n in free:
                if (
                    n.meta.get("tensor_meta") == out.meta.get("tensor_meta")
                    and n.meta.get("strides") == out.meta.get("strides")
                    and n.meta.get("strides") == tuple(out_strides(out))
                ):
                    reuse[out] = n
                    free.remove(n)
                    break
    return reuse


def row_major_intermediates(steps, graph):
    """Lay out row-major the values that only fused groups read (Note [Intermediates in row
    order]): their recorded strides are what every group's C then uses, writer and readers."""
    eager_reads = {n for kind, what in steps if kind == "eager" for n in what.all_input_nodes}
    outputs = set()
    map_arg(graph.nodes[-1].args, outputs.add)
    for kind, g in steps:
        if kind != "group":
            continue
        for n in g.outputs:
            if n in eager_reads or n in outputs or "tensor_meta" not in n.meta:
                continue
            n.meta["strides"] = tuple(_contiguous_strides(n.meta["tensor_meta"].shape))


def group_numel(group):
    """The number of elements a fused group's loop visits."""
    return math.prod(group.shape)
