"""SGD's and Adam's fused steps on CUDA tensors (Notes [A fused SGD step on CUDA] and [A fused
Adam step on CUDA] in strided/cuda/_optim.py), on the emulated device: eager's bits over several
steps, every option, the parameters left to eager, and the NVRTC build."""

import os

import numpy as np
import pytest
from test_compile import _recording

import strided
from strided import optim
from strided.cuda import compile_check

DEVICE = "cuda-emulated"

CASES = {
    "sgd": (optim.SGD, dict(lr=0.1)),
    "momentum": (optim.SGD, dict(lr=0.1, momentum=0.9)),
    "nesterov-decay": (optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    "dampening-max": (optim.SGD, dict(lr=0.1, momentum=0.9, dampening=0.1, maximize=True)),
    "adam": (optim.Adam, dict(lr=0.1)),
    "adam-decay": (optim.Adam, dict(lr=0.05, betas=(0.8, 0.99), weight_decay=0.1)),
    "adam-amsgrad-decay": (optim.Adam, dict(lr=0.1, amsgrad=True, weight_decay=0.01, eps=1e-3)),
    "adam-amsgrad-max": (optim.Adam, dict(lr=0.1, amsgrad=True, maximize=True)),
    "adamw": (optim.AdamW, dict(lr=0.1)),
    "adamw-amsgrad": (optim.AdamW, dict(lr=0.1, weight_decay=0.3, amsgrad=True)),
    "adamw-no-decay-max": (optim.AdamW, dict(lr=0.1, weight_decay=0.0, maximize=True)),
}


def _host(v):
    """A state entry on the host: a tensor as a NumPy array, a step count as it is."""
    return np.asarray(v.cpu()) if isinstance(v, strided.Tensor) else np.asarray(v)


def _set_grads(ps):
    """Parameter i's gradient of sin((i + 1) p^2), set as backward would."""
    for i, p in enumerate(ps):
        d = p.detach()
        p.grad = (d * d * (i + 1)).cos() * d * (2 * (i + 1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(CASES))
def test_fused_step_on_cuda_gives_eager_bits(case, dtype):
    """Three steps of fused=True against fused=False, bit for bit: parameters and state (momentum
    buffers; Adam's moments and AMSGrad's maxima); an empty parameter, and a column-major one
    that takes the eager update."""
    rng = np.random.default_rng(24)
    init = [rng.standard_normal(s) for s in [(300, 7), (5,), (0, 3), (4, 3)]]
    results = []
    for fused in (False, True):
        ps = [strided.tensor(a, dtype=dtype, device=DEVICE) for a in init]
        ps[3] = ps[3].T.contiguous().T  # column-major: the eager update
        ps = [p.requires_grad_() for p in ps]
        cls, kwargs = CASES[case]
        opt = cls(ps, fused=fused, **kwargs)
        went_eager = set()
        opt._update = _recording(opt._update, went_eager)
        versions = [p._version for p in ps]
        for _ in range(3):
            opt.zero_grad()
            _set_grads(ps)
            opt.step()
        assert all(p._version > v for p, v in zip(ps, versions, strict=True))
        assert went_eager == ({id(ps[3])} if fused else {id(p) for p in ps})
        state = [[_host(v) for _, v in sorted(opt.state[p].items())] for p in ps]
        results.append(([np.asarray(p.detach().cpu()) for p in ps], state))
    (eager, eager_state), (fused_ps, fused_state) = results
    for e, f in zip(eager, fused_ps, strict=True):
        assert e.dtype == f.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(f.view(f"u{f.itemsize}"), e.view(f"u{e.itemsize}"))
    for es, fs in zip(eager_state, fused_state, strict=True):
        assert len(es) == len(fs)
        for a, b in zip(es, fs, strict=True):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(b.view(f"u{b.itemsize}"), a.view(f"u{a.itemsize}"))


def test_fused_sgd_leaves_other_dtypes_to_eager():
    """A float16 parameter is not taken: the eager update runs it."""
    p = strided.tensor([1.0, 2.0], dtype="float16", device=DEVICE).requires_grad_()
    opt = optim.SGD([p], lr=0.5, fused=True)
    p.grad = strided.ones_like(p.detach())
    opt.step()
    np.testing.assert_array_equal(np.asarray(p.detach().cpu()), np.array([0.5, 1.5], "f2"))


@pytest.mark.parametrize("cls", [optim.Adam, optim.AdamW])
def test_fused_adam_on_cuda_takes_what_it_can(cls):
    """One group of float32, float64 and float16 parameters, one with a column-major gradient:
    the float32 and float64 ones take a launch each (eager's bits), the others the eager update."""
    rng = np.random.default_rng(7)
    init = [rng.standard_normal(s) for s in [(6, 5), (4,), (3,), (5, 6)]]
    dtypes = ["float32", "float64", "float16", "float32"]
    results = []
    for fused in (False, True):
        ps = [
            strided.tensor(a, dtype=d, device=DEVICE).requires_grad_()
            for a, d in zip(init, dtypes, strict=True)
        ]
        opt = cls(ps, lr=0.1, amsgrad=True, weight_decay=0.05, fused=fused)
        went_eager = set()
        opt._update = _recording(opt._update, went_eager)
        for _ in range(2):
            _set_grads(ps)
            ps[3].grad = ps[3].grad.T.contiguous().T  # the same values, column-major
            opt.step()
        assert went_eager == ({id(ps[2]), id(ps[3])} if fused else {id(p) for p in ps})
        results.append([np.asarray(p.detach().cpu()) for p in ps])
    for e, f in zip(*results, strict=True):
        np.testing.assert_array_equal(f.view(f"u{f.itemsize}"), e.view(f"u{e.itemsize}"))


@pytest.mark.skipif(
    not compile_check.nvrtc_available() and os.environ.get("STRIDED_REQUIRE_NVRTC") != "1",
    reason="NVRTC is not installed",
)
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_fused_optimizer_kernels_compile_under_nvrtc(arch):
    """Every instantiation of kernels/optim.cu (SGD's and Adam's) builds, without spills."""
    from strided.cuda import _optim

    for _, source, names in _optim.all_modules():
        count, spills, _ = compile_check.compile_module(source, names, arch)
        assert count == len(names) == 4 and not spills
