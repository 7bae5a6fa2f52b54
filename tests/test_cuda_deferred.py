"""Errors found by kernels, reported when the host next waits for the device.

Note [Errors found on the device are reported at the next synchronisation] (in
strided/cuda/_deferred.py): no op waits for the GPU to learn whether an index was in range or a
divisor was zero; the error is raised at the next ``.cpu()``, ``.item()``, ``synchronize()``.
The tests count the host's waits (every read back from the device goes through the backend's
``_read_back``), so "no op waits" is checked directly, on the emulator and on a GPU.
"""

from __future__ import annotations

import numpy as np
import pytest
from devices import DEVICES

import strided
from strided.cuda import _backend, _deferred


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


@pytest.fixture
def backend(device):
    b = _backend.backend_for(strided.device(device))
    b.synchronize()  # nothing left over from another test
    return b


@pytest.fixture
def waits(backend, monkeypatch):
    """A list that gets one entry each time the host waits for the device."""
    seen = []
    read_back = backend._read_back

    def counting_read_back(dst, src, nbytes):
        seen.append(nbytes)
        read_back(dst, src, nbytes)

    monkeypatch.setattr(backend, "_read_back", counting_read_back)
    return seen


def _ops(rng, device):
    """(name, fn) of ops over device tensors that must not wait for the device."""
    x = strided.asarray(rng.standard_normal((6, 5)), device=device)
    i = strided.asarray([[0, 5, 2], [1, 1, 4]], device=device)
    n = strided.asarray([3, -7, 8], dtype="int32", device=device)
    return [
        ("add", lambda: x + 1),
        ("floor_divide int", lambda: n // strided.asarray([2, 0, 3], dtype="int32", device=device)),
        ("pow int", lambda: n ** strided.asarray([2, 3, 1], dtype="int32", device=device)),
        ("sum", lambda: strided.sum(x, axis=0)),
        ("argmax", lambda: strided.argmax(x, axis=1)),
        ("softmax", lambda: strided.softmax(x, dim=1)),
        ("matmul", lambda: x @ x.T),
        ("cumsum", lambda: strided.cumulative_sum(x, axis=0)),
        ("advanced index", lambda: x[i]),
        ("advanced index put", lambda: x.__setitem__((i, 0), 1.0)),
        ("index accumulate", lambda: x.index_put_((i,), x[:1], True)),
        ("take", lambda: strided.take(x, i)),
        ("gather", lambda: strided.take_along_axis(x, i[:, :1].expand(2, 5), axis=0)),
        ("scatter_add", lambda: x.scatter_add_(0, i[:, :2], x[:2, :2])),
        ("index_add", lambda: x.index_add_(0, i[0], x[:3])),
        ("masked_fill", lambda: strided.masked_fill(x, x > 0, 0.0)),
        ("sort", lambda: strided.sort(x, axis=1)),
        ("searchsorted", lambda: strided.searchsorted(strided.sort(x[0]), x)),
    ]


def test_no_op_waits_for_the_device(waits, rng, device):
    for name, fn in _ops(rng, device):
        fn()
        assert waits == [], f"{name} waited for the device"
    with pytest.warns(RuntimeWarning, match="floor_divide: integer division by zero"):
        strided.cuda.synchronize(device)
    assert len(waits) == 1  # one wait reads back every slot: the flag and the index checks


def test_ops_whose_result_size_depends_on_data_wait(waits, backend, device):
    m = strided.asarray([True, False, True], device=device)
    assert strided.nonzero(m)[0].shape == (2,)
    assert waits, "nonzero must read the count back"


def test_a_bad_index_raises_at_the_next_wait_and_only_once(waits, device):
    x = strided.arange(10.0, device=device)
    y = x[strided.asarray([1, 12, 3], device=device)]  # queued; nothing checked yet
    assert waits == []
    with pytest.raises(IndexError, match="index 12 is out of bounds for dim 0 with size 10"):
        y.cpu()
    np.testing.assert_array_equal(x.cpu(), np.arange(10.0))  # reported once: no raise now


def test_the_first_error_in_issue_order_is_raised(device):
    x = strided.zeros(4, device=device)
    x[strided.asarray([9], device=device)]
    x.scatter_add_(0, strided.asarray([-5], device=device), strided.ones(1, device=device))
    with pytest.raises(IndexError, match="index 9 is out of bounds.*an advanced index"):
        strided.cuda.synchronize(device)
    np.testing.assert_array_equal(x.cpu(), np.zeros(4))  # the failed scatter wrote nothing


def test_launch_blocking_raises_at_the_op(monkeypatch, device):
    monkeypatch.setenv("STRIDED_CUDA_LAUNCH_BLOCKING", "1")
    x = strided.zeros((2, 3), device=device)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dim 1 with size 3"):
        x.index_add_(1, strided.asarray([0, 3], device=device), strided.ones((2, 2), device=device))
    np.testing.assert_array_equal(x.cpu(), np.zeros((2, 3)))
    a = strided.asarray([1, 2], device=device)
    with pytest.raises(ValueError, match="negative integer powers"):
        a ** strided.asarray([1, -1], device=device)


def test_an_index_tensor_changed_before_the_report_is_not_quoted(device):
    x = strided.arange(5.0, device=device)
    i = strided.asarray([0, 7], device=device)
    x[i]
    i[1] = 2  # an in-place write bumps i's version: the value read now is not the bad one
    with pytest.raises(IndexError, match=r"the index at \(1,\) of index tensor 0 is out of"):
        strided.cuda.synchronize(device)


def test_full_slots_wait_before_taking_more(backend, waits, monkeypatch, device):
    monkeypatch.setattr(_deferred.DeferredChecks, "CAPACITY", 3)
    x = strided.arange(6.0, device=device)
    good = strided.asarray([5], device=device)
    x[strided.asarray([6], device=device)]  # slot 1: bad
    x[good]  # slot 2
    x[good]  # slot 3
    assert waits == []
    with pytest.raises(IndexError, match="index 6 is out of bounds"):
        x[good]  # no slot left: waits, and reports the first op's error
    assert waits[0] == 24  # the three slots in one read (then the bad value, for the message)


def test_retained_index_tensors_are_bounded(backend, waits, monkeypatch, device):
    monkeypatch.setattr(_deferred.DeferredChecks, "RETAIN_LIMIT", 100)
    x = strided.arange(6.0, device=device)
    big = strided.zeros(10, dtype="int64", device=device)  # 80 bytes kept for the message
    x[big]
    assert waits == []
    x[big]  # 160 > 100 bytes: waits first
    assert waits == [8]


def test_a_training_step_never_waits_for_the_device(waits, device):
    """A CNN and an embedding model, forward, backward and an Adam step, on the device: not one
    wait until the loss is read (the issue's "no host synchronisation inside ops")."""
    from strided import nn, optim
    from strided.nn import functional as F

    strided.random.seed(0)
    cnn = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 4, 3, padding=1, groups=2),
        nn.Flatten(),
        nn.Dropout(0.1),
        nn.Linear(64, 8),
        nn.BatchNorm1d(8),
        nn.GELU(),
        nn.Linear(8, 3),
    ).to(device)
    emb = nn.Embedding(10, 3, padding_idx=0).to(device)
    params = list(cnn.parameters()) + list(emb.parameters())
    opt = optim.Adam(params, lr=1e-2)
    x = strided.random.randn(5, 1, 8, 8).to(device)
    y = strided.asarray([0, 2, 1, -100, 2], device=device)
    tokens = strided.asarray([[1, 0, 3], [9, 9, 0], [2, 4, 5], [0, 0, 0], [7, 8, 1]], device=device)
    weight = strided.asarray([1.0, 2.0, 0.5], device=device)
    waits.clear()
    for _ in range(2):
        opt.zero_grad()
        logits = cnn(x) + strided.mean(emb(tokens), axis=1)
        loss = F.cross_entropy(logits, y, weight, label_smoothing=0.1)
        loss.backward()
        opt.step()
    assert waits == [], f"{len(waits)} waits for the device during the training steps"
    assert np.isfinite(loss.item())
    assert waits  # reading the loss is the first wait
