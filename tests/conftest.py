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
def rng(request):
    """A NumPy generator seeded from the test's id, so a failure reproduces alone."""
    import zlib

    import numpy as np

    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
