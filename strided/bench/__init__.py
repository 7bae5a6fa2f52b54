"""``python -m strided.bench``: the project's benchmark suite as one command.

Note [How the benchmark CLI measures]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Every case runs the same work in each library that is installed -- strided, NumPy, PyTorch, and
CuPy on a GPU -- on the *same data*: the CPU arrays are shared without copies (``from_numpy``,
``__array__``, DLPack), the GPU ones are made by strided and handed to CuPy and PyTorch through
DLPack (``cupy.from_dlpack``, ``torch.from_dlpack``), so no library is timed on a friendlier
layout or a warmer cache line than another. Then, per case:

1. **agreement first**: the case's own check if it has one, else every library's result is
   compared with the reference's (NumPy's on the CPU, strided's on a GPU) with a tolerance for
   the dtype; a case whose results disagree is reported and not timed (a fast wrong answer is
   not a result);
2. **first call**: the very first call of each library is timed on its own: it holds one-off
   costs (compiling a CUDA kernel, faulting in fresh pages, filling caches) that steady-state
   numbers must not average away, and that a user does pay once;
3. **steady state**: after warm-up calls, calls are timed in batches long enough (~20 ms) for
   the clock to be exact, 7 batches; the median is reported with the spread (max - min) / median.
   GPU batches are timed with CUDA events and synchronised, so an asynchronous launch is not
   mistaken for finished work.

Ratios are other library / strided: above 1 means strided is faster. ``--quick`` runs step 1
only (what CI runs). Results go to Markdown, CSV and JSON, and a PNG of the ratios when
matplotlib is installed. The cases are the ``cases()`` of ``benchmarks/bench_*.py`` (in a
source checkout) plus the ones in ``_cases.py`` (nn layers and GPU ops).
"""

from strided.bench._run import CaseResult, run_suite

__all__ = ["CaseResult", "run_suite"]
