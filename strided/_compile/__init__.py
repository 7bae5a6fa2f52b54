"""``strided.compile(fn)``: capture a function's graph on its first call, fuse its elementwise
chains and the reductions that consume them into C loops, and run those from then on
(torch.compile: Dynamo's guards and cache, Inductor's fusion and C++ codegen, reduced).

Note [What compile does on a call]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
1. **Guards.** The call's *guard key* is, per argument, a tensor's (dtype, shape, strides,
   device, requires_grad), or a Python scalar's type and value (it is baked into the graph as a
   constant, as Dynamo specialises ints), plus grad mode and, for a compiled nn.Module, its
   parameters. Guards on the exact strides subsume the "contiguous or not" class: a transposed
   or sliced input is another key, so the strides in the generated C are always right (Note
   [The loop nest] in codegen.py). Keyword arguments and defaults are bound to the parameters
   first (``f(x, k=2.0)`` is ``f(x, 2.0)``); a function with ``*args``/``**kwargs`` parameters,
   or a call with an argument that is neither a tensor nor a plain Python value (a list of
   tensors, an object), runs eagerly.
2. **Cache.** A key seen before runs its compiled *plan*. A new key is captured: the function is
   traced (strided.fx.symbolic_trace, the scalars as concrete arguments), run once eagerly node
   by node on the real inputs (that run's result is this call's result, and it records every
   node's shape and dtype), decomposed into primitives (fx/passes.py), split into fusion groups
   (Note [Fusion groups]), turned into C, compiled by the system compiler and cached on disk
   (Note [The kernel cache] in cc.py).
3. **Run.** A plan is a list of steps: a fused kernel called through ctypes on the tensors'
   data pointers (its outputs allocated here, in the memory order eager gave them), or one node
   run eagerly. The generated kernels do not read the floating-point status flags, so where
   eager warns (errstate: ``log(0)``), the compiled function gives the same values silently.

Note [Graph breaks and fallbacks]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A compiled function never gives another answer than the eager one, so whatever compile cannot
prove safe runs eagerly, and ``explain()`` says why:

* a node the fusion groups cannot take (matmul, a custom op, an integer op) is a *graph break*
  of one node: it runs eagerly between the fused kernels; a custom op's meta function, when it
  has one, is checked against what its kernel returned at capture (a wrong one is reported in
  ``explain()`` and the function runs eagerly);
* a function that cannot be traced (control flow on tensor values, ``len(x)``, a ``*args``
  signature) runs eagerly for that guard key; so does one that writes (an in-place op, ``out=``,
  ``x[i] = v``: fusing around a write could reorder it), and one whose bytecode touches Python
  state (stores to globals, closure cells, attributes or subscripts, ``print``, a list's
  ``append``): a trace would do that once, where eager does it every call;
* a call where autograd must record (grad mode on, an input requires grad) compiles the
  backward too, traced from the derivatives table (Note [The joint graph] in joint.py); a
  compiled nn.Module's parameters that require grad become inputs of the joint graph (and are
  guarded like inputs). When a formula does not trace, or a tensor captured from elsewhere
  requires grad, the call runs eagerly and eager autograd records it. The guard key holds grad
  mode, so ``no_grad()`` calls get their own forward-only plan;
* on a CUDA device the fusion groups, reductions included, become CUDA C++ kernels (Notes
  [Fused CUDA kernels] and [Fused CUDA reductions] in cuda.py); tensors on several devices
  run eagerly;
* no C compiler, or a compiler error in generated code: said once (a warning, with the source
  for an error), then eager.
"""

from __future__ import annotations

import ctypes
import dis
import functools
import warnings

import strided
from strided import _core, fx
from strided._compile import cc
from strided._compile.codegen import dense_order, generate_c, out_strides, plan_steps
from strided.fx.interpreter import Interpreter, _fetch
from strided.fx.passes import is_impure

__all__ = ["compile", "CompiledFunction", "reset"]

_warned = set()


def _warn_once(key, message):
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, RuntimeWarning, stacklevel=3)


def reset():
    """Forget the warnings said once (tests)."""
    _warned.clear()


# -- guards --------------------------------------------------------------------------------------


def _guard(a):
    if isinstance(a, _core.TensorBase):
        return (
            "tensor",
            a.dtype.name,
            tuple(a.shape),
            tuple(a.stride()),
            str(a.device),
            a._requires_grad,
        )
    if a is None or isinstance(a, (bool, int, float, str)):
        return ("const", type(a).__name__, a)
    if isinstance(a, (tuple, list)) and all(isinstance(x, (bool, int, float, str)) for x in a):
        return ("const", type(a).__name__, tuple(a))
    return None


def describe_guard(g, name):
    if g[0] == "tensor":
        _, dtype, shape, strides, device, rg = g
        return (
            f"{name}: tensor dtype={dtype} shape={list(shape)} strides={list(strides)} "
            f"device={device} requires_grad={rg}"
        )
    return f"{name}: {g[1]} == {g[2]!r}"


# -- side effects in the bytecode ----------------------------------------------------------------

_MUTATORS = {
    "append",
    "extend",
    "insert",
    "pop",
    "remove",
    "clear",
    "update",
    "setdefault",
    "add",
    "discard",
    "write",
    "popitem",
}


def _side_effects(fn):
    """A reason why ``fn``'s bytecode touches Python state, or None (Note [Graph breaks and
    fallbacks]). Conservative: it reads the code, not what it does."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    codes = [code]
    while codes:
        c = codes.pop()
        for ins in dis.get_instructions(c):
            if ins.opname in (
                "STORE_GLOBAL",
                "DELETE_GLOBAL",
                "STORE_DEREF",
                "STORE_ATTR",
                "DELETE_ATTR",
                "STORE_SUBSCR",
                "DELETE_SUBSCR",
            ):
                what = ins.argval if isinstance(ins.argval, str) else ins.opname
                return f"line {ins.positions.lineno}: {ins.opname} {what}"
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval == "print":
                return f"line {ins.positions.lineno}: calls print"
            if ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and ins.argval in _MUTATORS:
                return f"line {ins.positions.lineno}: calls .{ins.argval}()"
        codes.extend(k for k in c.co_consts if hasattr(k, "co_code"))
    return None


# -- plans ---------------------------------------------------------------------------------------


class _Capture(Interpreter):
    """The first run of a specialisation: eager, node by node, recording shapes and strides."""

    def placeholder(self, node, value):
        return self._record(node, value)

    def run_node(self, node):
        return self._record(node, super().run_node(node))

    def _record(self, node, value):
        if isinstance(value, _core.TensorBase):
            from strided.library import TensorMeta

            node.meta["tensor_meta"] = TensorMeta.of(value)
            node.meta["strides"] = tuple(value.stride())
        return value


class _Tracer(fx.Tracer):
    """The compiler's tracer looks into strided.nn's layers too: their parameters become
    get_attr nodes (so the joint graph can differentiate them) and their functional calls
    (F.linear) decompose into primitives."""

    def is_leaf_module(self, module, qualname):
        return False


class Lowered:
    """One graph ready to run on one device: its steps (Note [Fusion groups]), its kernels'
    source (C for the CPU, CUDA C++ for a CUDA device), and the kernels once built. ``prefix``
    names its kernels."""

    def __init__(self, gm, prefix, device="cpu"):
        self.gm, self.prefix, self.device = gm, prefix, device
        self.steps = plan_steps(gm.graph, device)
        self.groups = [g for kind, g in self.steps if kind == "group"]
        self.kernels = {}
        self.allocs = {g.index: [_allocation(n) for n in g.outputs] for g in self.groups}
        self.c, self.cuda = [], None
        strides = lambda n: n.meta["strides"]  # noqa: E731
        if device == "cpu":
            from strided._compile.rows import RowGroup, generate_row_c

            self.c = [
                (generate_row_c if isinstance(g, RowGroup) else generate_c)(
                    f"{prefix}{g.index}", g, strides
                )
                for g in self.groups
            ]
        elif self.groups:
            from strided._compile.cuda import CudaKernels, generate_cuda

            self.cuda = CudaKernels(
                [
                    (
                        f"strided_fused_{prefix}{g.index}",
                        *generate_cuda(f"strided_fused_{prefix}{g.index}", g, strides),
                    )
                    for g in self.groups
                ]
            )

    def bind(self, lib):
        """Take the kernels from the loaded C library (CPU) or compile the CUDA module."""
        for i, g in enumerate(self.groups):
            if self.cuda is not None:
                self.kernels[g.index] = self.cuda.kernel(i, strided.device(self.device))
                continue
            f = getattr(lib, f"{self.prefix}{g.index}")
            f.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
            f.restype = None
            array = ctypes.c_void_p * (len(g.inputs) + len(g.outputs))  # made once, not per call
            self.kernels[g.index] = lambda ptrs, f=f, array=array: f(array(*ptrs))
        self._program = _Program(self)

    def run(self, tensors):
        """The graph's output from its fused kernels and eager steps, or None when a tensor's
        strides differ from the captured ones (the caller then runs the graph eagerly)."""
        return self._program.run(tensors)

    def __call__(self, tensors):
        out = self.run(tensors) if self.groups else None
        return self.gm(*tensors) if out is None else out

    def explain(self, title):
        lines = [f"{title} (decomposed, with shapes):"]
        lines += ["  " + ln for ln in str(self.gm.graph).splitlines()]
        lines.append(f"{title} steps:")
        for kind, what in self.steps:
            if kind == "group":
                outs = ", ".join(n.name for n in what.outputs)
                ins = ", ".join(n.name for n in what.inputs)
                lines.append(
                    f"  fused {self.prefix}{what.index}: {what!r}; reads {ins}; writes {outs}"
                )
            else:
                lines.append(f"  eager {what.format()}")
        return lines


def _allocation(node):
    """How to allocate ``node``'s output in the layout the kernel writes (codegen.out_strides:
    eager's memory order, so ``x.T * 2`` compiled has eager's strides): (shape in memory
    order, dtype, device, the permutation back or None), worked out once per plan."""
    m = node.meta["tensor_meta"]
    order = dense_order(m.shape, out_strides(node))
    inverse = None if order == sorted(order) else [order.index(d) for d in range(len(order))]
    return tuple(m.shape[d] for d in order), m.dtype, m.device, inverse


def _allocate(shape, dtype, device, inverse):
    t = _core._empty(shape, dtype, device)  # strided.empty less its argument checks
    return t if inverse is None else t.permute(inverse)


class _Program:
    """A Lowered graph's steps as a flat list over numbered slots, made once per plan, so that
    a call runs no Interpreter (Note [The plan's run loop]).

    Note [The plan's run loop]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~
    The steps of a plan are fixed once the guards pass, so what an Interpreter works out on
    every call (which value each argument of a node names, a dict lookup per node, the nested
    ``map_arg`` walk over args and kwargs, ``getattr`` for the opcode's method) is worked out
    here once: every node gets a slot number, each eager node a *loader* per argument
    (a constant, a slot, or a flat tuple of both), each fused group its kernel, the slots it
    reads and writes and its output allocations. A call then fills a list of slots in order.
    The MLP training step's forward and backward (6 + 8 fused kernels, 14 eager nodes, most
    of them tiny) spent ~0.3 ms per call in the Interpreter's glue on the 2-core Zen 3, about
    as much as its two small matmuls; PyTorch's compiled graphs make the same move (Inductor
    emits one Python ``call`` function with the kernels' calls written out).

    Note [Writing into a dead buffer]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    A pointwise group whose input is a tensor this plan made (a group's output, or a matmul's
    result: ``gelu(x @ w + b)``'s epilogue reads the product) and that no later step reads
    writes its output into that input's memory when shape, dtype and strides are the same
    (Inductor's buffer reuse). Element i is read before element i is written, at the same
    offset, so the loop is the same loop; what it saves is a fresh allocation, whose pages
    the kernel would otherwise fault in one by one (16 MiB for 4096x1024 float32) and the
    cache lines of a second output. Inputs the caller passed are never written, nor views
    (an eager reshape may share its input's memory), nor a reduction group's inputs.

    The checks stay: each input's strides against the captured ones, and each eager node's
    result's strides (an eager kernel may lay out its result differently for other values,
    e.g. a view that had to copy); a mismatch returns None and the caller runs eagerly.
    """

    def __init__(self, low):
        nodes = list(low.gm.graph.nodes)
        slot = {n: i for i, n in enumerate(nodes)}
        self.size = len(nodes)
        self.inputs = [(slot[n], n.meta.get("strides")) for n in nodes if n.op == "placeholder"]
        interp = Interpreter(low.gm)
        reuse = _reusable(low) if low.device == "cpu" else {}
        self.steps = []
        for kind, what in low.steps:
            if kind == "eager":
                self.steps.append(
                    (
                        False,
                        _eager_call(what, slot, interp, low.device),
                        slot[what],
                        what.meta.get("strides"),
                    )
                )
            else:
                allocs = [
                    slot[reuse[n]] if n in reuse else spec
                    for n, spec in zip(what.outputs, low.allocs[what.index], strict=True)
                ]
                self.steps.append(
                    (
                        True,
                        low.kernels[what.index],
                        [slot[n] for n in what.inputs],
                        allocs,
                        [slot[n] for n in what.outputs],
                    )
                )
        self.output = _loader(nodes[-1].args[0], slot)

    def run(self, tensors):
        vals = [None] * self.size
        tensor = _core.TensorBase
        for (i, want), v in zip(self.inputs, tensors, strict=True):
            if isinstance(v, tensor) and v.stride() != want:
                return None  # a gradient laid out otherwise than at capture
            vals[i] = v
        for step in self.steps:
            if step[0]:
                _, kernel, reads, allocs, writes = step
                outs = [vals[a] if type(a) is int else _allocate(*a) for a in allocs]
                kernel([vals[i].data_ptr() for i in reads] + [o.data_ptr() for o in outs])
                for i, o in zip(writes, outs, strict=True):
                    vals[i] = o
            else:
                _, call, i, want = step
                v = vals[i] = call(vals)
                if isinstance(v, tensor) and v.stride() != want:
                    return None  # an eager node laid its result out differently
        return self.output(vals)


_FRESH = None  # the eager ops whose result is always a new tensor


def _reusable(low):
    """{output node of a pointwise group: the input node whose memory it is written into}
    (Note [Writing into a dead buffer])."""
    global _FRESH
    import operator

    if _FRESH is None:
        _FRESH = {operator.matmul, strided.matmul}
    from strided.fx.graph import map_arg

    steps = low.steps
    fresh = set()  # nodes whose tensor this plan owns: a group's output, a matmul's result
    for kind, what in steps:
        if kind == "eager":
            if what.op == "call_function" and what.target in _FRESH:
                fresh.add(what)
        else:
            fresh.update(what.outputs)
    last_read = {}  # node -> index of the last step that reads it (the output: past the end)
    for i, (kind, what) in enumerate(steps):
        for n in what.inputs if kind == "group" else what.all_input_nodes:
            last_read[n] = i
    map_arg(low.gm.graph.nodes[-1].args, lambda n: last_read.__setitem__(n, len(steps)))
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


def _loader(a, slot):
    """A function of the slot list giving argument ``a`` (a node, a constant, or a structure
    holding nodes) as the Interpreter's ``load`` would (Note [The plan's run loop])."""
    from strided.fx.graph import map_arg

    found = []
    map_arg(a, found.append)
    if not found:
        return lambda vals: a
    if hasattr(a, "op"):  # one node
        i = slot[a]
        return lambda vals: vals[i]
    if isinstance(a, tuple) and all(hasattr(x, "op") or not _holds_node(x) for x in a):
        spec = tuple((slot[x], None) if hasattr(x, "op") else (-1, x) for x in a)
        return lambda vals: tuple(vals[i] if i >= 0 else c for i, c in spec)
    return lambda vals: map_arg(a, lambda n: vals[slot[n]])


def _holds_node(x):
    from strided.fx.graph import map_arg

    found = []
    map_arg(x, found.append)
    return bool(found)


def _eager_call(node, slot, interp, device):
    """A function of the slot list running ``node`` eagerly (Note [The plan's run loop])."""
    args, kwargs = _loader(node.args, slot), _loader(node.kwargs, slot)
    if node.op == "call_function":
        f = node.target
        schema = getattr(f, "schema", None)
        if schema is not None and device == "cpu" and not node.kwargs:
            # a custom op whose call was checked against its schema at capture: its CPU
            # kernel directly, with the defaults filled in (the plan runs below autograd)
            from strided import _dispatch

            kernel = _dispatch._kernels.get(f.name, {}).get("CPU")
            rest = tuple(a.default for a in schema.arguments[len(node.args) :])
            if kernel is not None and ... not in rest:
                return lambda vals: kernel(*args(vals), *rest)
        return lambda vals: f(*args(vals), **kwargs(vals))
    method = getattr(interp, node.op)  # get_attr, call_method, call_module
    return lambda vals: method(node, args(vals), kwargs(vals))


class Plan:
    """One specialisation: its guards, its lowered graph(s), C source and library (or why it
    runs eagerly)."""

    def __init__(self, key, names):
        self.key, self.names = key, names
        self.gm = None
        self.forward = None
        self.backward = None  # the joint graph's backward (Note [The joint graph])
        self.joint_reason = None
        self.lifted = []  # parameter paths made inputs (Note [The joint graph])
        self.source = ""
        self.path = None
        self.eager_reason = None
        self.from_disk = False

    @property
    def steps(self):
        return self.forward.steps if self.forward is not None else []

    def explain(self):
        lines = ["guards:"]
        lines += ["  " + describe_guard(g, n) for g, n in zip(self.key, self.names, strict=True)]
        if self.eager_reason:
            lines.append(f"runs eagerly: {self.eager_reason}")
        if self.joint_reason:
            lines.append(f"backward by eager autograd: {self.joint_reason}")
        if self.forward is not None:
            lines += self.forward.explain("graph")
        elif self.gm is not None:
            lines.append("graph:")
            lines += ["  " + ln for ln in str(self.gm.graph).splitlines()]
        if self.backward is not None:
            lines += self.backward.explain("backward graph")
        if self.source and self.path is None:
            lines.append("generated CUDA C++ (compiled by NVRTC, or g++ for cuda-emulated):")
            lines += ["  " + ln for ln in self.source.splitlines()]
        elif self.source:
            where = f" ({self.path}{', from the disk cache' if self.from_disk else ''})"
            lines.append("generated C" + where + ":")
            lines += ["  " + ln for ln in self.source.splitlines()]
        return "\n".join(lines)


_HEADER = """/* generated by strided.compile: see Note [The loop nest] in
 * strided/_compile/codegen.py
 */
/* math.h, stdint.h, scalar_math.h and vecmath.h (Note [The CPU loops' functions in fused
 * C]), precompiled: Note [A precompiled header] in cc.py */
#include "strided_fused.h"
"""


def _clean(gm):
    fx.dead_code_elimination(gm.graph)
    fx.common_subexpression_elimination(gm.graph)
    gm.recompile()
    return gm


def _build_plan(fn, args, names, key, grad_on, joint, params):
    """Capture one specialisation (Note [What compile does on a call]); ``joint``: inputs
    require grad, so trace the backward too (Note [The joint graph])."""
    plan = Plan(key, names)
    concrete = {n: a for n, a, g in zip(names, args, key, strict=True) if g[0] == "const"}
    tensors = [a for a, g in zip(args, key, strict=True) if g[0] == "tensor"]
    try:
        tracer = _Tracer()
        gm = fx.GraphModule(fn, tracer.trace(fn, concrete), tracer.constants)
    except Exception as e:  # TraceError, or an op that refuses proxies
        plan.eager_reason = f"cannot trace: {e}"
        return plan, None
    writes = [
        n.format() for n in gm.graph.nodes if n.op not in ("placeholder", "output") and is_impure(n)
    ]
    if writes:
        plan.eager_reason = f"the function writes into a tensor ({writes[0]})"
        plan.gm = gm
        return plan, None
    trained = [
        n
        for n in gm.graph.nodes
        if n.op == "get_attr" and getattr(_fetch(gm, n.target), "_requires_grad", False)
    ]
    if grad_on and trained:
        if not all(n.target in params for n in trained):
            plan.eager_reason = "a captured tensor requires grad (eager autograd)"
            plan.gm = gm
            return plan, None
        plan.lifted = _lift(gm, trained)
        tensors = tensors + [params[t] for t in plan.lifted]
        joint = True
    with strided.no_grad():
        result = _Capture(gm).run(*tensors)  # this call's answer (when not joint); shapes
    wrong = _check_metas(gm)
    if wrong:
        plan.eager_reason = wrong
        plan.gm = gm
        return plan, result
    with strided.no_grad():
        gm = _clean(fx.decompose(gm))
        env = _Capture(gm)
        env.run(*tensors)  # the decomposed graph's shapes and strides
    plan.gm = gm
    devices = {g[4] for g in key if g[0] == "tensor"} | {str(t.device) for t in tensors}
    if len(devices) > 1:
        plan.eager_reason = f"tensors on several devices ({sorted(devices)})"
        return plan, result
    device = devices.pop() if devices else "cpu"
    if joint:
        _add_backward(plan, gm, env, names, key, device)
        if plan.backward is None:
            return plan, None
    plan.forward = Lowered(gm, "kernel_", device)
    lowered = [plan.forward] + ([plan.backward] if plan.backward is not None else [])
    parts = [c for low in lowered for c in low.c]
    lib = None
    if parts:
        plan.source = _HEADER + "\n\n".join(parts) + "\n"
        lib, plan.path, plan.from_disk = cc.build(plan.source)
        plan.lib = lib
    cuda = [low.cuda.generated for low in lowered if low.cuda is not None]
    if cuda:
        plan.source = "// CUDA C++, after kernels/ops.cuh\n" + "\n\n".join(cuda) + "\n"
    for low in lowered:
        low.bind(lib)
    return plan, (None if joint else result)


def _check_metas(gm):
    """Why a custom op's meta function disagrees with what its kernel returned at capture, or
    None (PyTorch's opcheck): the compiler and the tracer plan with the meta function, so a
    wrong one is reported, and the function runs eagerly. An op without one is no error here:
    it runs eagerly between the fused kernels, its shapes taken from the capture run."""
    from strided.library import TensorMeta

    for n in gm.graph.nodes:
        op = n.target
        if n.op != "call_function" or getattr(op, "meta", None) is None:
            continue
        if not hasattr(op, "run_meta") or "tensor_meta" not in n.meta:
            continue
        args = [a.meta.get("tensor_meta", a) if hasattr(a, "op") else a for a in n.args]
        kwargs = {k: v for k, v in n.kwargs.items() if not hasattr(v, "op")}
        want = op.run_meta(*args, **kwargs)
        got = n.meta["tensor_meta"]
        if isinstance(want, TensorMeta) and want != got:
            return f"the meta function of {op.name} says {want}, its kernel returned {got}"
    return None


def _lift(gm, nodes):
    """Turn the ``get_attr`` nodes of parameters into inputs (placeholders after the others),
    so the joint graph gives them gradients (AOTAutograd lifts parameters the same way);
    returns their paths, in input order."""
    first = next(n for n in gm.graph.nodes if n.op != "placeholder")
    paths = []
    for n in nodes:
        if n.target in paths:  # the same parameter read twice
            continue
        p = gm.graph.create_node("placeholder", n.target, name=n.target, before=first)
        for m in nodes:
            if m.target == n.target:
                m.replace_all_uses_with(p)
        paths.append(n.target)
    for n in nodes:
        gm.graph.erase_node(n)
    gm.recompile()
    return paths


def _add_backward(plan, gm, env, names, key, device):
    """Trace the backward graph; the forward graph then also returns what it saves."""
    from strided._compile.joint import JointError, backward_graph

    requires = {n: g[5] for n, g in zip(names, key, strict=True) if g[0] == "tensor"}
    requires.update(dict.fromkeys(plan.lifted, True))
    try:
        bgm, saved = backward_graph(gm, requires)
    except JointError as e:
        plan.joint_reason = str(e)
        return
    out_node = gm.graph.nodes[-1]
    out = out_node.args[0]
    out_node._set_args(((out, *saved),), {})
    gm.recompile()
    with strided.no_grad():
        m = out.meta["tensor_meta"]
        grad = strided.ones(m.shape, dtype=m.dtype, device=m.device)
        values = [env.env[n] for n in saved]
        bgm = _clean(bgm)
        _Capture(bgm).run(grad, *values)
    _drop_identity_sum_to(bgm)
    plan.backward = Lowered(bgm, "backward_", device)


def _drop_identity_sum_to(gm):
    """Remove the ``sum_to(g, shape)`` nodes whose ``g`` already has that shape (the shapes
    are fixed by the guards), so the elementwise nodes around them fuse."""
    from strided._compile.codegen import _contiguous_strides
    from strided.autograd.formulas import sum_to
    from strided.library import TensorMeta

    for n in list(gm.graph.nodes):
        if n.op != "call_function" or n.target is not sum_to:
            continue
        g, shape = n.args
        gm_, want = g.meta["tensor_meta"], n.meta["tensor_meta"]
        if gm_ == want:
            n.replace_all_uses_with(g)
        else:  # the engine's sum over broadcast dims, as a reduction that can fuse
            lead = len(gm_.shape) - len(shape)
            dims = tuple(range(lead)) + tuple(
                lead + i for i, k in enumerate(shape) if k == 1 and gm_.shape[lead + i] != 1
            )
            kept = tuple(1 if d in dims else k for d, k in enumerate(gm_.shape))
            s = gm.graph.create_node(
                "call_function", strided.sum, (g,), {"axis": dims, "keepdims": True}, before=n
            )
            s.meta.update(
                tensor_meta=TensorMeta(kept, want.dtype), strides=tuple(_contiguous_strides(kept))
            )
            r = gm.graph.create_node("call_function", strided.reshape, (s, tuple(shape)), before=n)
            r.meta.update(n.meta)
            n.replace_all_uses_with(r)
        gm.graph.erase_node(n)
    gm.recompile()


class _JointFunction:
    """The autograd Function of a joint plan (made on first use: autograd imports late)."""

    cls = None

    @classmethod
    def get(cls):
        if cls.cls is None:
            from strided.autograd.function import Function

            class CompiledBackward(Function):
                @staticmethod
                def forward(ctx, plan, *tensors):
                    out, *saved = plan.forward(tensors)
                    ctx.plan = plan
                    ctx.save_for_backward(*saved)
                    return out

                @staticmethod
                def backward(ctx, grad):
                    grads = ctx.plan.backward((grad, *ctx.saved_tensors))
                    return (None, *grads)

            cls.cls = CompiledBackward
        return cls.cls


class CompiledFunction:
    """``strided.compile(fn)``: call it as ``fn``; ``explain()`` shows what was compiled."""

    def __init__(self, fn, fullgraph=False):
        self.fn = fn
        self.fullgraph = fullgraph
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)
        if not isinstance(fn, strided.nn.Module):
            functools.update_wrapper(self, fn)
        self.plans = {}
        self.last = None
        target = fn.forward if isinstance(fn, strided.nn.Module) else fn
        self._effects = _side_effects(target)
        try:
            import inspect

            sig = inspect.signature(target)
            plain = all(p.kind == p.POSITIONAL_OR_KEYWORD for p in sig.parameters.values())
            self._names = [p.name for p in sig.parameters.values()] if plain else None
            self._sig = sig
        except (TypeError, ValueError):
            self._names = None

    def _bind(self, args, kwargs):
        """The call's arguments in parameter order, defaults filled in (keywords and defaults
        then share one guard key with the positional spelling), or None."""
        try:
            bound = self._sig.bind(*args, **kwargs)
        except TypeError:
            return None
        bound.apply_defaults()
        return tuple(bound.arguments[n] for n in self._names)

    def _params(self):
        """{path: parameter} of a compiled module (none for a function)."""
        if not isinstance(self.fn, strided.nn.Module):
            return {}
        return dict(self.fn.named_parameters())

    def _eager(self, reason, args, kwargs):
        if self.fullgraph:
            raise RuntimeError(
                f"strided.compile({self.__name__}, fullgraph=True): "
                f"{reason or 'the call cannot be compiled'}; without fullgraph it runs eagerly"
            )
        if reason:
            _warn_once(
                (id(self), reason), f"strided.compile({self.__name__}): {reason}; running eagerly"
            )
        return self.fn(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        if self._effects is not None:
            return self._eager(
                f"it has side effects on Python state ({self._effects})", args, kwargs
            )
        if self._names is None:
            return self._eager(None, args, kwargs)
        if kwargs or len(args) != len(self._names):
            bound = self._bind(args, kwargs)
            if bound is None:
                return self._eager(None, args, kwargs)
            args, kwargs = bound, {}
        key = tuple(_guard(a) for a in args)
        if None in key:
            return self._eager(None, args, kwargs)
        grad_on = strided.is_grad_enabled()
        joint = grad_on and any(g[0] == "tensor" and g[5] for g in key)
        params = self._params()
        if params:  # a module's parameters are guarded like inputs
            key = (*key, *(_guard(p) for p in params.values()))
        key = (*key, grad_on)
        plan = self.plans.get(key)
        if plan is None:
            if cc.compiler() is None:
                return self._eager("no C compiler found (set CC or install gcc)", args, kwargs)
            try:
                plan, result = _build_plan(
                    self.fn, args, self._names, key[: len(args)], grad_on, joint, params
                )
            except cc.CompileError as e:
                plan = Plan(key[: len(args)], self._names)
                plan.eager_reason = "the generated C did not compile"
                self.plans[key] = self.last = plan
                return self._eager(str(e), args, kwargs)
            self.plans[key] = self.last = plan
            if result is not None and not (self.fullgraph and plan.eager_reason):
                return result
            return self._run(plan, args, kwargs, params)
        self.last = plan
        return self._run(plan, args, kwargs, params)

    def _run(self, plan, args, kwargs, params=None):
        if plan.eager_reason is not None or plan.forward is None:
            if self.fullgraph:
                self._eager(plan.eager_reason or plan.joint_reason, args, kwargs)
            return self.fn(*args, **kwargs)  # eager, and eager autograd
        tensors = [a for a, g in zip(args, plan.key, strict=True) if g[0] == "tensor"]
        if plan.lifted:
            params = self._params() if params is None else params
            tensors += [params[p] for p in plan.lifted]
        if plan.backward is not None:
            return _JointFunction.get().apply(plan, *tensors)
        return plan.forward(tensors)

    def explain(self):
        """The captured graph, guards, fusion groups and generated C of every specialisation
        (the most recent first), as text."""
        if not self.plans:
            return (
                f"strided.compile({self.__name__}): not called yet (capture is on the first call)"
            )
        parts = []
        plans = [self.last] + [p for p in self.plans.values() if p is not self.last]
        for i, p in enumerate(plans):
            parts.append(f"=== specialisation {i + 1} of {len(plans)} ===\n{p.explain()}")
        return "\n".join(parts)


def compile(fn=None, *, fullgraph=False, **options):  # noqa: A001 - torch.compile's name
    """Compile ``fn`` (a function or strided.nn.Module): see Note [What compile does on a call].

    ``fullgraph=True`` (torch.compile's option) turns every eager fallback of Note [Graph breaks
    and fallbacks] that affects the whole call into an error that says why, instead of running
    the function eagerly. Usable as a decorator, with or without arguments.

    Examples
    --------
    >>> import strided
    >>> f = strided.compile(lambda x, y: ((x * 2 + 1).exp() * y).sum())
    >>> x = strided.ones(4)
    >>> float(f(x, x)) == float(((x * 2 + 1).exp() * x).sum())
    True
    """
    if options:
        raise TypeError(f"compile: unknown options {sorted(options)}; it takes fullgraph=")
    if fn is None:
        return lambda f: CompiledFunction(f, fullgraph=fullgraph)
    return CompiledFunction(fn, fullgraph=fullgraph)
