#!/usr/bin/env python3
"""The streaming rows of lookback_bench's JSON as a markdown table, each beside the copy bound it is
held to: reduce and histogram against the host-to-device copy of their input (pinned or pageable),
scan and compaction against copying the input in and the output out at once (pinned) or, from
pageable memory (the output still goes to pinned memory), the pageable host-to-device copy.

usage: stream_table.py bench.json"""
import sys

from bench_json import load

rows = {}
for b in load(sys.argv[1])["benchmarks"]:
    if b.get("aggregate_name") == "median" and b["run_name"].startswith("stream_"):
        rows[b["run_name"]] = b["real_time"] if b.get("time_unit") == "ms" else b["real_time"] / 1e6
suffix = "/uint32/268435456"
bound = {k.split("/")[1]: v for k, v in rows.items() if k.startswith("stream_bound/")}
print("| streamed (2^28 uint32, 1 GiB) | ms | bound | bound ms | share of the bound's speed |")
print("|---|---|---|---|---|")
for name, ms in sorted(rows.items()):
    op, source = name.split("/")[:2]
    if op == "stream_bound":
        continue
    moves_out = op in ("stream_scan", "stream_select_99pct")
    key = ("both_pinned" if moves_out else "h2d_pinned") if source == "pinned" else "h2d_pageable"
    b = bound.get(key)
    share = f"{b / ms * 100:.0f}%" if b else "-"
    if moves_out and source == "pageable" and b:
        # The input comes in through pageable memory; the output goes out to pinned memory
        # (streaming_bench.cu), a copy that overlaps it: the pageable copy in is the bound.
        share = f"{b / ms * 100:.0f}% (in from pageable memory, out to pinned)"
    print(f"| {op[7:]} from {source} | {ms:.1f} | {key} | {b:.1f} | {share} |" if b else f"| {name} | {ms:.1f} | - | - | - |")
print()
for k, v in sorted(bound.items()):
    gb = (2 if k == "both_pinned" else 1) * 2**30 / (v / 1e3) / 1e9
    print(f"- {k}: {v:.1f} ms ({gb:.1f} GB/s)")
