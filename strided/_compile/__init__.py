"""``strided.compile(fn)``: capture a function's graph on its first call, fuse its elementwise
chains and the reductions that consume them into C loops, and run those from then on
(torch.compile: Dynamo's guards and cache, Inductor's fusion and C++ codegen, reduced).

Note [What compile does on a call]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
1. **Guards.** The call's *guard key* is, per argument, a tensor's (dtype, shape, strides, device,
   requires_grad), or a Python scalar's type and value (it is baked into the graph as a constant, as
   Dynamo specialises ints), plus grad mode and, for a compiled nn.Module, its parameters and its
   tree (Note [A compiled module's tree]). Guards on the exact strides subsume the "contiguous or
   not" class: a transposed or sliced input is another key, so the strides in the generated C are
   always right (Note [The loop nest] in codegen.py). Keyword arguments and defaults are bound to
   the parameters first (``f(x, k=2.0)`` is ``f(x, 2.0)``); a function with ``*args``/``**kwargs``
   parameters, or a call with an argument that is neither a tensor nor a plain Python value (a list
   of tensors, an object), runs eagerly.
2. **Cache.** A key seen before runs its compiled *plan*. A new key is captured: the function is
   traced (strided.fx.symbolic_trace, the scalars as concrete arguments), run once eagerly node
   by node on the real inputs (that run's result is this call's result, and it records every
   node's shape and dtype), decomposed into primitives (fx/passes.py), split into fusion groups
   (Note [Fusion groups]), turned into C, compiled by the system compiler and cached on disk
   (Note [The kernel cache] in cc.py).
3. **Run.** A plan is a list of steps: a fused kernel called on the tensors' data pointers
   (its outputs allocated here, in the memory order eager gave them), or one node run eagerly,
   written out once as a Python function (Note [The plan's run loop] in program.py). A call
   whose guards are the last plan's runs it without building a key (Note [The cost of a
   compiled call]). The generated kernels do not read the floating-point status flags, so where
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

import dis
import functools
import warnings

import strided
from strided import _core, fx
from strided._compile import cc, program
from strided._compile.codegen import generate_c, plan_steps
from strided.fx.interpreter import Interpreter, _fetch
from strided.fx.passes import is_impure
from strided.nn.module import structure_version

try:  # the compiled hot path of a call: Note [The cost of a compiled call]
    from strided._compile._call import MISS, FastCall

    _NO_FAST = FastCall()  # no plan: every call misses
except ImportError:  # a checkout whose compiled modules predate it: every call takes _call
    MISS, FastCall = object(), None
    _NO_FAST = lambda args: MISS  # noqa: E731

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
    """One argument's part of the guard key (Note [What compile does on a call]), or None
    for an argument compile does not specialise on.

    Note [Constants in the guard key]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    A Python scalar is baked into the graph, so two calls share a plan only when the constant
    would give the same graph: the key holds its ``repr``, not the value. By value, ``-0.0``
    would find the plan traced with ``0.0`` (they are equal and hash alike) and ``x * -0.0``
    would lose its signs of zero; and a NaN, equal to nothing, would miss every time and trace
    a new plan per call. ``repr`` tells apart every two floats (it round-trips), and ``1``,
    ``1.0`` and ``True``; the fast check compares a float by its bits (_call.pyx).
    """
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
        return ("const", type(a).__name__, repr(a))  # Note [Constants in the guard key]
    if isinstance(a, (tuple, list)) and all(isinstance(x, (bool, int, float, str)) for x in a):
        return ("const", type(a).__name__, repr(a))
    return None


_REGISTRIES = frozenset(("_parameters", "_buffers", "_modules", "_non_persistent"))


def _tree_signature(root):
    """What a trace of module ``root`` reads from its tree besides its parameters' values and
    guards: Note [A compiled module's tree]."""
    sig = []
    for path, m in root.named_modules():
        consts = []
        for name, v in m.__dict__.items():
            g = None if name in _REGISTRIES else _guard(v)
            if g is not None and g[0] == "const":
                consts.append((name, g))
        buffers = tuple((k, None if b is None else _guard(b)) for k, b in m._buffers.items())
        sig.append((path, type(m), tuple(m._parameters), tuple(m._modules), buffers, tuple(consts)))
    return tuple(sig)


def describe_guard(g, name):
    if g[0] == "tensor":
        _, dtype, shape, strides, device, rg = g
        return (
            f"{name}: tensor dtype={dtype} shape={list(shape)} strides={list(strides)} "
            f"device={device} requires_grad={rg}"
        )
    return f"{name}: {g[1]} == {g[2]}"


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
        if device == "cpu":
            program.row_major_intermediates(self.steps, gm.graph)
        self.kernels = {}
        self.program, self.program_source = gm, None  # until bind: the graph, eagerly
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

    def bind(self, lib, check_inputs=False):
        """Take the kernels from the loaded C library (CPU) or compile the CUDA module, then
        generate the program that calls them (Note [The plan's run loop]). ``check_inputs``:
        the inputs' strides are not guarded (a backward's), so the program checks them."""
        for i, g in enumerate(self.groups):
            if self.cuda is not None:
                launch = self.cuda.kernel(i, strided.device(self.device))
                self.kernels[g.index] = program.cuda_kernel(launch)
            else:
                n_pointers = len(g.inputs) + len(g.outputs)
                numel = program.group_numel(g)
                kernel = program.cpu_kernel(lib, f"{self.prefix}{g.index}", n_pointers, numel)
                self.kernels[g.index] = kernel
        if self.groups:
            self.program_source, self.program = program.make_program(self, check_inputs)

    def run(self, tensors):
        """The graph's output from its fused kernels and eager steps, or None when a tensor's
        strides differ from the captured ones (the caller then runs the graph eagerly)."""
        return self.program(*tensors)

    def __call__(self, tensors):
        out = self.program(*tensors)
        return self.gm(*tensors) if out is None and self.groups else out

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
        if self.program_source:
            lines.append(f"{title} program (Python, run on every call):")
            lines += ["  " + ln for ln in self.program_source.splitlines()]
        return lines


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
        self.fast = None  # its FastCall, made on its first run (Note [The cost of a compiled call])

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
        low.bind(lib, check_inputs=low is plan.backward)
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
                tensor_meta=TensorMeta(kept, want.dtype, want.device),  # the sum's own device
                strides=tuple(_contiguous_strides(kept)),
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
    """``strided.compile(fn)``: call it as ``fn``; ``explain()`` shows what was compiled.

    Note [The cost of a compiled call]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    A compiled call must cost no more than the eager ops it replaces, or compiling a small
    function makes it slower. Profiled on a 3-op chain (``(x * 2 + 1).exp()``, 100 float64, one
    thread, the 2-core Zen 3), the keyed road cost ~4.7 us against eager's ~2.4 us: the guard
    key (six attribute reads and two tuples per tensor, ``str`` of the device, the tuple hashed
    for the dict), the plan's step loop (Note [The plan's run loop] in program.py), the output
    through ``_core._empty``'s argument checks (0.34 us), and ctypes (an array of pointers
    built, argtypes converted, the GIL released and taken back). Now:

    * ``FastCall`` (_call.pyx) holds the last plan's guards as C values and checks a call's
      positional arguments against them in one pass: dtype and device by identity, sizes and
      strides by ``memcmp``, requires_grad and grad mode (the C thread-local flag), constants
      by type and value (a float by its bits: Note [Constants in the guard key]). It builds
      nothing; a match calls the plan's program directly, a miss (or keywords) takes the keyed
      road, ``_call``, which then makes the found plan the fast one. A function called with
      alternating layouts pays the keyed road every call, as before;
    * the program is generated Python (Note [The plan's run loop]);
    * a kernel is a ``Kernel`` (_call.pyx): the C function's address, called on the tensors'
      data pointers gathered in C, the GIL kept for a small group
      (program.NOGIL_NUMEL); outputs come from ``empty_tensor`` directly.

    The chain on 100 elements: 4.7-7.0 us -> 0.8-1.0 us (eager 2.4-3.9 us under the same load);
    benchmarks/bench_compile.py has the table. A compiled nn.Module's fast check holds its
    parameters as guarded arguments after the call's, valid while the structure version has not
    moved (Note [A compiled module's tree]). Without the compiled module (a checkout built
    before it) the program calls kernels through ctypes and every call is keyed.

    Note [A compiled module's tree]
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    A trace of a module reads more than its arguments: its parameters (get_attr nodes, read
    live from the module on each run, or inputs of the joint graph), its buffers, which layers
    sit where (a Sequential's loop is unrolled at trace time) and their plain attributes
    (``training``, a Softmax's ``dim``, baked in as constants). So a module's guard key holds
    each parameter's guard and ``_tree_signature``: every module's path, class, registry names
    and constant attributes, and every buffer's guard. Walking the tree for these cost ~20 us
    of the digits CNN's step, more than some of its kernels, so ``_tree`` walks it only when
    ``structure_version()`` has moved (Note [The structure version] in strided/nn/module.py):
    any assignment, registration, deletion, ``to()`` or ``train()`` moves it, a parameter's
    in-place update does not. Between moves the same parameter objects sit at the same paths,
    so the fast check keeps them, and checks each one's guard (dtype, shape, strides, device
    and requires_grad, the last of which ``requires_grad_`` changes in place) with the call's
    arguments in one pass. A plain attribute set with ``object.__setattr__``, bypassing the
    module, is not seen (nor is it in PyTorch's Module without Dynamo's guards).
    """

    def __init__(self, fn, fullgraph=False):
        self.fn = fn
        self.fullgraph = fullgraph
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)
        if not isinstance(fn, strided.nn.Module):
            functools.update_wrapper(self, fn)
        self.plans = {}
        self.last = None
        self._module = fn if isinstance(fn, strided.nn.Module) else None
        self._seen = None  # (structure version, parameters, tree signature): _tree
        self._fast = _NO_FAST  # the last plan's FastCall (Note [The cost of a compiled call])
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

    def _tree(self):
        """{path: parameter} of a compiled module and its tree's signature (none for a
        function), walked again only when the structure version moved (Note [A compiled
        module's tree])."""
        if self._module is None:
            return {}, ()
        version = structure_version()
        if self._seen is None or self._seen[0] != version:
            params = dict(self._module.named_parameters())
            self._seen = (version, params, _tree_signature(self._module))
        return self._seen[1], self._seen[2]

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
        if not kwargs:  # Note [The cost of a compiled call]
            out = self._fast(args)
            if out is not MISS:
                return out
        return self._call(args, kwargs)

    def _call(self, args, kwargs):
        """A call the last plan's fast check did not take: guards, cache, capture."""
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
        params, tree = self._tree()
        if self._module is not None:  # Note [A compiled module's tree]
            key = (*key, *(_guard(p) for p in params.values()), tree)
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
            if self._module is not None:
                self._fast = self._module_fast_call(plan, args, grad_on, params)
            else:
                self._fast = self._fast_call(plan, args, grad_on, params)
            if result is not None and not (self.fullgraph and plan.eager_reason):
                return result
            return self._run(plan, args, kwargs, params)
        self.last = plan
        if self._module is not None:
            self._fast = self._module_fast_call(plan, args, grad_on, params)
        elif plan.fast is not None:
            self._fast = plan.fast
        else:
            self._fast = self._fast_call(plan, args, grad_on, params)
        return self._run(plan, args, kwargs, params)

    def _fast_call(self, plan, args, grad_on, params):
        """The FastCall of ``plan``, made once from the call that found it (its arguments
        match the plan's key): it runs the plan's program, or the joint Function; a plan that
        runs eagerly has none; a module's is ``_module_fast_call``'s."""
        if FastCall is None:
            return _NO_FAST
        if plan.eager_reason is not None or plan.forward is None or params or plan.lifted:
            plan.fast = _NO_FAST
        elif plan.backward is not None:
            run = functools.partial(_JointFunction.get().apply, plan)
            plan.fast = FastCall(plan, args, run, grad_on)
        else:
            plan.fast = FastCall(plan, args, plan.forward.program, grad_on)
        return plan.fast

    def _module_fast_call(self, plan, args, grad_on, params):
        """A compiled module's fast check (Note [A compiled module's tree]): while the
        structure version is the one ``params`` were found at, the call's arguments and those
        parameters are checked by one FastCall, whose program gets the call's tensors and the
        lifted parameters. Made per version, not kept on the plan: another tree with the same
        key may hold its parameters in another order."""
        if FastCall is None or plan.eager_reason is not None or plan.forward is None:
            return _NO_FAST
        version = self._seen[0]
        values = tuple(params.values())
        n_tensors = sum(1 for g in plan.key if g[0] == "tensor")
        paths = list(params)
        lifted = [n_tensors + paths.index(p) for p in plan.lifted]
        if plan.backward is not None:
            inner = functools.partial(_JointFunction.get().apply, plan)
        else:
            inner = plan.forward.program

        def run(*tensors):  # the call's tensors, then every parameter
            return inner(*tensors[:n_tensors], *[tensors[i] for i in lifted])

        fast = FastCall(plan, (*args, *values), run, grad_on)

        def check(args):
            if structure_version() != version:
                return MISS
            return fast(args + values)

        return check

    def _run(self, plan, args, kwargs, params=None):
        if plan.eager_reason is not None or plan.forward is None:
            if self.fullgraph:
                self._eager(plan.eager_reason or plan.joint_reason, args, kwargs)
            return self.fn(*args, **kwargs)  # eager, and eager autograd
        tensors = [a for a, g in zip(args, plan.key, strict=True) if g[0] == "tensor"]
        if plan.lifted:
            params = self._tree()[0] if params is None else params
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
