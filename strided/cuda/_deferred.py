"""Errors a kernel finds, reported when the host next waits for the device.

Note [Errors found on the device are reported at the next synchronisation]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A CUDA launch returns before the kernel has run: the host goes on queueing work while the GPU
catches up. That is what makes a GPU fast, and it means that when a kernel discovers something
wrong with the *data* (an index out of range, an integer division by zero) the host cannot hear
of it at the call without stopping to wait for the GPU: one synchronisation per op, which costs
a round trip (~10 us) and, worse, drains the queue so that the GPU idles while Python launches
the next kernel.

So strided does what the hardware suggests and reports such errors *late*, but cleanly:

1. The op asks its backend's ``DeferredChecks`` for a few int64 *slots* in device memory
   (``reserve``), gives their address to its kernels, and hands over a ``report`` function
   that knows how to turn the slots' values into an exception (or a warning).
2. The kernels write what they find into the slots (``atomicMin`` of the first bad position,
   a flag). A kernel that would write through a bad index reads the slots first and writes
   nothing, so the target of a failed scatter is left as it was.
3. The next time the host waits for that device anyway (``.cpu()``, ``.item()``, printing,
   ``strided.cuda.synchronize()``, a nonzero's count), the backend reads back every slot
   reserved since the last time, in one transfer, and calls the reports in the order the ops
   were issued. The first error is raised there, with a message naming the op that failed.

PyTorch makes the opposite choice for indices: a device-side assert, which is just as late
but leaves the CUDA context unusable. CuPy and JAX wrap or clip an out-of-range index silently.

The price: the error surfaces at a later line than the one that caused it (as every CUDA
error does), and a ``try``/``except`` around the op itself does not see it.
``STRIDED_CUDA_LAUNCH_BLOCKING=1`` (named after CUDA's own ``CUDA_LAUNCH_BLOCKING``) makes
every checked op wait and report at once, for debugging. On the emulator kernels finish inside
the launch, but the reports wait for a synchronisation all the same, so that a test on the
emulator sees exactly what a GPU run would.

A report may keep tensors alive until it runs (an index tensor, to quote the bad value in the
message). To bound that memory, and the slots, a ``reserve`` that finds more than ``CAPACITY``
slots or ``RETAIN_LIMIT`` bytes outstanding synchronises first. Reports still outstanding when
the program ends are dropped unread.
"""

from __future__ import annotations

import os
import sys
import threading

import numpy as np

__all__ = ["DeferredChecks", "NOTHING", "launch_blocking", "user_stacklevel"]

# A slot's "nothing found" value for positions: 0x7f in every byte, larger than any position,
# so that atomicMin keeps the smallest bad one; written with a memset, no kernel needed.
NOTHING = 0x7F7F7F7F7F7F7F7F


def user_stacklevel():
    """The ``stacklevel`` that makes a warning issued by a report point at the user's line that
    synchronised (the first frame outside the strided package), however deep the call."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    return level


def launch_blocking():
    """Whether every checked op waits and reports at once (``STRIDED_CUDA_LAUNCH_BLOCKING=1``;
    read at each op, so a test or a debugging session may set it at any time)."""
    return os.environ.get("STRIDED_CUDA_LAUNCH_BLOCKING") == "1"


class DeferredChecks:
    """The slots and pending reports of one device. See the Note at the top of this file.

    ``backend`` is the device's backend; this object uses only its raw ``allocate``,
    ``memset`` and ``_read_back`` (a device-to-host copy that waits, without reporting)."""

    CAPACITY = 4096  # int64 slots per device: 32 KiB of device memory
    RETAIN_LIMIT = 256 << 20  # bytes of tensors that pending reports may keep alive

    def __init__(self, backend):
        self.backend = backend
        self._buffer = None  # (address, owner) of CAPACITY slots, allocated on first use
        self._used = 0
        self._retained = 0
        self._pending = []  # (first slot, count, report), in the order the ops were issued
        # Python threads may launch on one device at once: taking slots and swapping the
        # pending list out are done under a lock (the reports run outside it: they may read a
        # tensor back, which flushes again)
        self._lock = threading.Lock()

    def reserve(self, count, report, fill=0x7F, retains=0):
        """The device address of ``count`` fresh int64 slots, each byte set to ``fill``
        (0x7f: "no position yet", see NOTHING; 0: "no flag"). ``report(values)`` is called
        with the slots' values at the next synchronisation and returns an exception to raise,
        or None. ``retains``: the bytes of tensors ``report`` keeps alive until then."""
        if self._used + count > self.CAPACITY or self._retained + retains > self.RETAIN_LIMIT:
            self.flush()
        with self._lock:
            if self._buffer is None:
                self._buffer = self.backend.allocate(8 * self.CAPACITY)
            address = self._buffer[0] + 8 * self._used
            self.backend.memset(address, fill, 8 * count)  # queued: ordered before the kernels
            self._pending.append((self._used, count, report))
            self._used += count
            self._retained += retains
        return address

    def issued(self):
        """Called by an op once its checked kernels are queued: with launch blocking on, wait
        for them and report now."""
        if launch_blocking():
            self.flush()

    def flush(self):
        """Read back every pending slot (waits for the device) and run the reports; raise the
        first error. Called by the backend whenever it waits for the device."""
        if not self._pending:
            return
        with self._lock:
            pending, used = self._pending, self._used
            # reset first: a report that reads a tensor back (a copy that waits) finds nothing
            # pending, and a report that raises leaves the checks ready for the next op
            self._pending, self._used, self._retained = [], 0, 0
            values = np.empty(used, dtype=np.int64)
            if used:
                self.backend._read_back(values.ctypes.data, self._buffer[0], 8 * used)
        first = None
        for start, count, report in pending:
            error = report(values[start : start + count].tolist())
            if error is not None and first is None:
                first = error
        if first is not None:
            raise first
