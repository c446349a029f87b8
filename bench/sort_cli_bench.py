#!/usr/bin/env python3
"""The sort command end to end on the GPU machine: a .npy file of random uint32 keys (16 GiB: 2^32
keys, more than one in-core sort takes) sorted with the page cache warm, beside the time to read the
input twice and write an output of the same size twice with no GPU work (dd, with fsync as the command
fsyncs its output); then again while another process holds most of the GPU's memory (no cap given).
Each result checked with numpy: non-decreasing, and the same keys (histograms of the low and high
halves, and the sum). Prints a markdown table.

    python3 sort_cli_bench.py LOOKBACK_BINARY WORK_DIR [GiB]
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
src = os.path.join(work, "keys.npy")
out = os.path.join(work, "sorted.npy")
x = make_npy(src, n, lambda rng, count: rng.integers(0, 2**32, count, dtype=np.uint32), 2)


def blocks():
    return cli_bench_files.blocks(n)


def fingerprint(a):
    low = np.zeros(65536, dtype=np.int64)
    high = np.zeros(65536, dtype=np.int64)
    total = 0
    for first, count in blocks():
        part = a[first:first + count]
        low += np.bincount(part & 0xFFFF, minlength=65536)
        high += np.bincount(part >> 16, minlength=65536)
        total += int(part.sum(dtype=np.uint64))
    return low, high, total


want = fingerprint(x)


def check(path):
    y = np.load(path, mmap_mode="r")
    if y.size != n:
        return "MISMATCH (size)"
    last = None
    for first, count in blocks():
        part = y[first:first + count]
        if np.any(part[1:] < part[:-1]) or (last is not None and part[0] < last):
            return "MISMATCH (order)"
        last = part[-1]
    got = fingerprint(y)
    same = np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1]) and got[2] == want[2]
    return "sorted, same keys (numpy)" if same else "MISMATCH (keys)"


def timed(cmd):
    return cli_bench_files.timed(cmd, out)


def warm():
    cli_bench_files.warm(src)


size = n * 4
print(f"# lookback sort end to end: {size / 2**30:.1f} GiB of uint32 ({n} keys)\n")
warm()
copy = os.path.join(work, "copy.bin")
t_read, _ = timed(["dd", f"if={src}", "of=/dev/null", "bs=64M", "status=none"])
t_write, _ = timed(["dd", "if=/dev/zero", f"of={copy}", "bs=64M", f"count={size >> 26}", "conv=fsync", "status=none"])
os.remove(copy)
bound = 2 * t_read + 2 * t_write
print(f"- bound: read the input twice ({t_read:.2f} s each, warm cache) and write {size / 2**30:.1f} GiB twice with "
      f"fsync ({t_write:.2f} s each): {bound:.2f} s\n")
print("| run | lookback s | bound s | ratio | path | check |")
print("|---|---|---|---|---|---|")
cmd = [lookback, "sort", "--backend", "gpu", "-i", src, "-o", out]
warm()
t, r = timed(cmd)
line = r.stdout.strip() or r.stderr.strip()
print(f"| whole GPU, warm cache | {t:.2f} | {bound:.2f} | {t / bound:.2f}x | {line[-70:]} | "
      f"{check(out) if r.returncode == 0 else 'exit %d' % r.returncode} |")
sys.stdout.flush()

# The GPU's memory mostly held by another process; no cap given.
hog_code = ("import cupy, sys, time\nfree, total = cupy.cuda.runtime.memGetInfo()\n"
            "x = cupy.empty(free - (3 << 30), dtype=cupy.uint8)\nprint(free - (3 << 30), flush=True)\ntime.sleep(900)\n")
hog = subprocess.Popen([sys.executable, "-c", hog_code], stdout=subprocess.PIPE, text=True)
held = int(hog.stdout.readline())
warm()
t, r = timed(cmd)
line = r.stdout.strip() or r.stderr.strip()
print(f"| {held / 2**30:.1f} GiB of the GPU held by another process | {t:.2f} | {bound:.2f} | {t / bound:.2f}x | "
      f"{line[-70:]} | {check(out) if r.returncode == 0 else 'exit %d' % r.returncode} |")
hog.kill()
os.remove(out)
