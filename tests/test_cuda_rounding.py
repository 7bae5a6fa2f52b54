"""Note [One rounding per operation on the GPU] (strided/cuda/_launch.py): every CUDA kernel is
compiled with ``--fmad=false``, so a product and a sum round separately, as on the CPU and the
emulator. NVRTC's PTX shows it without a GPU; on a GPU the results are the CPU's bits."""

from __future__ import annotations

import os

import numpy as np
import pytest
from devices import DEVICES, GPU_ONLY

import strided
from strided.cuda import _elementwise, _launch, compile_check

NVRTC = pytest.mark.skipif(
    not compile_check.nvrtc_available() and os.environ.get("STRIDED_REQUIRE_NVRTC") != "1",
    reason="NVRTC cannot be loaded here",
)


def _ptx(source_name, name, options):
    return compile_check.ptx(source_name, name, options)


@NVRTC
@pytest.mark.parametrize("ctype", ["complex64_t", "complex128_t"])
def test_a_complex_product_is_not_contracted_into_fused_multiply_adds(ctype):
    name = f"strided_binary<op_multiply, {ctype}, {ctype}, int32_t, true>"
    assert any(name in names for key, _, names in _elementwise.all_modules() if key[0] == "binary")
    fma = "fma.rn.f32" if ctype == "complex64_t" else "fma.rn.f64"
    assert "--fmad=false" in _launch.NVRTC_OPTIONS
    assert fma not in _ptx("elementwise.cu", name, _launch.NVRTC_OPTIONS)
    # what the option prevents: NVRTC's default contracts re * re - im * im
    assert fma in _ptx("elementwise.cu", name, ("--std=c++17",))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_a_device_complex_product_rounds_each_product_and_sum(device, dtype):
    # the GPU and the emulator give the textbook formula with every operation rounded: the
    # reference is NumPy's real ufuncs, one rounding each. (The CPU kernel gives these bits
    # too for complex64 and at x86-64-v2; at v3 and up GCC pairs the complex128 product's
    # a*c - b*d and a*d + b*c into one vfmaddsub even with contraction off, as NumPy's own
    # AVX-512 loop does on purpose: one rounding fewer, in the last bit.)
    rng = np.random.default_rng(8)
    shape = (3, 1000)
    a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    b = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    want = np.empty_like(a)
    want.real = a.real * b.real - a.imag * b.imag
    want.imag = a.real * b.imag + a.imag * b.real
    got = (strided.asarray(a).to(device) * strided.asarray(b).to(device)).cpu().numpy()
    assert got.tobytes() == want.tobytes()


@GPU_ONLY
def test_a_gpu_compiled_chain_is_eagers_bit_for_bit():
    rng = np.random.default_rng(9)
    x = strided.asarray(rng.standard_normal((64, 300)).astype(np.float32)).to("cuda")
    y = strided.asarray(rng.standard_normal((64, 300)).astype(np.float32)).to("cuda")

    def f(x, y):
        return x * 3 + y * 0.5 - x * y

    got = strided.compile(f)(x, y).cpu().numpy()
    assert got.tobytes() == f(x, y).cpu().numpy().tobytes()
    assert got.tobytes() == f(x.cpu(), y.cpu()).numpy().tobytes()
