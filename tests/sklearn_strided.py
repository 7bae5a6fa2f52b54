"""A pytest plugin that adds strided to scikit-learn's own array API tests.

scikit-learn tests each estimator that supports the Array API on every namespace that
``sklearn.utils._array_api.yield_namespaces`` names (NumPy, array_api_strict, CuPy, PyTorch,
...). This plugin adds ``"strided"`` to that list before the test modules are collected, so
that their parametrisations include strided on the CPU in float64 and float32. Run (SciPy
must have its own Array API support switched on):

    SCIPY_ARRAY_API=1 python -m pytest -p sklearn_strided --pyargs \\
        sklearn.decomposition.tests.test_pca -k "array_api and strided"

``tests/test_sklearn_array_api.py`` runs the tests issue 14 names (PCA, Ridge,
GaussianMixture, randomized_svd) this way in a subprocess.
"""

from __future__ import annotations


def pytest_configure(config):
    from sklearn.utils import _array_api

    namespaces = _array_api.yield_namespaces
    combinations = _array_api.yield_namespace_device_dtype_combinations

    def yield_namespaces(include_numpy_namespaces=True):
        yield from namespaces(include_numpy_namespaces=include_numpy_namespaces)
        yield "strided"

    def yield_namespace_device_dtype_combinations(include_numpy_namespaces=True):
        for combination in combinations(include_numpy_namespaces=include_numpy_namespaces):
            if combination[0] != "strided":
                yield combination
        yield "strided", None, "float64"
        yield "strided", None, "float32"

    _array_api.yield_namespaces = yield_namespaces
    _array_api.yield_namespace_device_dtype_combinations = yield_namespace_device_dtype_combinations
