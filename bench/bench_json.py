"""What the table scripts share: a benchmark binary's JSON (--benchmark_out), also from a run that was
stopped partway, and the size column's form.

Google Benchmark writes that file as it goes and closes it at the end, so a run stopped at a call's
time limit leaves it open. load() then keeps every benchmark written whole, says so on stderr, and the
tables are made of what ran."""
import json
import sys


def load(path):
    with open(path) as f:
        text = f.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    # Each benchmark is an object at four spaces' indent in the "benchmarks" array; nothing else
    # closes at that indent.
    end = text.rfind("\n    }")
    if '"benchmarks"' not in text or end < 0:
        sys.exit(f"{path}: not a benchmark JSON, or stopped before its first benchmark")
    data = json.loads(text[: end + len("\n    }")] + "\n  ]\n}\n")
    print(f"{path}: the run stopped partway; the {len(data['benchmarks'])} benchmarks written whole are kept",
          file=sys.stderr)
    return data


def fmt_n(n):
    return "2^%d" % (n.bit_length() - 1) if n & (n - 1) == 0 else str(n)
