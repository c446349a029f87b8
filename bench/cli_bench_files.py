"""What the command-line benchmarks share: a large .npy file made block by block without holding it in
memory, the blocks to walk it with, a timed run that first removes the previous output (replacing it
would free gigabytes inside the timed rename), and a read that warms the page cache."""
import os
import subprocess
import time

import numpy as np

block = 1 << 27


def blocks(n):
    for first in range(0, n, block):
        yield first, min(block, n - first)


def make_npy(path, n, fill, seed):
    """n uint32 items from fill(rng, count), unless the file is already there."""
    if not os.path.exists(path) or os.path.getsize(path) < n * 4:
        x = np.lib.format.open_memmap(path, mode="w+", dtype=np.uint32, shape=(n,))
        rng = np.random.default_rng(seed)
        for first, count in blocks(n):
            x[first:first + count] = fill(rng, count)
        x.flush()
        del x
    return np.load(path, mmap_mode="r")


def timed(cmd, out):
    if os.path.exists(out):
        os.remove(out)
        subprocess.run(["sync"])
    start = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    return time.perf_counter() - start, r


def warm(path):
    subprocess.run(["dd", f"if={path}", "of=/dev/null", "bs=64M", "status=none"])
