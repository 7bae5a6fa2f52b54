"""strided.autograd: reverse-mode automatic differentiation.

Read in this order: ``graph.py`` (Node, edges, saved tensors), ``recording.py`` (the Autograd
dispatch key that builds the graph while ops run), ``derivatives.py`` (the one table of backward
formulas), ``engine.py`` (the backward pass), then ``function.py`` (custom functions),
``grad_mode.py``, ``gradcheck.py``, ``anomaly_mode.py`` and ``dot.py``.

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
