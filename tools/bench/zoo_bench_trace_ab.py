#!/usr/bin/env python3
"""Per-instruction times of one program under several edgefleet-run builds, alternating.

Usage:
    zoo_bench_trace_ab.py MODEL.pte BIN_A BIN_B [BIN ...] [--rounds 3] [--iterations 8]
                          [--core 1] [--show PC,PC,...]

Each round runs every binary once (`run --threads 1 --warmup 2 --iterations N --trace`,
pinned to `--core` at nice 19) and keeps, per instruction, the fastest of all its traced
runs so far: on a host busy with other work, the figure least disturbed by it. Prints the
sum over the plan's instructions per binary, the sums per operator, and the instructions
whose minima differ by more than 10 % (and those named by --show). The binaries must
run the same plan (same passes), so that instruction indices match.
"""

import argparse
import collections
import json
import os
import subprocess
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("binaries", nargs="+")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=8)
    ap.add_argument("--core", type=int, default=1)
    ap.add_argument("--show", default="")
    args = ap.parse_args()
    show = {int(x) for x in args.show.split(",") if x}
    mins = [collections.defaultdict(lambda: float("inf")) for _ in args.binaries]
    names = {}
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "trace.json")
        for _ in range(args.rounds):
            for k, binary in enumerate(args.binaries):
                subprocess.run(["nice", "-n", "19", "taskset", "-c", str(args.core), binary, "run",
                                args.model, "--threads", "1", "--warmup", "2", "--iterations",
                                str(args.iterations), "--trace", trace],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
                with open(trace) as f:
                    events = json.load(f)["traceEvents"]
                for e in events:
                    if e.get("cat") != "instruction":
                        continue
                    pc = e["args"]["instruction"]
                    names[pc] = e["name"]
                    mins[k][pc] = min(mins[k][pc], e["dur"])
    fmt = lambda values: " ".join(f"{v:9.1f}" for v in values)  # noqa: E731
    print(f"load {os.getloadavg()[0]:.2f}; sum of per-instruction minima (us): "
          + fmt(sum(m.values()) for m in mins))
    ops = collections.defaultdict(lambda: [0.0] * len(args.binaries))
    for pc, name in names.items():
        for k, m in enumerate(mins):
            ops[name][k] += m[pc]
    for name, values in sorted(ops.items(), key=lambda item: -item[1][0]):
        print(f"  {name:52s} {fmt(values)}")
    for pc in sorted(names):
        values = [m[pc] for m in mins]
        if pc in show or (max(values) > 30 and max(values) - min(values) > 0.1 * max(values)):
            print(f"  [{pc:4d}] {names[pc]:45s} {fmt(values)}")


if __name__ == "__main__":
    main()
