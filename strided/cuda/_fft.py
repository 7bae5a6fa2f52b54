"""FFTs on CUDA devices: cuFFT through CuPy on a GPU, the CPU's pocketfft on the emulator.

Note [CUDA FFT]
~~~~~~~~~~~~~~~
strided writes no FFT (Note [FFT backend] in strided/fft.py), on a device either:

- **On a GPU ("cuda")**: ``cupy.fft``'s transforms (cuFFT, with CuPy's plan cache) on a
  zero-copy CuPy view of the input (``cupy.asarray(x)`` reads ``__cuda_array_interface__``:
  any strides, no copy; CuPy makes the contiguous copy cuFFT needs itself when it needs one).
  The caller has already cast the input to float32/float64/complex64/complex128, so cuFFT's
  single and double precision transforms give strided's result dtypes (float32 in, complex64
  out). CuPy's answer becomes the result tensor without a copy (Note [Taking over CuPy's
  results] in _backend.py), as CuPy's sorts do in strided/cuda/_sort.py.
- **On the emulator ("cuda-emulated")**, which has no cuFFT: the input is copied to the host,
  transformed by the CPU kernel (NumPy's pocketfft, ``strided/fft.py``) and the result copied
  back to the same emulated device. It is the CPU's transform, bit for bit, so tests on the
  emulator check the device plumbing around it (dtypes, shapes, ``out=``, the result's
  device, gradients whose formulas run on the device), not a GPU FFT.
"""

from __future__ import annotations

from strided.cuda._backend import adopt, backend_for

__all__ = ["transform"]


def transform(kind, x, s, axes, norm, forward, cpu_kernel):
    """The FFT ``kind`` ("c2c", "r2c" or "c2r") of the CUDA tensor ``x`` over ``axes`` with
    lengths ``s``, as a fresh tensor on x's device (Note [CUDA FFT]). ``cpu_kernel`` is the CPU
    transform, with the same arguments, for the emulator."""
    backend = backend_for(x.device)
    if backend.emulated:
        return cpu_kernel(kind, x.cpu(), s, axes, norm, forward).to(x.device)
    cupy = backend.cupy
    with cupy.cuda.Device(backend.index):
        cx = cupy.asarray(x)
        if kind == "c2c":
            r = (cupy.fft.fftn if forward else cupy.fft.ifftn)(cx, s=s, axes=axes, norm=norm)
        elif kind == "r2c":
            r = cupy.fft.rfftn(cx, s=s, axes=axes, norm=norm)
        else:
            r = cupy.fft.irfftn(cx, s=s, axes=axes, norm=norm)
        return adopt(r, x.device)
