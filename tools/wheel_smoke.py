"""A few representative operations of an installed strided, checked against NumPy: the smoke
test that tools/check_wheel.sh runs on each CPU level, natively and under qemu (issue 19).

``python tools/wheel_smoke.py x86-64-v3`` also checks that the kernels loaded are that level's
(Note [Choosing kernels at run time] in strided/_cpu/cpu_dispatch.py). Small sizes: under qemu
every instruction is emulated, a hundred times slower than the real CPU.
"""

import sys

import numpy as np

import strided as st
from strided._cpu import cpu_dispatch


def check(name, got, want, rtol=1e-6):
    got = np.asarray(got)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0, err_msg=name)
    print(f"  ok  {name}")


def main():
    expected = sys.argv[1] if len(sys.argv) > 1 else None
    print(f"kernels: {cpu_dispatch.facts()}")
    if expected is not None:
        assert cpu_dispatch.LEVELS.get(cpu_dispatch.level) == expected, (
            f"loaded {cpu_dispatch.facts()}, expected {expected}"
        )
    rng = np.random.default_rng(0)
    a = rng.standard_normal(1000).astype(np.float32)  # > one vector, odd tails below
    b = rng.standard_normal(1000).astype(np.float32)
    x, y = st.asarray(a), st.asarray(b)
    check("add (elementwise loop)", x[3:] + y[3:], a[3:] + b[3:])
    check("multiply-add", x * y + 1.0, a * b + np.float32(1.0))
    check("exp (vector math)", st.exp(x), np.exp(a), rtol=4e-7)
    check("tanh (vector math)", st.tanh(x), np.tanh(a), rtol=4e-6)
    check("sqrt of |x|", st.sqrt(st.abs(x)), np.sqrt(np.abs(a)))
    check("sum (reduction)", st.sum(x), np.sum(a.astype(np.float64)), rtol=1e-5)
    check("max (reduction)", st.max(x), np.max(a))
    check("cumsum (scan)", st.cumsum(st.asarray(a[:100])), np.cumsum(a[:100]), rtol=1e-5)
    check("sort", st.sort(x), np.sort(a))
    check("argsort", st.argsort(x), np.argsort(a, kind="stable"))
    check("float16 cast (F16C)", x.astype("float16"), a.astype(np.float16))
    check(
        "int64 copy, strided",
        st.asarray(np.arange(60).reshape(6, 10))[::2, ::3],
        np.arange(60).reshape(6, 10)[::2, ::3],
    )
    m, n = a[:64].reshape(8, 8), b[:64].reshape(8, 8)
    check("matmul (OpenBLAS)", st.asarray(m) @ st.asarray(n), m @ n, rtol=1e-4)
    # bfloat16: vdpbf16ps where the CPU has AVX512_BF16 at level 4, the float32 path elsewhere
    # (Note [bfloat16 matmul through vdpbf16ps]); small integers, so both paths are exact
    p, q = np.arange(-20, 19).reshape(3, 13) % 7, np.arange(26).reshape(13, 2) % 5
    got = st.asarray(p).astype("bfloat16") @ st.asarray(q).astype("bfloat16")
    check(f"bfloat16 matmul ({st.last_matmul_plan()['kernel']})", got.astype("float64"), p @ q)
    print("smoke: all ok")


if __name__ == "__main__":
    main()
