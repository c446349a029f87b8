#!/usr/bin/env python3
"""Turns lookback_bench's JSON (--benchmark_out) into a markdown table: per operation, type and size,
the median time of each implementation, lookback's bandwidth, its share of memcpy's bandwidth and
its speed relative to CUB.

usage: make_table.py bench.json [> table.md]"""
import sys
from collections import defaultdict

from bench_json import fmt_n, load

IMPLS = ["lookback", "cub", "thrust", "memcpy"]


def read_medians(path):
    data = load(path)
    rows = defaultdict(dict)  # (op, type, n) -> impl -> (ms, bytes_per_second)
    for b in data["benchmarks"]:
        # Streaming and external-sort rows have tables of their own (stream_table.py, external_sort_table.py).
        if b.get("aggregate_name") != "median" or b["run_name"].startswith(("stream_", "external_sort")):
            continue
        op, impl, dtype, n = b["run_name"].split("/")[:4]
        ms = b["real_time"] if b.get("time_unit") == "ms" else b["real_time"] / 1e6
        rows[(op, dtype, int(n))][impl] = (ms, b.get("bytes_per_second", 0.0), b.get("unheld", 0) > 0)
    return data.get("context", {}), rows


def main():
    context, rows = read_medians(sys.argv[1])
    print("Medians of 5 repetitions, CUDA-event timing with the stream held while each call is submitted, so")
    print("that the host's launch time is not in it (* marks calls that wait on the GPU themselves, timed with")
    print("their submission). GB/s counts bytes read plus bytes written;")
    print("'% memcpy' is lookback's bandwidth over a device-to-device memcpy's; 'vs CUB' is CUB's time over lookback's.\n")
    print("| op | type | n | lookback ms | cub ms | thrust ms | memcpy ms | lookback GB/s | % memcpy | vs CUB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    tuning = []
    for (op, dtype, n) in sorted(rows, key=lambda k: (k[0], k[1], k[2])):
        r = rows[(op, dtype, n)]
        if "_tune" in op:  # scan_tune, select_tune, sort_tune_keys, sort_tune_pairs, ...
            tuning.extend((op, label, dtype, n, ms) for label, (ms, _, _) in sorted(r.items()))
            continue
        cell = lambda impl: ("%.4f" % r[impl][0] + ("*" if r[impl][2] else "")) if impl in r else "-"
        ours = r.get("lookback")
        memcpy = r.get("memcpy")
        cub = r.get("cub")
        gbs = ours[1] / 1e9 if ours else 0
        pct = "%.0f%%" % (100 * ours[1] / memcpy[1]) if ours and memcpy and memcpy[1] else "-"
        ratio = "%.2fx" % (cub[0] / ours[0]) if ours and cub else "-"
        print("| %s | %s | %s | %s | %s | %s | %s | %.0f | %s | %s |" % (
            op, dtype, fmt_n(n), cell("lookback"), cell("cub"), cell("thrust"), cell("memcpy"), gbs, pct, ratio))
    if tuning:
        print("\nPolicy tuning (medians, ms):\n")
        print("| benchmark | policy | type | n | ms |")
        print("|---|---|---|---|---|")
        for op, label, dtype, n, ms in tuning:
            print("| %s | %s | %s | %s | %.4f |" % (op, label, dtype, fmt_n(n), ms))


if __name__ == "__main__":
    main()
