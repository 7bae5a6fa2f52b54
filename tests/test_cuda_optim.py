"""SGD's fused step on CUDA tensors (Note [A fused SGD step on CUDA] in strided/cuda/_optim.py),
on the emulated device: eager's bits over several steps, every option, and the NVRTC build."""

import numpy as np
import pytest
from test_compile import _recording

import strided
from strided import optim

DEVICE = "cuda-emulated"

CASES = {
    "sgd": dict(lr=0.1),
    "momentum": dict(lr=0.1, momentum=0.9),
    "nesterov-decay": dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01),
    "dampening-max": dict(lr=0.1, momentum=0.9, dampening=0.1, maximize=True),
}


def _set_grads(ps):
    """Parameter i's gradient of sin((i + 1) p^2), set as backward would."""
    for i, p in enumerate(ps):
        d = p.detach()
        p.grad = (d * d * (i + 1)).cos() * d * (2 * (i + 1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(CASES))
def test_fused_sgd_on_cuda_gives_eager_bits(case, dtype):
    """Three steps of fused=True against fused=False, bit for bit: parameters and momentum
    buffers; an empty parameter, and a column-major one that takes the eager update."""
    rng = np.random.default_rng(24)
    init = [rng.standard_normal(s) for s in [(300, 7), (5,), (0, 3), (4, 3)]]
    results = []
    for fused in (False, True):
        ps = [strided.tensor(a, dtype=dtype, device=DEVICE) for a in init]
        ps[3] = ps[3].T.contiguous().T  # column-major: the eager update
        ps = [p.requires_grad_() for p in ps]
        opt = optim.SGD(ps, fused=fused, **CASES[case])
        went_eager = set()
        opt._update = _recording(opt._update, went_eager)
        versions = [p._version for p in ps]
        for _ in range(3):
            opt.zero_grad()
            _set_grads(ps)
            opt.step()
        assert all(p._version > v for p, v in zip(ps, versions, strict=True))
        assert went_eager == ({id(ps[3])} if fused else {id(p) for p in ps})
        state = [[np.asarray(v.cpu()) for _, v in sorted(opt.state[p].items())] for p in ps]
        results.append(([np.asarray(p.detach().cpu()) for p in ps], state))
    (eager, eager_state), (fused_ps, fused_state) = results
    for e, f in zip(eager, fused_ps, strict=True):
        assert e.dtype == f.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(f.view(f"u{f.itemsize}"), e.view(f"u{e.itemsize}"))
    for es, fs in zip(eager_state, fused_state, strict=True):
        assert len(es) == len(fs)
        for a, b in zip(es, fs, strict=True):
            np.testing.assert_array_equal(b.view(f"u{b.itemsize}"), a.view(f"u{a.itemsize}"))


def test_fused_sgd_leaves_other_dtypes_to_eager():
    """A float16 parameter is not taken: the eager update runs it."""
    p = strided.tensor([1.0, 2.0], dtype="float16", device=DEVICE).requires_grad_()
    opt = optim.SGD([p], lr=0.5, fused=True)
    p.grad = strided.ones_like(p.detach())
    opt.step()
    np.testing.assert_array_equal(np.asarray(p.detach().cpu()), np.array([0.5, 1.5], "f2"))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_fused_sgd_kernels_compile_under_nvrtc(arch):
    from strided.cuda import _optim, compile_check

    if not compile_check.nvrtc_available():
        pytest.skip("NVRTC is not installed")
    for _, source, names in _optim.all_modules():
        count, spills, _ = compile_check.compile_module(source, names, arch)
        assert count == 2 and not spills
