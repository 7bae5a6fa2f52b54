"""Assignment 3: autograd (the derivative table, the engine's dependency counts, sum_to).

The student writes backward formulas as rows of strided's derivative table
(strided/autograd/derivatives.py, Note [How to read a formula]), the engine's dependency count
(strided/autograd/engine.py, Note [How the engine runs a graph]), a topological order of the
backward graph, and ``sum_to``, which takes a broadcast gradient back to its input's shape. Each
piece is graded by strided's own machinery running on it: the student's formula is put into the
table in place of strided's row for the run (``swapped``), a real backward runs, and its
gradients are compared with the ones strided's own row gives.
"""

from __future__ import annotations

import contextlib
import math
import textwrap

import hypothesis.strategies as st
import numpy as np
from hypothesis.extra import numpy as hnp

import strided
from strided.autograd import engine as _engine_mod
from strided.autograd import formulas as F
from strided.autograd.rows import row
from strided.classroom._check import Failed, call, compare, search
from strided.classroom._engine import Assignment, Task, swapped

# ---------------------------------------------------------------------------------------------
# Rows: the student's formula, put into the table in place of strided's row for one backward
# ---------------------------------------------------------------------------------------------


def _row_for(op, student):
    """A derivatives-table row that calls the student's ``<op>_backward``."""
    if op in _BINARY:
        return row(
            f"{op}(x, other)", **{"x, other": lambda grad, x, other: student(grad, x, other)}
        )
    if op == "sum":
        return row(
            "sum(x, dims, keepdims, dtype=None)",
            x=lambda grad, x_meta, dims, keepdims: student(grad, x_meta[0], dims, keepdims),
        )
    return row(f"{op}(x)", x=lambda grad, x, result: student(grad, x, result))


@contextlib.contextmanager
def _row_swapped(op, new):
    """Strided's row for ``op`` computes with ``new``'s formula for the block. The Autograd
    kernel of each op holds its row object, so the row's contents are swapped, not the table's
    entry."""
    with contextlib.ExitStack() as stack:
        for slot in ("formula", "formulas", "save", "result"):
            target = f"strided.autograd.derivatives:TABLE.{op}.{slot}"
            stack.enter_context(swapped(target, getattr(new, slot)))
        yield


def _weights(shape):
    """The output gradient backward starts from: distinct values, so a formula that drops
    ``grad`` (or uses the wrong element of it) is seen."""
    n = math.prod(shape)
    return strided.asarray((1.0 + 0.25 * np.arange(n)).reshape(shape))


def _gradients(op, arrays, extra=()):
    """The gradients of ``op(*arrays, *extra)`` by strided's engine, as NumPy arrays."""
    leaves = [strided.asarray(a).requires_grad_() for a in arrays]
    out = _FORWARD[op](*leaves, *extra)
    out.backward(_weights(tuple(out.shape)))
    return tuple(None if t.grad is None else t.grad.numpy() for t in leaves)


def _grade_row(op, strategy, examples=60):
    def check(student, module):
        def reference(*args):
            return _gradients(op, *_split(op, args))

        def theirs(*args):
            with _row_swapped(op, _row_for(op, student)):
                return _gradients(op, *_split(op, args))

        compare(
            f"{op}_backward on {op}", theirs, reference, strategy, same=_close, examples=examples
        )

    return check


def _split(op, args):
    if op == "sum":
        return (args[0],), args[1:]
    return args, ()


def _close(want, got, args):
    if len(want) != len(got):
        return False
    for w, g in zip(want, got, strict=True):
        if (w is None) != (g is None):
            return False
        if w is not None and (w.shape != g.shape or not np.allclose(w, g, rtol=1e-7, atol=1e-9)):
            return False
    return True


_BINARY = ("add", "subtract", "multiply", "divide", "matmul")
_FORWARD = {
    "add": strided.add,
    "subtract": strided.subtract,
    "multiply": strided.multiply,
    "divide": strided.divide,
    "matmul": strided.matmul,
    "exp": strided.exp,
    "log": strided.log,
    "sin": strided.sin,
    "tanh": strided.tanh,
    "sigmoid": lambda x: strided.nn.functional.sigmoid(x),
    "relu": lambda x: strided.nn.functional.relu(x),
    "sum": lambda x, dims, keepdims: strided.sum(x, axis=dims, keepdims=keepdims),
}


def _values(lo=-2.0, hi=2.0):
    return st.floats(lo, hi, allow_nan=False, width=64)


def _array(shape, elements=None):
    return hnp.arrays(np.float64, shape, elements=_values() if elements is None else elements)


_small_shapes = st.lists(st.integers(1, 3), max_size=2).map(tuple)


@st.composite
def _broadcast_pair(draw, elements=None):
    shape = draw(_small_shapes)
    other = tuple(draw(st.sampled_from([n, 1])) for n in shape[draw(st.integers(0, len(shape))) :])
    if draw(st.booleans()):
        shape, other = other, shape
    return draw(_array(shape)), draw(_array(other, elements))


def _unary(elements=None):
    return _small_shapes.flatmap(lambda s: _array(s, elements)).map(lambda a: (a,))


_nonzero = _values(0.25, 2.0) | _values(-2.0, -0.25)
_matmul_args = st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3)).flatmap(
    lambda mkn: st.tuples(_array((mkn[0], mkn[1])), _array((mkn[1], mkn[2])))
)


@st.composite
def _sum_args(draw):
    shape = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple))
    dims = tuple(sorted(draw(st.sets(st.integers(0, len(shape) - 1), min_size=1))))
    return draw(_array(shape)), dims, draw(st.booleans())


_ROWS = [
    # op, points, parameters, what the formula gives, strategy
    ("add", 5, "grad, x, other", "(grad_x, grad_other)", _broadcast_pair()),
    ("subtract", 5, "grad, x, other", "(grad_x, grad_other)", _broadcast_pair()),
    ("multiply", 5, "grad, x, other", "(grad_x, grad_other)", _broadcast_pair()),
    ("divide", 5, "grad, x, other", "(grad_x, grad_other)", _broadcast_pair(_nonzero)),
    ("matmul", 10, "grad, x, other", "(grad_x, grad_other) for 2-d x and other", _matmul_args),
    ("exp", 5, "grad, x, result", "grad_x", _unary()),
    ("log", 5, "grad, x, result", "grad_x", _unary(_values(0.25, 3.0))),
    ("sin", 5, "grad, x, result", "grad_x", _unary()),
    ("tanh", 5, "grad, x, result", "grad_x", _unary()),
    ("sigmoid", 5, "grad, x, result", "grad_x", _unary()),
    ("relu", 5, "grad, x, result", "grad_x", _unary(_nonzero)),
    ("sum", 5, "grad, shape, dims, keepdims", "grad_x", _sum_args()),
]

_ROW_DOC = """The backward formula of ``{op}``: a row of strided's derivative table.

    Return {gives}.

{inputs}

    Write it with strided's ops (``strided.multiply``, ``strided.exp``, ...). Do not
    un-broadcast: for inputs of shapes (3, 1) and (4,), return the (3, 4) gradient for both; the
    engine sums each back to its input's shape (that is ``sum_to``, below).
    """


def _inputs_doc(params):
    if "shape" in params:
        text = (
            "``grad`` is the gradient of the output (a strided tensor), ``shape`` the input's "
            "shape, ``dims`` the reduced dims (a sorted tuple of ints), ``keepdims`` whether "
            "they were kept as size 1 (when not, ``grad`` lacks them)."
        )
    elif "result" in params:
        text = (
            "``grad`` is the gradient of the output (a strided tensor), ``x`` the input and "
            "``result`` the output of the forward call."
        )
    else:
        text = (
            "``grad`` is the gradient of the output (a strided tensor), ``x`` and ``other`` the "
            "inputs of the forward call."
        )
    return textwrap.fill(text, 88, initial_indent="    ", subsequent_indent="    ")


_ROW_TASKS = tuple(
    Task(
        f"{op}_backward",
        points,
        f"{op}_backward({params})",
        _ROW_DOC.format(op=op, gives=gives, inputs=_inputs_doc(params)),
        _grade_row(op, strategy),
        replaces=f'the "{op}" row of strided.autograd.derivatives',
    )
    for op, points, params, gives, strategy in _ROWS
)

# reference solutions: strided's own rows, called through their formulas
_ROW_SOLUTIONS = {
    "add": "return grad, grad",
    "subtract": "return grad, strided.negative(grad)",
    "multiply": "return strided.multiply(grad, other), strided.multiply(grad, x)",
    "divide": "return _F.divide_backward(grad, x, other, (True, True))",
    "matmul": "return _F.matmul_left(grad, x, other), _F.matmul_right(grad, x, other)",
    "exp": "return strided.multiply(grad, result)",
    "log": "return strided.divide(grad, x)",
    "sin": "return strided.multiply(grad, strided.cos(x))",
    "tanh": "return strided.multiply(grad, strided.subtract(1.0, strided.square(result)))",
    "sigmoid": "return strided.multiply(grad, result * (1.0 - result))",
    "relu": "return strided.where(strided.greater(result, 0), grad, 0.0)",
    "sum": "return strided.broadcast_to(_F.keep_dims(grad, shape, dims, keepdims), shape)",
}
_ROW_TASKS = tuple(
    Task(
        **{
            **{f.name: getattr(t, f.name) for f in t.__dataclass_fields__.values()},
            "solution": f"def {t.signature}:\n    {_ROW_SOLUTIONS[t.name[: -len('_backward')]]}",
        }
    )
    for t in _ROW_TASKS
)


# ---------------------------------------------------------------------------------------------
# sum_to: graded alone, then inside the engine
# ---------------------------------------------------------------------------------------------


@st.composite
def _sum_to_args(draw):
    big = draw(st.lists(st.integers(1, 3), max_size=3).map(tuple))
    small = tuple(draw(st.sampled_from([n, 1])) for n in big[draw(st.integers(0, len(big))) :])
    return draw(_array(big)), small


def _sum_to_reference(g, shape):
    return F.sum_to(strided.asarray(g), shape).numpy()


def _check_sum_to(student, module):
    def theirs(g, shape):
        out = student(strided.asarray(g), shape)
        return np.asarray(out.numpy() if hasattr(out, "numpy") else out)

    compare("sum_to", theirs, _sum_to_reference, _sum_to_args(), same=_close_one)
    # inside the engine: x (3, 1) + y (4,) backward through strided's own add, with your sum_to
    x, y = np.arange(3.0).reshape(3, 1), np.arange(4.0)
    want = _gradients("add", (x, y))
    with swapped("strided.autograd.engine.sum_to", student):
        got = _gradients("add", (x, y))
    if not _close(want, got, ()):
        raise Failed(
            "sum_to is right alone, but the engine with your sum_to gives other gradients for "
            f"x (3, 1) + y (4,): expected {want}, got {got}"
        )


def _close_one(want, got, args):
    return want.shape == got.shape and bool(np.allclose(want, got))


# ---------------------------------------------------------------------------------------------
# The engine: dependency counts and a topological order, on graphs of small programs
# ---------------------------------------------------------------------------------------------

_OPS = {"+": strided.add, "*": strided.multiply, "-": strided.subtract}


@st.composite
def _programs(draw):
    """A small program over leaves a, b: steps (name, op, left, right)."""
    names = ["a", "b"]
    steps = []
    for k in range(draw(st.integers(1, 5))):
        op = draw(st.sampled_from(sorted(_OPS) + ["exp"]))
        left = draw(st.sampled_from(names))
        right = draw(st.sampled_from(names)) if op != "exp" else None
        name = f"v{k}"
        steps.append((name, op, left, right))
        names.append(name)
    return tuple(steps)


def _program_text(steps):
    lines = ["a = leaf", "b = leaf"]
    for name, op, left, right in steps:
        lines.append(f"{name} = exp({left})" if op == "exp" else f"{name} = {left} {op} {right}")
    lines.append(f"loss = {steps[-1][0]}.sum()")
    return "; ".join(lines)


def _graph(steps):
    """(root node, leaves, {node: name}) of the program's backward graph."""
    env = {"a": strided.ones(2).requires_grad_(), "b": strided.full(2, 2.0).requires_grad_()}
    for name, op, left, right in steps:
        env[name] = strided.exp(env[left]) if op == "exp" else _OPS[op](env[left], env[right])
    loss = strided.sum(env[steps[-1][0]])
    names = {}
    for name, t in env.items():
        node = t.grad_fn
        if node is None:
            node = strided.autograd.graph.gradient_edge(t)[0]
        names.setdefault(node, f"{node.name()}({name})")
    names[loss.grad_fn] = "SumBackward(loss)"
    return loss, env, names


def _count_reference(nodes):
    return _engine_mod.count_dependencies(nodes)


def _check_counts(student, module):
    def disagree(steps):
        loss, env, names = _graph(steps)
        nodes = _engine_mod._reachable([loss.grad_fn], None)
        want = _count_reference(nodes)
        kind, got = call(student, (set(nodes),), frozen=False)
        if kind == "raised":
            return f"it raised {type(got).__name__}: {got}"
        if kind == "mutated":
            return got
        if not isinstance(got, dict) or got != want:
            return (
                f"expected {_named(want, names)}, your function returned "
                f"{_named(got, names) if isinstance(got, dict) else repr(got)}"
            )
        # and the engine runs on your counts
        ref = _leaf_grads(loss, env)
        loss, env, names = _graph(steps)
        with swapped("strided.autograd.engine.count_dependencies", student):
            mine = _leaf_grads(loss, env)
        if not all(np.allclose(x, y) for x, y in zip(ref, mine, strict=True)):
            return f"with your counts backward gives {mine}, expected {ref}"
        return None

    _report(search(_programs(), disagree, examples=40), "count_dependencies")


def _leaf_grads(loss, env):
    loss.backward()
    return [env[k].grad.numpy() if env[k].grad is not None else 0.0 for k in ("a", "b")]


def _named(counts, names):
    return (
        "{"
        + ", ".join(
            f"{names.get(n, n)}: {c}"
            for n, c in sorted(counts.items(), key=lambda nc: -getattr(nc[0], "sequence_nr", 0))
        )
        + "}"
    )


def _check_order(student, module):
    def disagree(steps):
        loss, _, names = _graph(steps)
        root = loss.grad_fn
        nodes = _engine_mod._reachable([root], None)
        kind, got = call(student, (root,), frozen=False)
        if kind == "raised":
            return f"it raised {type(got).__name__}: {got}"
        if kind == "mutated":
            return got
        try:
            got = list(got)
        except TypeError:
            return f"expected a list of nodes, your function returned {got!r}"
        shown = "[" + ", ".join(names.get(n, repr(n)) for n in got) + "]"
        if len(got) != len(set(got)) or set(got) != nodes:
            missing = [names[n] for n in nodes if n not in got]
            return (
                f"your order {shown} should hold every node reachable from the root exactly "
                f"once" + (f"; it misses {', '.join(missing)}" if missing else "")
            )
        where = {n: i for i, n in enumerate(got)}
        for n in got:
            for e in n.next_functions:
                if e is not None and where[e[0]] < where[n]:
                    return (
                        f"your order {shown} puts {names[e[0]]} before {names[n]}, but "
                        f"{names[n]} sends a gradient to {names[e[0]]}, so it must run first"
                    )
        return None

    _report(search(_programs(), disagree, examples=40), "topological_order")


def _report(found, name):
    if found is not None:
        steps, message = found
        raise Failed(
            f"counter-example (the smallest Hypothesis found): the graph of\n    "
            f"{_program_text(steps)}\n{message}"
        )


def _topological_reference(root):
    """Kahn's algorithm on the engine's dependency counts (the engine itself orders ready nodes
    by sequence number in a heap)."""
    deps = _engine_mod.count_dependencies(_engine_mod._reachable([root], None))
    ready, order = [root], []
    while ready:
        node = ready.pop()
        order.append(node)
        for e in node.next_functions:
            if e is not None:
                deps[e[0]] -= 1
                if deps[e[0]] == 0:
                    ready.append(e[0])
    return order


TASKS = _ROW_TASKS + (
    Task(
        "sum_to",
        15,
        "sum_to(g, shape)",
        """Sum the gradient ``g`` (a strided tensor) back to ``shape``, the shape of an input
        that was broadcast: sum over the leading dims broadcasting added and over the dims where
        ``shape`` has size 1 but ``g`` does not, and return a tensor of exactly ``shape``.

        >>> sum_to(strided.ones((3, 4)), (3, 1)).tolist()
        [[4.0], [4.0], [4.0]]
        >>> sum_to(strided.ones((2, 3)), (3,)).tolist()
        [2.0, 2.0, 2.0]""",
        _check_sum_to,
        reference=F.sum_to,
        replaces="strided.autograd.formulas.sum_to",
    ),
    Task(
        "count_dependencies",
        10,
        "count_dependencies(nodes)",
        """For each node of ``nodes`` (a set of backward-graph nodes), how many edges from nodes
        of ``nodes`` point at it: a dict {node: count}. A node's edges are its
        ``next_functions``, a tuple of ``(node, input_nr)`` pairs or None. The engine runs a
        node when its count has dropped to zero (all its gradients have arrived).""",
        _check_counts,
        reference=_engine_mod.count_dependencies,
        replaces="strided.autograd.engine.count_dependencies",
    ),
    Task(
        "topological_order",
        10,
        "topological_order(root)",
        """Every node reachable from ``root`` (through ``next_functions``) exactly once, as a
        list in which each node comes before every node it sends a gradient to: an order in
        which the engine may run them. Hint: count dependencies first.""",
        _check_order,
        reference=_topological_reference,
        replaces="strided.autograd.engine._execute (its order of running nodes)",
    ),
)

ASSIGNMENT = Assignment(
    key="autograd",
    number=3,
    title="autograd",
    filename="autograd_pieces.py",
    intro="""
    Reverse-mode autograd records a graph of nodes in the forward pass; backward walks it from
    the loss to the leaves. Write the backward formulas of twelve ops as rows of strided's
    derivative table (they are put into the table for the run and a real backward uses them),
    the sum that takes a broadcast gradient back to its input's shape, and the engine's
    bookkeeping: dependency counts and a topological order.""",
    tasks=TASKS,
    imports="import strided",
    solution_extra="from strided.autograd import formulas as _F",
)
