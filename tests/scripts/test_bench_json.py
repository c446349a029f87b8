#!/usr/bin/env python3
"""bench/bench_json.py and the tables made with it, from a whole benchmark JSON and from one whose run
was stopped partway (left open, its last benchmark half written).

usage: test_bench_json.py BENCH_DIR"""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile

bench_dir = sys.argv[1]
sys.path.insert(0, bench_dir)
import bench_json  # noqa: E402


def median(impl, ms):
    return {"run_name": f"scan/{impl}/uint32/1048576/min_time:0.100/repeats:5/manual_time",
            "aggregate_name": "median", "real_time": ms, "time_unit": "ms", "bytes_per_second": 8.0 * 2**20 / ms * 1e3}


whole = json.dumps({"context": {"gpu": "test"},
                    "benchmarks": [median("lookback", 0.007), median("cub", 0.010), median("memcpy", 0.005)]}, indent=2)
# Stopped inside the memcpy row: the two rows before it are whole.
cut = whole[: whole.index("scan/memcpy")]
failures = []
checks = 0


def check(what, ok):
    global checks
    checks += 1
    if not ok:
        failures.append(what)


with tempfile.TemporaryDirectory() as d:
    paths = {}
    for name, text in (("whole", whole), ("cut", cut), ("empty", '{\n  "context": {},\n  "benchmarks": [\n')):
        paths[name] = os.path.join(d, name + ".json")
        with open(paths[name], "w") as f:
            f.write(text)
    check("a whole file keeps its three rows", len(bench_json.load(paths["whole"])["benchmarks"]) == 3)
    with contextlib.redirect_stderr(io.StringIO()):
        kept = bench_json.load(paths["cut"])["benchmarks"]
    check("a cut file keeps the two rows written whole", len(kept) == 2)

    table = lambda p: subprocess.run([sys.executable, os.path.join(bench_dir, "make_table.py"), p],
                                     capture_output=True, text=True)
    t = table(paths["cut"])
    check("make_table reads a cut file", t.returncode == 0)
    check("its row has lookback's and CUB's times", "| scan | uint32 | 2^20 | 0.0070 | 0.0100 |" in t.stdout)
    check("it says the run stopped partway, naming the file",
          paths["cut"] in t.stderr and "stopped partway" in t.stderr and "2 benchmarks" in t.stderr)
    t = table(paths["whole"])
    check("a whole file reads as it is", t.returncode == 0 and t.stderr == "" and "| 0.0050 |" in t.stdout)
    t = table(paths["empty"])
    check("a file stopped before its first benchmark is refused in one line naming it",
          t.returncode != 0 and t.stderr.strip() == paths["empty"] + ": not a benchmark JSON, or stopped before its first benchmark")
    check("fmt_n", bench_json.fmt_n(1 << 20) == "2^20" and bench_json.fmt_n(1000) == "1000")

for f in failures:
    print("FAILED:", f)
print(f"{checks - len(failures)} of {checks} checks passed")
sys.exit(1 if failures else 0)
