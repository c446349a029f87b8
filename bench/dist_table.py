#!/usr/bin/env python3
"""Turns lookback_dist_bench's JSON (--benchmark_out) into the scaling tables: per operation, the
median wall-clock time on each GPU count, items a second, the speed-up over one GPU and the
efficiency (strong scaling: speed-up over GPUs; weak scaling, a fixed share a GPU: one GPU's time
over N GPUs'); then the all-to-all's bandwidth beside ncclAlltoAll's.

usage: dist_table.py dist_bench.json [> table.md]"""
import sys
from collections import defaultdict

from bench_json import fmt_n, load


def main():
    data = load(sys.argv[1])
    context = data.get("context", {})
    rows = defaultdict(dict)  # (op, type) -> gpus -> (ms, total, counters)
    for b in data["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        op, dtype, gpus, total = b["run_name"].split("/")[:4]
        ms = b["real_time"] * {"s": 1e3, "ms": 1.0, "us": 1e-3, "ns": 1e-6}[b.get("time_unit", "ns")]
        rows[(op, dtype)][int(gpus.split(":")[1])] = (ms, int(total), b)
    print("%s x %s, NCCL %s; wall-clock medians of 5 repetitions, from a barrier of every rank to the last"
          % (context.get("gpus", "?"), context.get("gpu", "?"), context.get("nccl", "?")))
    print("rank's stream done.\n")
    print("| op | type | items | GPUs | ms | G items/s | vs 1 GPU | efficiency | keys moved |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (op, dtype) in sorted(rows):
        if op.startswith("dist_alltoall"):
            continue
        by_gpus = rows[(op, dtype)]
        one = by_gpus.get(1)
        for g in sorted(by_gpus):
            ms, total, b = by_gpus[g]
            rate = total / ms / 1e6
            if one is None:
                speedup = efficiency = "-"
            elif op.endswith("_weak"):
                speedup = "%.2fx" % (rate / (one[1] / one[0] / 1e6))
                efficiency = "%.0f%%" % (100 * one[0] / ms)
            else:
                speedup = "%.2fx" % (one[0] / ms)
                efficiency = "%.0f%%" % (100 * one[0] / ms / g)
            moved = "%.0f%%" % (100 * b["moved_fraction"]) if "moved_fraction" in b else "-"
            print("| %s | %s | %s | %d | %.3f | %.2f | %s | %s | %s |"
                  % (op, dtype, fmt_n(total), g, ms, rate, speedup, efficiency, moved))
    ours, nccl = rows.get(("dist_alltoall_lookback", "uint32"), {}), rows.get(("dist_alltoall_nccl", "uint32"), {})
    if ours:
        print("\nAll-to-all of 4-byte items, an equal share from every GPU to every GPU (the sort's exchange of")
        print("uniform keys); GB/s: bytes that leave a GPU, a second, per GPU.\n")
        print("| GPUs | items | lookback ms | ncclAlltoAll ms | lookback GB/s | ncclAlltoAll GB/s | lookback / NCCL |")
        print("|---|---|---|---|---|---|---|")
        for g in sorted(ours):
            ms, total, b = ours[g]
            gbs = b.get("bytes_per_second", 0) / g / 1e9
            if g in nccl:
                nms, _, nb = nccl[g]
                ngbs = nb.get("bytes_per_second", 0) / g / 1e9
                print("| %d | %s | %.3f | %.3f | %.1f | %.1f | %.0f%% |"
                      % (g, fmt_n(total), ms, nms, gbs, ngbs, 100 * nms / ms))
            else:
                print("| %d | %s | %.3f | - | %.1f | - | - |" % (g, fmt_n(total), ms, gbs))


if __name__ == "__main__":
    main()
