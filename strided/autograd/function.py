"""Custom autograd functions: ``class MyOp(Function)`` with ``forward`` and ``backward``.

Note [Custom functions]
~~~~~~~~~~~~~~~~~~~~~~~
``MyOp.apply(*args)`` does by hand what the Autograd kernel does for built-in ops (Note [The
Autograd kernel] in recording.py): it makes a node (here ``BackwardFunction``, which is also the
``ctx`` passed to ``forward``), runs ``forward`` with grad mode off, and makes the outputs
outputs of the node. The node's edges are one per argument of ``apply`` (None for non-tensors),
and ``backward(ctx, *grads)`` must return one gradient per argument (None where there is none).
Gradients then flow exactly as for built-in ops: the engine sums broadcast gradients back to each
input's shape and casts them to its dtype.

``save_for_backward`` stores ``SavedTensor`` objects, so a custom function gets the same
version-counter check and message as built-in ops. ``mark_dirty`` declares in-place writes (the
written tensor's history is rebased onto this node); ``mark_non_differentiable`` keeps outputs
such as indices from requiring grad.
"""

from __future__ import annotations

import functools

from strided import _core
from strided.autograd.grad_mode import state
from strided.autograd.graph import Node, SavedTensor, gradient_edge, set_history, user_line
from strided.autograd.recording import below_autograd

__all__ = ["Function", "FunctionCtx", "BackwardFunction", "once_differentiable"]

_TensorBase = _core.TensorBase


class FunctionCtx:
    """The ``ctx`` of ``forward`` and ``backward``: what forward leaves for backward."""

    def save_for_backward(self, *tensors):
        """Keep these tensors (or None) for backward, with their versions."""
        self._saved = tuple(
            None if t is None else SavedTensor(t, what=f"saved tensor {i}")
            for i, t in enumerate(tensors)
        )

    @property
    def saved_tensors(self):
        """The tensors given to save_for_backward, checked against in-place writes."""
        saved = getattr(self, "_saved", ())
        return tuple(None if s is None else s.unpack(self) for s in saved)

    def mark_dirty(self, *tensors):
        """Declare that forward wrote into these input tensors in place."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        """Declare outputs that carry no gradient (indices, masks)."""
        self._non_differentiable = tensors


class BackwardFunction(FunctionCtx, Node):
    """The node of one ``Function.apply`` call; also its ``ctx``."""

    def __init__(self, cls, edges, metas, needs):
        Node.__init__(self, edges, metas)
        self._cls = cls
        self._saved = ()
        self._dirty = ()
        self._non_differentiable = ()
        self.needs_input_grad = tuple(needs)
        self.out_meta = ()
        self._released = False

    def name(self):
        return f"{self._cls.__name__}Backward"

    def apply(self, grad_outputs):
        if self._released:
            from strided.autograd.graph import _freed_error

            raise _freed_error(self)
        grads = self._cls.backward(self, *grad_outputs)
        if not isinstance(grads, tuple):
            grads = (grads,)
        n = len(self.next_functions)
        if len(grads) != n:
            raise RuntimeError(
                f"{self._cls.__name__}.backward returned {len(grads)} gradients, but forward took "
                f"{n} arguments: return one per argument of apply() (None for non-tensors)"
            )
        return grads

    def release(self):
        self._released = True
        for s in self._saved:
            if s is not None:
                s.release()


class Function:
    """Base class of custom differentiable operations.

    Examples
    --------
    >>> import strided
    >>> from strided.autograd import Function
    >>> class Cube(Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x * x
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return g * 3 * x * x
    >>> x = strided.asarray([2.0]).requires_grad_()
    >>> Cube.apply(x).sum().backward()
    >>> x.grad
    tensor([12.])
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("a Function subclass must define forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("a Function subclass must define backward(ctx, ...)")

    @classmethod
    def apply(cls, *args, **kwargs):
        edges, metas, needs = [], [], []
        record = state.enabled
        for a in args:
            if isinstance(a, _TensorBase):
                e = gradient_edge(a) if (record and a._requires_grad) else None
                edges.append(e)
                metas.append((a.shape, a.dtype, a.device))
                needs.append(e is not None)
            else:
                edges.append(None)
                metas.append(None)
                needs.append(False)
        ctx = BackwardFunction(cls, edges, metas, needs)
        ctx.source = user_line(2)
        with below_autograd():
            result = cls.forward(ctx, *args, **kwargs)
        if not any(needs):
            return result
        outputs = result if isinstance(result, tuple) else (result,)
        dirty = {id(t) for t in ctx._dirty}
        skip = {id(t) for t in ctx._non_differentiable}
        inputs = {id(a) for a in args if isinstance(a, _TensorBase)}
        fixed, metas_out = [], []
        for nr, o in enumerate(outputs):
            if not isinstance(o, _TensorBase) or id(o) in skip or o.dtype.kind not in "fc":
                fixed.append(o)
                metas_out.append(None)
                continue
            if id(o) in inputs and id(o) not in dirty:
                o = o.detach()  # an input returned as is: a new tensor, so its history stays
            elif id(o) in dirty and o.grad_fn is None and o._requires_grad:
                raise RuntimeError(
                    f"{cls.__name__}: a leaf tensor that requires grad was modified in place "
                    "(mark_dirty); write into a clone instead"
                )
            set_history(o, ctx, nr)
            fixed.append(o)
            metas_out.append((o.shape, o.dtype, o.device))
        ctx.out_meta = tuple(metas_out)
        return tuple(fixed) if isinstance(result, tuple) else fixed[0]


def once_differentiable(backward):
    """Decorate ``backward`` of a Function whose backward is not itself differentiable: it runs
    with grad mode off, and differentiating its result again raises a clear error."""

    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        wanted = state.enabled and any(
            isinstance(g, _TensorBase) and g._requires_grad for g in grads
        )
        with below_autograd():
            results = backward(ctx, *grads)
        if not wanted:
            return results
        single = not isinstance(results, tuple)
        results = (results,) if single else results
        err = _OnceDifferentiable(ctx.name(), grads)
        out = []
        for r in results:
            if isinstance(r, _TensorBase) and r.dtype.kind in "fc":
                r = r.detach()
                set_history(r, err, 0)
            out.append(r)
        return out[0] if single else tuple(out)

    return wrapper


class _OnceDifferentiable(Node):
    __slots__ = ("_what",)

    def __init__(self, what, grads):
        edges = [
            gradient_edge(g) if isinstance(g, _TensorBase) and g._requires_grad else None
            for g in grads
        ]
        super().__init__(
            edges, [(g.shape, g.dtype, g.device) if g is not None else None for g in grads]
        )
        self._what = what

    def apply(self, grad_outputs):
        raise RuntimeError(
            f"trying to differentiate twice the backward of {self._what}, which is marked "
            "@once_differentiable; write its backward with strided ops (without the decorator) "
            "to get double backward"
        )
