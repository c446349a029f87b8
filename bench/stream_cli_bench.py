#!/usr/bin/env python3
"""End-to-end streaming on the GPU machine: the array commands on a large .npy file beside the time to
read the input and write an output of the same size with no GPU work (dd with fsync, as the command
fsyncs its output), warm page cache and, where the machine lets us drop it, cold; then the same
commands while another process holds most of the GPU's memory (no cap given), each result checked
against numpy. Prints a markdown table.

    python3 stream_cli_bench.py LOOKBACK_BINARY WORK_DIR [GiB] [warm-only]
"""
import os
import subprocess
import sys

import numpy as np

import cli_bench_files
from cli_bench_files import make_npy

lookback, work = sys.argv[1], sys.argv[2]
gib = float(sys.argv[3]) if len(sys.argv) > 3 else 16.0
n = int(gib * 2**30) // 4
os.makedirs(work, exist_ok=True)
src = os.path.join(work, "in.npy")
x = make_npy(src, n, lambda rng, count: rng.integers(0, 1000, count, dtype=np.uint32), 1)
out = os.path.join(work, "out.npy")


def blocks():
    return cli_bench_files.blocks(n)


def timed(cmd):
    return cli_bench_files.timed(cmd, out)


def drop_caches():
    try:
        subprocess.run(["sync"], check=True)
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def check_scan(path):
    y = np.load(path, mmap_mode="r")
    carry = np.uint32(0)
    for first, count in blocks():
        part = x[first:first + count]
        want = np.cumsum(part, dtype=np.uint32) - part + carry
        if not np.array_equal(y[first:first + count], want):
            return "MISMATCH"
        carry = np.uint32(want[-1] + part[-1])
    return "matches numpy"


def check_histogram(path):
    h = np.load(path)
    want = np.zeros(256, dtype=np.uint64)
    for first, count in blocks():
        want += np.histogram(x[first:first + count], bins=256, range=(0, 1000))[0].astype(np.uint64)
    return "matches numpy" if np.array_equal(h, want) else "MISMATCH"


def check_compact(path):
    y = np.load(path, mmap_mode="r")
    at = 0
    for first, count in blocks():
        part = x[first:first + count]
        kept = part[part < 500]
        if not np.array_equal(y[at:at + kept.size], kept):
            return "MISMATCH"
        at += kept.size
    return "matches numpy" if at == y.size else "MISMATCH (count)"


def check_reduce(path):
    # The uint32 sum wraps, as the command's does.
    got = np.load(path)
    want = np.uint32(0)
    for first, count in blocks():
        want = np.uint32(want + x[first:first + count].sum(dtype=np.uint32))
    return "matches numpy" if got.size == 1 and got.reshape(-1)[0] == want else "MISMATCH"


commands = {
    "scan": ([lookback, "scan", "--backend", "gpu", "-i", src, "-o", out], check_scan),
    "histogram": ([lookback, "histogram", "--backend", "gpu", "-i", src, "-o", out, "--bins", "256", "--range", "0:1000"],
                  check_histogram),
    "compact": ([lookback, "compact", "--backend", "gpu", "-i", src, "-o", out, "--predicate", "lt:500"], check_compact),
    "reduce": ([lookback, "reduce", "--backend", "gpu", "-i", src, "-o", out], check_reduce),
}
size = n * 4
print(f"# Streaming end to end: {size / 2**30:.1f} GiB of uint32 ({n} items)\n")
base = os.path.join(work, "base.bin")
t_read_write, _ = timed(["dd", f"if={src}", f"of={base}", "bs=64M", "conv=fsync", "status=none"])
os.remove(base)
t_read, _ = timed(["dd", f"if={src}", "of=/dev/null", "bs=64M", "status=none"])
print(f"- bound, warm cache: read {t_read:.2f} s ({size / t_read / 1e9:.2f} GB/s); read and write with fsync "
      f"{t_read_write:.2f} s\n")
print("| command | cache | lookback s | bound s | ratio | path | check |")
print("|---|---|---|---|---|---|---|")
warm_only = len(sys.argv) > 4 and sys.argv[4] == "warm-only"
for cache in ["warm"] if warm_only else ["warm", "cold"]:
    for name, (cmd, check) in commands.items():
        # A warm run reads a cached input: the previous command's output may have pushed it out.
        if cache == "warm":
            subprocess.run(["dd", f"if={src}", "of=/dev/null", "bs=64M", "status=none"])
        if cache == "cold" and not drop_caches():
            print(f"| {name} | cold | - | - | - | cannot drop the page cache here | - |")
            continue
        t, r = timed(cmd)
        bound = t_read_write if name in ("scan", "compact") else t_read
        path = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr.strip()
        verdict = check(out) if (check and r.returncode == 0) else ("exit %d" % r.returncode if r.returncode else "-")
        print(f"| {name} | {cache} | {t:.2f} | {bound:.2f} | {t / bound:.2f}x | {path[-60:]} | {verdict} |")
        sys.stdout.flush()

# The GPU's memory mostly held by another process; no cap given.
hog_code = ("import cupy, sys, time\nfree, total = cupy.cuda.runtime.memGetInfo()\n"
            "x = cupy.empty(free - (3 << 30), dtype=cupy.uint8)\nprint(free - (3 << 30), flush=True)\ntime.sleep(900)\n")
hog = subprocess.Popen([sys.executable, "-c", hog_code], stdout=subprocess.PIPE, text=True)
held = int(hog.stdout.readline())
print(f"\n## With {held / 2**30:.1f} GiB of the GPU held by another process (no --device-memory-limit)\n")
print("| command | lookback s | path | check |")
print("|---|---|---|---|")
for name, (cmd, check) in reversed(list(commands.items())):
    subprocess.run(["dd", f"if={src}", "of=/dev/null", "bs=64M", "status=none"])
    t, r = timed(cmd)
    path = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr.strip()
    verdict = check(out) if (check and r.returncode == 0) else ("exit %d" % r.returncode if r.returncode else "-")
    print(f"| {name} | {t:.2f} | {path[-70:]} | {verdict} |")
    sys.stdout.flush()
hog.kill()
os.remove(out)
