#!/usr/bin/env python3
"""The external-sort rows of lookback_bench's JSON as a markdown table, each beside its bounds from the
same run: the keys (and values) copied in and out twice at the pinned link's speed, one copy after
another and with the two directions at once (the lower bound, since the sort overlaps them).

usage: external_sort_table.py bench.json"""
import sys

from bench_json import load

rows = {}
for b in load(sys.argv[1])["benchmarks"]:
    if b.get("aggregate_name") == "median" and b["run_name"].startswith("external_sort"):
        rows["/".join(b["run_name"].split("/")[:4])] = (b["real_time"], b.get("items_per_second", 0))
print("| sort (2^30 keys, pinned host memory) | ms | keys/s | bound: in and out twice, one after another, ms | ratio |"
      " bound: in and out twice, at once, ms | ratio |")
print("|---|---|---|---|---|---|---|")
for name, (ms, keys_per_s) in sorted(rows.items()):
    op, case, types, n = name.split("/")
    if op != "external_sort":
        continue
    cells = [case + " " + types, f"{ms:.0f}", f"{keys_per_s / 1e9:.2f} G"]
    for bound_name in ("in_out_twice", "in_out_twice_at_once"):
        bound = rows.get(f"external_sort_bound/{bound_name}/{types}/{n}")
        cells += [f"{bound[0]:.0f}", f"{ms / bound[0]:.2f}x"] if bound else ["-", "-"]
    print("| " + " | ".join(cells) + " |")
