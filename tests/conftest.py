"""Shared fixtures: every test leaves strided's global settings as it found them."""

import pytest

import strided


@pytest.fixture(autouse=True)
def _restore_globals():
    """Restore the default dtype and the thread count even when a test fails half-way."""
    dtype, threads = strided.get_default_dtype(), strided.get_num_threads()
    yield
    strided.set_default_dtype(dtype)
    strided.set_num_threads(threads)


@pytest.fixture
def split_every_loop():
    """Split every loop of at least 2 * GRAIN_SIZE elements over the threads, whatever its
    measured serial time (Note [When a loop is split] in strided/_loop_plan.pyx): for tests of
    the parallel road itself."""
    from strided import _loop_plan

    old = _loop_plan._set_parallel_us(0)
    yield
    _loop_plan._set_parallel_us(old)


@pytest.fixture
def rng(request):
    """A NumPy generator seeded from the test's id, so a failure reproduces alone."""
    import zlib

    import numpy as np

    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
