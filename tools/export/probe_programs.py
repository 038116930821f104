#!/usr/bin/env python3
"""Exports programs beyond the zoo and checks the runtime against torch eager.

For every program of probe_models.py, probe_ops.py and probe_dtypes.py
(segmentation with GroupNorm and transposed convolution, bidirectional
LSTM/GRU, audio encoders, ViT/DeiT, mobile blocks, and mixes of index,
sort, scan, resampling and reduction operators; float64, float16 and
bfloat16 parts; bounded dynamic shapes; dtype semantics, empty tensors,
NaN/inf; the XNNPACK probe's float32 programs without a partitioner) it

  1. exports with torch.export -> to_edge_transform_and_lower (NO
     partitioner) -> to_executorch into OUT/<name>/model.pte, with seeded
     inputs input_<i>.npy and torch eager's outputs expected_<j>.npy;
  2. runs `edgefleet-run inspect` (an unresolved operator must be named, all
     of them in one line) and `edgefleet-run run` with the default kernels
     and with --portable-only;
  3. compares every output with torch eager: float32 within
     1e-4 x max(1, |ref|) per element (float64 1e-10, float16 / bfloat16 the
     dtype's epsilon scaled the same way), integer and bool outputs exactly,
     and prints one table row per program;
  4. with `--threads 1 2 3`, runs both modes at each thread count
     (`edgefleet-run --threads T`), compares each run as in 3, and requires
     the outputs at every count to be bit-identical to those at the first
     count ("BITS" otherwise: docs/threads.md says which kernels promise it).

Nothing is downloaded: weights and inputs are seeded (torch.manual_seed of
crc32(name)). Run with the tools' venv from the repository root:

    tools/.venv/bin/python tools/export/probe_programs.py \
        [--runner build/default/runtime/tools/edgefleet-run] [--out .cache/probe] \
        [--only NAME ...] [--reexport] [--threads T ...]

Exit status 1 if any program fails to export-and-match (an export refused by
torch itself is reported as `export-refused` and does not count).
"""

import argparse
import os
import re
import subprocess
import sys
import zlib

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_models import PROGRAMS  # noqa: E402
import probe_ops  # noqa: E402,F401  (registers the operator mixes)
import probe_dtypes  # noqa: E402,F401  (registers dtype and edge-case programs)
import probe_ops_heldout  # noqa: E402,F401  (registers session 15's held-out programs)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RTOL = {np.float32: 1e-4, np.float64: 1e-10, np.float16: 1e-3, "bfloat16": 8e-3}


def _flatten(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flatten(o)]
    if isinstance(out, (int, float, bool)):
        return [torch.tensor(out)]
    raise TypeError(f"unexpected output {type(out)}")


def _to_numpy(t):
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return t.float().numpy()  # compared with bfloat16's tolerance
    return t.numpy()


def export_one(name, out_dir, reexport):
    """Exports `name` into out_dir; returns the run inputs' files and the
    expected outputs (numpy), or raises with the exporter's message."""
    path = os.path.join(out_dir, "model.pte")
    torch.manual_seed(zlib.crc32(name.encode()))
    module, example, run_inputs, dynamic = PROGRAMS[name]()
    module = module.eval()
    with torch.no_grad():
        expected = [_to_numpy(t) for t in _flatten(module(*run_inputs))]
    os.makedirs(out_dir, exist_ok=True)
    inputs = []
    for i, t in enumerate(run_inputs):
        f = os.path.join(out_dir, f"input_{i}.npy")
        np.save(f, t.contiguous().numpy())
        inputs.append(f)
    for j, e in enumerate(expected):
        np.save(os.path.join(out_dir, f"expected_{j}.npy"), e)
    if reexport or not os.path.exists(path):
        from executorch.exir import to_edge_transform_and_lower
        with torch.no_grad():
            ep = torch.export.export(module, example, dynamic_shapes=dynamic)
        buf = to_edge_transform_and_lower(ep).to_executorch().buffer
        with open(path, "wb") as f:
            f.write(buf)
    return path, inputs, expected


def _compare(expected, out_dir):
    """Largest error relative to max(1, |ref|) and whether every output is
    within its dtype's tolerance (integers and bools exactly)."""
    worst, ok, notes = 0.0, True, []
    for j, e in enumerate(expected):
        f = os.path.join(out_dir, f"output_{j}.npy")
        if not os.path.exists(f):
            return float("inf"), False, [f"output_{j} missing"]
        got = np.load(f)
        if got.shape != e.shape:
            return float("inf"), False, [f"output_{j} shape {got.shape} != {e.shape}"]
        if e.dtype.kind in "iub":
            if got.dtype != e.dtype or not np.array_equal(got, e):
                ok = False
                notes.append(f"output_{j} ({e.dtype}) differs in {int(np.sum(got != e))} elements")
                worst = max(worst, float("inf") if got.dtype != e.dtype else
                            float(np.max(np.abs(got.astype(np.float64) - e))))
            continue
        if got.dtype != e.dtype:
            ok = False
            notes.append(f"output_{j} dtype {got.dtype} != {e.dtype}")
        g64, e64 = got.astype(np.float64), e.astype(np.float64)
        same_inf = np.isinf(e64) & (g64 == e64)
        both_nan = np.isnan(e64) & np.isnan(g64)
        err = np.where(same_inf | both_nan, 0.0, np.abs(g64 - e64) / np.maximum(1.0, np.abs(e64)))
        err = np.nan_to_num(err, nan=np.inf)
        m = float(err.max()) if err.size else 0.0
        tol = RTOL.get(e.dtype.type, 1e-4)
        if m > tol:
            ok = False
            notes.append(f"output_{j} max rel err {m:.3g} > {tol:g}")
        worst = max(worst, m)
    return worst, ok, notes


def _bit_differences(expected, first_dir, dir_):
    """Notes for each output whose bytes in dir_ differ from first_dir's."""
    notes = []
    for j in range(len(expected)):
        a = np.load(os.path.join(first_dir, f"output_{j}.npy"))
        b = np.load(os.path.join(dir_, f"output_{j}.npy"))
        if a.dtype != b.dtype or a.shape != b.shape:
            notes.append(f"output_{j} dtype/shape differs")
        elif a.tobytes() != b.tobytes():
            n = int(np.sum(np.any(a.view(np.uint8).reshape(a.size, -1) != b.view(np.uint8).reshape(b.size, -1), axis=1)))
            d = float(np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64))))
            notes.append(f"output_{j}: {n} elements differ in bits (max {d:.3g})")
    return notes


def run_one(runner, name, out_base, reexport, counts=None):
    out_dir = os.path.join(out_base, name)
    try:
        path, inputs, expected = export_one(name, out_dir, reexport)
    except Exception as e:  # torch.export / exir refusing the program
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return {"name": name, "result": "export-refused", "detail": msg[:160]}
    row = {"name": name}
    insp = subprocess.run([runner, "inspect", path], capture_output=True, text=True, timeout=120)
    missing = [m.strip() for m in re.findall(r"((?:\d+ operators|operator \S+) (?:are|is) not registered[^\n]*)", insp.stdout + insp.stderr)]
    for mode, extra in (("default", []), ("portable", ["--portable-only"])):
        first, status, worst_all, notes_all = None, "ok", 0.0, []
        for t in counts or [None]:
            at = "" if t is None or len(counts) == 1 else f"@{t} "
            d = os.path.join(out_dir, f"out_{mode}" + ("" if t is None else f"_{t}"))
            os.makedirs(d, exist_ok=True)
            for f in os.listdir(d):
                os.remove(os.path.join(d, f))
            args = [runner, "run", path, "--output-dir", d, "--iterations", "0"]
            if t is not None:
                args += ["--threads", str(t)]
            for f in inputs:
                args += ["--input", f]
            r = subprocess.run(args + extra, capture_output=True, text=True, timeout=300)
            if r.returncode != 0:
                err = (r.stderr.strip().splitlines() or ["exit %d" % r.returncode])[-1]
                status, worst_all = "run-error", float("inf")
                notes_all.append(at + err[:200])
                continue
            worst, ok, notes = _compare(expected, d)
            worst_all = max(worst_all, worst)
            notes_all += [at + n for n in notes]
            if not ok and status == "ok":
                status = "MISMATCH"
            if first is None:
                first = d
                continue
            bits = _bit_differences(expected, first, d)
            if bits:
                status = "BITS" if status == "ok" else status
                notes_all.append(f"{mode} @{t} vs @{counts[0]}: " + "; ".join(bits))
        row[mode] = (status, worst_all, notes_all)
    results = {row[m][0] for m in ("default", "portable")}
    row["result"] = "ok" if results == {"ok"} else "/".join(sorted(results))
    row["detail"] = "; ".join(row["default"][2] + [n for n in row["portable"][2] if n not in row["default"][2]])
    if insp.returncode != 0 and not missing:
        row["detail"] = (row["detail"] + "; inspect failed: " + insp.stderr.strip()[-160:]).strip("; ")
    if missing:
        row["detail"] = ("inspect: " + missing[0] + "; " + row["detail"]).strip("; ")
    return row


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runner", default=os.path.join(ROOT, "build/default/runtime/tools/edgefleet-run"))
    p.add_argument("--out", default=os.path.join(ROOT, ".cache/probe"))
    p.add_argument("--only", nargs="*", help="program names (default: all)")
    p.add_argument("--reexport", action="store_true", help="export again even if model.pte exists")
    p.add_argument("--list", action="store_true", help="print the program names and exit")
    p.add_argument("--threads", type=int, nargs="+", default=None,
                   help="run each program at these thread counts and require the same bits at each")
    a = p.parse_args()
    if a.list:
        print("\n".join(PROGRAMS))
        return 0
    names = a.only or list(PROGRAMS)
    unknown = [n for n in names if n not in PROGRAMS]
    if unknown:
        p.error("unknown programs: " + ", ".join(unknown))
    rows, failed = [], 0
    print(f"| program | result | max err (default) | max err (portable) | detail |\n|---|---|---:|---:|---|")
    for n in names:
        row = run_one(a.runner, n, a.out, a.reexport, a.threads)
        rows.append(row)
        if row["result"] not in ("ok", "export-refused"):
            failed += 1
        errs = [f"{row[m][1]:.2g}" if m in row else "-" for m in ("default", "portable")]
        print(f"| {n} | {row['result']} | {errs[0]} | {errs[1]} | {row.get('detail', '')} |", flush=True)
    print(f"\n{len(rows) - failed} of {len(rows)} programs ok or refused by the exporter; {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
