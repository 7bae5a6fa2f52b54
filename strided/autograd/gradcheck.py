"""gradcheck and gradgradcheck: compare autograd's gradients with finite differences.

Note [How gradcheck decides]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~
For a function ``f`` of float64 inputs, the Jacobian ``J[i, j] = d out_i / d in_j`` is computed
twice:

* **numerically**, one input element at a time, by central differences
  ``(f(x + eps e_j) - f(x - eps e_j)) / (2 eps)``: the inputs are perturbed in place (through a
  NumPy view of their memory, so non-contiguous and negative-stride inputs keep their layout) and
  restored afterwards;
* **analytically**, one output element at a time, by a backward pass with a one-hot gradient
  (a vector-Jacobian product), which is what the engine and the formulas compute.

They must agree within ``atol + rtol * |numerical|`` everywhere. On failure the message names the
worst element: which output and input, the element's index, both values. It also compares the
one-sided slopes ``(f(x + eps) - f(x)) / eps`` and ``(f(x) - f(x - eps)) / eps`` there: when they
disagree the function has a kink or jump at that input (``abs`` at 0, ``relu`` at 0, ties of
``max``), where no gradient is right, and the message says so instead of blaming the formula.

``gradgradcheck`` checks the formulas' own derivatives: it runs ``gradcheck`` on the function
``(inputs, v) -> grad(f(inputs), inputs, v, create_graph=True)``.
"""

from __future__ import annotations

import numpy as np

from strided import _core
from strided._ops import creation as _cr
from strided.autograd import engine

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]

_TensorBase = _core.TensorBase


class GradcheckError(RuntimeError):
    """The analytical and numerical Jacobians disagree."""


def _outputs(fn, inputs):
    out = fn(*inputs)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in outs if isinstance(o, _TensorBase) and o.dtype.kind == "f"]


def _flat_values(outs):
    if not outs:
        return np.zeros(0)
    return np.concatenate([np.asarray(o.cpu(), dtype=np.float64).reshape(-1) for o in outs])


def _numerical(fn, inputs, x, eps):
    """Central, forward and backward differences of every output element by every element of
    ``x``: three (n_out, n_in) arrays."""
    # Perturb x in place, one element at a time. On the CPU through a NumPy view that shares
    # x's memory; on a CUDA device through a host copy written back with the device copy
    # kernel (below autograd: the perturbation is not an op of the function being checked).
    on_device = x.device.is_cuda
    if on_device:
        from strided.cuda import _copy as cuda_copy

        host = _cr.empty(x.shape, dtype=x.dtype)
        cuda_copy.copy_(host, x)
        view = np.asarray(host)
    else:
        # shares x's memory, in x's own layout; detached, because a tensor that requires grad
        # exports a read-only buffer (Note [No writable window into a tensor that requires
        # grad] in _core.pyx), and these writes are meant
        view = np.asarray(x.detach())
    n_in = view.size

    def write():
        if on_device:
            cuda_copy.copy_(x, host)

    base = _flat_values(_outputs(fn, inputs))
    central = np.zeros((base.size, n_in))
    forward = np.zeros_like(central)
    backward = np.zeros_like(central)
    for j, idx in enumerate(np.ndindex(view.shape)):
        orig = view[idx]
        view[idx] = orig + eps
        write()
        plus = _flat_values(_outputs(fn, inputs))
        view[idx] = orig - eps
        write()
        minus = _flat_values(_outputs(fn, inputs))
        view[idx] = orig
        write()
        central[:, j] = (plus - minus) / (2 * eps)
        forward[:, j] = (plus - base) / eps
        backward[:, j] = (base - minus) / eps
    return central, forward, backward


def _analytical(fn, inputs, diff):
    """Row i: the gradient of output element i with respect to each differentiable input."""
    outs = _outputs(fn, inputs)
    sizes = [o.numel() for o in outs]
    n_out = sum(sizes)
    jac = [np.zeros((n_out, x.numel())) for x in diff]
    row = 0
    for o, n in zip(outs, sizes, strict=True):
        if o.grad_fn is None and not o.requires_grad:
            row += n
            continue
        for k in range(n):
            onehot = np.zeros(n)
            onehot[k] = 1.0
            g = _cr.asarray(onehot.reshape(o.shape), dtype=o.dtype, device=o.device)
            grads = engine.grad(o, diff, g, retain_graph=True, allow_unused=True)
            for jcol, gr in enumerate(grads):
                if gr is not None:
                    if gr.shape != diff[jcol].shape:
                        raise GradcheckError(
                            f"gradcheck: the gradient for input {jcol} has shape {gr.shape}, "
                            f"but the input has shape {diff[jcol].shape}"
                        )
                    jac[jcol][row + k] = np.asarray(gr.cpu(), dtype=np.float64).reshape(-1)
        row += n
    return jac


def gradcheck(
    fn, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, check_undefined_grad=True
):
    """Check the gradients of ``fn`` at ``inputs`` against central finite differences.

    ``inputs``: a tensor or a tuple of arguments; the tensors that require grad (float64) are
    differentiated. Returns True, or raises GradcheckError (False with
    ``raise_exception=False``). See Note [How gradcheck decides].

    Examples
    --------
    >>> import strided
    >>> from strided.autograd import gradcheck
    >>> x = strided.asarray([0.5, 1.5], dtype="float64").requires_grad_()
    >>> gradcheck(strided.sin, (x,))
    True
    """
    inputs = (inputs,) if isinstance(inputs, _TensorBase) else tuple(inputs)
    diff = [x for x in inputs if isinstance(x, _TensorBase) and x.requires_grad]
    if not diff:
        raise ValueError("gradcheck: no input requires grad; call .requires_grad_() on one")
    for x in diff:
        if x.dtype.name != "float64":
            raise ValueError(
                f"gradcheck: input of dtype {x.dtype.name}: finite differences need float64 "
                "inputs to be meaningful; convert with x.astype('float64')"
            )
    analytical = _analytical(fn, inputs, diff)
    worst = None
    for jx, x in enumerate(diff):
        # grad mode stays on: gradgradcheck's function differentiates inside
        central, fwd, bwd = _numerical(fn, inputs, x, eps)
        a = analytical[jx]
        if a.shape != central.shape:
            raise GradcheckError(f"gradcheck: Jacobian shapes differ: {a.shape} vs {central.shape}")
        err = np.abs(a - central) - (atol + rtol * np.abs(central))
        if err.size and np.nanmax(np.where(np.isnan(err), np.inf, err)) > 0:
            flat = np.where(np.isnan(err), np.inf, err)
            i, j = np.unravel_index(np.argmax(flat), flat.shape)
            if worst is None or flat[i, j] > worst[0]:
                worst = (flat[i, j], jx, i, j, a[i, j], central[i, j], fwd[i, j], bwd[i, j], x)
    if worst is None:
        return True
    _, jx, i, j, av, nv, fv, bv, x = worst
    index = np.unravel_index(j, x.shape) if x.ndim else ()
    kink = ""
    if abs(fv - bv) > atol + rtol * max(abs(fv), abs(bv)):
        kink = (
            f" The one-sided slopes there differ ({fv:.6g} from the right, {bv:.6g} from the "
            "left): the function is not differentiable at this input (a kink or a jump), so "
            "move the input away from it."
        )
    msg = (
        f"gradcheck: Jacobian mismatch for output element {i} with respect to input {jx} "
        f"(shape {x.shape}) at index {tuple(int(k) for k in index)}: analytical {av:.10g}, "
        f"numerical {nv:.10g} (eps={eps}, atol={atol}, rtol={rtol}).{kink}"
    )
    if raise_exception:
        raise GradcheckError(msg)
    return False


def gradgradcheck(
    fn, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, seed=0, raise_exception=True
):
    """Check second derivatives: gradcheck of the vector-Jacobian product of ``fn``.

    Examples
    --------
    >>> import strided
    >>> from strided.autograd import gradgradcheck
    >>> x = strided.asarray([0.5, 1.5], dtype="float64").requires_grad_()
    >>> gradgradcheck(strided.exp, (x,))
    True
    """
    inputs = (inputs,) if isinstance(inputs, _TensorBase) else tuple(inputs)
    outs = _outputs(fn, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(seed)
        grad_outputs = [
            _cr.asarray(
                rng.standard_normal(o.shape), dtype="float64", device=o.device
            ).requires_grad_()
            for o in outs
        ]
    grad_outputs = list(grad_outputs)
    n = len(inputs)
    positions = [i for i, x in enumerate(inputs) if isinstance(x, _TensorBase) and x.requires_grad]

    def first_derivative(*args):
        xs, vs = args[:n], args[n:]
        pairs = [(o, v) for o, v in zip(_outputs(fn, xs), vs, strict=True) if o.requires_grad]
        if not pairs:
            return ()
        ys, vs = [o for o, _ in pairs], [v for _, v in pairs]
        gs = engine.grad(ys, [xs[i] for i in positions], vs, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(
        first_derivative,
        tuple(inputs) + tuple(grad_outputs),
        eps=eps,
        atol=atol,
        rtol=rtol,
        raise_exception=raise_exception,
    )
