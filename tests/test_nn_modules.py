"""strided.nn modules: registration, state dicts, modes, devices, init, and layers against
PyTorch's with the same weights (when PyTorch is installed)."""

import math

import numpy as np
import pytest

import strided
from strided import nn

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.BatchNorm1d(8))
        self.head = nn.Linear(8, 3)
        self.register_buffer("scale", strided.ones(1))

    def forward(self, x):
        return self.head(self.body(x)) * self.scale


def test_registration_and_names():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == [
        "body.0.weight",
        "body.0.bias",
        "body.2.weight",
        "body.2.bias",
        "head.weight",
        "head.bias",
    ]
    assert [n for n, _ in net.named_buffers()] == [
        "scale",
        "body.2.running_mean",
        "body.2.running_var",
        "body.2.num_batches_tracked",
    ]
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in net.parameters())
    assert isinstance(net.head, nn.Linear) and len(list(net.modules())) == 6
    net.head.bias = None
    assert "head.bias" not in dict(net.named_parameters())


def test_shared_parameters_are_listed_once():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, lin)
    assert len(list(seq.parameters())) == 2


def test_setattr_before_init_is_explained():
    class Bad(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(strided.zeros(2))

    with pytest.raises(AttributeError, match="super\\(\\).__init__\\(\\) first"):
        Bad()


def test_state_dict_round_trip_and_errors():
    a, b = Net(), Net()
    sd = a.state_dict()
    assert list(sd) == [
        "scale",
        "body.0.weight",
        "body.0.bias",
        "body.2.weight",
        "body.2.bias",
        "body.2.running_mean",
        "body.2.running_var",
        "body.2.num_batches_tracked",
        "head.weight",
        "head.bias",
    ]
    b.load_state_dict(sd)
    for (n1, t1), (n2, t2) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
        assert n1 == n2
        np.testing.assert_array_equal(np.asarray(t1), np.asarray(t2))
    sd["head.weight"] = strided.zeros((2, 2))
    with pytest.raises(ValueError, match=r"'head.weight' has shape \(2, 2\) in the state dict"):
        b.load_state_dict(sd)
    del sd["head.weight"]
    with pytest.raises(KeyError, match="missing keys \\['head.weight'\\]"):
        b.load_state_dict(sd)
    missing, unexpected = b.load_state_dict({"extra": strided.ones(1)}, strict=False)
    assert "head.weight" in missing and unexpected == ["extra"]


def test_train_eval_and_zero_grad():
    net = Net()
    assert net.training and net.body[2].training
    net.eval()
    assert not net.body[2].training
    net.train()
    net(strided.random.randn(5, 4)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_layers_make_float32_parameters_arrays_stay_float64():
    # Note [nn parameters are float32]: layers follow PyTorch, arrays follow NumPy
    layers = [
        nn.Linear(3, 2),
        nn.Conv2d(2, 4, 3),
        nn.Embedding(5, 3, padding_idx=0),
        nn.LayerNorm(3),
        nn.BatchNorm1d(3),
    ]
    for layer in layers:
        tensors = list(layer.parameters()) + [b for b in layer.buffers() if b.dtype.kind == "f"]
        assert tensors and all(t.dtype == strided.float32 for t in tensors), layer
        assert all(isinstance(p, nn.Parameter) for p in layer.parameters())
    assert layers[4].num_batches_tracked.dtype == strided.int64
    assert nn.Parameter().dtype == strided.float32
    assert strided.ones(3).dtype == strided.float64  # the array default is NumPy's
    assert strided.get_default_dtype() == strided.float64
    # float32 data stays float32 through a float32 layer, forward and backward
    lin = nn.Linear(3, 2)
    y = lin(strided.ones((4, 3), dtype=strided.float32))
    assert y.dtype == strided.float32
    y.sum().backward()
    assert lin.weight.grad.dtype == strided.float32
    # float64 the PyTorch ways: dtype= at construction, .double() afterwards
    assert nn.Linear(3, 2, dtype=strided.float64).weight.dtype == strided.float64
    assert nn.BatchNorm1d(3, dtype="float64").running_var.dtype == strided.float64
    assert nn.Conv2d(1, 1, 2).double().weight.dtype == strided.float64


def test_to_dtype_and_repr():
    net = Net()
    assert all(p.dtype == strided.float32 for p in net.parameters())
    net = net.to("float64")
    assert all(p.dtype == strided.float64 for p in net.parameters())
    assert net.body[2].num_batches_tracked.dtype == strided.int64
    assert "(head): Linear(in_features=8, out_features=3, bias=True)" in repr(net)


def test_to_cuda_emulated_moves_parameters():
    lin = nn.Linear(3, 2).to("cuda-emulated")
    assert all(p.device.type == "cuda-emulated" for p in lin.parameters())
    assert isinstance(lin.weight, nn.Parameter)
    lin.to("cpu")
    assert lin.weight.device.type == "cpu"


def test_dropout_modes():
    d = nn.Dropout(0.5)
    x = strided.ones(1000)
    assert float((d(x) == 0).sum()) > 300
    d.eval()
    assert d(x) is x


def test_init_statistics():
    strided.manual_seed(1)
    w = strided.empty((400, 300))
    nn.init.kaiming_normal_(w, nonlinearity="relu")
    assert abs(float(w.std()) - math.sqrt(2 / 300)) < 0.003
    nn.init.xavier_normal_(w)
    assert abs(float(w.std()) - math.sqrt(2 / 700)) < 0.003
    nn.init.kaiming_uniform_(w, mode="fan_out")
    bound = math.sqrt(2) * math.sqrt(3 / 400)
    assert float(strided.max(strided.abs(w))) <= bound
    assert abs(float(w.std()) - bound / math.sqrt(3)) < 0.003
    c = strided.empty((8, 4, 3, 3))
    nn.init.xavier_uniform_(c)
    assert float(strided.max(strided.abs(c))) <= math.sqrt(6 / (36 + 72))
    with pytest.raises(ValueError, match="at least 2 dims"):
        nn.init.xavier_uniform_(strided.empty(3))


def test_embedding_and_layernorm_modules():
    emb = nn.Embedding(10, 4)
    assert emb(strided.asarray([[1, 2, 3]])).shape == (1, 3, 4)
    ln = nn.LayerNorm(4)
    y = ln(strided.random.randn(2, 4))
    np.testing.assert_allclose(np.asarray(y.detach()).mean(1), 0, atol=1e-7)


def test_batchnorm_running_stats_and_eval():
    bn = nn.BatchNorm1d(3)
    x = strided.random.randn(16, 3) * 2.0 + 1.0
    bn(x)
    assert int(bn.num_batches_tracked) == 1
    xn = np.asarray(x)
    np.testing.assert_allclose(np.asarray(bn.running_mean), 0.1 * xn.mean(0), rtol=1e-5)
    bn.eval()
    y = np.asarray(bn(x).detach())
    want = (xn - np.asarray(bn.running_mean)) / np.sqrt(np.asarray(bn.running_var) + 1e-5)
    np.testing.assert_allclose(y, want, rtol=1e-5)


def _copy_to_torch(ours, theirs):
    with torch.no_grad():
        for (n1, p1), (n2, p2) in zip(
            ours.named_parameters(), theirs.named_parameters(), strict=True
        ):
            assert n1 == n2
            p2.copy_(torch.from_numpy(np.asarray(p1.detach()).copy()))


@needs_torch
def test_cnn_forward_and_gradients_match_torch(rng):
    # float64 on both sides (layers default to float32: Note [nn parameters are float32]), so
    # the two frameworks can agree to rtol 1e-10
    ours = nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1),
        nn.GELU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 3, 2, stride=2),
        nn.Tanh(),
        nn.AvgPool2d(1),
        nn.Flatten(),
        nn.Linear(3 * 2 * 2, 5),
        nn.Sigmoid(),
        nn.Linear(5, 3),
        nn.Softmax(1),
    ).double()
    tn = torch.nn
    theirs = tn.Sequential(
        tn.Conv2d(2, 4, 3, padding=1),
        tn.GELU(),
        tn.MaxPool2d(2),
        tn.Conv2d(4, 3, 2, stride=2),
        tn.Tanh(),
        tn.AvgPool2d(1),
        tn.Flatten(),
        tn.Linear(12, 5),
        tn.Sigmoid(),
        tn.Linear(5, 3),
        tn.Softmax(1),
    ).double()
    _copy_to_torch(ours, theirs)
    x = rng.standard_normal((3, 2, 8, 8))
    y = rng.integers(0, 3, 3)
    a = nn.CrossEntropyLoss(label_smoothing=0.1)(ours(strided.asarray(x)), strided.asarray(y))
    b = tn.CrossEntropyLoss(label_smoothing=0.1)(theirs(torch.tensor(x)), torch.tensor(y))
    np.testing.assert_allclose(float(a), b.item(), rtol=1e-10)
    a.backward()
    b.backward()
    for p1, p2 in zip(ours.parameters(), theirs.parameters(), strict=True):
        np.testing.assert_allclose(np.asarray(p1.grad), p2.grad.numpy(), rtol=1e-7, atol=1e-12)


@needs_torch
def test_mlp_with_norms_matches_torch(rng):
    ours = nn.Sequential(
        nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.LayerNorm(8), nn.Linear(8, 2)
    ).double()  # float64 like theirs; the BatchNorm buffers follow (checked to rtol 1e-12)
    tn = torch.nn
    theirs = tn.Sequential(
        tn.Linear(6, 8), tn.BatchNorm1d(8), tn.ReLU(), tn.LayerNorm(8), tn.Linear(8, 2)
    ).double()
    _copy_to_torch(ours, theirs)
    x, t = rng.standard_normal((7, 6)), rng.random((7, 2))
    for loss_s, loss_t in (
        (nn.MSELoss(), tn.MSELoss()),
        (nn.BCEWithLogitsLoss(), tn.BCEWithLogitsLoss()),
    ):
        ours.zero_grad()
        theirs.zero_grad()
        a = loss_s(ours(strided.asarray(x)), strided.asarray(t))
        b = loss_t(theirs(torch.tensor(x)), torch.tensor(t))
        np.testing.assert_allclose(float(a), b.item(), rtol=1e-10)
        a.backward()
        b.backward()
        for p1, p2 in zip(ours.parameters(), theirs.parameters(), strict=True):
            np.testing.assert_allclose(np.asarray(p1.grad), p2.grad.numpy(), rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(
        np.asarray(ours[1].running_var), theirs[1].running_var.numpy(), rtol=1e-12
    )
    ours.eval()
    theirs.eval()
    np.testing.assert_allclose(
        np.asarray(ours(strided.asarray(x)).detach()),
        theirs(torch.tensor(x)).detach().numpy(),
        rtol=1e-10,
    )


def test_grouped_conv_padded_embedding_and_weighted_loss_modules():
    conv = nn.Conv2d(4, 6, 3, padding=1, groups=2)
    assert conv.weight.shape == (6, 2, 3, 3) and "groups=2" in repr(conv)
    x = strided.random.randn(1, 4, 5, 5)
    want = nn.functional.conv2d(x, conv.weight, conv.bias, padding=1, groups=2)
    np.testing.assert_array_equal(np.asarray(conv(x).detach()), np.asarray(want.detach()))
    with pytest.raises(ValueError, match="groups=3 must divide both"):
        nn.Conv2d(4, 6, 3, groups=3)

    emb = nn.Embedding(5, 3, padding_idx=-1)
    assert emb.padding_idx == 4 and "padding_idx=4" in repr(emb)
    np.testing.assert_array_equal(np.asarray(emb.weight.detach())[4], 0.0)  # starts at zero
    emb(strided.asarray([4, 1, 4])).sum().backward()
    g = np.asarray(emb.weight.grad)
    np.testing.assert_array_equal(g[4], 0.0)  # and learns nothing
    np.testing.assert_array_equal(g[1], 1.0)

    w = strided.asarray([1.0, 2.0, 0.5])
    loss = nn.CrossEntropyLoss(weight=w, ignore_index=1)
    assert "weight" in loss.state_dict()  # a buffer: saved, and moved by .to()
    assert loss.to("cuda-emulated").weight.device == strided.device("cuda-emulated")
    logits, target = strided.zeros((3, 3)), strided.asarray([0, 1, 2])
    # uniform logits: each kept sample costs log 3; the mean is weighted by w[0] and w[2]
    np.testing.assert_allclose(
        float(nn.CrossEntropyLoss(weight=w, ignore_index=1)(logits, target)), math.log(3)
    )
    nll = nn.NLLLoss(weight=w, reduction="sum")
    np.testing.assert_allclose(
        float(nll(strided.log(strided.full((3, 3), 1 / 3)), target)), 3.5 * math.log(3)
    )
