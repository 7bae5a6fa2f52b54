"""Kernel parameters as the CUDA driver takes them, packed in C.

Note [Kernel parameters]
~~~~~~~~~~~~~~~~~~~~~~~~
``cuLaunchKernel(f, grid, block, shared, stream, kernelParams, extra)`` does not take the
kernel's arguments themselves: ``kernelParams`` is an array of pointers, one per parameter of
the kernel, each pointing at that parameter's bytes in host memory. The driver copies the bytes
(as many as the kernel's parameter has) into the launch before ``cuLaunchKernel`` returns, so
the memory only has to live for the call.

strided's launch arguments are NumPy scalars whose bytes are exactly the kernel's parameters
(``np.void`` of a ``Geometry<N>`` struct, ``np.int32`` sizes, ``np.uint64`` addresses).
``pack`` copies them, one after another at 16-byte-aligned offsets, into one buffer, and puts
the array of pointers at its end: one allocation, a loop of ``memcpy``s. Done in Python with
ctypes (a string buffer per argument, a pointer array built from a list) the same work costs
several microseconds per launch, a sizeable part of a small op's time on a GPU.
"""

from cpython.buffer cimport PyBUF_SIMPLE, PyBuffer_Release, PyObject_GetBuffer
from libc.stdint cimport uintptr_t
from libc.string cimport memcpy

cdef enum:
    ALIGN = 16  # no kernel parameter needs more (a complex128 or a 16-byte struct member)


def pack(tuple args):
    """``(buffer, address)``: the bytes of ``args`` and, at ``address`` inside ``buffer``, the
    array of pointers to them that ``cuLaunchKernel`` takes (Note [Kernel parameters]). Keep
    ``buffer`` alive until the launch call returns."""
    cdef Py_ssize_t n = len(args), i, offset = 0
    cdef Py_ssize_t[64] starts
    cdef Py_buffer view
    if n > 64:
        raise ValueError(f"a kernel takes at most 64 parameters here, got {n}")
    for i in range(n):  # first pass: where each parameter goes
        PyObject_GetBuffer(args[i], &view, PyBUF_SIMPLE)
        starts[i] = offset
        offset += (view.len + ALIGN - 1) // ALIGN * ALIGN
        PyBuffer_Release(&view)
    buffer = bytearray(offset + n * sizeof(void*) + ALIGN)
    cdef char* base = buffer
    cdef Py_ssize_t shift = (-<uintptr_t>base) % ALIGN  # bytearray data is not 16-aligned
    cdef void** pointers = <void**>(base + shift + offset)
    for i in range(n):  # second pass: copy the bytes, point at them
        PyObject_GetBuffer(args[i], &view, PyBUF_SIMPLE)
        memcpy(base + shift + starts[i], view.buf, view.len)
        PyBuffer_Release(&view)
        pointers[i] = base + shift + starts[i]
    return buffer, <uintptr_t>pointers
