#!/usr/bin/env python3
"""Checks `lookback fir` on the GPU against scipy.signal.lfilter on the sample recordings: the issue's
bar is 1e-5 of full scale. Three filters: lookback's own --lowpass design (which must also equal
scipy.signal.firwin), and firwin taps given through --taps, short (direct kernel) and 1025 taps
(FFT overlap-save); --block-frames small enough that the filter state crosses blocks.

usage: fir_scipy_check.py LOOKBACK_BINARY DATA_DIR WORK_DIR   (needs numpy and scipy; exits 1 on a miss)"""
import os
import subprocess
import sys


def main():
    import numpy as np
    from scipy import signal
    from scipy.io import wavfile

    binary, data, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    worst = 0.0
    failures = 0
    print("| input | filter | taps | blocks | max abs error (full scale 1) | |")
    print("|---|---|---|---|---|---|")
    for name in sorted(f for f in os.listdir(data) if f.endswith(".wav")):
        rate, pcm = wavfile.read(os.path.join(data, name))
        scale = float(np.iinfo(pcm.dtype).max + 1) if pcm.dtype.kind == "i" else 1.0
        x = pcm.astype(np.float64) / scale
        if x.ndim == 1:
            x = x[:, None]
        cases = [("--lowpass 1000 (lookback's design)", 101, ["--lowpass", "1000", "--num-taps", "101"],
                  signal.firwin(101, 1000, fs=rate))]
        for taps_count in (63, 1025):
            h = signal.firwin(taps_count, [500, 4000], fs=rate, pass_zero=False)
            taps_path = os.path.join(work, "taps%d.npy" % taps_count)
            np.save(taps_path, h)
            cases.append(("firwin bandpass via --taps", taps_count, ["--taps", taps_path], h))
        for label, taps_count, args, h in cases:
            out = os.path.join(work, "out.wav")
            block = 50000
            run = subprocess.run([binary, "fir", "-i", os.path.join(data, name), "-o", out, "--format", "float",
                                  "--backend", "gpu", "--block-frames", str(block)] + args,
                                 capture_output=True, text=True)
            if run.returncode != 0:
                print("| %s | %s | %d | - | lookback failed: %s | FAIL |" % (name, label, taps_count, run.stderr.strip()))
                failures += 1
                continue
            _, got = wavfile.read(out)
            got = got.astype(np.float64).reshape(x.shape[0], -1)
            want = signal.lfilter(h, 1.0, x, axis=0)
            err = float(np.max(np.abs(got - want)))
            worst = max(worst, err)
            ok = err <= 1e-5
            failures += 0 if ok else 1
            print("| %s | %s | %d | %d | %.2e | %s |" % (name, label, taps_count, -(-x.shape[0] // block), err,
                                                        "ok" if ok else "FAIL"))
    print("\nfir against scipy.signal.lfilter: worst %.2e of full scale, %d failure(s)" % (worst, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
