"""Run the doctested examples of every module, compiled ones included, each once.

pytest's --doctest-modules only sees .py files; the Cython modules keep their docstrings (the
build sets ``embedsignature``), so ``doctest`` can run them once they are imported.
"""

import doctest
import importlib
import importlib.util
import pkgutil

import pytest

import strided

MODULES = [
    "strided._dtype",
    "strided._device",
    "strided._storage",
    "strided._core",
    "strided._loop_plan",
    "strided._iter",
    "strided._threads",
    "strided._views",
    "strided._cpu.copy",
    "strided._cpu.offsets",
    "strided._cpu.index",
    "strided._cpu.mask",
    "strided._cpu.search",
    "strided._cpu.random",
    "strided._dlpack",
    "strided._tensor",
    "strided._format",
    "strided._explain",
    "strided._info",
    "strided._ops.creation",
    "strided._ops.views",
    "strided._ops.elementwise",
    "strided._ops.indexing",
    "strided._ops.reduction",
    "strided._ops.scan",
    "strided._ops.norms",
    "strided._ops.linalg",
    "strided._ops.shape",
    "strided._ops.padding",
    "strided.nn.functional.padding",
    "strided.linalg",
    "strided.fft",
    "strided._cpu.sort",
    "strided._cpu.unique",
    "strided._cpu.select",
    "strided._cpu.count",
    "strided._ops.sorting",
    "strided.random",
    "strided._random_dists",
    "strided._config",
    "strided.cuda._deferred",
    "strided.cuda",
    "strided._ops.arrays",
    "strided._ops.joining",
    "strided._ops.construction",
    "strided._ops.mathfuncs",
    "strided._ops.products",
    "strided._ops.sets",
    "strided._ops.stats",
    "strided._ops.quantiles",
    "strided._ops.histograms",
    "strided._ops.calculus",
    "strided._ops.functional",
    "strided._ops.index_tricks",
    "strided._ops.placing",
    "strided._ops.polynomial",
    "strided._check",
    "strided._numpy_protocols",
    "strided._ops.ufuncs",
    "strided.serialization",
    "strided.library",
    "strided.fx.proxy",
    "strided.fx.interpreter",
    "strided._compile",
    "strided._errstate",
    "strided._ops.ufunclike",
    "strided._ops.arrayinfo",
]


def _python_modules():
    """Every Python module of the package: its examples are doctests wherever they are (a
    hand-kept list alone let strided/_ops/linalg_solve.py's examples drift from what they print)."""
    names = []
    for info in pkgutil.walk_packages(strided.__path__, "strided."):
        spec = importlib.util.find_spec(info.name)
        if spec is not None and (spec.origin or "").endswith(".py"):
            names.append(info.name)
    return names


# the compiled modules named above, and every Python module, each once: a module's examples
# run twice in one process would define its custom ops twice (strided.library's)
MODULES = sorted(set(MODULES) | set(_python_modules()))


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    module = importlib.import_module(name)
    threads = strided.get_num_threads()
    try:
        result = doctest.testmod(
            module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False
        )
    finally:
        strided.set_num_threads(threads)
        strided.set_default_dtype(strided.float64)
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
