#!/usr/bin/env python3
"""Writes the small sample arrays in data/ (pure Python, no NumPy needed); fixed seeds, so the files
are reproducible. Run from the repository root: python3 scripts/make_sample_data.py"""
import math
import random
import struct
from pathlib import Path


def write_npy(path, descr, fmt, values):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(values))
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * (pad % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def main():
    out = Path("data")
    out.mkdir(exist_ok=True)
    rng = random.Random(20261122)
    # Daily rainfall in mm over 30 years: many dry days, a long tail; its scan is the running total.
    rain = [0.0 if rng.random() < 0.6 else round(rng.expovariate(1 / 6.0), 1) for _ in range(30 * 365)]
    write_npy(out / "rainfall_mm_float32.npy", "<f4", "f", rain)
    # Signed account deltas in cents: exclusive sum gives the balance before each transaction.
    deltas = [rng.randint(-50_000, 60_000) for _ in range(100_003)]
    write_npy(out / "ledger_cents_int64.npy", "<i8", "q", deltas)
    # Event counts per millisecond bucket (Poisson-like), long enough for several scan tiles.
    counts = [int(-math.log(1.0 - rng.random()) * 4) for _ in range(1 << 18)]
    write_npy(out / "events_uint32.npy", "<u4", "I", counts)
    # A smooth sensor signal with noise, in double precision.
    signal = [math.sin(i / 200.0) * 10 + rng.gauss(0, 0.5) for i in range(40_000)]
    write_npy(out / "sensor_float64.npy", "<f8", "d", signal)


if __name__ == "__main__":
    main()
