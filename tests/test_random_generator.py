"""Tests for NumPy's Generator API on strided's Philox stream (strided/_random_dists.py and the
Generator of strided/random.py): every distribution checked statistically on a fixed seed, the
sampling functions' semantics against NumPy's, thread-count and device invariance, bad input.

The numbers are not NumPy's (another bit generator, other samplers), so distributions are
checked by their statistics, with bounds that a correct sampler breaks with probability below
1e-6 (and, the seeds being fixed, every run sees the same numbers: a bound that held once holds
forever):

- the mean within 6 standard errors (two-sided normal tail 2e-9; the CLT is good at n = 1e5 for
  these skews), the variance within 6 standard errors of the sample variance, sqrt((mu4 -
  sigma**4) / n), from the distribution's excess kurtosis;
- Kolmogorov-Smirnov: by the Dvoretzky-Kiefer-Wolfowitz inequality, P(sup |F_n - F| > eps) <=
  2 exp(-2 n eps**2), so eps = sqrt(log(2 / 1e-6) / (2 n)) is a rigorous bound;
- chi-square of counts against the exact pmf (bins pooled until each expects >= 5): below the
  1 - 1e-6 quantile of chi2(dof), by Wilson and Hilferty's cube-root approximation.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import strided
from strided.random import Generator, default_rng

N = 100_000
P_FAIL = 1e-6
Z = 6.0  # standard errors for mean and variance


@pytest.fixture(autouse=True)
def _restore_threads():
    threads = strided.get_num_threads()
    yield
    strided.set_num_threads(threads)


def _np(t):
    return np.asarray(t)


# =============================================================================================
# Exact distributions: CDFs and pmfs without SciPy where a closed form exists
# =============================================================================================


def _erf_cdf(x):
    return 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def _scipy_cdf(name, *args):
    def cdf(x):
        stats = pytest.importorskip("scipy.stats")
        return getattr(stats, name).cdf(x, *args)

    return cdf


# name -> (draw, mean, variance, excess kurtosis, cdf)
CONTINUOUS = {
    "standard_exponential": (
        lambda g: g.standard_exponential(N),
        1.0,
        1.0,
        6.0,
        lambda x: -np.expm1(-x),
    ),
    "exponential": (lambda g: g.exponential(3.0, N), 3.0, 9.0, 6.0, lambda x: -np.expm1(-x / 3)),
    "laplace": (
        lambda g: g.laplace(1.0, 2.0, N),
        1.0,
        8.0,
        3.0,
        lambda x: np.where(x < 1, 0.5 * np.exp((x - 1) / 2), 1 - 0.5 * np.exp(-(x - 1) / 2)),
    ),
    "logistic": (
        lambda g: g.logistic(-1.0, 0.5, N),
        -1.0,
        0.25 * math.pi**2 / 3,
        1.2,
        lambda x: 1 / (1 + np.exp(-(x + 1) / 0.5)),
    ),
    "gumbel": (
        lambda g: g.gumbel(2.0, 3.0, N),
        2.0 + 3.0 * 0.5772156649015329,
        math.pi**2 / 6 * 9,
        2.4,
        lambda x: np.exp(-np.exp(-(x - 2) / 3)),
    ),
    "weibull": (
        lambda g: g.weibull(2.0, N),
        math.gamma(1.5),
        1 - math.gamma(1.5) ** 2,
        0.2451,
        lambda x: -np.expm1(-(x**2)),
    ),
    "pareto": (  # Lomax with a = 9: mean 1/(a-1), variance a/((a-1)**2 (a-2)), kurtosis finite
        lambda g: g.pareto(9.0, N),
        1 / 8,
        9 / (64 * 7),
        6 * (9**3 + 9**2 - 6 * 9 - 2) / (9 * (9 - 3) * (9 - 4)),
        lambda x: 1 - (1 + x) ** -9.0,
    ),
    "rayleigh": (
        lambda g: g.rayleigh(2.0, N),
        2.0 * math.sqrt(math.pi / 2),
        (4 - math.pi) / 2 * 4,
        0.2451,
        lambda x: -np.expm1(-(x**2) / 8),
    ),
    "lognormal": (
        lambda g: g.lognormal(0.5, 0.25, N),
        math.exp(0.5 + 0.25**2 / 2),
        (math.exp(0.25**2) - 1) * math.exp(1 + 0.25**2),
        math.exp(4 * 0.0625) + 2 * math.exp(3 * 0.0625) + 3 * math.exp(2 * 0.0625) - 6,
        lambda x: _erf_cdf((np.log(x) - 0.5) / 0.25),
    ),
    "normal": (lambda g: g.normal(-2.0, 3.0, N), -2.0, 9.0, 0.0, lambda x: _erf_cdf((x + 2) / 3)),
    "standard_normal_f32": (
        lambda g: g.standard_normal(N, dtype="float32"),
        0.0,
        1.0,
        0.0,
        _erf_cdf,
    ),
    "uniform": (lambda g: g.uniform(-1.0, 3.0, N), 1.0, 16 / 12, -1.2, lambda x: (x + 1) / 4),
    "random": (lambda g: g.random(N), 0.5, 1 / 12, -1.2, lambda x: x),
    "gamma_large": (
        lambda g: g.gamma(7.5, 2.0, N),
        15.0,
        30.0,
        6 / 7.5,
        _scipy_cdf("gamma", 7.5, 0, 2.0),
    ),
    "gamma_small": (
        lambda g: g.gamma(0.3, 1.0, N),
        0.3,
        0.3,
        6 / 0.3,
        _scipy_cdf("gamma", 0.3),
    ),
    "standard_gamma_1": (
        lambda g: g.standard_gamma(1.0, N),
        1.0,
        1.0,
        6.0,
        lambda x: -np.expm1(-x),
    ),
    "beta": (
        lambda g: g.beta(2.0, 5.0, N),
        2 / 7,
        10 / (49 * 8),
        6 * ((2 - 5) ** 2 * 8 - 10 * 9) / (10 * 9 * 10),
        _scipy_cdf("beta", 2.0, 5.0),
    ),
    "beta_small": (
        lambda g: g.beta(0.5, 0.5, N),
        0.5,
        1 / 8,
        -1.5,
        lambda x: 2 / math.pi * np.arcsin(np.sqrt(x)),
    ),
    "chisquare": (
        lambda g: g.chisquare(5.0, N),
        5.0,
        10.0,
        12 / 5,
        _scipy_cdf("chi2", 5.0),
    ),
    "standard_t": (
        lambda g: g.standard_t(10.0, N),
        0.0,
        10 / 8,
        6 / 6,
        _scipy_cdf("t", 10.0),
    ),
}


def _check_moments(a, mean, var, kurt, what):
    a = np.asarray(a, dtype=np.float64)
    n = a.size
    se_mean = math.sqrt(var / n)
    assert abs(a.mean() - mean) < Z * se_mean, f"{what}: mean {a.mean()} vs {mean}"
    se_var = math.sqrt((kurt + 2) * var**2 / n)  # mu4 - sigma**4 = (kurt + 2) sigma**4
    assert abs(a.var() - var) < Z * se_var, f"{what}: variance {a.var()} vs {var}"


@pytest.mark.parametrize("name", list(CONTINUOUS))
def test_continuous_distribution(name):
    draw, mean, var, kurt, cdf = CONTINUOUS[name]
    a = _np(draw(default_rng(20240917)))
    assert a.shape == (N,) and np.isfinite(a).all()
    _check_moments(a, mean, var, kurt, name)
    x = np.sort(a.astype(np.float64))
    f = cdf(x)
    ecdf_hi = np.arange(1, N + 1) / N
    d = max((ecdf_hi - f).max(), (f - ecdf_hi + 1 / N).max())
    assert d < math.sqrt(math.log(2 / P_FAIL) / (2 * N)), f"{name}: KS distance {d}"


def _chi2_bound(dof):
    z = 4.753  # the normal's 1 - 1e-6 quantile
    h = 2 / (9 * dof)
    return dof * (1 - h + z * math.sqrt(h)) ** 3


def _chi_square(counts_of, pmf, what):
    """Counts (of values 0..len(pmf)-1 and above) against the pmf, pooling bins below 5."""
    n = counts_of.sum()
    expected = n * np.asarray(pmf, dtype=np.float64)
    obs = counts_of[: len(pmf)].astype(np.float64)
    obs[-1] += counts_of[len(pmf) :].sum()  # the last bin is the upper tail
    expected[-1] = n - expected[:-1].sum()
    bins_o, bins_e, acc_o, acc_e = [], [], 0.0, 0.0
    for o, e in zip(obs, expected, strict=True):
        acc_o, acc_e = acc_o + o, acc_e + e
        if acc_e >= 5:
            bins_o.append(acc_o)
            bins_e.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e:
        bins_o[-1] += acc_o
        bins_e[-1] += acc_e
    bins_o, bins_e = np.array(bins_o), np.array(bins_e)
    chi2 = ((bins_o - bins_e) ** 2 / bins_e).sum()
    dof = len(bins_o) - 1
    assert chi2 < _chi2_bound(dof), f"{what}: chi2 {chi2} with {dof} dof"


def _poisson_pmf(lam, kmax):
    return [math.exp(-lam + k * math.log(lam) - math.lgamma(k + 1)) for k in range(kmax)]


def _binomial_pmf(n, p, kmax):
    return [
        math.exp(
            math.lgamma(n + 1)
            - math.lgamma(k + 1)
            - math.lgamma(n - k + 1)
            + k * math.log(p)
            + (n - k) * math.log1p(-p)
        )
        for k in range(kmax)
    ]


# name -> (draw, mean, variance, excess kurtosis, pmf over 0..kmax-1, the last bin the tail)
DISCRETE = {
    "poisson_small": (lambda g: g.poisson(0.7, N), 0.7, 0.7, 1 / 0.7, _poisson_pmf(0.7, 12)),
    "poisson_9": (lambda g: g.poisson(9.5, N), 9.5, 9.5, 1 / 9.5, _poisson_pmf(9.5, 40)),
    "poisson_ptrs": (lambda g: g.poisson(37.0, N), 37.0, 37.0, 1 / 37, _poisson_pmf(37.0, 90)),
    "poisson_big": (
        lambda g: g.poisson(5000.0, N),
        5000.0,
        5000.0,
        1 / 5000,
        _poisson_pmf(5000.0, 5400),
    ),
    "binomial_inversion": (
        lambda g: g.binomial(20, 0.3, N),
        6.0,
        4.2,
        (1 - 6 * 0.21) / 4.2,
        _binomial_pmf(20, 0.3, 21),
    ),
    "binomial_flipped": (
        lambda g: g.binomial(12, 0.9, N),
        10.8,
        1.08,
        (1 - 6 * 0.09) / 1.08,
        _binomial_pmf(12, 0.9, 13),
    ),
    "binomial_btrs": (
        lambda g: g.binomial(200, 0.35, N),
        70.0,
        45.5,
        (1 - 6 * 0.35 * 0.65) / 45.5,
        _binomial_pmf(200, 0.35, 201),
    ),
    "binomial_btrs_flipped": (
        lambda g: g.binomial(10_000, 0.8, N),
        8000.0,
        1600.0,
        (1 - 6 * 0.16) / 1600,
        _binomial_pmf(10_000, 0.8, 8300),
    ),
    "geometric": (
        lambda g: g.geometric(0.25, N),
        4.0,
        0.75 / 0.0625,
        6 + 0.0625 / 0.75,
        [0.0] + [0.25 * 0.75 ** (k - 1) for k in range(1, 60)],
    ),
}


@pytest.mark.parametrize("name", list(DISCRETE))
def test_discrete_distribution(name):
    draw, mean, var, kurt, pmf = DISCRETE[name]
    a = _np(draw(default_rng(77)))
    assert a.dtype == np.int64 and a.shape == (N,) and a.min() >= 0
    _check_moments(a, mean, var, kurt, name)
    _chi_square(np.bincount(a, minlength=len(pmf)), pmf, name)


def test_binomial_and_poisson_edges():
    g = default_rng(1)
    assert (_np(g.binomial(0, 0.5, 10)) == 0).all()
    assert (_np(g.binomial(10, 0.0, 10)) == 0).all()
    assert (_np(g.binomial(10, 1.0, 10)) == 10).all()
    assert (_np(g.poisson(0.0, 10)) == 0).all()
    assert (_np(g.geometric(1.0, 10)) == 1).all()
    assert (_np(g.weibull(0.0, 5)) == 0).all()
    assert (_np(g.standard_gamma(0.0, 5)) == 0).all()
    b = _np(g.binomial(2**40, 0.5, 1000))  # large n: BTRS, no overflow
    assert abs(b.mean() - 2**39) < 6 * math.sqrt(2**38 / 1000)


# =============================================================================================
# Array-valued parameters broadcast as NumPy's
# =============================================================================================


def test_array_parameters_broadcast():
    g = default_rng(5)
    scale = np.array([1.0, 10.0, 100.0])
    x = _np(g.exponential(scale, size=(20_000, 3)))
    assert x.shape == (20_000, 3)
    np.testing.assert_allclose(x.mean(axis=0), scale, rtol=Z / math.sqrt(20_000))
    assert g.exponential(scale).shape == (3,)  # size None: the parameters' shape
    assert g.normal(np.zeros((2, 1)), np.ones(3)).shape == (2, 3)
    lam = np.array([[0.5], [30.0]])  # inversion and PTRS in one draw
    p = _np(g.poisson(lam, size=(2, 30_000)))
    np.testing.assert_allclose(p.mean(axis=1), lam[:, 0], rtol=0.02)
    b = _np(g.binomial([5, 500], [0.5, 0.2], size=(30_000, 2)))
    np.testing.assert_allclose(b.mean(axis=0), [2.5, 100.0], rtol=0.01)
    k = _np(g.gamma([0.2, 5.0], [1.0, 2.0], size=(30_000, 2)))
    np.testing.assert_allclose(k.mean(axis=0), [0.2, 10.0], rtol=0.03)
    u = _np(g.uniform([0.0, 10.0], [1.0, 20.0], size=(1000, 2)))
    assert (u[:, 0] < 1).all() and (u[:, 1] >= 10).all() and (u[:, 1] < 20).all()
    i = _np(g.integers([0, 100], [3, 103], size=(1000, 2)))
    assert set(i[:, 0]) == {0, 1, 2} and set(i[:, 1]) == {100, 101, 102}
    i = _np(g.integers(strided.asarray([0, 5]), 5, endpoint=True))
    assert i.shape == (2,) and i[1] == 5
    with pytest.raises(ValueError, match="shape mismatch"):
        g.exponential(scale, size=(4, 2))


def test_small_shapes_stay_finite():
    g = default_rng(2)
    b = _np(g.beta(0.01, 0.02, 10_000))
    assert np.isfinite(b).all() and (b >= 0).all() and (b <= 1).all()
    assert abs(b.mean() - 1 / 3) < 0.03  # most mass at 0 and 1
    d = _np(g.dirichlet([0.01, 0.01, 0.02], 5000))
    assert np.isfinite(d).all()
    np.testing.assert_allclose(d.sum(axis=1), 1.0)


def test_dirichlet_and_multinomial():
    g = default_rng(3)
    alpha = np.array([1.0, 2.0, 7.0])
    d = _np(g.dirichlet(alpha, size=(20_000,)))
    assert d.shape == (20_000, 3)
    np.testing.assert_allclose(d.sum(axis=1), 1.0)
    np.testing.assert_allclose(d.mean(axis=0), alpha / 10, atol=0.005)
    assert g.dirichlet(alpha).shape == (3,)
    pv = [0.1, 0.2, 0.3, 0.4]
    m = _np(g.multinomial(50, pv, size=(10_000,)))
    assert m.dtype == np.int64 and m.shape == (10_000, 4)
    assert (m.sum(axis=1) == 50).all()
    np.testing.assert_allclose(m.mean(axis=0), 50 * np.array(pv), rtol=0.02)
    var = 50 * np.array(pv) * (1 - np.array(pv))
    np.testing.assert_allclose(m.var(axis=0), var, rtol=0.05)
    assert g.multinomial([10, 20], [0.5, 0.5]).shape == (2, 2)


def test_multivariate_normal():
    g = default_rng(4)
    cov = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
    mean = np.array([1.0, -1.0, 0.0])
    for method in ("svd", "eigh", "cholesky"):
        x = _np(g.multivariate_normal(mean, cov, size=50_000, method=method))
        assert x.shape == (50_000, 3)
        np.testing.assert_allclose(x.mean(axis=0), mean, atol=0.03)
        np.testing.assert_allclose(np.cov(x.T), cov, atol=0.04)
    assert g.multivariate_normal(mean, cov, size=(2, 4)).shape == (2, 4, 3)
    bad = [[1.0, 2.0], [2.0, 1.0]]
    with pytest.warns(RuntimeWarning, match="positive-semidefinite"):
        g.multivariate_normal([0.0, 0.0], bad)
    with pytest.raises(ValueError, match="positive-semidefinite"):
        g.multivariate_normal([0.0, 0.0], bad, check_valid="raise")


# =============================================================================================
# choice, permutation, shuffle, permuted: NumPy's semantics
# =============================================================================================


def test_choice_shapes_and_dtypes_match_numpy():
    g, ng = default_rng(0), np.random.default_rng(0)
    a = np.arange(24.0).reshape(4, 6)
    for args, kw in [
        ((5,), {}),
        ((5, 3), {}),
        ((5, (2, 3)), {}),
        ((5, 3), {"replace": False}),
        ((a, 2), {}),
        ((a, (2, 2)), {"axis": 1}),
        ((a, 3), {"axis": 1, "replace": False}),
        ((a,), {"axis": -1}),
        ((np.array([1, 2, 3], dtype=np.int8), 4), {}),
        ((5, 0), {}),
    ]:
        want = ng.choice(*args, **kw)
        targs = (strided.asarray(args[0]),) + args[1:] if isinstance(args[0], np.ndarray) else args
        got = g.choice(*targs, **kw)
        assert got.shape == np.shape(want), (args, kw)
        assert _np(got).dtype == np.asarray(want).dtype, (args, kw)
    got = _np(g.choice(a.tolist(), 3, axis=1))  # a list, as NumPy takes
    assert got.shape == (4, 3)
    assert all(any((col == a[:, j]).all() for j in range(6)) for col in got.T)


def test_choice_without_replacement_is_unique_and_uniform():
    g = default_rng(9)
    for _ in range(50):
        s = _np(g.choice(30, 30, replace=False))
        assert sorted(s.tolist()) == list(range(30))
    first = np.array([_np(g.choice(4, 2, replace=False))[0] for _ in range(4000)])
    _chi_square(np.bincount(first, minlength=4), [0.25] * 4, "first pick")
    unshuffled = _np(g.choice(100, 10, replace=False, shuffle=False))
    assert len(set(unshuffled.tolist())) == 10


def test_choice_with_p():
    g = default_rng(10)
    p = np.array([0.1, 0.0, 0.6, 0.3])
    x = _np(g.choice(4, N, p=p))
    assert x.dtype == np.int64 and 1 not in set(x.tolist())
    _chi_square(np.bincount(x, minlength=4)[[0, 2, 3]], p[[0, 2, 3]], "choice p")
    # without replacement: one item after another, by the p of those left (NumPy's rule)
    firsts, seconds = [], []
    for _ in range(3000):
        s = _np(g.choice(4, 2, replace=False, p=p))
        assert s[0] != s[1] and 1 not in s
        firsts.append(s[0])
        seconds.append(s[1])
    _chi_square(np.bincount(firsts, minlength=4)[[0, 2, 3]], p[[0, 2, 3]], "first with p")
    # P(second = j) = sum_i p_i p_j / (1 - p_i) over i != j
    p2 = [sum(p[i] * p[j] / (1 - p[i]) for i in range(4) if i != j) for j in (0, 2, 3)]
    _chi_square(np.bincount(seconds, minlength=4)[[0, 2, 3]], p2, "second with p")
    assert sorted(_np(g.choice(4, 3, replace=False, p=p)).tolist()) == [0, 2, 3]


def test_permutation_shuffle_permuted():
    g = default_rng(11)
    x = strided.asarray(np.arange(12).reshape(3, 4))
    y = _np(g.permutation(x, axis=1))
    assert sorted(map(tuple, y.T.tolist())) == sorted(map(tuple, np.arange(12).reshape(3, 4).T))
    assert _np(g.permutation([3, 1, 2])).tolist() != [] and g.permutation(5).dtype is strided.int64
    z = strided.asarray(np.arange(12).reshape(3, 4))
    g.shuffle(z, axis=1)
    assert np.array_equal(np.sort(_np(z), axis=1), np.arange(12).reshape(3, 4))
    assert (np.diff(_np(z), axis=0) == 4).all()  # columns moved whole
    p = _np(g.permuted(x, axis=1))
    assert np.array_equal(np.sort(p, axis=1), _np(x)) and p.shape == (3, 4)
    q = _np(g.permuted(x))
    assert sorted(q.ravel().tolist()) == list(range(12))
    out = strided.empty((3, 4), dtype="int64")
    assert g.permuted(x, axis=0, out=out) is out
    assert np.array_equal(np.sort(_np(out), axis=0), _np(x))
    # each row of permuted(axis=1) is uniform over the 6 orders of 3
    rows = _np(g.permuted(strided.asarray(np.tile(np.arange(3), (6000, 1))), axis=1))
    codes = rows[:, 0] * 3 + rows[:, 1]
    counts = np.bincount(codes, minlength=9)[[1, 2, 3, 5, 6, 7]]
    _chi_square(counts, [1 / 6] * 6, "permuted orders")


# =============================================================================================
# out=, dtype=, default_rng, spawn, bytes, integers(endpoint)
# =============================================================================================


def test_out_and_dtype():
    g = default_rng(12)
    for method in ("random", "standard_normal", "standard_exponential"):
        out = strided.empty((3, 4), dtype="float32")
        assert getattr(g, method)(out=out) is out and out.dtype is strided.float32
        assert getattr(g, method)((3, 4), dtype="float32").dtype is strided.float32
    out = strided.empty((4, 5)).T  # not contiguous
    g.random(out=out)
    assert (_np(out) > 0).any() and (_np(out) < 1).all()
    out = strided.empty(5)
    assert g.standard_gamma(2.0, out=out) is out
    with pytest.raises(ValueError, match="does not match"):
        g.random(3, out=strided.empty(4))
    with pytest.raises(TypeError, match="dtype"):
        g.random(out=strided.empty(4), dtype="float32")


def test_default_rng_and_spawn():
    a = _np(default_rng(42).random(5))
    assert a.tolist() == _np(Generator(42).random(5)).tolist()
    g = default_rng(7)
    assert default_rng(g) is g
    assert (
        _np(default_rng([1, 2, 3]).random(3)).tolist()
        == _np(default_rng([1, 2, 3]).random(3)).tolist()
    )
    assert default_rng(2**80).initial_seed() < 2**64
    assert default_rng().initial_seed() != default_rng().initial_seed()
    c1, c2 = g.spawn(2)
    (c3,) = g.spawn(1)
    seeds = {c1.initial_seed(), c2.initial_seed(), c3.initial_seed(), g.initial_seed()}
    assert len(seeds) == 4 and g.get_state()[2] == 0
    assert [c.initial_seed() for c in default_rng(7).spawn(3)][:2] == [
        c1.initial_seed(),
        c2.initial_seed(),
    ]
    b = g.bytes(16)
    assert isinstance(b, bytes) and len(b) == 16 and g.bytes(0) == b""


def test_integers_endpoint():
    g = default_rng(13)
    x = _np(g.integers(1, 6, size=20_000, endpoint=True))
    assert set(x.tolist()) == {1, 2, 3, 4, 5, 6}
    assert set(_np(g.integers(255, size=5000, dtype="uint8", endpoint=True)).tolist()) == set(
        range(256)
    )
    assert set(_np(g.integers(0, 1, size=100, dtype="bool", endpoint=True)).tolist()) == {0, 1}


# =============================================================================================
# Reproducibility: thread count and devices
# =============================================================================================

DRAWS = {
    "standard_exponential": lambda g, n, d: g.standard_exponential(n) if d is None else None,
    "exponential": lambda g, n, d: g.exponential(2.0, n, device=d),
    "laplace": lambda g, n, d: g.laplace(0.0, 1.0, n, device=d),
    "logistic": lambda g, n, d: g.logistic(0.0, 1.0, n, device=d),
    "gumbel": lambda g, n, d: g.gumbel(0.0, 1.0, n, device=d),
    "weibull": lambda g, n, d: g.weibull(1.5, n, device=d),
    "pareto": lambda g, n, d: g.pareto(3.0, n, device=d),
    "rayleigh": lambda g, n, d: g.rayleigh(1.0, n, device=d),
    "lognormal": lambda g, n, d: g.lognormal(0.0, 1.0, n, device=d),
    "geometric": lambda g, n, d: g.geometric(0.1, n, device=d),
    "gamma": lambda g, n, d: g.gamma([0.5, 4.0], 1.0, (n // 2, 2), device=d),
    "beta": lambda g, n, d: g.beta(0.7, 3.0, n, device=d),
    "chisquare": lambda g, n, d: g.chisquare(3.0, n, device=d),
    "standard_t": lambda g, n, d: g.standard_t(4.0, n, device=d),
    "poisson": lambda g, n, d: g.poisson([3.0, 300.0], (n // 2, 2), device=d),
    "binomial": lambda g, n, d: g.binomial([10, 10_000], 0.4, (n // 2, 2), device=d),
    "dirichlet": lambda g, n, d: g.dirichlet([0.5, 2.0], n // 2, device=d),
    "multinomial": lambda g, n, d: g.multinomial(30, [0.3, 0.7], n // 2, device=d),
    "multivariate_normal": lambda g, n, d: g.multivariate_normal(
        [0.0, 1.0], [[1.0, 0.3], [0.3, 2.0]], n // 2, device=d
    ),
    "uniform_arrays": lambda g, n, d: g.uniform([0.0, 5.0], 6.0, (n // 2, 2), device=d),
    "integers_arrays": lambda g, n, d: g.integers([0, 7], 50, (n // 2, 2), device=d),
}


def test_thread_count_does_not_change_results():
    n = 70_002  # above twice the grain size: the first fills run in parallel with 2 threads
    for name, draw in DRAWS.items():
        runs = []
        for threads in (1, 2):
            strided.set_num_threads(threads)
            g = default_rng(31)
            runs.append((_np(draw(g, n, None)).tobytes(), g.get_state()))
        assert runs[0] == runs[1], name


@pytest.mark.parametrize("name", [k for k in DRAWS if k != "standard_exponential"])
def test_same_numbers_on_cuda_emulated(name):
    # the fills compute the CPU's stream on the device (Note [Random numbers on CUDA devices]);
    # the transforms run there too, up to the last bits of the device's exp/log
    draw = DRAWS[name]
    g, h = default_rng(8), default_rng(8)
    want = _np(draw(g, 600, None))
    got = draw(h, 600, "cuda-emulated")
    assert got.device == strided.device("cuda-emulated")
    assert g.get_state() == h.get_state(), name
    got = _np(got.cpu())
    assert got.dtype == want.dtype
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
    else:
        np.testing.assert_array_equal(got, want)


# =============================================================================================
# Bad input: ValueError naming the argument, as NumPy's
# =============================================================================================

G = default_rng(0)

ERRORS = [
    (lambda: G.exponential(-1.0), ValueError, "scale < 0"),
    (lambda: G.exponential([1.0, -1.0]), ValueError, "scale < 0"),
    (lambda: G.laplace(0.0, -1.0), ValueError, "scale < 0"),
    (lambda: G.logistic(0.0, -1.0), ValueError, "scale < 0"),
    (lambda: G.gumbel(0.0, -1.0), ValueError, "scale < 0"),
    (lambda: G.rayleigh(-1.0), ValueError, "scale < 0"),
    (lambda: G.normal([0.0], -1.0), ValueError, "scale < 0"),
    (lambda: G.weibull(-1.0), ValueError, "a < 0"),
    (lambda: G.pareto(0.0), ValueError, "a <= 0"),
    (lambda: G.lognormal(0.0, -1.0), ValueError, "sigma < 0"),
    (lambda: G.geometric(0.0), ValueError, "p <= 0"),
    (lambda: G.geometric(1.5), ValueError, "p <= 0, p > 1"),
    (lambda: G.gamma(-1.0), ValueError, "shape < 0"),
    (lambda: G.gamma(1.0, -1.0), ValueError, "scale < 0"),
    (lambda: G.standard_gamma(-0.5), ValueError, "shape < 0"),
    (lambda: G.beta(0.0, 1.0), ValueError, "a <= 0"),
    (lambda: G.beta(1.0, -1.0), ValueError, "b <= 0"),
    (lambda: G.chisquare(0.0), ValueError, "df <= 0"),
    (lambda: G.standard_t(-2.0), ValueError, "df <= 0"),
    (lambda: G.poisson(-1.0), ValueError, "lam < 0"),
    (lambda: G.poisson([1.0, float("nan")]), ValueError, "lam < 0"),
    (lambda: G.poisson(1e20), ValueError, "lam value too large"),
    (lambda: G.binomial(-1, 0.5), ValueError, "n < 0"),
    (lambda: G.binomial(10, 1.5), ValueError, "p < 0, p > 1"),
    (lambda: G.multinomial(10, [0.7, 0.7, 0.1]), ValueError, r"sum\(pvals\[:-1\]\) > 1.0"),
    (lambda: G.multinomial(10, [-0.1, 1.1]), ValueError, "pvals < 0"),
    (lambda: G.multinomial(-1, [0.5, 0.5]), ValueError, "n < 0"),
    (lambda: G.dirichlet([1.0, -1.0]), ValueError, "alpha <= 0"),
    (lambda: G.dirichlet([[1.0]]), ValueError, "alpha must be 1-D"),
    (lambda: G.choice(3, p=[0.5, 0.6, 0.1]), ValueError, "probabilities do not sum to 1"),
    (lambda: G.choice(3, p=[1.5, -0.5, 0.0]), ValueError, "probabilities are not non-negative"),
    (lambda: G.choice(3, p=[0.5, 0.5]), ValueError, "a and p must have same size"),
    (lambda: G.choice(3, 4, replace=False), ValueError, "larger sample than population"),
    (lambda: G.choice(3, 2, replace=False, p=[1.0, 0, 0]), ValueError, "fewer non-zero"),
    (lambda: G.choice(0, 1), ValueError, "a cannot be empty"),
    (lambda: G.choice(-1), ValueError, "a must be a positive integer"),
    (lambda: G.choice([[1, 2]], axis=2), ValueError, "axis 2 is out of bounds"),
    (lambda: G.integers([5, 1], 3), ValueError, "low >= high"),
    (lambda: G.integers([0, 1], 300, dtype="uint8"), ValueError, "outside the range of uint8"),
    (lambda: G.integers(3, 3, endpoint=False), ValueError, "low must be < high"),
    (lambda: G.multivariate_normal([0.0], [[1.0, 0.0], [0.0, 1.0]]), ValueError, "same length"),
    (lambda: G.multivariate_normal([[0.0]], [[1.0]]), ValueError, "mean must be 1 dim"),
    (lambda: G.multivariate_normal([0.0], [1.0]), ValueError, "cov must be 2 dim"),
    (lambda: G.multivariate_normal([0.0], [[1.0]], check_valid="x"), ValueError, "check_valid"),
    (lambda: G.standard_exponential(method="x"), ValueError, "method must be"),
    (lambda: G.standard_gamma(1.0, dtype="int32"), TypeError, "float32 or float64"),
    (lambda: G.exponential("a"), TypeError, "scale must be a real number"),
    (lambda: G.bytes(-1), ValueError, "length must be >= 0"),
    (lambda: G.spawn(-1), ValueError, "n_children must be >= 0"),
    (lambda: G.permutation(strided.arange(3), axis=1), ValueError, "out of bounds"),
    (lambda: default_rng(-1), ValueError, "non-negative"),
    (lambda: default_rng(np.random.default_rng(0)), TypeError, "int seed"),
    (lambda: default_rng("x"), TypeError, "default_rng: seed must be"),
]


@pytest.mark.parametrize("fn, exc, match", ERRORS)
def test_errors(fn, exc, match):
    with pytest.raises(exc, match=match):
        fn()
