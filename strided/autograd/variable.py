"""The autograd face of ``Tensor``: the bodies of ``retain_grad`` and the hooks.

``Tensor`` (``_tensor.py``) defines every autograd method itself; the ones that need the graph
(its nodes' hooks and a tensor's autograd metadata) call these functions when they run, since
``_tensor.py`` sits below autograd in the layers (DESIGN.md) and cannot import it at load.
``grad`` and ``grad_fn`` are plain slots of ``TensorBase``; ``requires_grad`` is TensorBase's
property (_core.pyx), defined there once, and ``Tensor.requires_grad_`` sets it.
"""

from __future__ import annotations

import weakref

from strided import _core
from strided.autograd import recording
from strided.autograd.graph import RemovableHandle, meta

__all__ = ["install"]


def retain_grad(self):
    """Keep this non-leaf tensor's gradient in ``.grad`` during backward."""
    if self.grad_fn is None:
        if not self._requires_grad:
            raise RuntimeError("retain_grad: the tensor does not require grad")
        return  # a leaf keeps its gradient anyway
    m = meta(self)
    if m.retains_grad:
        return
    m.retains_grad = True
    ref = weakref.ref(self)

    def keep(g):
        t = ref()
        if t is not None:
            t.grad = g if t.grad is None else t.grad + g

    self.grad_fn._add_tensor_hook(m.output_nr, keep, retain=True)


def register_hook(self, hook):
    """``hook(grad)`` runs when this tensor's gradient is computed; it may return a new one."""
    if not self._requires_grad:
        raise RuntimeError(
            "register_hook: the tensor does not require grad, so no gradient "
            "will ever reach a hook on it"
        )
    if self.grad_fn is None:
        hooks = meta(self).hooks
        hooks.append(hook)
        return RemovableHandle(hooks, hook)
    return self.grad_fn._add_tensor_hook(meta(self).output_nr, hook)


def register_post_accumulate_grad_hook(self, hook):
    """``hook(tensor)`` runs after the gradient was added into this leaf's ``.grad``."""
    if self.grad_fn is not None:
        raise RuntimeError(
            "register_post_accumulate_grad_hook: only leaf tensors accumulate a .grad; this one "
            f"is the result of {self.grad_fn.name()}"
        )
    if not self._requires_grad:
        raise RuntimeError("register_post_accumulate_grad_hook: the tensor does not require grad")
    hooks = meta(self).post_hooks
    hooks.append(hook)
    return RemovableHandle(hooks, hook)


def install():
    # requires_grad itself is TensorBase's property (_core.pyx), with its checks; setting it
    # turns autograd on (Note [The Autograd hook])
    _core.on_requires_grad(recording.activate)
