#!/usr/bin/env python3
"""Writes the sample images in data/ for `lookback conv2d`, `sat` and `boxfilter` (standard library only:
zlib and struct; no NumPy); a fixed seed, so the files are reproducible. Synthetic: gradients, discs,
text-like stripes and a little noise, so that edge detectors, blurs and box sums all have something to
show. Run from the repository root: python3 scripts/make_sample_images.py"""
import math
import random
import struct
import zlib
from pathlib import Path


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def write_png(path, width, height, channels, pixels):
    """pixels: rows of width * channels bytes values 0..255, top row first."""
    colour_type = {1: 0, 3: 2}[channels]
    raw = b"".join(b"\x00" + bytes(row) for row in pixels)  # filter type 0 (None) on every row
    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9))
    png += chunk(b"IEND", b"")
    Path(path).write_bytes(png)


def clamp(v):
    return max(0, min(255, int(round(v))))


def scene(width, height, rng):
    """(r, g, b) intensity functions of a synthetic scene: a diagonal gradient, three discs, a block of
    'text' (short dark bars on a light panel) and noise."""
    discs = [(0.30, 0.35, 0.18, (230, 60, 40)), (0.68, 0.30, 0.12, (40, 200, 90)), (0.55, 0.72, 0.20, (60, 80, 220))]
    noise = [[rng.gauss(0, 6) for _ in range(width)] for _ in range(height)]

    def pixel(x, y):
        u, v = x / width, y / height
        base = 40 + 150 * (0.6 * u + 0.4 * v)
        colour = [base, base * 0.9, base * 0.8]
        for cx, cy, r, rgb in discs:
            if (u - cx) ** 2 + (v - cy) ** 2 < r * r:
                colour = list(rgb)
        # The 'text' panel: rows of bars whose lengths follow a fixed pseudo-random pattern.
        if 0.08 < u < 0.92 and 0.82 < v < 0.96:
            colour = [235, 235, 225]
            line = int((v - 0.82) * height) // 6
            column = int((u - 0.08) * width) // 5
            if int((v - 0.82) * height) % 6 < 3 and (column * 7 + line * 3) % 11 not in (0, 5):
                colour = [25, 25, 30]
        n = noise[y][x]
        return [c + n for c in colour]

    return pixel


def main():
    out = Path("data")
    out.mkdir(exist_ok=True)
    rng = random.Random(20261123)
    w, h = 256, 256
    pixel = scene(w, h, rng)
    grey = [[clamp(0.299 * r + 0.587 * g + 0.114 * b) for r, g, b in (pixel(x, y) for x in range(w))] for y in range(h)]
    write_png(out / "scene_grey.png", w, h, 1, grey)
    w, h = 160, 120
    pixel = scene(w, h, rng)
    rgb = [[clamp(c) for x in range(w) for c in pixel(x, y)] for y in range(h)]
    write_png(out / "scene_rgb.png", w, h, 3, rgb)


if __name__ == "__main__":
    main()
