"""strided.autograd: reverse-mode automatic differentiation.

Read in this order: ``graph.py`` (Node, edges, saved tensors), ``recording.py`` (the Autograd
dispatch key that builds the graph while ops run), ``derivatives.py`` (the one table of backward
formulas, one named row per op; ``rows.py`` turns a row into a node's formula, ``formulas.py``
holds the longer formulas), ``engine.py`` (the backward pass), then ``function.py`` (custom
functions), ``grad_mode.py``, ``gradcheck.py``, ``anomaly_mode.py`` and ``dot.py``.

Note [How a recorded op flows]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Follow ``y = x.exp()`` with ``x.requires_grad = True``:

1. **Python call.** ``Tensor.exp`` calls the op; ``x.requires_grad = True`` (TensorBase's
   property, _core.pyx) activated autograd, which registered a kernel for every dispatcher op
   under the ``Autograd`` key (``recording.activate``).
2. **Dispatcher.** ``_dispatch.call("exp", x)`` sees a tensor that requires grad and asks
   ``recording.needs_autograd``; grad mode is on, so it picks the Autograd kernel (Note [Two
   dispatches] in _dispatch.py). Views and copies come the same way: ``x[1:]``, ``x.T``,
   ``y.copy_(x)`` are dispatcher ops (Note [Views through the Autograd key] in _views.pyx, Note
   [Copies through the dispatcher] in _ops/copying.py).
3. **Autograd key.** The kernel (``recording.record_call``) runs the CPU or CUDA kernel below it
   with grad mode off (``_dispatch.redispatch``), then makes a ``FormulaNode`` (graph.py) from
   exp's row of ``derivatives.py``: the row's formula names ``result``, so the node saves y.
   A view gets a ``ViewNode`` instead (Note [The view kernel] in recording.py).
4. **Node.** ``y.grad_fn`` is the node; its ``next_functions`` lead to x's AccumulateGrad.
5. **Engine.** ``y.sum().backward()`` counts dependencies, runs each node when all its
   gradients have arrived (Note [How the engine runs a graph] in engine.py): exp's formula
   gives ``grad * result``, summed to x's shape, added into ``x.grad``.

Examples
--------
>>> import strided
>>> w = strided.asarray([1.0, -2.0]).requires_grad_()
>>> loss = (w * w).sum()
>>> loss.grad_fn
<SumBackward #...>
>>> loss.backward()
>>> w.grad
tensor([ 2., -4.])
"""

from strided.autograd import variable as _variable
from strided.autograd.anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from strided.autograd.dot import to_dot
from strided.autograd.engine import backward, grad
from strided.autograd.function import BackwardFunction, Function, FunctionCtx, once_differentiable
from strided.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from strided.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from strided.autograd.graph import AccumulateGrad, Node
from strided.autograd.recording import CopySlices, ViewNode

_variable.install()

__all__ = [
    "AccumulateGrad",
    "BackwardFunction",
    "CopySlices",
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "Node",
    "ViewNode",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "inference_mode",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "once_differentiable",
    "set_detect_anomaly",
    "set_grad_enabled",
    "to_dot",
]
