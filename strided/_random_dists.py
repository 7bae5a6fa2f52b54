"""NumPy's distributions on strided's Philox stream: the methods of ``strided.random.Generator``
beyond the uniform, normal and integer draws that ``_cpu/random.pyx.tp`` computes directly.

Every distribution here is composed from those three draws and strided's own vectorised ops
(``log``, ``where``, indexing, ``argsort``, ...), so it runs wherever they do: on the CPU with
its threads, and on the CUDA devices (``device=``), where the fills compute the CPU's numbers.

Note [How the distributions consume the stream]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A draw here is a fixed sequence of *primitive fills* (a uniform, normal or integer draw of m
values, which reads the Philox blocks ``offset, offset + 1, ...`` and advances the generator's
offset past them; see Note [Counter-based random numbers] in ``_cpu/random.pyx.tp``). Each
primitive's numbers depend only on (seed, offset, m), never on the thread count, so a draw built
from them is reproducible and thread-count invariant as long as the *sequence* of m's depends
only on the parameters and on numbers already drawn. It does:

- inverse-CDF transforms (exponential, laplace, logistic, gumbel, weibull, pareto, rayleigh,
  geometric, lognormal) use one uniform (or normal) fill of the output's size, element i from
  value i;
- rejection samplers (gamma by Marsaglia and Tsang, Poisson by Hörmann's PTRS, binomial by
  Hörmann's BTRS) work in *rounds*: a round draws one fill per needed variate for the m
  elements still pending, in index order, accepts some and keeps the rest, in index order, for
  the next round. m shrinks geometrically (gamma accepts > 95% of candidates, PTRS and BTRS
  > 85%), so a draw of n values takes about log(n) rounds, each a handful of vectorised ops;
- inversion by search (small-mean Poisson and binomial) draws one uniform per element, then
  walks the CDF a term per round over the elements not yet placed (at most ~40 rounds, as the
  means are below 10);
- compound draws (beta, chisquare, standard_t, dirichlet, multinomial, multivariate_normal,
  choice, permuted) call the above in a fixed order.

Nothing is drawn per element in Python, and no element's value depends on how the work was
split: set_num_threads(1) and set_num_threads(16) give the same bits, and a CUDA device the
same numbers (the uniform fills bit for bit; anything through a normal fill or a transcendental
function up to the last bits of the device's libm).

The numbers are not NumPy's (NumPy's Generator runs PCG64 with ziggurat samplers, strided runs
Philox with the transforms above); the distributions are, which tests/test_random_generator.py
checks statistically.
"""

from __future__ import annotations

import math
import operator
import warnings

import numpy as np

import strided as _s
from strided import _core, _iter
from strided._dtype import as_dtype, float64, get_default_dtype, int64
from strided._ops.creation import _check_device

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
# log(k!) for k = 0..9; Stirling's series above (see _log_factorial)
_LOG_FACTORIALS = [math.lgamma(k + 1) for k in range(10)]


# =============================================================================================
# Parameters: scalars stay Python floats, arrays become float64 tensors; shapes broadcast
# =============================================================================================


def _param(x, name, fn, device, dtype=float64):
    """A Python float (or int) for a scalar parameter, else a tensor of ``dtype`` on ``device``."""
    if isinstance(x, _core.TensorBase):
        if x.ndim == 0 and x.device.is_cpu:
            x = x.item()
        else:
            return x.astype(dtype).to(device)
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return int(x) if dtype is int64 else float(x)
    try:
        a = np.asarray(x, dtype=dtype.numpy)
    except (TypeError, ValueError):
        raise TypeError(
            f"{fn}: {name} must be a real number or an array of them, got {x!r}"
        ) from None
    if a.ndim == 0:
        return a.item()
    return _s.asarray(a, device=device)


def _any(cond):
    """Whether a parameter check (a bool, or a bool tensor) fails anywhere."""
    return bool(_s.any(cond)) if isinstance(cond, _core.TensorBase) else bool(cond)


def _require(bad, fn, what, hint):
    if _any(bad):
        raise ValueError(f"{fn}: {what} ({hint})")


def _shape(fn, size, *params):
    """The output shape: ``size``, which the parameters must broadcast to, or theirs."""
    shapes = [p.shape for p in params if isinstance(p, _core.TensorBase)]
    if size is None:
        return _s.broadcast_shapes(*shapes) if shapes else ()
    from strided.random import _size

    shape = _size(size, fn)
    try:
        ok = _s.broadcast_shapes(shape, *shapes) == shape
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(
            f"{fn}: shape mismatch: parameters of shapes {shapes} cannot be broadcast to size "
            f"{shape}"
        )
    return shape


def _flat(p, shape):
    """A parameter as a 1-D tensor of the output's numel (for per-element rejection rounds)."""
    if isinstance(p, _core.TensorBase):
        return _s.broadcast_to(p, shape).reshape(-1)
    return p


def _pick(p, idx):
    return p[idx] if isinstance(p, _core.TensorBase) else p


def _result_dtype(dtype, fn):
    d = get_default_dtype() if dtype is None else as_dtype(dtype)
    if d.name not in ("float32", "float64"):
        raise TypeError(f"{fn}: dtype must be float32 or float64, got {d.name}")
    return d


def _to_out(fn, x, out, shape):
    """``x`` cast to the result dtype and written into ``out`` when given (NumPy's out=)."""
    if out is None:
        return x
    _iter.check_out(fn, out, tuple(shape))  # Note [Checking out=] in _iter.pyx
    out.copy_(x)
    return out


def _log_factorial(k):
    """log(k!) of a float tensor of whole numbers >= 0: a table below 10, Stirling's series
    above (its error there is below 1e-16 relative)."""
    x = k + 1.0
    stirling = (
        (x - 0.5) * _s.log(x)
        - x
        + _LOG_SQRT_2PI
        + (1 / 12 - (1 / 360 - (1 / 1260 - 1 / (1680 * x * x)) / (x * x)) / (x * x)) / x
    )
    small = _s.asarray(_LOG_FACTORIALS, device=k.device)
    table = _s.take(small, _s.clip(k, 0, 9).astype(int64))
    return _s.where(k < 10, table, stirling)


class Distributions:
    """NumPy's Generator distributions, mixed into ``strided.random.Generator``.

    Each method draws through ``self.uniform``/``self.normal``/``self.integers`` (see Note [How
    the distributions consume the stream]).
    """

    # -- building blocks --------------------------------------------------------------------

    def _open_uniform(self, shape, device=None):
        """Uniform values strictly inside (0, 1): ``(k + 0.5) * 2**-52`` from the top 52 bits
        of a 53-bit uniform (exact in float64, so neither 0 nor 1 can occur)."""
        u = self.uniform(0.0, 1.0, shape, float64, device)
        return (_s.floor(u * 2.0**52) + 0.5) * 2.0**-52

    def _exp1(self, shape, device=None):
        """Standard exponential values, -log of an open uniform (finite, > 0)."""
        return -_s.log(self._open_uniform(shape, device))

    def _gamma_rounds(self, a, n, device):
        """n standard gamma variates of shape ``a >= 1`` (a float or an n-tensor), by Marsaglia
        and Tsang's rejection in rounds over the elements still pending; returns (d * v) as a
        flat tensor. See Note [How the distributions consume the stream]."""
        d = a - 1.0 / 3.0
        c = 1.0 / _s.sqrt(9.0 * d) if isinstance(d, _core.TensorBase) else 1.0 / math.sqrt(9 * d)
        out = _core._empty((n,), float64, device)
        idx = _s.arange(n, device=device)
        while idx.shape[0]:
            m = idx.shape[0]
            dd, cc = _pick(d, idx), _pick(c, idx)
            x = self.normal(0.0, 1.0, (m,), float64, device)
            u = self._open_uniform((m,), device)
            v = 1.0 + cc * x
            v = v * v * v
            pos = v > 0
            v_safe = _s.where(pos, v, 1.0)
            ok = pos & (_s.log(u) < 0.5 * x * x + dd - dd * v_safe + dd * _s.log(v_safe))
            out[idx[ok]] = (dd * v_safe)[ok]
            idx = idx[~ok]
        return out

    def _log_standard_gamma(self, a, shape, device):
        """log of standard gamma variates of shape ``a > 0``, whose shape is ``shape``: for
        a < 1, G(a) = G(a + 1) * U**(1/a) (Marsaglia and Tsang's boost), kept in logs so that
        tiny shapes (whose variates underflow) still give beta and dirichlet their ratios."""
        n = math.prod(shape)
        af = _flat(a, shape)
        small = af < 1.0
        boost = _any(small)
        if isinstance(af, _core.TensorBase):
            a1 = _s.where(small, af + 1.0, af) if boost else af
        else:
            a1 = af + 1.0 if boost else af
        lg = _s.log(self._gamma_rounds(a1, n, device))
        if boost:
            lg = lg + _s.where(small, _s.log(self._open_uniform((n,), device)) / af, 0.0)
        return lg.reshape(shape)

    def _standard_gamma(self, a, shape, device):
        """Standard gamma variates (float64) of shape ``a >= 0``; 0 where a == 0."""
        n = math.prod(shape)
        af = _flat(a, shape)
        zero = af == 0
        safe = _s.where(zero, 1.0, af) if isinstance(af, _core.TensorBase) else (af or 1.0)
        g = _s.exp(self._log_standard_gamma(safe, (n,), device))
        return _s.where(zero, 0.0, g).reshape(shape)

    # -- continuous: inverse CDF --------------------------------------------------------------

    def standard_exponential(self, size=None, dtype=None, method="zig", out=None):
        """Exponential values with scale 1: ``-log(U)`` for U uniform in (0, 1).

        Parameters
        ----------
        size : int or tuple of ints, optional
        dtype : float32 or float64, optional
        method : {"zig", "inv"}
            Accepted for NumPy's sake; both give the inverse-CDF draw.
        out : Tensor, optional
            Written in place and returned.

        Examples
        --------
        >>> import strided
        >>> x = strided.random.default_rng(0).standard_exponential(10_000)
        >>> round(float(x.mean()), 1)
        1.0
        """
        if method not in ("zig", "inv"):
            raise ValueError(f"standard_exponential: method must be 'zig' or 'inv', got {method!r}")
        fn = "standard_exponential"
        d = _result_dtype(out.dtype if dtype is None and out is not None else dtype, fn)
        shape = out.shape if out is not None and size is None else _shape(fn, size)
        device = out.device if out is not None else None
        return _to_out(fn, self._exp1(shape, device).astype(d), out, shape)

    def exponential(self, scale=1.0, size=None, *, device=None):
        """Exponential values with mean ``scale`` (``scale >= 0``, array-valued broadcasting).

        Examples
        --------
        >>> import strided
        >>> strided.random.default_rng(0).exponential([1.0, 10.0], size=(3, 2)).shape
        (3, 2)
        """
        device = _check_device(device)
        scale = _param(scale, "scale", "exponential", device)
        _require(scale < 0, "exponential", "scale < 0", "scale must be >= 0")
        return scale * self._exp1(_shape("exponential", size, scale), device)

    def laplace(self, loc=0.0, scale=1.0, size=None, *, device=None):
        """Laplace (double exponential) values: ``loc -+ scale * log(2 U)`` by the half of
        (0, 1) that U falls in.

        Examples
        --------
        >>> import strided
        >>> x = strided.random.default_rng(0).laplace(2.0, 1.0, 10_000)
        >>> round(float(x.mean()))
        2
        """
        device = _check_device(device)
        loc = _param(loc, "loc", "laplace", device)
        scale = _param(scale, "scale", "laplace", device)
        _require(scale < 0, "laplace", "scale < 0", "scale must be >= 0")
        u = self._open_uniform(_shape("laplace", size, loc, scale), device)
        low = u < 0.5
        e = _s.where(low, _s.log(2.0 * u), -_s.log(2.0 - 2.0 * u))
        return loc + scale * e

    def logistic(self, loc=0.0, scale=1.0, size=None, *, device=None):
        """Logistic values: ``loc + scale * log(U / (1 - U))``.

        Examples
        --------
        >>> import strided
        >>> strided.random.default_rng(0).logistic(size=(2, 3)).shape
        (2, 3)
        """
        device = _check_device(device)
        loc = _param(loc, "loc", "logistic", device)
        scale = _param(scale, "scale", "logistic", device)
        _require(scale < 0, "logistic", "scale < 0", "scale must be >= 0")
        u = self._open_uniform(_shape("logistic", size, loc, scale), device)
        return loc + scale * (_s.log(u) - _s.log1p(-u))

    def gumbel(self, loc=0.0, scale=1.0, size=None, *, device=None):
        """Gumbel (extreme value type I) values: ``loc - scale * log(-log U)``.

        Examples
        --------
        >>> import strided
        >>> strided.random.default_rng(0).gumbel(size=4).shape
        (4,)
        """
        device = _check_device(device)
        loc = _param(loc, "loc", "gumbel", device)
        scale = _param(scale, "scale", "gumbel", device)
        _require(scale < 0, "gumbel", "scale < 0", "scale must be >= 0")
        return loc - scale * _s.log(self._exp1(_shape("gumbel", size, loc, scale), device))

    def weibull(self, a, size=None, *, device=None):
        """Weibull values of shape ``a >= 0``: ``E**(1/a)`` for E standard exponential (0 when
        a == 0, as NumPy).

        Examples
        --------
        >>> import strided
        >>> strided.random.default_rng(0).weibull(2.0, 3).shape
        (3,)
        """
        device = _check_device(device)
        a = _param(a, "a", "weibull", device)
        _require(a < 0, "weibull", "a < 0", "a must be >= 0")
        e = self._exp1(_shape("weibull", size, a), device)
        safe = _s.where(a == 0, 1.0, a) if isinstance(a, _core.TensorBase) else (a or 1.0)
        return _s.where(a == 0, 0.0, _s.exp(_s.log(e) / safe))

    def pareto(self, a, size=None, *, device=None):
        """Pareto II (Lomax) values of shape ``a > 0``: ``exp(E / a) - 1``, as NumPy's.

        Examples
        --------
        >>> import strided
        >>> bool((strided.random.default_rng(0).pareto(3.0, 100) >= 0).all())
        True
        """
        device = _check_device(device)
        a = _param(a, "a", "pareto", device)
        _require(
            ~(a > 0) if isinstance(a, _core.TensorBase) else not a > 0,
            "pareto",
            "a <= 0",
            "a must be > 0",
        )
        return _s.expm1(self._exp1(_shape("pareto", size, a), device) / a)

    def rayleigh(self, scale=1.0, size=None, *, device=None):
        """Rayleigh values: ``scale * sqrt(2 E)``.

        Examples
        --------
        >>> import strided
        >>> strided.random.default_rng(0).rayleigh(2.0, (2, 2)).shape
        (2, 2)
        """
        device = _check_device(device)
        scale = _param(scale, "scale", "rayleigh", device)
        _require(scale < 0, "rayleigh", "scale < 0", "scale must be >= 0")
        return scale * _s.sqrt(2.0 * self._exp1(_shape("rayleigh", size, scale), device))

    def lognormal(self, mean=0.0, sigma=1.0, size=None, *, device=None):
        """Log-normal values: ``exp(mean + sigma * Z)``.

        Examples
        --------
        >>> import strided
        >>> bool((strided.random.default_rng(0).lognormal(size=50) > 0).all())
        True
        """
        device = _check_device(device)
        mean = _param(mean, "mean", "lognormal", device)
        sigma = _param(sigma, "sigma", "lognormal", device)
        _require(sigma < 0, "lognormal", "sigma < 0", "sigma must be >= 0")
        z = self.normal(0.0, 1.0, _shape("lognormal", size, mean, sigma), float64, device)
        return _s.exp(mean + sigma * z)

    def geometric(self, p, size=None, *, device=None):
        """The number of Bernoulli(p) trials up to the first success (1, 2, ...), int64:
        ``ceil(log U / log(1 - p))``.

        Examples
        --------
        >>> import strided
        >>> strided.random.default_rng(0).geometric(1.0, 3)
        tensor([1, 1, 1])
        """
        device = _check_device(device)
        p = _param(p, "p", "geometric", device)
        bad = ~((p > 0) & (p <= 1)) if isinstance(p, _core.TensorBase) else not 0 < p <= 1
        _require(bad, "geometric", "p <= 0, p > 1 or p contains NaNs", "p must be in (0, 1]")
        u = self._open_uniform(_shape("geometric", size, p), device)
        k = _s.ceil(_s.log(u) / _s.log1p(-_s.where(p == 1, 0.5, p)))
        return _s.where(p == 1, 1.0, _s.maximum(k, 1.0)).astype(int64)

    # -- gamma and its family -----------------------------------------------------------------

    def standard_gamma(self, shape, size=None, dtype=None, out=None):
        """Gamma values of shape ``shape`` (>= 0) and scale 1, by Marsaglia and Tsang's method
        (boosted for shape < 1), in vectorised rounds of rejection.

        Examples
        --------
        >>> import strided
        >>> x = strided.random.default_rng(0).standard_gamma(3.0, 20_000)
        >>> round(float(x.mean()))
        3
        """
        fn = "standard_gamma"
        d = _result_dtype(out.dtype if dtype is None and out is not None else dtype, fn)
        device = out.device if out is not None else _check_device(None)
        k = _param(shape, "shape", fn, device)
        _require(k < 0, fn, "shape < 0", "shape must be >= 0")
        s = out.shape if out is not None and size is None else _shape(fn, size, k)
        return _to_out(fn, self._standard_gamma(k, s, device).astype(d), out, s)

    def gamma(self, shape, scale=1.0, size=None, *, device=None):
        """Gamma values of shape ``shape`` and scale ``scale``.

        Examples
        --------
        >>> import strided
        >>> x = strided.random.default_rng(0).gamma(2.0, 3.0, 20_000)
        >>> round(float(x.mean()))
        6
        """
        device = _check_device(device)
        k = _param(shape, "shape", "gamma", device)
        scale = _param(scale, "scale", "gamma", device)
        _require(k < 0, "gamma", "shape < 0", "shape must be >= 0")
        _require(scale < 0, "gamma", "scale < 0", "scale must be >= 0")
        return scale * self._standard_gamma(k, _shape("gamma", size, k, scale), device)

    def chisquare(self, df, size=None, *, device=None):
        """Chi-square values with ``df > 0`` degrees of freedom: ``2 G(df / 2)``.

        Examples
        --------
        >>> import strided
        >>> x = strided.random.default_rng(0).chisquare(4.0, 20_000)
        >>> round(float(x.mean()))
        4
        """
        device = _check_device(device)
        df = _param(df, "df", "chisquare", device)
        _require(
            ~(df > 0) if isinstance(df, _core.TensorBase) else not df > 0,
            "chisquare",
            "df <= 0",
            "df must be > 0",
        )
        return 2.0 * self._standard_gamma(df / 2.0, _shape("chisquare", size, df), device)

    def standard_t(self, df, size=None, *, device=None):
        """Student's t values with ``df > 0``: ``Z / sqrt(chisquare(df) / df)``.

        Examples
        --------
        >>> import strided
        >>> strided.random.default_rng(0).standard_t(5.0, (2, 3)).shape
        (2, 3)
        """
        device = _check_device(device)
        df = _param(df, "df", "standard_t", device)
        _require(
            ~(df > 0) if isinstance(df, _core.TensorBase) else not df > 0,
            "standard_t",
            "df <= 0",
            "df must be > 0",
        )
        shape = _shape("standard_t", size, df)
        z = self.normal(0.0, 1.0, shape, float64, device)
        return z * _s.sqrt(df / 2.0) / _s.sqrt(self._standard_gamma(df / 2.0, shape, device))

    def beta(self, a, b, size=None, *, device=None):
        """Beta values: ``X / (X + Y)`` for X ~ G(a), Y ~ G(b), computed from their logs
        (both scaled by the larger) so that tiny a and b do not give 0 / 0.

        Examples
        --------
        >>> import strided
        >>> x = strided.random.default_rng(0).beta(2.0, 2.0, 20_000)
        >>> round(float(x.mean()), 1)
        0.5
        """
        device = _check_device(device)
        a = _param(a, "a", "beta", device)
        b = _param(b, "b", "beta", device)
        _require(
            ~(a > 0) if isinstance(a, _core.TensorBase) else not a > 0,
            "beta",
            "a <= 0",
            "a must be > 0",
        )
        _require(
            ~(b > 0) if isinstance(b, _core.TensorBase) else not b > 0,
            "beta",
            "b <= 0",
            "b must be > 0",
        )
        shape = _shape("beta", size, a, b)
        lx = self._log_standard_gamma(a, shape, device)
        ly = self._log_standard_gamma(b, shape, device)
        top = _s.maximum(lx, ly)  # X / (X + Y) scaled by exp(-top): nothing overflows
        x, y = _s.exp(lx - top), _s.exp(ly - top)
        return x / (x + y)

    def dirichlet(self, alpha, size=None, *, device=None):
        """Dirichlet values: each row G(alpha_i) / sum_j G(alpha_j), from the gammas' logs.

        Parameters
        ----------
        alpha : sequence of floats, length k
            All > 0.
        size : int or tuple of ints, optional
            The result has shape ``size + (k,)``.

        Examples
        --------
        >>> import strided
        >>> x = strided.random.default_rng(0).dirichlet([1.0, 2.0, 3.0], 4)
        >>> x.shape, bool(abs(x.sum(axis=1) - 1).max() < 1e-12)
        ((4, 3), True)
        """
        device = _check_device(device)
        al = np.asarray(
            alpha.numpy() if isinstance(alpha, _core.TensorBase) else alpha, dtype=np.float64
        )
        if al.ndim != 1:
            raise ValueError(f"dirichlet: alpha must be 1-D, got shape {al.shape}")
        if not (al > 0).all():
            raise ValueError("dirichlet: alpha <= 0 (every alpha must be > 0)")
        from strided.random import _size

        shape = _size(size, "dirichlet") + (al.shape[0],)
        if al.shape[0] == 0 or math.prod(shape) == 0:
            return _s.zeros(shape, dtype=float64, device=device)
        lg = self._log_standard_gamma(_s.asarray(al, device=device), shape, device)
        w = _s.exp(lg - _s.max(lg, axis=-1, keepdims=True))
        return w / _s.sum(w, axis=-1, keepdims=True)

    # -- discrete ---------------------------------------------------------------------------

    def poisson(self, lam=1.0, size=None, *, device=None):
        """Poisson values (int64) of mean ``lam >= 0``: inversion below a mean of 10,
        Hörmann's transformed rejection with squeeze (PTRS, as NumPy) above.

        Examples
        --------
        >>> import strided
        >>> x = strided.random.default_rng(0).poisson(4.0, 20_000)
        >>> x.dtype, round(float(x.mean()))
        (strided.int64, 4)
        """
        device = _check_device(device)
        lam = _param(lam, "lam", "poisson", device)
        bad = ~(lam >= 0) if isinstance(lam, _core.TensorBase) else not lam >= 0
        _require(bad, "poisson", "lam < 0 or lam is NaN", "lam must be >= 0")
        _require(lam > 1e10, "poisson", "lam value too large", "lam must be <= 1e10")
        shape = _shape("poisson", size, lam)
        n = math.prod(shape)
        lf = _s.broadcast_to(_s.asarray(lam, dtype=float64, device=device), shape).reshape(-1)
        out = _s.zeros((n,), dtype=float64, device=device)
        small = lf < 10
        for mask, sampler in ((small, self._poisson_inversion), (~small, self._poisson_ptrs)):
            idx = _s.arange(n, device=device)[mask]
            if idx.shape[0]:
                out[idx] = sampler(lf[idx], device)
        return out.reshape(shape).astype(int64)

    def _poisson_inversion(self, lam, device):
        """Poisson by inversion: one uniform each, then a CDF term per round over the
        elements whose uniform lies beyond the CDF so far."""
        return self._walk_cdf(_s.exp(-lam), math.inf, lambda k, a: lam[a] / k, device)

    def _walk_cdf(self, p0, stop, ratio, device):
        """Inversion of a discrete CDF: k is the first index whose cumulative probability
        reaches an open uniform; p_k = p_{k-1} * ratio(k, active). Rounds run over the active
        elements only; an element stops when its term underflows to 0, or at k == stop."""
        m = p0.shape[0]
        out = _s.zeros((m,), dtype=float64, device=device)
        u = self._open_uniform((m,), device)
        act = _s.arange(m, device=device)[u > p0]
        u, p, s, k = u[act], p0[act], p0[act], 1.0
        while act.shape[0]:
            p = p * ratio(k, act)
            s = s + p
            cap = _pick(stop, act)
            done = (u <= s) | (p <= 0) | (k >= cap)
            out[act[done]] = k
            keep = ~done
            act, u, p, s = act[keep], u[keep], p[keep], s[keep]
            k += 1.0
        return out

    # Note [The full test on the few]
    # ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
    # PTRS and BTRS accept most candidates (~86%) by a quick test of the two uniforms; the rest
    # need the full one, two logs and one or two log-factorials (Stirling's series: ~20 ops).
    # Computed over every candidate, that full test was most of a round; now it runs only on
    # the candidates the quick test left and that are in range (``nonzero`` of the mask, then
    # the ops on those), and writes its verdict into theirs. Each value is an elementwise
    # function of the same inputs either way, so the numbers drawn are the same bits. 1e6
    # draws, 2 threads, medians of 5 alternated with the old form in one process (a busy
    # machine): binomial(100, 0.3) 134 -> 74 ms (PyTorch 50), poisson(40) 44 -> 42 ms (PyTorch
    # 35; PTRS's full test is one log-factorial, not two). The rest of a round is the fills,
    # the gathers of the pending elements' parameters and the bookkeeping of who is left.
    def _poisson_ptrs(self, lam, device):
        """Poisson of mean >= 10 by PTRS (Hörmann 1993), in rounds of rejection."""
        out = _s.zeros(lam.shape, dtype=float64, device=device)
        slam, loglam = _s.sqrt(lam), _s.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        log_invalpha = _s.log(1.1239 + 1.1328 / (b - 3.4))
        vr = 0.9277 - 3.6224 / (b - 2)
        idx = _s.arange(lam.shape[0], device=device)
        while idx.shape[0]:
            m = idx.shape[0]
            la, aa, bb = lam[idx], a[idx], b[idx]
            u = self._open_uniform((m,), device) - 0.5
            v = self._open_uniform((m,), device)
            us = 0.5 - _s.abs(u)
            k = _s.floor((2 * aa / us + bb) * u + la + 0.43)
            ok = (us >= 0.07) & (v <= vr[idx])  # PTRS's quick acceptance: most candidates
            # the full test only where it decides (Note [The full test on the few])
            j = _s.nonzero(~ok & (k >= 0) & ~((us < 0.013) & (v > us)))[0]
            if j.shape[0]:
                kj, uj, ij = k[j], us[j], idx[j]
                lhs = _s.log(v[j]) + log_invalpha[ij] - _s.log(aa[j] / (uj * uj) + bb[j])
                ok[j] = lhs <= -la[j] + kj * loglam[ij] - _log_factorial(kj)
            out[idx[ok]] = k[ok]
            idx = idx[~ok]
        return out

    def binomial(self, n, p, size=None, *, device=None):
        """Binomial values (int64): successes in ``n`` trials of probability ``p``. Inversion
        when ``n * min(p, 1 - p) < 10``, Hörmann's BTRS rejection above.

        Examples
        --------
        >>> import strided
        >>> x = strided.random.default_rng(0).binomial(100, 0.3, 20_000)
        >>> x.dtype, round(float(x.mean()))
        (strided.int64, 30)
        """
        device = _check_device(device)
        nn = _param(n, "n", "binomial", device, int64)
        p = _param(p, "p", "binomial", device)
        _require(nn < 0, "binomial", "n < 0", "n must be >= 0")
        bad = ~((p >= 0) & (p <= 1)) if isinstance(p, _core.TensorBase) else not 0 <= p <= 1
        _require(bad, "binomial", "p < 0, p > 1 or p is NaN", "p must be in [0, 1]")
        shape = _shape("binomial", size, nn, p)
        return self._binomial(nn, p, shape, device)

    def _binomial(self, n, p, shape, device):
        size = math.prod(shape)

        def flat(x):
            t = _s.asarray(x, dtype=float64, device=device)
            return _s.broadcast_to(t, shape).reshape(-1)

        nf, pf = flat(n), flat(p)
        flip = pf > 0.5
        q = _s.where(flip, 1.0 - pf, pf)  # the smaller of p and 1 - p
        out = _s.zeros((size,), dtype=float64, device=device)
        small = nf * q < 10
        for mask, sampler in ((small, self._binomial_inversion), (~small, self._binomial_btrs)):
            idx = _s.arange(size, device=device)[mask]
            if idx.shape[0]:
                out[idx] = sampler(nf[idx], q[idx], device)
        out = _s.where(flip, nf - out, out)
        return out.reshape(shape).astype(int64)

    def _binomial_inversion(self, n, p, device):
        """Binomial by inversion: P(0) = (1 - p)**n, P(k) = P(k-1) * (n - k + 1) p / (k q)."""
        q = 1.0 - p
        p0 = _s.exp(n * _s.log1p(-p))
        r = p / q
        return self._walk_cdf(p0, n, lambda k, a: (n[a] - k + 1.0) * r[a] / k, device)

    def _binomial_btrs(self, n, p, device):
        """Binomial with n p >= 10 and p <= 1/2 by BTRS (Hörmann 1993), in rounds."""
        out = _s.zeros(n.shape, dtype=float64, device=device)
        q = 1.0 - p
        spq = _s.sqrt(n * p * q)
        b = 1.15 + 2.53 * spq
        a = -0.0873 + 0.0248 * b + 0.01 * p
        c = n * p + 0.5
        vr = 0.92 - 4.2 / b
        log_alpha = _s.log((2.83 + 5.1 / b) * spq)
        lpq = _s.log(p / q)
        m = _s.floor((n + 1) * p)
        h = _log_factorial(m) + _log_factorial(n - m)
        idx = _s.arange(n.shape[0], device=device)
        while idx.shape[0]:
            cnt = idx.shape[0]
            nn, aa, bb = n[idx], a[idx], b[idx]
            u = self._open_uniform((cnt,), device) - 0.5
            v = self._open_uniform((cnt,), device)
            us = 0.5 - _s.abs(u)
            k = _s.floor((2 * aa / us + bb) * u + c[idx])
            ok = (us >= 0.07) & (v <= vr[idx])  # BTRS's quick acceptance: most candidates
            # the full test only where it decides (Note [The full test on the few])
            j = _s.nonzero(~ok & (k >= 0) & (k <= nn))[0]
            if j.shape[0]:
                kj, uj, nj, ij = k[j], us[j], nn[j], idx[j]
                lhs = _s.log(v[j]) + log_alpha[ij] - _s.log(aa[j] / (uj * uj) + bb[j])
                rhs = h[ij] - _log_factorial(kj) - _log_factorial(nj - kj) + (kj - m[ij]) * lpq[ij]
                ok[j] = lhs <= rhs
            out[idx[ok]] = k[ok]
            idx = idx[~ok]
        return out

    def multinomial(self, n, pvals, size=None, *, device=None):
        """Multinomial counts (int64, last axis of length ``len(pvals)``) by conditional
        binomials: category j gets Binomial(n left, p_j / (p_j + ... + p_k)).

        Examples
        --------
        >>> import strided
        >>> x = strided.random.default_rng(0).multinomial(20, [0.2, 0.3, 0.5], size=4)
        >>> x.shape, x.sum(axis=1).tolist()
        ((4, 3), [20, 20, 20, 20])
        """
        device = _check_device(device)
        pv = np.asarray(
            pvals.numpy() if isinstance(pvals, _core.TensorBase) else pvals, dtype=np.float64
        )
        if pv.ndim != 1:
            raise ValueError(f"multinomial: pvals must be 1-D, got shape {pv.shape}")
        if not ((pv >= 0) & (pv <= 1)).all():
            raise ValueError("multinomial: pvals < 0, pvals > 1 or pvals contains NaNs")
        if pv[:-1].sum() > 1.0 + 1e-12:
            raise ValueError("multinomial: sum(pvals[:-1]) > 1.0 (the probabilities must sum to 1)")
        nn = _param(n, "n", "multinomial", device, int64)
        _require(nn < 0, "multinomial", "n < 0", "n must be >= 0")
        shape = _shape("multinomial", size, nn)
        k = pv.shape[0]
        left = _s.broadcast_to(_s.asarray(nn, dtype=int64, device=device), shape)
        cols, rest = [], 1.0
        for j in range(k - 1):
            pj = min(max(pv[j] / rest, 0.0), 1.0) if rest > 0 else 0.0
            x = self._binomial(left, pj, shape, device)
            cols.append(x)
            left = left - x
            rest -= pv[j]
        if k:
            cols.append(left)
        return _s.stack(cols, axis=-1) if cols else _s.zeros(shape + (0,), dtype=int64)

    def multivariate_normal(
        self, mean, cov, size=None, check_valid="warn", tol=1e-8, *, method="svd", device=None
    ):
        """Multivariate normal values: ``mean + Z @ A`` with ``A.T @ A == cov``, A from the
        SVD (NumPy's default), ``eigh`` or ``cholesky`` of ``cov``.

        Examples
        --------
        >>> import strided
        >>> rng = strided.random.default_rng(0)
        >>> rng.multivariate_normal([0.0, 1.0], [[1.0, 0.5], [0.5, 1.0]], 3).shape
        (3, 2)
        """
        device = _check_device(device)
        fn = "multivariate_normal"
        mu = _s.asarray(mean, dtype=float64, device=device)
        c = _s.asarray(cov, dtype=float64, device=device)
        if mu.ndim != 1:
            raise ValueError(f"{fn}: mean must be 1 dimensional, got shape {mu.shape}")
        if c.ndim != 2 or c.shape[0] != c.shape[1]:
            raise ValueError(f"{fn}: cov must be 2 dimensional and square, got shape {c.shape}")
        if mu.shape[0] != c.shape[0]:
            raise ValueError(
                f"{fn}: mean and cov must have same length, got {mu.shape[0]} and {c.shape[0]}"
            )
        if check_valid not in ("warn", "raise", "ignore"):
            raise ValueError(f"{fn}: check_valid must equal 'warn', 'raise', or 'ignore'")
        if method not in ("svd", "eigh", "cholesky"):
            raise ValueError(f"{fn}: method must be one of {{'eigh', 'svd', 'cholesky'}}")
        from strided.random import _size

        shape = _size(size, fn)
        k = mu.shape[0]
        if method == "cholesky":
            factor = _s.linalg.cholesky(c).mT
        else:
            if method == "svd":
                _, s, vh = _s.linalg.svd(c)
            else:
                s, v = _s.linalg.eigh(c)
                vh = v.mT
            if check_valid != "ignore":
                psd = _s.allclose((vh.mT * s) @ vh, c, rtol=tol, atol=tol) and (
                    method == "svd" or bool(_s.all(s >= -tol))
                )
                if not psd:
                    msg = f"{fn}: covariance is not symmetric positive-semidefinite."
                    if check_valid == "raise":
                        raise ValueError(msg)
                    warnings.warn(msg, RuntimeWarning, stacklevel=2)
            factor = _s.sqrt(_s.abs(s))[:, None] * vh
        z = self.normal(0.0, 1.0, shape + (k,), float64, device)
        return mu + z @ factor

    # -- sampling from sequences ------------------------------------------------------------

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        """Random samples of ``a`` (a tensor, array-like, or an int n meaning ``arange(n)``).

        With replacement: uniform indices, or by ``p`` through its CDF. Without: the first
        ``size`` of a random permutation, or, with ``p``, the ``size`` smallest keys ``E_i /
        p_i`` (E standard exponential), which picks items one after another with probability
        proportional to the p of those left, as NumPy does.

        Examples
        --------
        >>> import strided
        >>> rng = strided.random.default_rng(0)
        >>> rng.choice(5, 3, replace=False).shape
        (3,)
        >>> rng.choice([10, 20, 30], size=4, p=[0.0, 1.0, 0.0]).tolist()
        [20, 20, 20, 20]
        """
        fn = "choice"
        from strided.random import _size

        if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
            pop, arr = int(a), None
            if pop < 0:
                raise ValueError(f"{fn}: a must be a positive integer unless no samples are taken")
        else:
            arr = a if isinstance(a, _core.TensorBase) else _s.asarray(a)
            if arr.ndim == 0:
                raise ValueError(f"{fn}: a must be a sequence or an integer, not a 0-d array")
            axis = operator.index(axis)
            if not -arr.ndim <= axis < arr.ndim:
                raise ValueError(f"{fn}: axis {axis} is out of bounds for a of {arr.ndim} dims")
            axis %= arr.ndim
            pop = arr.shape[axis]
        shape = _size(size, fn)
        count = math.prod(shape)
        device = arr.device if arr is not None else None
        if p is not None:
            pp = np.asarray(p.numpy() if isinstance(p, _core.TensorBase) else p, dtype=np.float64)
            if pp.ndim != 1:
                raise ValueError(f"{fn}: p must be 1-dimensional")
            if pp.shape[0] != pop:
                raise ValueError(f"{fn}: a and p must have same size ({pop} and {pp.shape[0]})")
            if not (pp >= 0).all():
                raise ValueError(f"{fn}: probabilities are not non-negative")
            if abs(math.fsum(pp) - 1.0) > math.sqrt(np.finfo(np.float64).eps):
                raise ValueError(f"{fn}: probabilities do not sum to 1 (sum(p) = {pp.sum()})")
        if count and pop == 0:
            raise ValueError(f"{fn}: a cannot be empty unless no samples are taken")
        if not replace and count > pop:
            raise ValueError(
                f"{fn}: cannot take a larger sample than population when replace is False "
                f"({count} > {pop})"
            )
        if replace:
            if count == 0:
                idx = _s.zeros(shape, dtype=int64, device=device)
            elif p is None:
                idx = self.integers(0, pop, shape, int64, device=device)
            else:
                cdf = np.cumsum(pp)
                cdf /= cdf[-1]
                u = self.uniform(0.0, 1.0, shape, float64, device)
                idx = _s.searchsorted(_s.asarray(cdf, device=device), u, side="right")
                idx = _s.minimum(idx, pop - 1)  # rounding at the top of the CDF
        else:
            if p is None:
                perm = self.permutation(pop)
            else:
                if int((pp > 0).sum()) < count:
                    raise ValueError(f"{fn}: fewer non-zero entries in p than size")
                pt = _s.asarray(pp)
                keys = _s.where(pt > 0, self._exp1((pop,)) / _s.where(pt > 0, pt, 1.0), math.inf)
                perm = _s.argsort(keys, stable=True)
            idx = perm[:count]
            if not shuffle:
                idx = _s.sort(idx)
            idx = idx.reshape(shape).to(device)
        if arr is None:
            return idx
        return _s.take(arr, idx.reshape(-1), axis=axis).reshape(
            arr.shape[:axis] + shape + arr.shape[axis + 1 :]
        )

    def permuted(self, x, *, axis=None, out=None):
        """``x`` with each slice along ``axis`` shuffled independently (the whole flattened
        array when ``axis`` is None), by sorting random 63-bit keys.

        Examples
        --------
        >>> import strided
        >>> y = strided.random.default_rng(0).permuted(strided.arange(12).reshape(3, 4), axis=1)
        >>> y.sort(axis=1); y.tolist()
        [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
        """
        t = x if isinstance(x, _core.TensorBase) else _s.asarray(x)
        if axis is None:
            flat = t.reshape(-1)
            keys = self.integers(0, 2**63, flat.shape, int64, device=t.device)
            res = _s.take(flat, _s.argsort(keys, stable=True)).reshape(t.shape)
        else:
            keys = self.integers(0, 2**63, t.shape, int64, device=t.device)
            res = _s.take_along_axis(t, _s.argsort(keys, axis=axis, stable=True), axis=axis)
        if out is None:
            return res
        if not isinstance(out, _core.TensorBase) or tuple(out.shape) != tuple(t.shape):
            raise ValueError("permuted: out must be a tensor of the same shape as x")
        out.copy_(res)
        return out

    def bytes(self, length):
        """``length`` random bytes.

        Examples
        --------
        >>> import strided
        >>> len(strided.random.default_rng(0).bytes(10))
        10
        """
        n = operator.index(length)
        if n < 0:
            raise ValueError(f"bytes: length must be >= 0, got {n}")
        return self.integers(0, 256, (n,), "uint8").numpy().tobytes()
