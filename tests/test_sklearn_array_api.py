"""scikit-learn's own array API tests, with strided as one of their namespaces.

The estimators that issue 14 names (PCA, Ridge and RidgeCV, GaussianMixture, randomized_svd)
use ``xp.linalg`` (svd, eigh, qr, solve, cholesky, ...) when given strided arrays under
``sklearn.set_config(array_api_dispatch=True)``. Their test modules are run in a subprocess
with the plugin ``tests/sklearn_strided.py``, which adds strided to scikit-learn's list of
namespaces (SciPy's array API support must be on before SciPy is imported, hence the fresh
process). Every test selected must pass: none may be skipped or deselected to zero.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

pytest.importorskip("sklearn")

MODULES = {
    "PCA": "sklearn.decomposition.tests.test_pca",
    "Ridge, RidgeCV": "sklearn.linear_model.tests.test_ridge",
    "GaussianMixture": "sklearn.mixture.tests.test_gaussian_mixture",
    "randomized_svd, randomized_range_finder": "sklearn.utils.tests.test_extmath",
}


@pytest.mark.parametrize("what", list(MODULES))
def test_scikit_learn_array_api_tests_pass_with_strided(what):
    here = pathlib.Path(__file__).parent
    env = dict(os.environ, SCIPY_ARRAY_API="1", PYTHONPATH=str(here))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "sklearn_strided", "-p", "no:cacheprovider",
         "-W", "ignore::pytest.PytestRemovedIn10Warning", "--pyargs", MODULES[what],
         "-k", "strided"],
        capture_output=True, text=True, timeout=600, env=env, cwd=here,
    )  # fmt: skip
    tail = done.stdout[-3000:] + done.stderr[-2000:]
    assert done.returncode == 0, tail
    passed = re.search(r"(\d+) passed", done.stdout)
    assert passed and int(passed.group(1)) >= 2, tail  # float64 and float32 at least
    assert not re.search(r"\d+ (failed|error|skipped)", done.stdout), tail
