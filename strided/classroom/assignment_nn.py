"""Assignment 5: nn (a Linear layer, softmax cross-entropy, SGD with momentum; then a network).

The student writes three pieces of strided.nn / strided.optim with strided's own tensor ops (so
autograd differentiates them), each graded against strided's own (values and gradients), and
then the last task trains the digits MLP of ``python -m strided`` (strided/_train.py) on the
student's pieces alone: strided's ``make_mlp`` builds the network with the student's ``Linear``
swapped in for ``strided.nn.Linear``, the loss is the student's ``cross_entropy`` and the
optimizer the student's ``SGD``. "Your library trains a network": at least 95% test accuracy.
"""

from __future__ import annotations

import math

import hypothesis.strategies as st
import numpy as np
from hypothesis.extra import numpy as hnp

import strided
import strided.nn.functional as F
from strided import _train
from strided.classroom._check import Failed, NotStarted, search, show_call
from strided.classroom._engine import Assignment, Task, swapped

_TOL = {"rtol": 1e-6, "atol": 1e-8}


def _np(t):
    return None if t is None else np.asarray(t.detach().numpy() if hasattr(t, "detach") else t)


def _close(a, b):
    a, b = _np(a), _np(b)
    if a is None or b is None:
        return a is None and b is None
    return a.shape == b.shape and bool(np.allclose(a, b, equal_nan=True, **_TOL))


def _guard(fn, *args):
    """Run the student's code: (value, None) or (None, message)."""
    try:
        return fn(*args), None
    except NotImplementedError as e:
        raise NotStarted(str(e)) from None
    except Exception as e:
        return None, f"it raised {type(e).__name__}: {e}"


def _raise_found(found, describe):
    if found is not None:
        value, message = found
        raise Failed(
            f"counter-example (the smallest Hypothesis found): {describe(value)}\n{message}"
        )


# ---------------------------------------------------------------------------------------------
# Linear
# ---------------------------------------------------------------------------------------------

_values = st.floats(-2, 2, allow_nan=False, width=64)


@st.composite
def _linear_case(draw):
    n, fin, fout = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    x = draw(hnp.arrays(np.float64, (n, fin), elements=_values))
    return fin, fout, x


def _check_linear(Linear, module):
    def disagree(case):
        fin, fout, x = case
        strided.manual_seed(0)
        layer, err = _guard(Linear, fin, fout)
        if err:
            return f"Linear({fin}, {fout}) failed: {err}"
        params = dict(layer.named_parameters()) if hasattr(layer, "named_parameters") else {}
        if sorted(params) != ["bias", "weight"]:
            return (
                f"Linear({fin}, {fout}) should register two Parameters, weight and bias "
                f"(assign strided.nn.Parameter objects to self.weight, self.bias); it has "
                f"{sorted(params)}"
            )
        w, b = params["weight"], params["bias"]
        if tuple(w.shape) != (fout, fin) or tuple(b.shape) != (fout,):
            return (
                f"weight should have shape {(fout, fin)} and bias {(fout,)}; yours have "
                f"{tuple(w.shape)} and {tuple(b.shape)}"
            )
        # what strided.nn.Linear uses, as PyTorch's layers do (Note [nn parameters are float32]
        # in strided/nn/layers.py); the array default, strided.get_default_dtype(), is float64
        if w.dtype != strided.float32 or b.dtype != strided.float32:
            return (
                "parameters should be float32, as strided.nn.Linear's and PyTorch's are "
                f"(pass dtype=strided.float32); yours are {w.dtype}/{b.dtype}"
            )
        bound = 1.0 / math.sqrt(fin)
        if not (np.abs(_np(w)) <= bound + 1e-6).all() or not (np.abs(_np(b)) <= bound + 1e-6).all():
            return (
                "initial values should lie in [-1/sqrt(in_features), 1/sqrt(in_features)] = "
                f"[-{bound:.4f}, {bound:.4f}]"
            )
        if np.ptp(_np(w)) == 0 and w.numel() > 1:
            return "initial weights are all equal: draw them at random (strided.random.uniform)"
        # forward and backward in float64 with the same parameters as strided's own layer
        ref = strided.nn.Linear(fin, fout).to(dtype=strided.float64)
        with strided.no_grad():
            ref.weight.copy_(strided.asarray(np.arange(fout * fin).reshape(fout, fin) * 0.25 - 1))
            ref.bias.copy_(strided.asarray(np.arange(fout) * 0.5 - 0.5))
        _, err = _guard(lambda: layer.to(dtype=strided.float64))
        if err:
            return f"layer.to(dtype=strided.float64) failed (subclass strided.nn.Module): {err}"
        params = dict(layer.named_parameters())
        w, b = params["weight"], params["bias"]
        with strided.no_grad():
            w.copy_(ref.weight)
            b.copy_(ref.bias)
        xs, xr = strided.asarray(x).requires_grad_(), strided.asarray(x).requires_grad_()
        want = ref(xr)
        got, err = _guard(layer, xs)
        if err:
            return f"calling the layer failed: {err}"
        if not _close(want, got):
            return (
                f"with weight {_np(w).tolist()} and bias {_np(b).tolist()}: expected "
                f"{_np(want).tolist()}, your layer gave {_np(got).tolist()}"
            )
        weights = strided.asarray(np.arange(want.numel(), dtype=np.float64).reshape(want.shape) + 1)
        want.backward(weights)
        _, err = _guard(lambda: got.backward(weights))
        if err:
            return f"backward through your layer failed: {err}"
        for name, mine, theirs in (("x", xs, xr), ("weight", w, ref.weight), ("bias", b, ref.bias)):
            if not _close(theirs.grad, mine.grad):
                return (
                    f"the gradient of {name} is {_np(mine.grad)}, expected {_np(theirs.grad)} "
                    "(build the output from strided ops so autograd can follow it)"
                )
        return None

    _raise_found(
        search(_linear_case(), disagree, examples=30),
        lambda c: f"Linear({c[0]}, {c[1]}) on x = {c[2].tolist()}",
    )


# ---------------------------------------------------------------------------------------------
# cross_entropy
# ---------------------------------------------------------------------------------------------


@st.composite
def _ce_case(draw):
    n, c = draw(st.integers(1, 3)), draw(st.integers(1, 4))
    big = st.floats(-800, 800, allow_nan=False, width=64)
    logits = draw(hnp.arrays(np.float64, (n, c), elements=_values | big))
    target = np.array(draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n)), np.int64)
    return logits, target


def _check_cross_entropy(student, module):
    def disagree(case):
        logits, target = case
        lr, ls = strided.asarray(logits).requires_grad_(), strided.asarray(logits).requires_grad_()
        want = F.cross_entropy(lr, strided.asarray(target))
        got, err = _guard(student, ls, strided.asarray(target))
        if err:
            return err
        if not hasattr(got, "shape") or tuple(got.shape) != ():
            return f"expected a 0-d tensor (the mean loss), your function returned {got!r}"
        if not _close(want, got):
            return f"expected loss {float(want)!r}, your function returned {float(got)!r}"
        want.backward()
        _, err = _guard(got.backward)
        if err:
            return f"backward failed: {err}"
        if not _close(lr.grad, ls.grad):
            return (
                f"the gradient of the logits is {_np(ls.grad).tolist()}, expected "
                f"{_np(lr.grad).tolist()}"
            )
        return None

    _raise_found(
        search(_ce_case(), disagree, examples=60),
        lambda c: show_call("cross_entropy", (c[0], c[1])),
    )


# ---------------------------------------------------------------------------------------------
# SGD with momentum
# ---------------------------------------------------------------------------------------------


@st.composite
def _sgd_case(draw):
    shapes = draw(
        st.lists(st.lists(st.integers(1, 3), max_size=2).map(tuple), min_size=1, max_size=2)
    )
    lr = draw(st.sampled_from([0.1, 0.5]))
    momentum = draw(st.sampled_from([0.0, 0.9]))
    steps = draw(st.integers(1, 3))
    start = [draw(hnp.arrays(np.float64, s, elements=_values)) for s in shapes]
    grads = [
        [draw(hnp.arrays(np.float64, s, elements=_values)) for s in shapes] for _ in range(steps)
    ]
    return start, lr, momentum, grads


def _check_sgd(SGD, module):
    def disagree(case):
        start, lr, momentum, grads = case
        mine = [strided.nn.Parameter(strided.asarray(p.copy())) for p in start]
        ref = [strided.nn.Parameter(strided.asarray(p.copy())) for p in start]
        opt, err = _guard(SGD, mine, lr, momentum)
        if err:
            return f"SGD(params, lr={lr}, momentum={momentum}) failed: {err}"
        ref_opt = strided.optim.SGD(ref, lr=lr, momentum=momentum)
        for k, gs in enumerate(grads):
            for p, q, g in zip(mine, ref, gs, strict=True):
                p.grad, q.grad = strided.asarray(g.copy()), strided.asarray(g.copy())
            _, err = _guard(opt.step)
            if err:
                return f"step {k + 1}: {err}"
            ref_opt.step()
            for i, (p, q) in enumerate(zip(mine, ref, strict=True)):
                if not _close(q, p):
                    return (
                        f"after step {k + 1}, parameter {i} is {_np(p).tolist()}, expected "
                        f"{_np(q).tolist()}"
                    )
            _, err = _guard(opt.zero_grad)
            if err:
                return f"zero_grad: {err}"
            if any(p.grad is not None and bool((_np(p.grad) != 0).any()) for p in mine):
                return "zero_grad() should clear every gradient (set .grad to None)"
        return None

    _raise_found(
        search(_sgd_case(), disagree, examples=40),
        lambda c: (
            f"SGD on parameters {[p.tolist() for p in c[0]]}, lr={c[1]}, momentum={c[2]}, "
            f"gradients per step {[[g.tolist() for g in gs] for gs in c[3]]}"
        ),
    )


# ---------------------------------------------------------------------------------------------
# Train the digits MLP on the student's pieces
# ---------------------------------------------------------------------------------------------

EPOCHS, LR, MOMENTUM, BATCH, TARGET = 8, 0.05, 0.9, 64, 0.95


def train_digits(Linear, cross_entropy, SGD, epochs=EPOCHS):
    """Train ``strided._train.make_mlp()`` (64 -> 128 -> 64 -> 10) on the 8x8 digits with the
    given pieces; returns the test accuracy."""
    try:
        data = _train.load_digits_data(seed=0)
    except SystemExit as e:
        raise Failed(f"this task needs scikit-learn for the digits: {e}") from None
    x_tr, y_tr, x_te, y_te = data
    xs, ys = strided.asarray(x_tr), strided.asarray(y_tr)
    xt, yt = strided.asarray(x_te), strided.asarray(y_te)
    strided.manual_seed(0)
    with swapped("strided.nn.Linear", Linear):  # strided._train's ``nn`` is strided.nn
        model = _train.make_mlp()
    opt = SGD(list(model.parameters()), LR, MOMENTUM)
    rng = np.random.default_rng(0)
    for _ in range(epochs):
        model.train()
        order = rng.permutation(len(x_tr))
        for i in range(0, len(order), BATCH):
            idx = strided.asarray(order[i : i + BATCH])
            loss = cross_entropy(model(xs[idx]), ys[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return _train.accuracy(model, xt, yt)


def _check_training(module, _):
    pieces = [getattr(module, n) for n in ("Linear", "cross_entropy", "SGD")]
    try:
        acc = train_digits(*pieces)
    except (NotStarted, NotImplementedError):
        raise NotStarted("Linear, cross_entropy and SGD must work first") from None
    except Failed:
        raise
    except Exception as e:
        raise Failed(f"training stopped on {type(e).__name__}: {e}") from None
    line = (
        f"test accuracy {acc:.1%} after {EPOCHS} epochs of SGD (lr {LR}, momentum {MOMENTUM}, "
        f"batch {BATCH}) on the 8x8 digits"
    )
    if acc < TARGET:
        raise Failed(f"{line}; it needs {TARGET:.0%}. Are the other three tasks passing?")
    return [f"your library trains a network: {line}"]


TASKS = (
    Task(
        "Linear",
        25,
        "",
        "",
        _check_linear,
        reference=strided.nn.Linear,
        replaces="strided.nn.Linear",
        stub='''
        class Linear(strided.nn.Module):
            """``y = x @ weight.T + bias``, weight of shape (out_features, in_features).

            In ``__init__`` make ``self.weight`` and ``self.bias`` strided.nn.Parameter objects
            of dtype ``strided.float32`` (as PyTorch's layers; arrays default to float64),
            drawn uniformly from [-1/sqrt(in_features), 1/sqrt(in_features)]
            (``strided.random.uniform``); in ``forward`` compute the output with strided's ops
            (``strided.matmul``, ``.T``, ``+``), so autograd can differentiate it.

            Re-implements ``strided.nn.Linear``.
            """

            def __init__(self, in_features, out_features):
                raise NotImplementedError("Linear: write __init__")

            def forward(self, x):
                raise NotImplementedError("Linear: write forward")
        ''',
        solution='''
        class Linear(strided.nn.Linear):
            """strided's own layer."""
        ''',
    ),
    Task(
        "cross_entropy",
        25,
        "cross_entropy(logits, target)",
        """The mean softmax cross-entropy of ``logits`` (N, C) against the class indices
        ``target`` (N,): ``mean_n( logsumexp(logits[n]) - logits[n, target[n]] )``, as a 0-d
        tensor built from strided ops (so autograd gives its gradient). It must hold for
        logits in the hundreds: subtract each row's max before ``exp`` (``exp(800)`` is inf).

        >>> cross_entropy(strided.asarray([[0.0, 0.0]]), strided.asarray([1])).item()
        0.6931471805599453""",
        _check_cross_entropy,
        reference=F.cross_entropy,
        replaces="strided.nn.functional.cross_entropy",
    ),
    Task(
        "SGD",
        25,
        "",
        "",
        _check_sgd,
        reference=strided.optim.SGD,
        replaces="strided.optim.SGD",
        stub='''
        class SGD:
            """Stochastic gradient descent with momentum, as PyTorch writes it: for each
            parameter ``p`` with gradient ``g``, keep a buffer ``b`` (``b = g`` on the first
            step, then ``b = momentum * b + g``) and update ``p -= lr * b`` in place (under
            ``strided.no_grad()``); with ``momentum == 0`` just ``p -= lr * g``. Parameters
            whose ``.grad`` is None are skipped. ``zero_grad`` sets every ``.grad`` to None.

            Re-implements ``strided.optim.SGD``.
            """

            def __init__(self, params, lr, momentum=0.0):
                raise NotImplementedError("SGD: write __init__")

            def step(self):
                raise NotImplementedError("SGD: write step")

            def zero_grad(self):
                raise NotImplementedError("SGD: write zero_grad")
        ''',
        solution='''
        class SGD(strided.optim.SGD):
            """strided's own optimizer."""

            def __init__(self, params, lr, momentum=0.0):
                super().__init__(params, lr=lr, momentum=momentum)
        ''',
    ),
    Task(
        "train_digits",
        25,
        "",
        "",
        _check_training,
        replaces="python -m strided (strided/_train.py), on your Linear, cross_entropy, SGD",
        time_limit=180.0,
        stub="",
        solution="",
        needs=("Linear", "cross_entropy", "SGD"),
    ),
)

ASSIGNMENT = Assignment(
    key="nn",
    number=5,
    title="nn",
    filename="nn_pieces.py",
    intro="""
    Write a Linear layer, softmax cross-entropy and SGD with momentum out of strided's tensor
    ops; each is graded against strided's own (values and gradients). Then the last task
    (train_digits, nothing to write) trains the digits MLP of `python -m strided` on your
    pieces alone: your library trains a network, to at least 95% test accuracy.""",
    tasks=TASKS,
    imports="import strided",
)
