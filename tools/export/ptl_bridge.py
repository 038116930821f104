"""Hands models from the tools venv's torch to Debian's torch for .ptl export.

The venv's PyPI torch (the .pte exporter's) has no XNNPACK, so its
optimize_for_mobile cannot prepack; Debian's python3-torch 1.13 (the torch
the old stack's lite interpreter comes from) can. The two cannot share a
process, so a model crosses as arrays: its state_dict as .npz, its inputs
and expected outputs as .npy, plus the name of the case function that
builds its architecture. ptl_debian.py (run by /usr/bin/python3) rebuilds
it, loads exactly these weights and writes the .ptl.
"""

import json
import os
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEBIAN_PYTHON = os.environ.get("EDGEFLEET_DEBIAN_PYTHON", "/usr/bin/python3")


class Job:
    """One model to write as .ptl; see ptl_debian.py for the fields."""

    def __init__(self, name, module_file, builder, seed, module, inputs, expected, out,
                 calibration=None, top1=None, rtol=1e-3, atol=1e-4):
        self.name, self.module_file, self.builder, self.seed = name, module_file, builder, seed
        self.module, self.inputs, self.expected, self.out = module, inputs, expected, out
        self.calibration, self.top1 = calibration, top1  # arrays (int8 only)
        self.rtol, self.atol = rtol, atol


def export(jobs):
    """Runs ptl_debian.py on `jobs`; returns its results (one dict per job)."""
    with tempfile.TemporaryDirectory(prefix="ptl_bridge_") as tmp:
        specs = []
        for k, job in enumerate(jobs):
            def save(tag, array):
                path = os.path.join(tmp, f"{k}_{tag}.npy")
                np.save(path, np.ascontiguousarray(array))
                return path

            weights = os.path.join(tmp, f"{k}_weights.npz")
            np.savez(weights, **{n: t.detach().contiguous().numpy()
                                 for n, t in job.module.state_dict().items()})
            spec = {
                "name": job.name, "module_file": job.module_file, "builder": job.builder,
                "seed": job.seed, "weights": weights, "out": job.out,
                "rtol": job.rtol, "atol": job.atol,
                "inputs": [save(f"input_{i}", t) for i, t in enumerate(job.inputs)],
                "expected": [save(f"expected_{j}", t) for j, t in enumerate(job.expected)],
            }
            if job.calibration is not None:
                spec["quantize"] = {"calibration": save("calibration", job.calibration)}
            if job.top1 is not None:
                spec["top1"] = {"inputs": save("top1_inputs", job.top1[0]),
                                "labels": save("top1_labels", job.top1[1])}
            specs.append(spec)
        with open(os.path.join(tmp, "jobs.json"), "w") as f:
            json.dump(specs, f)
        results = os.path.join(tmp, "results.json")
        if not os.path.exists(DEBIAN_PYTHON):
            raise SystemExit(f"{DEBIAN_PYTHON} not found: install python3-torch and"
                             " python3-torchvision (deploy/install-deps.sh)")
        subprocess.run([DEBIAN_PYTHON, "-W", "ignore", os.path.join(HERE, "ptl_debian.py"),
                        os.path.join(tmp, "jobs.json"), results], check=True)
        with open(results) as f:
            return json.load(f)
