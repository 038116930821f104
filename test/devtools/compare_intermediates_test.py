#!/usr/bin/env python3
"""tools/devtools/compare_intermediates.py on the small_cnn fixture.

  - with the optimized kernels (fused convolution) and with the portable
    kernels: every compared instruction output matches torch eager;
  - one dumped tensor scaled by 1.5, compared again (--reuse-dump): the
    script names exactly that instruction as the first divergence;
  - the plan passes' fused kernels pair with the operator they start from.

Usage: compare_intermediates_test.py EDGEFLEET_RUN SOURCE_DIR [PYTHON_OF_TOOLS_VENV]
Exit 77 (ctest: skipped) without the tools venv or executorch.
"""

import json
import os
import subprocess
import sys
import tempfile

SKIP = 77


def main():
    edgefleet_run, root = sys.argv[1], sys.argv[2]
    python = sys.argv[3] if len(sys.argv) > 3 else os.path.join(root, "tools/.venv/bin/python")
    if not os.path.exists(python):
        print(f"skipped: no tools venv at {python} (tools/export/setup_venv.sh)")
        return SKIP
    if subprocess.run([python, "-c", "import executorch, torch"],
                      capture_output=True).returncode != 0:
        print("skipped: executorch is not importable in the tools venv")
        return SKIP
    script = os.path.join(root, "tools/devtools/compare_intermediates.py")
    failures = []
    with tempfile.TemporaryDirectory(prefix="edgefleet-intermediates-") as tmp:
        def compare(work, *extra):
            return subprocess.run([python, script, "--edgefleet-run", edgefleet_run,
                                   "--fixture", "small_cnn", "--work", work, "--json", *extra],
                                  capture_output=True, text=True, timeout=600)

        for label, extra in (("optimized", ()), ("portable", ("--portable-only",))):
            work = os.path.join(tmp, label)
            r = compare(work, *extra)
            if r.returncode != 0:
                failures.append(f"{label}: exit {r.returncode}: {r.stdout[-2000:]} {r.stderr[-2000:]}")
                continue
            rows = json.loads(r.stdout)["rows"]
            compared = [row for row in rows if row["status"] == "ok"]
            print(f"{label}: {len(compared)} instruction outputs match torch eager, "
                  f"{len(rows) - len(compared)} unmatched")
            if len(compared) < 3:
                failures.append(f"{label}: only {len(compared)} outputs compared: {rows}")

        # Scale the second compared tensor of the optimized dump.
        work = os.path.join(tmp, "optimized")
        with open(os.path.join(work, "dump", "index.json")) as f:
            index = json.load(f)
        with_files = [ins for ins in index["instructions"] if ins["files"]]
        target = with_files[1] if len(with_files) > 1 else None
        if target is None:
            failures.append(f"too few instructions with outputs: {index}")
        else:
            path = os.path.join(work, "dump", target["files"][0])
            subprocess.run([python, "-c", "import numpy as np, sys; a = np.load(sys.argv[1]); "
                            "np.save(sys.argv[1], (a * 1.5).astype(a.dtype))", path], check=True)
            r = compare(work, "--reuse-dump")
            first = json.loads(r.stdout)["first_divergence"] if r.stdout else None
            print(f"scaled instruction {target['instruction']} ({target['name']}): exit "
                  f"{r.returncode}, first divergence {first}")
            if r.returncode != 1 or first is None or \
                    first["instruction"] != target["instruction"]:
                failures.append(f"scaled instruction {target['instruction']} not named: "
                                f"exit {r.returncode}, {r.stdout[-2000:]} {r.stderr[-2000:]}")
    pairs = {"edgefleet::fused_convolution_silu.out": "convolution",
             "edgefleet::fused_add_clamp.out": "add", "edgefleet::fused_mul_clamp.out": "mul",
             "aten::add.out": "add", "aten.relu.default": "relu"}
    check = ("import sys, json; sys.path.insert(0, sys.argv[1]); import compare_intermediates as c; "
             "print(json.dumps({n: c.base_name(n) for n in json.loads(sys.argv[2])}))")
    r = subprocess.run([python, "-c", check, os.path.dirname(script), json.dumps(list(pairs))],
                       capture_output=True, text=True)
    if r.returncode != 0 or json.loads(r.stdout) != pairs:
        failures.append(f"base names: {r.stdout} {r.stderr[-2000:]}, expected {pairs}")
    for f in failures:
        print("FAIL:", f)
    print(f"compare_intermediates: {'FAILED' if failures else 'passed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
