#!/usr/bin/env python3
"""bench/bench_json.py and the tables made with it, from a whole benchmark JSON and from one whose run
was stopped partway (left open, its last benchmark half written); scripts/run-gpu-bundle stopping its
benchmarks after LOOKBACK_BENCH_SECONDS and tabulating what they wrote.

usage: test_bench_json.py BENCH_DIR"""
import contextlib
import io
import json
import os
import shutil
import stat
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

    # A bundle whose benchmarks write the cut file and then hang, as a run does when a call's time is short.
    bundle = os.path.join(d, "bundle")
    os.makedirs(os.path.join(bundle, "bin"))
    shutil.copy(os.path.join(bench_dir, "..", "scripts", "run-gpu-bundle"), bundle)
    for script in ("make_table.py", "stream_table.py", "external_sort_table.py", "dist_table.py", "bench_json.py"):
        shutil.copy(os.path.join(bench_dir, script), bundle)
    for binary in ("lookback_bench", "lookback_dist_bench"):
        path = os.path.join(bundle, "bin", binary)
        with open(path, "w") as f:
            f.write("#!/bin/sh\nfor a; do case $a in --benchmark_out=*) out=${a#--benchmark_out=};; esac; done\n"
                    f"cat '{paths['cut']}' > \"$out\"\nexec sleep 30\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    for step, binary in (("bench", "lookback_bench"), ("distbench", "lookback_dist_bench")):
        results = os.path.join(d, step)
        try:
            rc = subprocess.run(["bash", os.path.join(bundle, "run-gpu-bundle"), results, step], capture_output=True,
                                timeout=20, env=dict(os.environ, LOOKBACK_BENCH_SECONDS="2")).returncode
        except subprocess.TimeoutExpired:
            rc = None
        with open(os.path.join(results, "summary.md")) as f:
            summary = f.read()
        check(f"run-gpu-bundle {step} stops {binary} after LOOKBACK_BENCH_SECONDS and says so",
              rc == 1 and f"- {binary} stopped after LOOKBACK_BENCH_SECONDS=2 s" in summary)
    with open(os.path.join(d, "bench", "bench_table.md")) as f:
        check("its table holds the rows written whole", "| scan | uint32 | 2^20 | 0.0070 | 0.0100 |" in f.read())

for f in failures:
    print("FAILED:", f)
print(f"{checks - len(failures)} of {checks} checks passed")
sys.exit(1 if failures else 0)
