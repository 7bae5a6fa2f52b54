"""How a row of the derivatives table becomes the formula of a node (PyTorch generates the same
from derivatives.yaml at build time: ``tools/autograd/gen_autograd_functions.py``).

Note [Named derivative rows]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A row names the op's kernel signature and gives one gradient formula per differentiable input::

    row("multiply(x, other)", x=lambda grad, other: E.multiply(grad, other),
                               other=lambda grad, x: E.multiply(grad, x))

The signature is the op's *kernel* signature as the dispatcher calls it (``sum`` is
``sum(x, dims, keepdims, dtype=None)``, with dims already normalised); ``*arrays`` stands for any
number of tensors (concat), names after it are keyword arguments. A formula's parameters say
what it needs, by name:

* an input of the signature: its value in the forward call (a tensor is then saved for
  backward, and checked against the version counter when unpacked: Note [Saved tensors and the
  version counter] in graph.py); a Python argument is kept as it was given;
* ``<input>_meta``: that input's (shape, dtype, device), which costs no saved tensor
  (``arrays_meta``: one per tensor of a ``*arrays`` input);
* ``grad``: the gradient of the (first) output; ``grads``: the gradients of all outputs, for ops
  with several (svd, eigh, meshgrid); ``result``: the (first) output, saved; ``result1``: the
  second output, saved for rows with ``outputs=`` (sort's indices, eigh's eigenvectors);
* ``needs``: which arguments need a gradient, for a formula that gives several at once.

A formula gives one input's gradient, except two kinds that give several at once, as a tuple:
a ``*arrays`` formula (one gradient per tensor), and a *joint* formula, keyed by several input
names (``**{"x, other": ...}``, derivatives.yaml's ``self, other:`` line), for gradients that
share a subexpression (divide's ``grad / other``): computed once, the subexpression is also one
node of the graph when backward is recorded, so double backward sums through it in the same
order as before.

So what a node saves is read off the formulas (PyTorch's codegen does the same), not declared
beside them: a row cannot save a tensor its formulas do not use, nor forget one they do. A
formula runs only for an input that needs a gradient (or that the op wrote into: Note [In-place
ops] in recording.py), so it never tests for that itself (a joint formula may, with ``needs``).
Formulas too long for a row live in ``formulas.py``.

The keywords of ``row`` are the rest of what a row can say: ``outputs=`` (which outputs carry a
gradient, when not every floating one does) and ``prepare=`` (how the forward call's arguments
change when recorded: sort must also return its indices).
"""

from __future__ import annotations

import ast

__all__ = ["Derivative", "row", "SPECIAL_NAMES", "parse_signature"]

# the names a formula may take besides the op's inputs and their ``_meta``
SPECIAL_NAMES = frozenset({"grad", "grads", "result", "result1", "needs"})


class Derivative:
    """One row, ready for recording.py: ``formula(node, *grads)`` gives one gradient per
    argument; ``save``: the argument positions to save; ``result``: whether to save the first
    output; ``outputs``: which outputs are differentiable (None: every floating one);
    ``prepare``: args -> args for the forward call."""

    __slots__ = ("op", "signature", "formulas", "formula", "save", "result", "outputs", "prepare")

    def __init__(self, op, signature, formulas, formula, save, result, outputs, prepare):
        self.op = op
        self.signature = signature  # (positional names, *name or None, {keyword: default})
        self.formulas = formulas  # {input name: formula}
        self.formula = formula
        self.save = save
        self.result = result
        self.outputs = outputs
        self.prepare = prepare


def parse_signature(signature):
    """``"sum(x, dims, keepdims, dtype=None)"`` -> ("sum", [(name, default)...], "*name" or
    None, {keyword: default}). A default of ``...`` means the argument is required."""
    tree = ast.parse(f"def {signature}: pass").body[0]
    a = tree.args
    defaults = [...] * (len(a.args) - len(a.defaults)) + [ast.literal_eval(d) for d in a.defaults]
    positional = [(p.arg, d) for p, d in zip(a.args, defaults, strict=True)]
    keywords = {
        p.arg: (... if d is None else ast.literal_eval(d))
        for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)
    }
    return tree.name, positional, (a.vararg.arg if a.vararg else None), keywords


def _getter(name, positional, vararg, keywords):
    """A function (node, grads) -> the value of ``name`` for a formula."""
    if name == "grad":
        return lambda node, grads: grads[0]
    if name == "grads":
        return lambda node, grads: grads
    if name == "result":
        return lambda node, grads: node.saved_tensor("result")
    if name == "result1":
        return lambda node, grads: node.saved_tensor("indices")
    if name == "needs":
        return lambda node, grads: node.needs
    names = [p for p, _ in positional]
    if name.endswith("_meta"):
        base = name[: -len("_meta")]
        if base == vararg:
            return lambda node, grads: node.input_meta
        i = names.index(base)
        return lambda node, grads: node.input_meta[i]
    if name in keywords:
        default = keywords[name]
        if default is ...:
            return lambda node, grads: node.kwargs[name]
        return lambda node, grads: node.kwargs.get(name, default)
    i = names.index(name)
    default = positional[i][1]

    def value(node, grads):
        if i in node.saved:
            return node.saved_tensor(i)
        if i < len(node.args):
            return node.args[i]
        return node.kwargs.get(name, default)

    return value


def _caller(fn, getters):
    """``call(node, grads)``: ``fn`` of its parameters' values, the common arities written out
    (no list of arguments built and unpacked at each call: this runs once per node)."""
    if len(getters) == 1:
        (a,) = getters
        return lambda node, grads: fn(a(node, grads))
    if len(getters) == 2:
        a, b = getters
        return lambda node, grads: fn(a(node, grads), b(node, grads))
    if len(getters) == 3:
        a, b, c = getters
        return lambda node, grads: fn(a(node, grads), b(node, grads), c(node, grads))
    return lambda node, grads: fn(*[get(node, grads) for get in getters])


def _parameters(fn):
    code = fn.__code__
    return code.co_varnames[: code.co_argcount]


def _formula(steps):
    """A row's ``formula(node, *grads)`` from its steps (target position, fn, getters)."""
    if steps and all(type(i) is int for i, _, _ in steps):
        calls = tuple((i, _caller(fn, getters)) for i, fn, getters in steps)

        def formula(node, *grads):  # one gradient per formula: most rows
            needs = node.needs
            out = [None] * len(needs)
            n = len(out)
            for i, call in calls:
                if i < n and needs[i]:
                    out[i] = call(node, grads)
            return tuple(out)

        return formula

    def formula(node, *grads):
        if steps and steps[0][0] is None:  # one formula for all the tensors of *arrays
            _, fn, getters = steps[0]
            return tuple(fn(*[get(node, grads) for get in getters]))
        out = [None] * len(node.needs)
        needs = node.needs
        for i, fn, getters in steps:
            if type(i) is tuple:  # a joint formula: one gradient per input it names
                if any(needs[j] for j in i):
                    for j, g in zip(i, fn(*[get(node, grads) for get in getters]), strict=True):
                        out[j] = g if needs[j] else None
            elif i < len(out) and needs[i]:
                out[i] = fn(*[get(node, grads) for get in getters])
        return tuple(out)

    return formula


def row(signature, *, outputs=None, prepare=None, **formulas):
    """One row of the derivatives table: see Note [Named derivative rows]."""
    op, positional, vararg, keywords = parse_signature(signature)
    names = [p for p, _ in positional]
    save, result, steps = set(), False, []
    for target, fn in formulas.items():
        params = _parameters(fn)
        for p in params:
            if p in names:
                save.add(names.index(p))
            result = result or p == "result"
        getters = tuple(_getter(p, positional, vararg, keywords) for p in params)
        if target == vararg:
            where = None
        elif "," in target:  # one formula for several inputs: a tuple of their positions
            where = tuple(names.index(t.strip()) for t in target.split(","))
        else:
            where = names.index(target)
        steps.append((where, fn, getters))

    formula = _formula(steps)
    formula.__qualname__ = f"{op}_backward"
    signature_parts = (names, vararg, keywords)
    return Derivative(
        op, signature_parts, formulas, formula, tuple(sorted(save)), result, outputs, prepare
    )
