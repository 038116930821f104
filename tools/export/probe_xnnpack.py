#!/usr/bin/env python3
"""Probes the XNNPACK delegate with programs that are not in the repository.

Exports small, varied programs with the real exporter (XnnpackPartitioner;
fp32, PT2E static int8 with per-channel weights, dynamically quantized
linear layers), covering every node family the partitioner delegates and
awkward shapes (groups, dilation, asymmetric padding, stride > kernel,
transposed convolution with output padding, ceil-mode pooling, broadcasting
batch matmul, attention with and without a mask, reductions and softmax over
non-last dims, size-1 and 0-size dims, channels-last inputs, several outputs,
bounded-dynamic shapes, programs that mix delegated and portable ops), runs
each with `edgefleet-run run` and compares:

* fp32 with torch eager: max |ours - torch| <= 1e-4 * max(1, |torch|)
  ("ok-ET" where the lowered program itself differs from eager and ours
  matches the real ExecuTorch runtime on it within the same bound);
* quantized with the real ExecuTorch runtime on the same file: static int8
  (per-channel weights, or per-tensor ones: kind "int8pt") outputs within
  one quantization step of the output (>= 99.9 % of the elements, none
  further than two), dynamic int8 within 1e-4 relative.

With `--threads 1 2 3` every program runs at each of those thread counts
(`edgefleet-run --threads T`): each run is compared as above, and the
outputs at every count must also be bit-identical to those at the first
count ("BITS" otherwise: docs/threads.md says which kernels promise it).

Usage (venv python, from the repository root):
  tools/export/probe_xnnpack.py [--run BUILD/edgefleet-run] [--out DIR] [NAME ...] [--threads T ...]
(the names before --threads: its counts take every number after it)
Writes the exported programs under DIR (default .cache/xnnpack_probe, not
committed), prints one line per program and a summary; exits non-zero if any
program fails (a quantized program the real runtime itself refuses has no
reference: "REFUSED", not counted). docs/xnnpack-delegate.md describes it.
"""

import argparse
import logging
import os
import subprocess
import sys
import tempfile
import zlib

logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)
logging.getLogger("torch._export").setLevel(logging.ERROR)

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_xnnpack_fixtures as xf  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RTOL = 1e-4

from probe_xnnpack_cases import CASES  # noqa: E402
import probe_xnnpack_attrs  # noqa: E402,F401  (registers more float32 programs)
import probe_xnnpack_quant  # noqa: E402,F401  (registers more quantized programs)
import probe_xnnpack_edges  # noqa: E402,F401  (registers edge values and degenerate shapes)
import probe_xnnpack_vision  # noqa: E402,F401  (registers whole torchvision networks)
import probe_xnnpack_heldout  # noqa: E402,F401  (registers session 15's held-out programs)


def export_case(c, reuse_path):
    """(module to compare with, program, kind); the program is read from
    reuse_path when given (the same seeded module exported earlier)."""
    kind = c.get("kind", "fp32")
    module = c["module"].eval()
    example = c.get("export", c["inputs"][0])
    if kind != "fp32":  # "int8pt": static int8 with per-tensor weights
        module = xf.quantize_pt2e(module, example, kind == "dyn8", c.get("dynamic_shapes"),
                                  per_channel=kind != "int8pt")
    if reuse_path:
        with open(reuse_path, "rb") as f:
            return module, f.read(), kind
    return module, xf.lower(module, example, c.get("dynamic_shapes")), kind


def flatten(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flatten(o)]
    return [out]


def output_step(module, j):
    """Quantization step of output j of a converted PT2E module: the scale of
    the dequantize that produces it (None if it is not dequantized)."""
    out_node = next(n for n in module.graph.nodes if n.op == "output")
    node = flatten(out_node.args[0])[j]
    while node is not None and hasattr(node, "target"):
        if "dequantize_per_tensor" in str(node.target):
            return float(node.args[1])
        if node.op != "call_function" or not node.args:
            return None
        node = node.args[0]
    return None


def run_ours(edgefleet_run, pte_path, inputs, workdir, threads=None):
    args = [edgefleet_run, "run", pte_path, "--iterations", "0", "--output-dir", workdir]
    if threads is not None:
        args += ["--threads", str(threads)]
    for i, t in enumerate(inputs):
        p = os.path.join(workdir, f"input_{i}.npy")
        np.save(p, t.contiguous().numpy())
        args += ["--input", p]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        return None, lines[-1] if lines else f"exit {proc.returncode}"
    outs, j = [], 0
    while os.path.exists(os.path.join(workdir, f"output_{j}.npy")):
        outs.append(np.load(os.path.join(workdir, f"output_{j}.npy")))
        j += 1
    return outs, None


def compare(kind, module, got, want):
    """Returns (ok, worst error, note)."""
    if len(got) != len(want):
        return False, None, f"{len(got)} outputs, want {len(want)}"
    worst, notes, ok = 0.0, [], True
    for j, (g, w) in enumerate(zip(got, want)):
        w = w.contiguous().numpy() if isinstance(w, torch.Tensor) else w
        if g.shape != w.shape:
            return False, None, f"output {j}: shape {list(g.shape)}, want {list(w.shape)}"
        if g.size == 0:
            continue
        if not np.issubdtype(w.dtype, np.floating):
            if not np.array_equal(g, w):
                ok = False
                notes.append(f"output {j}: {np.sum(g != w)} elements differ")
            continue
        err = np.abs(g.astype(np.float64) - w.astype(np.float64))
        if not np.all(np.isfinite(g) == np.isfinite(w)):
            ok = False
            notes.append(f"output {j}: non-finite mismatch")
            continue
        err = np.where(np.isfinite(w), err, 0)
        worst = max(worst, float(err.max()))
        if kind in ("int8", "int8pt"):
            step = output_step(module, j)
            if step is None:  # a float output: same rule as dynamic
                bad = err > RTOL * np.maximum(1, np.abs(w))
                if bad.any():
                    ok = False
                    notes.append(f"output {j}: {bad.sum()} elements off")
                continue
            within = float(np.mean(err <= step * 1.001))
            if within < 0.999 or err.max() > 2.001 * step:
                ok = False
            notes.append(f"output {j}: {within * 100:.2f}% within one step ({step:.3g}), max {err.max() / step:.2f} steps")
        else:
            bad = err > RTOL * np.maximum(1, np.abs(w))
            if bad.any():
                ok = False
                notes.append(f"output {j}: {bad.sum()}/{err.size} elements off")
    return ok, worst, "; ".join(notes)


def bit_differences(got, first):
    """Notes for each output whose bytes differ from the same output of the
    first thread count (empty when all are bit-identical)."""
    notes = []
    for j, (g, f) in enumerate(zip(got, first)):
        if g.dtype != f.dtype or g.shape != f.shape or g.tobytes() != f.tobytes():
            differ = g.shape == f.shape and g.dtype == f.dtype
            n = int(np.sum(g.view(np.uint8).reshape(g.size, -1) != f.view(np.uint8).reshape(f.size, -1))) if differ and g.size else -1
            d = float(np.nanmax(np.abs(g.astype(np.float64) - f.astype(np.float64)))) if differ and g.size else float("nan")
            notes.append(f"output {j}: {n} bytes differ (max {d:.3g})")
    return notes


def delegate_count(pte):
    """XnnpackBackend delegates in the program (each names its backend once):
    a program with none would not probe the delegate at all."""
    return pte.count(b"XnnpackBackend")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", default=os.path.join(REPO, "build", "default", "runtime", "tools", "edgefleet-run"))
    ap.add_argument("--out", default=os.path.join(REPO, ".cache", "xnnpack_probe"))
    ap.add_argument("--reuse", action="store_true",
                    help="run the programs already exported to --out instead of exporting again")
    ap.add_argument("--threads", type=int, nargs="+", default=None,
                    help="run each program at these thread counts and require the same bits at each")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.use_deterministic_algorithms(True)
    failed = 0
    rows = []

    def report(label, result, worst, note):
        rows.append(result)
        w = "-" if worst is None else f"{worst:.3g}"
        print(f"{label:<34}  {result:<6} {w:>9}  {note}", flush=True)
    for name, build in CASES.items():
        if args.names and name not in args.names:
            continue
        torch.manual_seed(zlib.crc32(name.encode()))
        path = os.path.join(args.out, name + ".pte")
        try:
            with torch.no_grad():
                c = build()
                module, pte, kind = export_case(c, path if args.reuse and os.path.exists(path) else None)
        except Exception as e:  # the exporter refused the program: not ours to fix
            report(name, "EXPORT", None, f"{type(e).__name__}: {str(e).splitlines()[0][:160]}")
            continue
        with open(path, "wb") as f:
            f.write(pte)
        for k, inputs in enumerate(c["inputs"]):
            label = name if len(c["inputs"]) == 1 else f"{name}#{k}"
            with torch.no_grad():
                if kind == "fp32":
                    want = flatten(module(*inputs))
                else:
                    try:
                        want = xf.run_real_runtime(pte, inputs)
                    except RuntimeError as e:  # the real runtime refuses the file: no reference
                        with tempfile.TemporaryDirectory(dir=args.out) as work:
                            got, err = run_ours(args.run, path, inputs, work)
                        report(label, "REFUSED", None, f"[{kind}] the real runtime: {str(e).splitlines()[0][:100]}; "
                               f"ours: {err or 'ran'}")
                        continue
            counts = args.threads or [None]
            first, case_ok, notes, worst_all, result_all = None, True, [], 0.0, "ok"
            for t in counts:
                at = "" if t is None or len(counts) == 1 else f"@{t}: "
                with tempfile.TemporaryDirectory(dir=args.out) as work:
                    got, err = run_ours(args.run, path, inputs, work, t)
                if err is not None:
                    case_ok, result_all = False, "FAIL"
                    notes.append(at + err)
                    continue
                ok, worst, note = compare(kind, module, got, want)
                result = "ok" if ok else "FAIL"
                if not ok and kind == "fp32":
                    # Where the exported program itself differs from eager (the
                    # exporter changed the semantics), the real runtime shows it too.
                    try:
                        real_ok, real_worst, _ = compare(kind, module, got, xf.run_real_runtime(pte, inputs))
                    except RuntimeError:  # the real runtime refuses the file
                        real_ok = False
                    if real_ok:
                        result, ok = "ok-ET", True
                        note += f"; the real runtime differs from torch alike (ours vs it: {real_worst:.3g})"
                if result != "ok" and result_all != "FAIL":
                    result_all = result
                case_ok &= ok
                worst_all = max(worst_all, worst or 0.0)
                if first is None:
                    first = got
                    notes.append(at + note if note else "")
                else:
                    if not ok:
                        notes.append(at + note)
                    bits = bit_differences(got, first)
                    if bits:
                        case_ok, result_all = False, "BITS"
                        notes.append(f"@{t} vs @{counts[0]}: " + "; ".join(bits))
            failed += not case_ok
            if not case_ok and result_all == "ok":
                result_all = "FAIL"
            tnote = "" if args.threads is None else f" threads {','.join(map(str, counts))}"
            report(label, result_all, worst_all,
                   f"[{kind}, {delegate_count(pte)} delegates{tnote}] {'; '.join(n for n in notes if n)}".strip())
    refused = rows.count("REFUSED") + rows.count("EXPORT")
    print(f"{len(rows) - failed - refused} of {len(rows)} ok" + (f", {failed} failed" if failed else "") +
          (f", {refused} refused by the exporter or the real runtime" if refused else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
