"""strided.linalg's LAPACK functions (solve, inv, det, slogdet, cholesky, eigh, eigvalsh, qr)
and the functions composed from them and from the SVD (pinv, matrix_rank, matrix_power, cond,
lstsq, multi_dot, norm, cross, tensorinv, tensorsolve), against numpy.linalg: every layout
(tests/layouts.py), the four LAPACK dtypes and the integer and bool inputs that promote, empty
batches and 0x0 matrices, broadcast batches, and each bad input's exception.

Factors that are unique only up to signs or phases (Q and R, eigenvectors) are compared
through what is unique: products that rebuild the input, and absolute values."""

from __future__ import annotations

import numpy as np
import pytest
from devices import GPU_ONLY
from layouts import layouts, make_layout

import strided

L = strided.linalg
FLOATS = (strided.float32, strided.float64, strided.complex64, strided.complex128)
PROMOTED = (strided.int64, strided.bool)


def _tol(dtype):
    return 2e-3 if dtype in (np.float32, np.complex64) else 1e-9


def _random(shape, dtype, rng):
    """Well-conditioned values of ``dtype`` (a strided dtype) for ``shape``."""
    np_dtype = np.dtype(dtype.numpy) if hasattr(dtype, "numpy") else np.dtype(dtype.name)
    if np_dtype.kind == "b":
        return rng.random(shape) < 0.5
    if np_dtype.kind in "iu":
        return rng.integers(-4, 5, shape).astype(np_dtype)
    x = rng.standard_normal(shape)
    if np_dtype.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    if len(shape) >= 2 and shape[-1] == shape[-2]:
        x = x + 3 * np.eye(shape[-1])  # away from singular
    return x.astype(np_dtype)


def _hermitian(a):
    """A Hermitian positive-definite matrix per matrix of ``a``."""
    ah = np.conj(np.swapaxes(a, -1, -2))
    return (a @ ah + a.shape[-1] * np.eye(a.shape[-1])).astype(a.dtype)


def _close(got, want, where, dtype=None):
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, f"{where}: shape {g.shape}, NumPy {w.shape}"
    tol = _tol(dtype if dtype is not None else w.dtype)
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=where)


def _agree(fn_s, fn_n, t, a, where):
    """fn_s(t) agrees with fn_n(a), or both raise LinAlgError (a singular layout)."""
    try:
        want = fn_n(a)
    except np.linalg.LinAlgError:
        with pytest.raises(L.LinAlgError):
            fn_s(t)
        return None, None
    return fn_s(t), want


def _layouts_of(ref, rng):
    """tests/layouts.py's layouts of ``ref`` that are still matrices (not the 0-d one)."""
    for name, t, a in layouts(ref, rng):
        if t.ndim >= 2:
            yield name, t, np.asarray(a)


SQUARE = [(3, 4, 4), (5, 5), (2, 1, 1)]


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_det_from_the_factors_in_one_pass(dtype, rng):
    # Note [A determinant from its LU factors in one pass] (lapack.pyx): the real dtypes give
    # the bits of sign * prod(U's diagonal) as ops; sizes on both sides of the small LU's 16
    from strided._ops import elementwise, linalg_solve, reduction

    perm = np.eye(5)[[1, 2, 0, 4, 3]]  # three swaps of rows: det -1
    cases = [_random((40, n, n), dtype, rng) for n in (1, 2, 3, 4, 9, 16, 17)]
    cases += [perm.astype(np.dtype(dtype.numpy)), np.zeros((2, 3, 3), np.dtype(dtype.numpy))]
    cases += [np.ones((3, 0, 0), np.dtype(dtype.numpy)), np.ones((0, 4, 4), np.dtype(dtype.numpy))]
    for a in cases:
        t = strided.asarray(a)
        got = L.det(t)
        _close(got, np.linalg.det(a), f"det {a.shape}", dtype=a.dtype)
        if dtype.kind == "f":
            diag, sign = linalg_solve._lu_diagonal("det", t)
            composed = elementwise.multiply(sign, reduction.prod(diag, axis=-1))
            assert np.array_equal(np.asarray(got), np.asarray(composed)), a.shape


@pytest.mark.parametrize("dtype", FLOATS + PROMOTED, ids=lambda d: d.name)
def test_det_slogdet_inv_solve_match_numpy(dtype, rng):
    for shape in SQUARE:
        for layout, t, a in _layouts_of(_random(shape, dtype, rng), rng):
            where = f"{dtype.name} {layout} {t.shape}"
            if a.shape[-1] != a.shape[-2]:  # the "empty" layout: (3, 0, 4), not square
                for fn_s, fn_n in ((L.det, np.linalg.det), (L.slogdet, np.linalg.slogdet)):
                    with pytest.raises(np.linalg.LinAlgError):
                        fn_n(a)
                    with pytest.raises(L.LinAlgError, match="square"):
                        fn_s(t)
                continue
            got, want = _agree(L.det, np.linalg.det, t, a, where)
            if got is not None:
                _close(got, want, f"det {where}", want.dtype)
                assert np.asarray(got).dtype == want.dtype, where
            sign, logabs = L.slogdet(t)
            wsign, wlog = np.linalg.slogdet(a)
            _close(sign, wsign, f"slogdet sign {where}", wsign.dtype)
            _close(logabs, wlog, f"slogdet logabsdet {where}", wlog.dtype)
            assert np.asarray(logabs).dtype == wlog.dtype, where
            got, want = _agree(L.inv, np.linalg.inv, t, a, where)
            if got is not None:
                _close(got, want, f"inv {where}", want.dtype)
            b = _random(a.shape[:-1] + (2,), dtype, rng)
            got, want = _agree(
                lambda x, b=b: L.solve(x, strided.asarray(b)),
                lambda x, b=b: np.linalg.solve(x, b),
                t,
                a,
                where,
            )
            if got is not None:
                _close(got, want, f"solve {where}", want.dtype)
            v = _random(a.shape[-1:], dtype, rng)
            got, want = _agree(
                lambda x, v=v: L.solve(x, strided.asarray(v)),
                lambda x, v=v: np.linalg.solve(x, v),
                t,
                a,
                where,
            )
            if got is not None:
                _close(got, want, f"solve vector {where}", want.dtype)


def test_solve_broadcasts_batches(rng):
    a = _random((4, 1, 3, 3), strided.float64, rng)
    b = _random((5, 3, 2), strided.float64, rng)
    _close(L.solve(strided.asarray(a), strided.asarray(b)), np.linalg.solve(a, b), "broadcast")
    single = _random((3, 3), strided.float64, rng)
    _close(L.solve(strided.asarray(single), strided.asarray(b)), np.linalg.solve(single, b), "2")
    # the batch of a broadcast (expanded) input, as a stride-0 dim
    t = strided.asarray(single).expand(6, 3, 3)
    _close(L.inv(t), np.linalg.inv(np.broadcast_to(single, (6, 3, 3))), "expanded batch")


def test_singular_and_degenerate_matrices_behave_as_numpys():
    sing = np.array([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]]])
    t = strided.asarray(sing)
    _close(L.det(t), np.linalg.det(sing), "det of a singular matrix")
    sign, logabs = L.slogdet(t)
    assert np.asarray(sign)[0] == 0 and np.asarray(logabs)[0] == -np.inf
    with pytest.raises(L.LinAlgError, match=r"matrix \(0,\) of the batch is singular"):
        L.inv(t)
    with pytest.raises(ValueError):  # LinAlgError is a ValueError, as NumPy's
        L.solve(t, strided.ones((2, 2)))
    with pytest.raises(L.LinAlgError, match="not positive definite"):
        L.cholesky(strided.asarray([[1.0, 2.0], [2.0, 1.0]]))
    # empty batches and 0x0 matrices
    for shape in [(0, 3, 3), (2, 0, 0)]:
        a = np.ones(shape)
        t = strided.asarray(a)
        _close(L.det(t), np.linalg.det(a), f"det {shape}")
        _close(L.inv(t), np.linalg.inv(a), f"inv {shape}")
        _close(L.slogdet(t).logabsdet, np.linalg.slogdet(a).logabsdet, f"slogdet {shape}")
        _close(L.eigvalsh(t), np.linalg.eigvalsh(a), f"eigvalsh {shape}")
        _close(L.cholesky(t), np.linalg.cholesky(a), f"cholesky {shape}")
    # NaN gives NaN, not a crash, as in NumPy
    nan = np.array([[np.nan, 1.0], [1.0, 2.0]])
    assert np.isnan(np.asarray(L.det(strided.asarray(nan))))


@pytest.mark.parametrize("dtype", (strided.float32, strided.float64), ids=lambda d: d.name)
def test_small_matrix_loops_agree_with_lapack_on_both_sides_of_the_cutoff(dtype, rng):
    # Note [Small matrices without LAPACK]: real square matrices of up to 16 rows take
    # strided's own ?getf2/?getrs/?potf2 loops, bigger ones LAPACK; both agree with NumPy,
    # find the same singular matrix (a batch of 40 runs across the threads) and the same
    # not-positive-definite one
    for n in (1, 2, 3, 7, 16, 17):
        a = _random((40, n, n), dtype, rng)
        b = _random((40, n, 3), dtype, rng)
        t = strided.asarray(a)
        where = f"{dtype.name} n={n}"
        _close(L.solve(t, strided.asarray(b)), np.linalg.solve(a, b), f"solve {where}")
        _close(L.inv(t), np.linalg.inv(a), f"inv {where}")
        _close(L.det(t), np.linalg.det(a), f"det {where}")
        h = _hermitian(a)
        for upper in (False, True):
            want = np.linalg.cholesky(h, upper=upper)
            _close(L.cholesky(strided.asarray(h), upper=upper), want, f"cholesky {where}")
        sing = a.copy()
        sing[27, :, -1] = sing[27, :, 0] if n > 1 else 0  # two equal columns: exactly singular
        if n <= 16:  # strided's loops find the zero pivot (LAPACK's blocked ?getrf may not)
            sign, logabs = L.slogdet(strided.asarray(sing))
            assert np.asarray(sign)[27] == 0 and np.asarray(logabs)[27] == -np.inf, where
            with pytest.raises(L.LinAlgError, match=r"matrix \(27,\) of the batch is singular"):
                L.inv(strided.asarray(sing))
        h[31] = -h[31]  # negative definite
        with pytest.raises(L.LinAlgError, match=r"\(31,\).*not positive definite"):
            L.cholesky(strided.asarray(h))
        # QR, any shape up to 16 x 16: the same reflectors as LAPACK's, so the same signs
        for shape in [(40, n, n), (40, n + 2, n), (40, n, n + 2), (3, 17, n)]:
            g = _random(shape, dtype, rng)
            g[0] = 0  # a zero matrix: every reflector is the identity (tau 0)
            for mode in ("reduced", "complete"):
                q, r = L.qr(strided.asarray(g), mode=mode)
                wq, wr = np.linalg.qr(g, mode=mode)
                _close(q, wq, f"qr {mode} Q {where} {shape}")
                _close(r, wr, f"qr {mode} R {where} {shape}")


@pytest.mark.parametrize("dtype", FLOATS + PROMOTED, ids=lambda d: d.name)
def test_cholesky_and_eigh_match_numpy(dtype, rng):
    for shape in SQUARE:
        base = _random(shape, dtype, rng)
        h = _hermitian(
            base.astype(np.result_type(base.dtype, np.float64))
            if base.dtype.kind in "biu"
            else base
        )
        for layout, t, a in _layouts_of(h, rng):
            where = f"{dtype.name} {layout} {t.shape}"
            if a.shape[-1] != a.shape[-2]:
                with pytest.raises(L.LinAlgError, match="square"):
                    L.eigh(t)
                continue
            for upper in (False, True):
                got, want = _agree(
                    lambda x, u=upper: L.cholesky(x, upper=u),
                    lambda x, u=upper: np.linalg.cholesky(x, upper=u),
                    t,
                    a,
                    where,
                )
                if got is not None:
                    _close(got, want, f"cholesky upper={upper} {where}", want.dtype)
            for uplo in ("L", "U"):
                w, v = L.eigh(t, UPLO=uplo)
                ww, wv = np.linalg.eigh(a, UPLO=uplo)
                _close(w, ww, f"eigh values {where}", ww.dtype)
                assert np.asarray(w).dtype == ww.dtype and np.asarray(v).dtype == wv.dtype, where
                v = np.asarray(v)
                # the eigenvectors are orthonormal and diagonalise the triangle read
                ident = np.conj(np.swapaxes(v, -1, -2)) @ v
                _close(ident, np.broadcast_to(np.eye(a.shape[-1]), ident.shape), where, ww.dtype)
                tri = np.tril(a) if uplo == "L" else np.triu(a)
                herm = tri + np.conj(np.swapaxes(tri, -1, -2)) - np.real(tri * np.eye(a.shape[-1]))
                rebuilt = (v * np.asarray(w)[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2))
                _close(rebuilt, herm, f"eigh rebuilt {where}", ww.dtype)
                _close(L.eigvalsh(t, UPLO=uplo), ww, f"eigvalsh {where}", ww.dtype)


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64], ids=lambda d: d.name)
def test_small_eigh_by_jacobi_matches_numpy(dtype, rng):
    # Note [Small symmetric eigenproblems by Jacobi]: real matrices of up to 8 rows (5 for
    # eigvalsh); larger ones go to LAPACK. Repeated eigenvalues, a rank-1 matrix, extreme
    # scales, and inf/NaN matrices (declined: LAPACK's answer, NumPy's) inside a batch of
    # finite ones.
    npd = np.dtype(dtype.name)
    big = 1e30 if npd == np.float32 else 1e150
    for n in (1, 2, 3, 4, 5, 6, 8, 9):
        g = rng.standard_normal((6, n, n)).astype(npd)
        batch = g + np.swapaxes(g, -1, -2)
        batch[1] = np.eye(n)  # one eigenvalue n times
        batch[2] = np.diag(np.repeat([2.0, -1.0], (n + 1) // 2)[:n])
        batch[3] = np.outer(np.arange(1, n + 1), np.arange(1, n + 1))  # rank 1
        batch[4] *= big
        batch[5] /= big
        for a in (batch, batch.copy()):
            w, v = L.eigh(strided.asarray(a))
            ww = np.linalg.eigvalsh(a)
            w, v = np.asarray(w), np.asarray(v)
            scale = np.abs(ww).max(axis=-1, keepdims=True)
            tol = 20 * n * np.finfo(npd).eps
            assert np.all(np.abs(w - ww) <= tol * scale), f"n={n} {dtype.name}"
            assert np.all(np.diff(w, axis=-1) >= 0), "ascending"
            ident = np.swapaxes(v, -1, -2) @ v
            assert np.allclose(ident, np.eye(n), atol=tol), f"n={n}: orthonormal"
            rebuilt = (v * w[..., None, :]) @ np.swapaxes(v, -1, -2)
            assert np.all(np.abs(rebuilt - a) <= tol * scale[..., None]), f"n={n}: rebuilt"
            values = np.asarray(L.eigvalsh(strided.asarray(a)))
            if n <= 5:  # the same rotations without the vectors: the same values
                np.testing.assert_array_equal(values, w)
            assert np.all(np.abs(values - ww) <= tol * scale), f"n={n}: eigvalsh"
        bad = batch[:3].copy()
        bad[1, 0, 0] = np.nan
        bad[2, -1, -1] = np.inf
        w, v = L.eigh(strided.asarray(bad))
        ww, wv = np.linalg.eigh(bad)
        np.testing.assert_array_equal(np.isnan(np.asarray(w)), np.isnan(ww), f"n={n}")
        np.testing.assert_array_equal(np.isnan(np.asarray(v)), np.isnan(wv), f"n={n}")
        np.testing.assert_allclose(np.asarray(w)[0], ww[0], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype", [strided.float32, strided.float64], ids=lambda d: d.name)
def test_small_svd_by_one_sided_jacobi(dtype, rng):
    # Note [Small SVDs by one-sided Jacobi]: real matrices of up to 8 x 8, tall, wide and
    # square; 9 goes to LAPACK. Rank-deficient, zero, 1e+-30-scaled matrices, both modes.
    npd = np.dtype(dtype.name)
    big = 1e30 if npd == np.float32 else 1e150
    for m, n in [(1, 1), (1, 5), (5, 1), (3, 3), (4, 4), (6, 3), (3, 7), (8, 8), (9, 4)]:
        batch = rng.standard_normal((5, m, n)).astype(npd)
        batch[1] = 0
        batch[2][:, -1] = batch[2][:, 0]  # two equal columns
        batch[2][-1] = batch[2][0]  # two equal rows
        batch[3] *= big
        batch[4] /= big
        sv = np.linalg.svd(batch, compute_uv=False)
        scale = sv.max(axis=-1, keepdims=True)
        tol = 30 * max(m, n) * np.finfo(npd).eps
        for full in (False, True):
            u, s_, vh = (np.asarray(t) for t in L.svd(strided.asarray(batch), full_matrices=full))
            k = min(m, n)
            assert u.shape == (5, m, m if full else k) and vh.shape == (5, n if full else k, n)
            assert np.all(np.abs(s_ - sv) <= tol * scale), f"{m}x{n} full={full}"
            assert np.all(np.diff(s_, axis=-1) <= 0), "descending"
            for f in (u, np.swapaxes(vh, -1, -2)):  # orthonormal columns
                gram = np.swapaxes(f, -1, -2) @ f
                assert np.allclose(gram, np.eye(f.shape[-1]), atol=tol), f"{m}x{n} {full}"
            rebuilt = (u[..., :, :k] * s_[..., None, :]) @ vh[..., :k, :]
            assert np.all(np.abs(rebuilt - batch) <= tol * scale[..., None]), f"{m}x{n}"
        values = np.asarray(L.svdvals(strided.asarray(batch)))
        assert np.all(np.abs(values - sv) <= tol * scale), f"{m}x{n} svdvals"
    bad = rng.standard_normal((3, 4, 4)).astype(npd)
    bad[1, 2, 2] = np.nan  # declined: LAPACK refuses it, and svd says which matrix
    with pytest.raises(ValueError, match="matrix 1 of the batch"):
        L.svd(strided.asarray(bad))
    bad[1, 2, 2] = np.inf  # declined: LAPACK's NaN values, NumPy's
    np.testing.assert_array_equal(
        np.isnan(np.asarray(L.svdvals(strided.asarray(bad)))),
        np.isnan(np.linalg.svd(bad, compute_uv=False)),
    )


@pytest.mark.parametrize("dtype", FLOATS + PROMOTED, ids=lambda d: d.name)
def test_qr_matches_numpy(dtype, rng):
    for shape in [(3, 5, 3), (3, 3, 5), (4, 4), (2, 0, 3), (3, 0)]:
        for layout, t, a in _layouts_of(_random(shape, dtype, rng), rng):
            where = f"{dtype.name} {layout} {t.shape}"
            for mode in ("reduced", "complete"):
                q, r = L.qr(t, mode=mode)
                wq, wr = np.linalg.qr(a, mode=mode)
                assert q.shape == wq.shape and r.shape == wr.shape, f"{mode} {where}"
                assert np.asarray(q).dtype == wq.dtype, where
                _close(np.asarray(q) @ np.asarray(r), a.astype(wq.dtype), f"{mode} Q@R {where}")
                _close(np.abs(np.asarray(r)), np.abs(wr), f"{mode} |R| {where}", wr.dtype)
                qh = np.conj(np.swapaxes(np.asarray(q), -1, -2)) @ np.asarray(q)
                _close(qh, np.broadcast_to(np.eye(q.shape[-1]), qh.shape), where, wq.dtype)
            _close(np.abs(np.asarray(L.qr(t, mode="r"))), np.abs(np.linalg.qr(a, mode="r")), where)


@pytest.mark.parametrize("dtype", FLOATS + PROMOTED, ids=lambda d: d.name)
def test_svd_compositions_match_numpy(dtype, rng):
    for shape in [(3, 5, 3), (4, 4), (3, 0)]:
        for layout, t, a in _layouts_of(_random(shape, dtype, rng), rng):
            where = f"{dtype.name} {layout} {t.shape}"
            if a.dtype.kind in "biu":  # NumPy's pinv and matrix_rank refuse them; same values
                a = a.astype(np.float64)
            want = np.linalg.pinv(a, rtol=None)
            _close(L.pinv(t), want, f"pinv {where}", want.dtype)
            np.testing.assert_array_equal(L.matrix_rank(t), np.linalg.matrix_rank(a), where)
            if a.shape[-1] == a.shape[-2] and a.shape[-1] and layout != "expanded":
                want = np.linalg.cond(a)
                _close(L.cond(t), want, f"cond {where}", want.dtype)
                want = np.linalg.cond(a, "fro")
                _close(L.cond(t, "fro"), want, f"cond fro {where}", want.dtype)
                # (random bool and integer matrices are often singular: no negative powers)
                for p in (0, 1, 3) if dtype.kind in "biu" else (0, 1, 3, -2):
                    want = np.linalg.matrix_power(a, p)
                    _close(L.matrix_power(t, p), want, f"matrix_power {p} {where}", want.dtype)


def test_matrix_rank_tolerances_and_integer_powers():
    a = np.diag([1.0, 1e-3, 1e-17])
    t = strided.asarray(a)
    assert int(L.matrix_rank(t)) == np.linalg.matrix_rank(a) == 2
    assert int(L.matrix_rank(t, rtol=1e-2)) == np.linalg.matrix_rank(a, rtol=1e-2) == 1
    assert int(L.matrix_rank(t, tol=1e-18)) == np.linalg.matrix_rank(a, tol=1e-18) == 3
    m = np.array([[1, 1], [1, 0]])
    np.testing.assert_array_equal(
        L.matrix_power(strided.asarray(m), 10), np.linalg.matrix_power(m, 10)
    )
    assert L.matrix_power(strided.asarray(m), 10).dtype == strided.int64


@pytest.mark.parametrize("dtype", (strided.float64, strided.float32), ids=lambda d: d.name)
def test_lstsq_matches_numpy(dtype, rng):
    for shape, rhs in [((6, 3), (6,)), ((6, 3), (6, 2)), ((3, 6), (3, 2)), ((4, 4), (4,))]:
        b = rng.standard_normal(rhs).astype(dtype.name)
        for layout, t, a in _layouts_of(rng.standard_normal(shape).astype(dtype.name), rng):
            if a.ndim != 2 or a.size == 0 or layout == "expanded":
                continue  # lstsq takes one matrix; "expanded" is rank 1 (NumPy's rank cut
                # and strided's differ in the last bits of such a matrix's tiny values)
            got = L.lstsq(t, strided.asarray(b))
            want = np.linalg.lstsq(a, b)
            for name, g, w in zip(("x", "residuals", "rank", "s"), got, want, strict=True):
                _close(g, w, f"lstsq {name} {layout} {shape} {rhs}", np.asarray(w).dtype)
    rank_deficient = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    got = L.lstsq(strided.asarray(rank_deficient), strided.ones(3))
    want = np.linalg.lstsq(rank_deficient, np.ones(3))
    _close(got[0], want[0], "rank-deficient x")
    assert int(got[2]) == 1 and got[1].shape == (0,)


def test_norm_multi_dot_cross_tensorinv_tensorsolve(rng):
    x = rng.standard_normal((3, 4, 5))
    t = strided.asarray(x)
    _close(L.norm(t), np.linalg.norm(x), "norm")
    for axis, ord in [
        (0, None),
        (2, 1),
        (-1, np.inf),
        ((0, 1), None),
        ((1, 2), "nuc"),
        ((2, 0), 1),
    ]:
        for keep in (False, True):
            want = np.linalg.norm(x, ord=ord, axis=axis, keepdims=keep)
            _close(L.norm(t, ord=ord, axis=axis, keepdims=keep), want, f"norm {axis} {ord} {keep}")
    m = x[0]
    for ord in ("fro", "nuc", np.inf, -np.inf, 1, -1, 2, -2):
        _close(L.norm(strided.asarray(m), ord=ord), np.linalg.norm(m, ord=ord), f"norm {ord}")
    mats = [rng.standard_normal(s) for s in [(5,), (5, 30), (30, 2), (2, 7), (7,)]]
    _close(L.multi_dot([strided.asarray(m) for m in mats]), np.linalg.multi_dot(mats), "multi_dot")
    u, v = rng.standard_normal((4, 3)), rng.standard_normal((1, 3))
    _close(L.cross(strided.asarray(u), strided.asarray(v)), np.linalg.cross(u, v), "cross")
    with pytest.raises(ValueError, match="3 elements along axis"):
        L.cross(strided.ones(2), strided.ones(2))
    a = rng.standard_normal((4, 6, 8, 3)) + np.eye(24).reshape(4, 6, 8, 3)
    _close(L.tensorinv(strided.asarray(a), ind=2), np.linalg.tensorinv(a, ind=2), "tensorinv")
    a = rng.standard_normal((6, 2, 3)) + np.eye(6).reshape(6, 2, 3)
    b = rng.standard_normal(6)
    _close(L.tensorsolve(strided.asarray(a), strided.asarray(b)), np.linalg.tensorsolve(a, b), "ts")


def test_bad_input_names_the_problem():
    with pytest.raises(L.LinAlgError, match=r"must be square .* \(2, 3\)"):
        L.det(strided.ones((2, 3)))
    with pytest.raises(L.LinAlgError, match="at least 2 dims"):
        L.inv(strided.ones(3))
    with pytest.raises(L.LinAlgError, match="x2 has 3 rows"):
        L.solve(strided.eye(2), strided.ones((3, 1)))
    with pytest.raises(L.LinAlgError, match="do not broadcast"):
        L.solve(strided.ones((2, 2, 2)), strided.ones((3, 2, 1)))
    with pytest.raises(ValueError, match="mode must be"):
        L.qr(strided.eye(2), mode="economic")
    with pytest.raises(ValueError, match="UPLO"):
        L.eigh(strided.eye(2), UPLO="X")
    with pytest.raises(TypeError, match="n must be an integer"):
        L.matrix_power(strided.eye(2), 1.5)
    with pytest.raises(ValueError, match="tol or rtol"):
        L.matrix_rank(strided.eye(2), tol=1, rtol=1)
    # a failed call leaves its input unchanged
    a = np.array([[4.0, 2.0], [2.0, 5.0]])
    t = strided.asarray(a)
    for fn in (L.inv, L.det, L.cholesky, L.eigh, L.qr, L.slogdet):
        fn(t)
        np.testing.assert_array_equal(np.asarray(t), a)


def test_every_array_api_linalg_name_exists():
    names = (
        "cholesky cross det diagonal eigh eigvalsh inv matmul matrix_norm matrix_power "
        "matrix_rank matrix_transpose outer pinv qr slogdet solve svd svdvals tensordot "
        "trace vecdot vector_norm"
    ).split()
    assert [n for n in names if not hasattr(L, n)] == []
    assert issubclass(L.LinAlgError, ValueError)


def test_cond_of_a_singular_matrix_is_inf():
    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 1.0]]])
    for p in (None, "fro", 1, np.inf):
        want = np.linalg.cond(a, p)
        got = np.asarray(L.cond(strided.asarray(a), p))
        if p is None:
            # the 2-norm condition number is s_max / s_min: LAPACK leaves a rounding residue
            # s_min ~ 1e-16 in NumPy's (cond 2.5e16); the one-sided Jacobi SVD of a small
            # matrix (Note [Small SVDs by one-sided Jacobi]) finds s_min = 0 exactly here
            assert want[0] > 1 / np.finfo(np.float64).eps and np.isinf(got[0])
            got, want = got[1:], want[1:]
        np.testing.assert_allclose(got, want, rtol=1e-12)
        assert np.isinf(got[0]) or p is None


def test_every_function_runs_on_the_emulated_cuda_device(rng):
    """Note [Linear algebra on a CUDA device]: the CPU's results, on the input's device."""
    a = _random((3, 4, 4), strided.float64, rng)
    h = _hermitian(a)
    dev = "cuda-emulated"
    t, th = strided.asarray(a, device=dev), strided.asarray(h, device=dev)
    cpu_t, cpu_h = strided.asarray(a), strided.asarray(h)
    b = strided.asarray(_random((3, 4, 2), strided.float64, rng))
    calls = {
        "det": lambda x, y: L.det(x),
        "slogdet": lambda x, y: L.slogdet(x),
        "inv": lambda x, y: L.inv(x),
        "solve": lambda x, y: L.solve(x, b.to(x.device)),
        "cholesky": lambda x, y: L.cholesky(y),
        "eigh": lambda x, y: L.eigh(y),
        "eigvalsh": lambda x, y: L.eigvalsh(y),
        "qr": lambda x, y: L.qr(x),
        "svd": lambda x, y: L.svd(x),
        "svdvals": lambda x, y: L.svdvals(x),
        "pinv": lambda x, y: L.pinv(x),
        "matrix_rank": lambda x, y: L.matrix_rank(x),
        "matrix_power": lambda x, y: L.matrix_power(x, -2),
        "cond": lambda x, y: L.cond(x, 1),
    }
    for name, fn in calls.items():
        got, want = fn(t, th), fn(cpu_t, cpu_h)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        for g, w in zip(got, want, strict=True):
            assert g.device == strided.device(dev), name
            _close(g.cpu(), w, f"{name} on {dev}", np.asarray(w).dtype)


# The factorisations written once for every device (Note [Linear algebra on a CUDA device]):
# on the emulator their LAPACK call gets the emulated device's own tensors; on a GPU, cuSOLVER.
DEVICE_FUNCTIONS = {
    "det": lambda x, h, b: L.det(x),
    "slogdet": lambda x, h, b: L.slogdet(x),
    "inv": lambda x, h, b: L.inv(x),
    "solve": lambda x, h, b: L.solve(x, b),
    "solve vector": lambda x, h, b: L.solve(x, b[0, :, 0]),
    "solve broadcast": lambda x, h, b: L.solve(x[:1], b),
    "cholesky": lambda x, h, b: L.cholesky(h),
    "cholesky upper": lambda x, h, b: L.cholesky(h, upper=True),
    "eigh": lambda x, h, b: L.eigh(h),
    "eigh U": lambda x, h, b: L.eigh(h, UPLO="U"),
    "eigvalsh": lambda x, h, b: L.eigvalsh(h),
    "qr": lambda x, h, b: L.qr(x),
    "qr complete wide": lambda x, h, b: L.qr(x[..., :2, :], mode="complete"),
    "qr r tall": lambda x, h, b: L.qr(b, mode="r"),
}


def _device_inputs(dtype, rng):
    a = _random((3, 4, 4), dtype, rng)
    # x transposed (a column-major view), h Hermitian positive definite, b stepped
    return a.swapaxes(-1, -2), _hermitian(a), _random((3, 4, 6), dtype, rng)[..., ::2]


def _check_on_device(device, dtype, rng, same_lapack):
    x, h, b = _device_inputs(dtype, rng)
    cpu = [strided.asarray(v) for v in (x, h, b)]
    dev = [strided.asarray(v, device=device) for v in (x, h, b)]
    dev[0] = strided.asarray(np.ascontiguousarray(a := x.swapaxes(-1, -2)), device=device).mT
    assert np.array_equal(np.asarray(dev[0].cpu()), x) and not dev[0].is_contiguous()
    for name, fn in DEVICE_FUNCTIONS.items():
        got, want = fn(*dev), fn(*cpu)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        for g, w in zip(got, want, strict=True):
            where = f"{name} {dtype.name} on {device}"
            assert g.device == strided.device(device), where
            g, w = np.asarray(g.cpu()), np.asarray(w)
            assert g.dtype == w.dtype, where
            if same_lapack:  # the same factors; the reductions after them may round apart
                _close(g, w, where, w.dtype)
            elif name.startswith(("eigh", "qr")) and g.ndim == w.ndim and g.shape[-1] > 1:
                # vectors and Q are unique up to a sign or phase per column (R per row)
                _close(np.abs(g), np.abs(w), where, w.dtype)
            else:
                _close(g, w, where, w.dtype)
    del a


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_factorisations_run_on_the_emulated_device_itself(dtype, rng, monkeypatch):
    from strided._cpu import lapack

    seen = []
    real = lapack.run_batch

    def spy(routine, a, *args):
        seen.append((routine, a.device.type))
        return real(routine, a, *args)

    monkeypatch.setattr(lapack, "run_batch", spy)
    _check_on_device("cuda-emulated", dtype, rng, same_lapack=True)
    # each device call made the same LAPACK calls as its CPU twin, on the emulated device's
    # own tensors: nothing went through a copy to the CPU
    on = {d: sorted(r for r, dev in seen if dev == d) for d in ("cpu", "cuda-emulated")}
    assert on["cuda-emulated"] == on["cpu"] and len(seen) == 2 * len(on["cpu"])
    assert set(on["cpu"]) == {"getrf", "getrs", "potrf", "heevd", "geqrf", "orgqr"}


@pytest.mark.parametrize("device", ["cuda-emulated", pytest.param("cuda", marks=GPU_ONLY)])
def test_singular_and_indefinite_matrices_on_a_device(device, monkeypatch):
    a = np.stack([np.eye(3), np.ones((3, 3)), np.eye(3)])  # matrix 1 of the batch is singular
    t = strided.asarray(a, device=device)
    regular = {"inv": np.eye(3), "solve": np.ones((3, 2))}  # of the eyes, matrices 0 and 2
    ones = strided.ones((3, 3, 2), device=device)
    for name, fn in (("inv", L.inv), ("solve", lambda x: L.solve(x, ones))):
        # Note [One wait for a solve]: found on the device, raised when the host next waits
        got = fn(t)
        with pytest.raises(L.LinAlgError, match=r"matrix \(1,\) of the batch is singular"):
            got.cpu()
        with monkeypatch.context() as m:  # ... or by the op itself, with launch blocking
            m.setenv("STRIDED_CUDA_LAUNCH_BLOCKING", "1")
            with pytest.raises(L.LinAlgError, match=r"matrix \(1,\) .* singular.*found on"):
                fn(t)
        # the other matrices' results are unharmed
        for i in (0, 2):
            np.testing.assert_allclose(np.asarray(got[i].cpu()), regular[name])
    with pytest.raises(L.LinAlgError, match=r"matrix \(1,\) of the batch is not positive"):
        L.cholesky(t)
    sign, logabs = L.slogdet(t)
    assert np.asarray(sign.cpu()).tolist() == [1.0, 0.0, 1.0]
    assert np.asarray(logabs.cpu())[1] == -np.inf
    assert np.asarray(L.det(t).cpu()).tolist() == [1.0, 0.0, 1.0]


@pytest.mark.parametrize("slots", [256, 0], ids=["infos in the slots", "a check's results"])
def test_solve_and_inv_do_not_wait_for_the_device(monkeypatch, slots):
    # Note [One wait for a solve]: the check of getrf's infos is queued before getrs, and on a
    # CUDA device the infos (a small batch's) or the check's results go to the device's check
    # slots: the op never reads the device, and a singular matrix raises when the host next does
    from strided._cpu import lapack
    from strided._ops import linalg_solve
    from strided.cuda._backend import backend_for

    dev = "cuda-emulated"
    events = []
    real_batch = lapack.run_batch
    backend = backend_for(strided.device(dev))
    real_read = backend.copy_to_host

    def batch(routine, *args):
        events.append(routine)
        return real_batch(routine, *args)

    def read(*args):
        events.append("read")
        return real_read(*args)

    monkeypatch.setattr(lapack, "run_batch", batch)
    monkeypatch.setattr(backend, "copy_to_host", read)
    monkeypatch.setattr(linalg_solve, "_INFOS_IN_SLOTS", slots)
    a = np.stack([np.eye(3) * 2, np.eye(3) + 1])
    t = strided.asarray(a, device=dev)
    b = strided.asarray(np.ones((2, 3, 2)), device=dev)
    for fn, want in ((lambda: L.solve(t, b), np.linalg.solve(a, np.ones((2, 3, 2)))),
                     (lambda: L.inv(t), np.linalg.inv(a))):  # fmt: skip
        events.clear()
        got = fn()
        assert events == ["getrf", "getrs"]
        _close(got.cpu(), want, "no wait", np.dtype("float64"))
        assert events == ["getrf", "getrs", "read"]
    singular = strided.asarray(np.stack([np.eye(3), np.ones((3, 3))]), device=dev)
    for fn, first in ((lambda: L.solve(singular, b), np.ones((3, 2))),
                      (lambda: L.inv(singular), np.eye(3))):  # fmt: skip
        events.clear()
        got = fn()
        assert events == ["getrf", "getrs"]
        with pytest.raises(L.LinAlgError, match=r"matrix \(1,\) of the batch is singular"):
            strided.cuda.synchronize(dev)
        assert events == ["getrf", "getrs"]  # the check slots are read without copy_to_host
        _close(got[0].cpu(), first, "the regular matrix", np.dtype("float64"))
    # odd batches, the singular matrix anywhere in its slot, and a single matrix (a 0-d info)
    for count, which, where in ((5, 4, r"matrix \(4,\) of the batch"),
                                (5, 3, r"matrix \(3,\) of the batch"),
                                (1, None, "the matrix")):  # fmt: skip
        mats = np.stack([np.eye(3)] * count)
        mats[which if which is not None else 0] = 1.0
        x = strided.asarray(mats if which is not None else mats[0], device=dev)
        L.inv(x)
        with pytest.raises(L.LinAlgError, match=where + " is singular"):
            strided.cuda.synchronize(dev)
        strided.cuda.synchronize(dev)  # reported once


@GPU_ONLY
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: d.name)
def test_factorisations_on_a_gpu_through_cusolver(dtype, rng):
    """Note [cuSOLVER for a batch of LAPACK calls]: cuSOLVER's results, to the dtype's
    tolerance (it rounds its own way), on the GPU."""
    _check_on_device("cuda", dtype, rng, same_lapack=False)
    # empty matrices: LAPACK's quick return (cuSOLVER itself fails on them)
    for shape in [(0, 5), (5, 0), (0, 0), (2, 0, 0)]:
        a = np.zeros(shape, dtype=dtype.name)
        for mode in ("reduced", "complete", "r"):
            got, want = L.qr(strided.asarray(a, device="cuda"), mode=mode), np.linalg.qr(a, mode)
            if mode == "r":
                got, want = (got,), (want,)
            for g, w in zip(got, want, strict=True):
                assert g.shape == w.shape, (shape, mode)
                np.testing.assert_array_equal(np.asarray(g.cpu()), w)
        if shape[-1] == shape[-2]:
            d = strided.asarray(a, device="cuda")
            assert L.det(d).shape == np.linalg.det(a).shape
            assert L.cholesky(d).shape == a.shape and L.eigvalsh(d).shape == a.shape[:-1]
            assert L.solve(d, d).shape == a.shape


@pytest.mark.parametrize("dtype", FLOATS + PROMOTED, ids=lambda d: d.name)
def test_eig_and_eigvals_match_numpy(dtype, rng):
    for shape in [(3, 5, 5), (4, 4), (2, 1, 1), (0, 3, 3)]:
        for layout, t, a in _layouts_of(_random(shape, dtype, rng), rng):
            where = f"{dtype.name} {layout} {t.shape}"
            if a.shape[-1] != a.shape[-2]:
                with pytest.raises(L.LinAlgError, match="square"):
                    L.eig(t)
                continue
            w, v = L.eig(t)
            ww, wv = np.linalg.eig(a)
            w, v = np.asarray(w), np.asarray(v)
            if layout == "expanded":
                # repeated rows: a many-fold zero eigenvalue, defective, whose rounding decides
                # between tiny real values and a tiny complex pair differently in each LAPACK
                np.testing.assert_allclose(np.sort(np.abs(w)), np.sort(np.abs(ww)), atol=1e-3)
                continue
            assert w.dtype == ww.dtype and v.dtype == wv.dtype, where
            # each pair satisfies a v = w v, with unit-norm vectors
            _close(a.astype(v.dtype) @ v, v * w[..., None, :], f"a v = w v {where}", ww.dtype)
            _close(
                np.linalg.norm(v, axis=-2), np.ones(v.shape[:-2] + v.shape[-1:]), where, ww.dtype
            )
            key = lambda z: np.sort(np.round(z.real, 3) + 1j * np.round(z.imag, 3), axis=-1)  # noqa: E731
            np.testing.assert_allclose(key(w), key(ww), atol=2e-3, err_msg=where)
            np.testing.assert_allclose(key(np.asarray(L.eigvals(t))), key(ww), atol=2e-3)


def test_eig_of_real_matrices_is_real_when_every_eigenvalue_is():
    sym = np.array([[2.0, 1.0], [1.0, 2.0]])
    rot = np.array([[0.0, -1.0], [1.0, 0.0]])
    assert L.eig(strided.asarray(sym)).eigenvalues.dtype == strided.float64
    w, v = L.eig(strided.asarray(rot))
    ww, wv = np.linalg.eig(rot)
    assert w.dtype == strided.complex128
    _close(w, ww, "rotation eigenvalues")
    _close(v, wv, "rotation eigenvectors (LAPACK's normalisation, as NumPy's)")
    # a batch with one complex pair: the whole result is complex, as in NumPy
    both = np.stack([sym, rot])
    assert L.eigvals(strided.asarray(both)).dtype == strided.complex128
    _close(L.eig(strided.asarray(both)).eigenvectors, np.linalg.eig(both).eigenvectors, "batch")


def _grad_inputs(rng, layout):
    """float64 inputs for the gradient checks, in a layout: a well-conditioned batch ``a``,
    right-hand sides ``b``, and a symmetric positive-definite batch ``h``."""
    a = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((2, 3, 2))
    h = a @ np.swapaxes(a, -1, -2) + 3 * np.eye(3)
    out = []
    for x in (a, b, h):
        t = make_layout(layout, x, rng)[0]
        out.append(t.detach().requires_grad_())
    return out


def _rebuilt_from_svd(r):
    return (r.U * r.S[..., None, :]) @ r.Vh


def _abs_factors(r):  # the singular vectors are unique up to sign: differentiate their |.|
    return r.U.abs(), r.S, r.Vh.abs()


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "stepped", "negative-stride"])
def test_gradients_match_finite_differences(layout, rng):
    from strided.autograd import gradcheck, gradgradcheck

    a, b, h = _grad_inputs(rng, layout)

    def sym(x):  # eigh and cholesky read one triangle: differentiate through a symmetric input
        return (x + x.mT) / 2

    checks = {
        "inv": (L.inv, (a,)),
        "det": (L.det, (a,)),
        "slogdet": (lambda x: L.slogdet(x).logabsdet, (a,)),
        "solve": (L.solve, (a, b)),
        "solve (vector)": (L.solve, (a[0], b[0, :, 0])),
        "solve (broadcast batch)": (L.solve, (a[0], b)),
        "cholesky": (lambda x: L.cholesky(sym(x)), (h,)),
        "cholesky upper": (lambda x: L.cholesky(sym(x), upper=True), (h,)),
        "eigh values": (lambda x: L.eigh(sym(x)).eigenvalues, (h,)),
        "eigh vectors (up to sign)": (lambda x: L.eigh(sym(x)).eigenvectors.abs(), (h,)),
        "eigvalsh": (lambda x: L.eigvalsh(sym(x)), (h,)),
        "matrix_power -2": (lambda x: L.matrix_power(x, -2), (a,)),
        "cross": (lambda x: L.cross(x[..., 0], x[..., 1]), (a,)),
        "svdvals": (L.svdvals, (b,)),
        "svd (U S Vh)": (lambda x: _rebuilt_from_svd(L.svd(x, full_matrices=False)), (b,)),
        "svd |U| and |Vh|": (lambda x: _abs_factors(L.svd(x, full_matrices=False)), (b,)),
        "svd of a wide matrix": (lambda x: _abs_factors(L.svd(x.mT, full_matrices=False)), (b,)),
        "pinv": (L.pinv, (b,)),
        "lstsq": (lambda x, y: L.lstsq(x, y)[0], (b[0], a[0, :, 0])),
        "qr": (lambda x: L.qr(x), (b,)),
        "qr r": (lambda x: L.qr(x, mode="r"), (a,)),
    }
    for name, (fn, inputs) in checks.items():
        assert gradcheck(fn, inputs), f"{name} {layout}"
    for name in ("inv", "det", "solve"):
        fn, inputs = checks[name]
        assert gradgradcheck(fn, inputs), f"second derivative of {name} {layout}"


def test_gradients_that_do_not_exist_say_so():
    x = strided.eye(3, dtype=strided.float64).requires_grad_()
    for fn in (L.eig, L.eigvals):
        with pytest.raises(RuntimeError, match="no derivative formula"):
            fn(x)
    with strided.no_grad():
        L.eig(x)  # fine without recording
    wide = strided.ones((2, 3), dtype=strided.float64).requires_grad_()
    with pytest.raises(NotImplementedError, match="not unique"):
        L.qr(wide).R.sum().backward()
    tall = strided.ones((3, 2), dtype=strided.float64).requires_grad_()
    with pytest.raises(NotImplementedError, match="full_matrices=False"):
        L.svd(tall).U.sum().backward()


def test_gradients_match_pytorchs(rng):
    """The same functions of the same inputs give PyTorch's gradients (where it is installed)."""
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((2, 3, 2))
    tall = rng.standard_normal((2, 4, 3))
    cases = {
        "inv": (lambda m, x: m.inv(x), a),
        "det": (lambda m, x: m.det(x), a),
        "slogdet": (lambda m, x: m.slogdet(x)[1], a),
        "solve": (lambda m, x: m.solve(x, b if m is L else torch.as_tensor(b)), a),
        "cholesky": (lambda m, x: m.cholesky(x @ x.mT + 3 * _eye(m, 3)), a),
        "eigh": (lambda m, x: m.eigh(x + x.mT)[0], a),
        "eigvalsh": (lambda m, x: m.eigvalsh(x + x.mT), a),
        "svdvals": (lambda m, x: m.svdvals(x), tall),
        "svd U S Vh": (lambda m, x: _usv(m.svd(x, full_matrices=False)), tall),
        "qr": (lambda m, x: m.qr(x)[0] @ m.qr(x)[1].mT, tall),
        "pinv": (lambda m, x: m.pinv(x), tall),
        "matrix_power": (lambda m, x: m.matrix_power(x, -3), a),
    }
    for name, (fn, x) in cases.items():
        ts = strided.asarray(x).requires_grad_()
        out = fn(L, ts)
        w = rng.standard_normal(out.shape)
        (out * strided.asarray(w)).sum().backward()
        tt = torch.as_tensor(x).requires_grad_()
        (fn(torch.linalg, tt) * torch.as_tensor(w)).sum().backward()
        np.testing.assert_allclose(np.asarray(ts.grad), tt.grad.numpy(), rtol=1e-7, atol=1e-9,
                                   err_msg=name)  # fmt: skip


def _eye(m, n):
    if m is L:
        return strided.eye(n)
    import torch

    return torch.eye(n, dtype=torch.float64)


def _usv(r):
    u, s, vh = r
    return (u * s[..., None, :]) @ vh
