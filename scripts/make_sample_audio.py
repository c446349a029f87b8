#!/usr/bin/env python3
"""Writes the two short sample recordings in data/ for `lookback demo`'s FIR filter (standard library
only: wave, struct, math, random); fixed seeds, so the files are reproducible. Each is a chord, a chirp
sweeping through it and a little noise, 16-bit PCM, faded in and out over 10 ms so that neither starts
with a click. Run from the repository root: python3 scripts/make_sample_audio.py"""
import math
import random
import struct
import wave
from pathlib import Path


def tone(rate, seconds, chord, chirp_from, chirp_to, rng):
    """One channel as floats in [-1, 1): the chord's notes, a linear chirp and Gaussian noise."""
    n = int(rate * seconds)
    fade = int(rate * 0.01)
    out = []
    for i in range(n):
        t = i / rate
        x = sum(0.15 * math.sin(2 * math.pi * f * t) for f in chord)
        # A linear chirp's phase is the integral of its frequency.
        x += 0.2 * math.sin(2 * math.pi * (chirp_from * t + (chirp_to - chirp_from) * t * t / (2 * seconds)))
        x += rng.gauss(0, 0.01)
        x *= min(1.0, i / fade, (n - 1 - i) / fade)
        out.append(x)
    return out


def write_wav(path, rate, channels):
    frames = b"".join(
        struct.pack("<%dh" % len(frame), *(max(-32768, min(32767, round(v * 32768))) for v in frame))
        for frame in zip(*channels))
    with wave.open(str(path), "wb") as w:
        w.setnchannels(len(channels))
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(frames)


def main():
    out = Path("data")
    out.mkdir(exist_ok=True)
    rng = random.Random(20261123)
    # A minor (A3 C4 E4) under a chirp from 100 Hz to 8 kHz: a 1 kHz lowpass keeps the chord and the
    # chirp's first third of a second.
    a_minor = (220.0, 261.63, 329.63)
    write_wav(out / "chord_chirp_mono_48k.wav", 48000, [tone(48000, 3.0, a_minor, 100.0, 8000.0, rng)])
    # C major (C4 E4 G4): the chirp rises on the left and falls on the right.
    c_major = (261.63, 329.63, 392.0)
    left = tone(44100, 2.0, c_major, 200.0, 6000.0, rng)
    right = tone(44100, 2.0, c_major, 6000.0, 200.0, rng)
    write_wav(out / "chord_chirp_stereo_44k1.wav", 44100, [left, right])


if __name__ == "__main__":
    main()
