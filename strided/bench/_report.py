"""Writing benchmark results: Markdown, CSV, JSON and a PNG of the ratios."""

from __future__ import annotations

import csv
import json
import os
import platform

import numpy as np

import strided
from strided.bench._run import IDLE_THREAD_SETTINGS, LIBRARIES, numpy_blas_threads

__all__ = ["machine_facts", "markdown", "write_all"]


def machine_facts(threads):
    """(name, value) pairs for the report's header: CPU, cores, threads, BLAS, GPU, versions."""
    from strided.__main__ import build_facts

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    facts = [
        ("cpu", f"{cpu}, {os.cpu_count()} cores visible"),
        ("threads", f"{threads} (strided.set_num_threads, torch.set_num_threads)"),
        # Note [NumPy's BLAS threads] in _run.py
        ("NumPy's BLAS threads", f"{numpy_blas_threads() or 'unknown'}"),
        # Note [The other libraries' idle threads] in _run.py
        (
            "idle threads",
            " ".join(f"{k}={os.environ.get(k, 'unset')}" for k in IDLE_THREAD_SETTINGS),
        ),
        # a machine may force OpenBLAS's kernels (strided's and NumPy's GEMMs): Haswell's AVX2
        # ones run the MLP's matmuls ~1.7x slower than its AVX-512 ones on an AVX-512 CPU,
        # while PyTorch's BLAS does not read the variable
        ("OpenBLAS kernels", os.environ.get("OPENBLAS_CORETYPE", "unset (detected)")),
    ]
    facts += [(k, v) for k, v in build_facts() if k in ("strided", "python", "numpy", "BLAS")]
    try:
        import torch

        facts.append(("torch", torch.__version__))
    except ImportError:
        facts.append(("torch", "not installed"))
    if strided.cuda.is_available():
        import cupy

        facts.append(("gpu", f"{strided.cuda.get_device_name()}; CuPy {cupy.__version__}"))
    else:
        facts.append(("gpu", "none usable (GPU cases skipped)"))
    return facts


def _fmt(s):
    if s is None:
        return "-"
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.1f} us"
    return f"{s * 1e3:.2f} ms"


def _libs(results):
    return [lib for lib in LIBRARIES if any(lib in r.median or lib in r.first for r in results)]


def markdown(results, facts, quick):
    lines = ["## strided benchmarks" + (" (quick: agreement only)" if quick else ""), ""]
    lines += [f"- {k}: {v}" for k, v in facts]
    lines.append("")
    if quick:
        lines += ["| suite | case | agreement |", "|---|---|---|"]
        for r in results:
            lines.append(f"| {r.suite} | {r.name} | {r.status}: {r.message} |")
        return "\n".join(lines) + "\n"
    libs = _libs(results)
    others = [lib for lib in libs if lib != "strided"]
    head = ["suite", "case", "strided (spread)"] + others + [f"{o}/strided" for o in others]
    head += ["strided first call"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for r in results:
        if r.status in ("disagree", "error"):
            lines.append(
                f"| {r.suite} | {r.name} | {r.status.upper()}: {r.message} |"
                + " |" * (len(head) - 3)
            )
            continue
        s = r.median.get("strided")
        cells = [r.suite, r.name, f"{_fmt(s)} (±{r.spread.get('strided', 0):.0%})"]
        cells += [_fmt(r.median.get(o)) for o in others]
        cells += [f"{r.ratio(o):.2f}" if r.ratio(o) is not None else "-" for o in others]
        cells.append(_fmt(r.first.get("strided")))
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(
        "Times are medians per call in steady state; ratios are other/strided (above 1: "
        "strided is faster); the first call is timed separately."
    )
    return "\n".join(lines) + "\n"


def _rows(results):
    for r in results:
        row = {
            "suite": r.suite,
            "case": r.name,
            "device": r.device,
            "status": r.status,
            "message": r.message,
        }
        for lib in LIBRARIES:
            row[f"{lib}_median_s"] = r.median.get(lib)
            row[f"{lib}_spread"] = r.spread.get(lib)
            row[f"{lib}_first_s"] = r.first.get(lib)
        yield row


def plot(results, path):
    """A horizontal bar chart of other/strided ratios (log scale). Returns a message."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed: no plot (pip install matplotlib)"
    timed = [r for r in results if r.median.get("strided")]
    others = [lib for lib in _libs(timed) if lib != "strided"]
    if not timed or not others:
        return "nothing timed: no plot"
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(timed) * max(1, len(others)) / 1.5 + 1.5))
    height = 0.8 / len(others)
    y = np.arange(len(timed))
    for k, lib in enumerate(others):
        vals = [r.ratio(lib) or np.nan for r in timed]
        ax.barh(y + k * height, vals, height, label=f"{lib} time / strided time")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yticks(y + height * (len(others) - 1) / 2)
    ax.set_yticklabels([f"{r.suite}: {r.name}"[:60] for r in timed], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("ratio (log scale): right of 1 means strided is faster")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return f"wrote {path}"


def write_all(results, facts, quick, out_dir):
    """Write results.md/.csv/.json (and ratios.png unless quick); returns messages."""
    os.makedirs(out_dir, exist_ok=True)
    msgs = []
    md = markdown(results, facts, quick)
    with open(os.path.join(out_dir, "results.md"), "w") as f:
        f.write(md)
    rows = list(_rows(results))
    with open(os.path.join(out_dir, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["case"])
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump({"quick": quick, "machine": dict(facts), "results": rows}, f, indent=1)
    msgs.append(f"wrote {out_dir}/results.md, results.csv, results.json")
    if not quick:
        msgs.append(plot(results, os.path.join(out_dir, "ratios.png")))
    return msgs
