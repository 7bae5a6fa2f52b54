"""The autograd face of ``Tensor``: ``is_leaf``, ``backward()``, hooks and friends.

``_tensor.py`` sits below autograd in the layers (DESIGN.md), so it cannot call up into this
package; instead this module adds the autograd methods to ``Tensor`` when ``strided.autograd``
is imported (which ``import strided`` does), as ``_install_elementwise_methods`` adds the
elementwise ones. ``grad`` and ``grad_fn`` are plain slots of ``TensorBase``; ``requires_grad``
is TensorBase's property (_core.pyx), defined there once, and ``Tensor.requires_grad_`` sets it.
"""

from __future__ import annotations

import weakref

from strided import _core
from strided._tensor import Tensor
from strided.autograd import engine, recording
from strided.autograd.graph import RemovableHandle, meta

__all__ = ["install"]


def is_leaf(self):
    """True for tensors no recorded op made: user-made tensors, and results of ops on tensors
    that did not require grad. Only leaves get ``.grad`` filled by backward (see retain_grad)."""
    return self.grad_fn is None


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


def retains_grad(self):
    m = self._autograd_meta
    return bool(m is not None and m.retains_grad)


def detach(self):
    """A new tensor over the same memory, with no history and not requiring grad (in-place
    writes to either are seen by both, and by the version counter)."""
    return _core._from_parts(
        self.untyped_storage(), self.storage_offset(), self.shape, self.stride(), self.dtype
    )


def detach_(self):
    """Cut this tensor off its history, in place: it becomes a leaf that does not require grad."""
    self.grad_fn = None
    self._requires_grad = False
    return self


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


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Add the gradient of this tensor with respect to each leaf into the leaf's ``.grad``
    (see ``strided.autograd.backward``)."""
    engine.backward(self, gradient, retain_graph, create_graph, inputs)


def install():
    # requires_grad itself is TensorBase's property (_core.pyx), with its checks; setting it
    # turns autograd on (Note [The Autograd hook])
    _core.on_requires_grad(recording.activate)
    Tensor.is_leaf = property(is_leaf)
    Tensor.retains_grad = property(retains_grad)
    for fn in (
        retain_grad,
        detach,
        detach_,
        register_hook,
        register_post_accumulate_grad_hook,
        backward,
    ):
        setattr(Tensor, fn.__name__, fn)
