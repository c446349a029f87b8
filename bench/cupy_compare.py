#!/usr/bin/env python3
"""Times the CuPy equivalents of lookback's convolution, FIR and summed-area table on the GPU that
just ran lookback_bench, and prints them beside lookback's medians from that run's JSON.

usage: cupy_compare.py bench.json [> table.md]   (needs CuPy; prints a note and exits 0 without it)"""
import sys

from bench_json import load


def lookback_medians(path):
    data = load(path)
    out = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") == "median":
            # "op/impl/type/n/min_time:.../manual_time": the first four name the case.
            name = "/".join(b["run_name"].split("/")[:4])
            out[name] = b["real_time"] if b.get("time_unit") == "ms" else b["real_time"] / 1e6
    return out


def main():
    try:
        import cupy as cp
        from cupyx.profiler import benchmark
        from cupyx.scipy import ndimage, signal
    except ImportError as e:
        print("CuPy comparison skipped: %s" % e)
        return 0
    ours = lookback_medians(sys.argv[1])
    rng = cp.random.default_rng(1)

    def median_ms(fn):
        # GPU time per call from CUDA events, as lookback_bench measures.
        t = benchmark(fn, n_repeat=20, n_warmup=3).gpu_times[0]
        return float(cp.asnumpy(cp.median(cp.asarray(t)))) * 1e3

    x1 = rng.random(1 << 28, dtype=cp.float32)
    w9 = cp.full(9, 1 / 9, dtype=cp.float32)
    img = rng.random((8192, 8192), dtype=cp.float32)
    w5 = cp.full((5, 5), 1 / 25, dtype=cp.float32)
    x26 = x1[: 1 << 26]
    h = cp.full(1024, 1 / 1024, dtype=cp.float32)
    n26 = 1 << 26
    cases = [
        ("1D 9 taps, 2^28 float32", "convolve1d_9/lookback/float32/268435456",
         "ndimage.correlate1d", lambda: ndimage.correlate1d(x1, w9, mode="constant")),
        ("2D 5x5, 8192^2 float32", "convolve2d_5x5/lookback/float32/67108864",
         "ndimage.correlate", lambda: ndimage.correlate(img, w5, mode="constant")),
        ("FIR 1024 taps, 2^26 float32", "fir_1024taps/lookback/float32/67108864",
         "signal.fftconvolve", lambda: signal.fftconvolve(x26, h)[:n26]),
        ("FIR 1024 taps, 2^26 float32", "fir_1024taps/lookback/float32/67108864",
         "signal.oaconvolve", lambda: signal.oaconvolve(x26, h)[:n26]),
        ("summed-area table, 8192^2 float32", "summed_area_table/lookback/float32/67108864",
         "cumsum(cumsum(axis=1), axis=0)", lambda: cp.cumsum(cp.cumsum(img, axis=1), axis=0)),
    ]
    print("CuPy %s beside lookback on the same GPU (medians, ms; 'speedup' is CuPy's time over lookback's).\n" % cp.__version__)
    print("| case | lookback ms | CuPy function | CuPy ms | speedup |")
    print("|---|---|---|---|---|")
    for case, name, what, fn in cases:
        theirs = median_ms(fn)
        mine = ours.get(name)
        cell = "%.4f" % mine if mine else "-"
        ratio = "%.2fx" % (theirs / mine) if mine else "-"
        module = "cupy" if what.startswith("cumsum") else "cupyx.scipy"
        print("| %s | %s | %s.%s | %.4f | %s |" % (case, cell, module, what, theirs, ratio))
    return 0


if __name__ == "__main__":
    sys.exit(main())
