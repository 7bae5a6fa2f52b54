"""strided.optim against NumPy reference formulas and, step by step, against torch.optim."""

import numpy as np
import pytest

import strided
from strided import optim

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _grads(rng, shapes, steps):
    return [[rng.standard_normal(s) for s in shapes] for _ in range(steps)]


def _run_strided(cls, kwargs, init, grads):
    params = [strided.tensor(a).requires_grad_() for a in init]
    opt = cls(params, **kwargs)
    for gs in grads:
        for p, g in zip(params, gs, strict=True):
            p.grad = strided.asarray(g)
        opt.step()
    return params, opt


# -- NumPy references: the formulas of the docstrings -------------------------------------------


def np_sgd(p, grads, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
    buf = None
    for g in grads:
        g = g + weight_decay * p
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
    return p


def np_adam(
    p, grads, lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, decoupled=False, amsgrad=False
):
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    vmax = np.zeros_like(p)
    for t, g in enumerate(grads, 1):
        if weight_decay and decoupled:
            p = p * (1 - lr * weight_decay)
        elif weight_decay:
            g = g + weight_decay * p
        m = betas[0] * m + (1 - betas[0]) * g
        v = betas[1] * v + (1 - betas[1]) * g * g
        vmax = np.maximum(vmax, v)
        vv = vmax if amsgrad else v
        m_hat = m / (1 - betas[0] ** t)
        v_hat = vv / (1 - betas[1] ** t)
        p = p - lr * m_hat / (np.sqrt(v_hat) + eps)
    return p


CASES = [
    ("sgd", optim.SGD, dict(lr=0.1), lambda p, g: np_sgd(p, g, 0.1)),
    (
        "sgd_momentum_wd",
        optim.SGD,
        dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01),
        lambda p, g: np_sgd(p, g, 0.05, 0.9, 0.1, 0.01),
    ),
    (
        "sgd_nesterov",
        optim.SGD,
        dict(lr=0.05, momentum=0.8, nesterov=True),
        lambda p, g: np_sgd(p, g, 0.05, 0.8, nesterov=True),
    ),
    ("adam", optim.Adam, dict(lr=0.01), lambda p, g: np_adam(p, g, 0.01)),
    (
        "adam_wd_amsgrad",
        optim.Adam,
        dict(lr=0.01, weight_decay=0.1, amsgrad=True),
        lambda p, g: np_adam(p, g, 0.01, weight_decay=0.1, amsgrad=True),
    ),
    (
        "adamw",
        optim.AdamW,
        dict(lr=0.01, betas=(0.8, 0.99)),
        lambda p, g: np_adam(p, g, 0.01, (0.8, 0.99), weight_decay=0.01, decoupled=True),
    ),
]


@pytest.mark.parametrize("name,cls,kwargs,ref", CASES, ids=[c[0] for c in CASES])
def test_against_numpy_formulas(rng, name, cls, kwargs, ref):
    init = [rng.standard_normal((3, 2)), rng.standard_normal(4)]
    grads = _grads(rng, [(3, 2), (4,)], 5)
    params, _ = _run_strided(cls, kwargs, init, grads)
    for i, p in enumerate(params):
        want = ref(init[i], [g[i] for g in grads])
        np.testing.assert_allclose(np.asarray(p.detach()), want, rtol=1e-12, atol=1e-14)


@needs_torch
@pytest.mark.parametrize("name,cls,kwargs,ref", CASES, ids=[c[0] for c in CASES])
def test_against_torch_step_by_step(rng, name, cls, kwargs, ref):
    init = [rng.standard_normal((3, 2)), rng.standard_normal(4)]
    grads = _grads(rng, [(3, 2), (4,)], 6)
    ours = [strided.tensor(a).requires_grad_() for a in init]
    theirs = [torch.tensor(a, requires_grad=True) for a in init]
    o1 = cls(ours, **kwargs)
    o2 = getattr(torch.optim, cls.__name__)(theirs, **kwargs)
    for gs in grads:
        for p, q, g in zip(ours, theirs, gs, strict=True):
            p.grad = strided.asarray(g)
            q.grad = torch.tensor(g)
        o1.step()
        o2.step()
        for p, q in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(
                np.asarray(p.detach()), q.detach().numpy(), rtol=1e-10, atol=1e-13
            )


def test_state_dict_round_trip_continues_identically(rng):
    init = [rng.standard_normal((3, 2))]
    grads = _grads(rng, [(3, 2)], 6)
    params, opt = _run_strided(optim.Adam, dict(lr=0.01), init, grads[:3])
    sd = strided.load(_saved(opt.state_dict()))
    clone = [strided.tensor(np.asarray(params[0].detach())).requires_grad_()]
    opt2 = optim.Adam(clone, lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.01 and opt2.state[clone[0]]["step"] == 3
    for gs in grads[3:]:
        for o, ps in ((opt, params), (opt2, clone)):
            ps[0].grad = strided.asarray(gs[0])
            o.step()
    np.testing.assert_array_equal(np.asarray(params[0].detach()), np.asarray(clone[0].detach()))


def _saved(obj):
    import io

    buf = io.BytesIO()
    strided.save(obj, buf)
    buf.seek(0)
    return buf


def test_momentum_state_dict_and_mismatch_errors(rng):
    params, opt = _run_strided(
        optim.SGD, dict(lr=0.1, momentum=0.9), [rng.standard_normal(3)], _grads(rng, [(3,)], 2)
    )
    sd = opt.state_dict()
    assert set(sd["state"][0]) == {"momentum_buffer"} and sd["param_groups"][0]["params"] == [0]
    other = optim.SGD([strided.zeros(4).requires_grad_()], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match=r"state 'momentum_buffer' of parameter 0 has shape"):
        other.load_state_dict(sd)
    two = optim.SGD([strided.zeros(3).requires_grad_(), strided.zeros(3).requires_grad_()], lr=1)
    with pytest.raises(ValueError, match="group 0 has 1 parameters in the state dict and 2"):
        two.load_state_dict(sd)


def test_constructor_errors():
    with pytest.raises(TypeError, match="iterable of tensors"):
        optim.SGD(strided.zeros(2).requires_grad_(), lr=0.1)
    with pytest.raises(ValueError, match="does not require grad"):
        optim.Adam([strided.zeros(2)])
    with pytest.raises(ValueError, match="nesterov momentum needs momentum > 0"):
        optim.SGD([strided.zeros(2).requires_grad_()], lr=0.1, nesterov=True)


def test_step_skips_parameters_without_grad_and_bumps_versions():
    a, b = strided.ones(2).requires_grad_(), strided.ones(2).requires_grad_()
    opt = optim.SGD([a, b], lr=0.5)
    (a * 2).sum().backward()
    v = a._version
    opt.step()
    np.testing.assert_array_equal(np.asarray(a.detach()), [0.0, 0.0])
    np.testing.assert_array_equal(np.asarray(b.detach()), [1.0, 1.0])
    assert a._version > v  # in-place: a graph that saved a's old values would refuse to run
    opt.zero_grad()
    assert a.grad is None
