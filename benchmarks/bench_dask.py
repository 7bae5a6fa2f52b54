"""Dask on a 2-worker LocalCluster: strided chunks against NumPy chunks (issue 21).

Run by hand (it is not part of ``python -m strided.bench``: it starts a cluster and holds two
copies of a 320 MB array): ``python benchmarks/bench_dask.py [--rows 20000 --cols 2000
--nchunks 100 --repeats 3]``. Needs the ``dask`` extra (``pip install -e ".[dask]"``).

Both arrays hold the same numbers, made once on the workers and kept there (``persist``):
NumPy chunks from ``da.random``, and strided chunks that are tensors sharing those chunks'
memory (``strided.from_numpy``). Each case is then computed with its result kept on the workers
too (``persist`` + ``wait``), so the time is the cluster's work and not the transfer of 320 MB
to this process. Prints one Markdown table: the median of ``--repeats`` runs per case and
chunk type, the spread (max - min over the median), and the ratio NumPy / strided (above 1:
strided chunks are faster). Workers have one thread each, as many as the machine's 2 cores;
Dask's nanny sets OMP_NUM_THREADS=1 and OPENBLAS_NUM_THREADS=1 in each worker, and this script
adds STRIDED_NUM_THREADS=1, so no library's own threads oversubscribe the cores.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

import numpy as np


def _timed(client, make, repeats):
    """(median seconds, spread) of persisting ``make()`` on the cluster, after a warm-up run."""
    from distributed import wait

    def n_tasks():
        return client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks))

    def once():
        before = n_tasks()
        t0 = time.perf_counter()
        z = make().persist()
        wait(z)
        dt = time.perf_counter() - t0
        del z  # the graph's names are hashes of its inputs: wait until Dask forgot them all
        deadline = time.monotonic() + 60
        while n_tasks() > before and time.monotonic() < deadline:
            time.sleep(0.05)
        return dt

    once()
    times = [once() for _ in range(repeats)]
    med = statistics.median(times)
    return med, (max(times) - min(times)) / med


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=20000)
    p.add_argument("--cols", type=int, default=2000)
    p.add_argument("--nchunks", type=int, default=100)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()

    import dask
    import dask.array as da
    import distributed

    import strided

    # Dask's nanny sets OMP_NUM_THREADS=1 (and OpenBLAS's, MKL's) in each worker: one thread per
    # worker, as many workers as cores. strided reads its own variable; without it each worker's
    # kernels would start a thread per core and the two workers would fight over the cores.
    dask.config.set({"distributed.nanny.pre-spawn-environ.STRIDED_NUM_THREADS": 1})
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None, silence_logs=40,
    )  # fmt: skip
    client = distributed.Client(cluster)
    try:
        chunks = (args.rows // args.nchunks, args.cols)
        xn = da.random.default_rng(0).standard_normal((args.rows, args.cols), chunks=chunks)
        xn = xn.persist()
        xs = xn.map_blocks(strided.from_numpy, meta=strided.empty((0, 0))).persist()
        distributed.wait([xn, xs])
        assert isinstance(xs._meta, strided.Tensor)
        cases = {
            "(x - x.mean(0)) / x.std(0)": lambda x: (x - x.mean(axis=0)) / x.std(axis=0),
            "x.T @ x": lambda x: x.T @ x,
        }
        for name, f in cases.items():  # the same answer first
            a = f(xn[:1000]).compute()
            b = f(xs[:1000]).compute()
            assert isinstance(b, strided.Tensor), name
            np.testing.assert_allclose(np.asarray(b), a, rtol=1e-9, atol=1e-9)
        print(
            f"Dask {dask.__version__}, 2-worker LocalCluster "
            f"(1 thread each), {args.rows}x{args.cols} float64 in {args.nchunks} chunks of "
            f"{chunks}; {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
            f"median of {args.repeats}\n"
        )
        print("| case | NumPy chunks | strided chunks | NumPy / strided |")
        print("|---|---|---|---|")
        for name, f in cases.items():
            tn, sn = _timed(client, lambda f=f: f(xn), args.repeats)
            ts, ss = _timed(client, lambda f=f: f(xs), args.repeats)
            print(
                f"| `{name}` | {tn * 1e3:.0f} ms (±{sn:.0%}) | {ts * 1e3:.0f} ms (±{ss:.0%}) "
                f"| {tn / ts:.2f} |"
            )
    finally:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
