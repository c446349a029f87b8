#!/usr/bin/env python3
"""Draws a `lookback ladder --json` table as a PNG: one bar per rung (GB/s), labelled with its time
and cumulative speedup, CUB's bar apart, the memory-bound rungs' ceiling visible as the tallest bar.
`lookback ladder --plot FILE.png` calls this; it also runs on its own on a saved JSON.

usage: plot_ladder.py TABLE.json OUT.png      (needs matplotlib: Debian's python3-matplotlib)"""
import json
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 64
    import matplotlib

    matplotlib.use("Agg")  # no display: a file only
    import matplotlib.pyplot as plt

    with open(sys.argv[1]) as f:
        table = json.load(f)
    rows = table["rows"]
    names = [r["variant"] for r in rows]
    gbs = [r["gb_per_s"] or 0.0 for r in rows]
    colours = ["#9e9e9e" if r.get("cub") else ("#d62728" if r.get("failure") else "#1f77b4") for r in rows]

    fig, ax = plt.subplots(figsize=(10, 0.55 * len(rows) + 1.8))
    y = range(len(rows))
    ax.barh(y, gbs, color=colours)
    ax.set_yticks(list(y))
    ax.set_yticklabels(names, fontsize=9)
    ax.invert_yaxis()  # rung 1 on top, as in the printed table
    ax.set_xlabel("GB/s (bytes read + written)")
    top = max(gbs) if gbs else 1.0
    for i, r in enumerate(rows):
        label = "%.3f ms, %.2fx" % (r["time_ms"], r["cumulative_speedup"])
        if r.get("failure"):
            label += "  FAILED"
        ax.text(gbs[i] + top * 0.01, i, label, va="center", fontsize=8)
    ax.set_xlim(0, top * 1.3)
    what = "%s, n = %d %s" % (table["family"], table["n"], table["type"])
    if table.get("mask"):
        what += ", mask %s" % table["mask"]
    ax.set_title("lookback ladder: %s\n%s" % (what, table.get("gpu", "")), fontsize=10)
    fig.tight_layout()
    fig.savefig(sys.argv[2], format="png", dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main())
