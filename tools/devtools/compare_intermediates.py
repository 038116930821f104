#!/usr/bin/env python3
"""Names the first operator where our runtime's outputs diverge from torch eager.

Builds a model of tools/export/export_fixtures.py (the fixture's module,
weights and inputs, seeded as the exporter seeds them), exports it with the
real exporter, runs the program with
`edgefleet-run run MODEL.pte --dump-intermediates DIR` on the fixture's
inputs, runs the program's own graph (the out-variant operators its
instructions were emitted from, ExecutorchProgramManager.exported_program())
in torch eager on the same inputs, and compares each instruction's output
tensors with the output of the graph node it came from, in execution order.

Matching: instructions and graph nodes are walked in order and paired by
operator name ("aten::convolution.out" with "aten.convolution.out", our
"executorch_prim::et_view" with executorch's view); an instruction without a counterpart ahead is
reported as unmatched and skipped. An instruction our plan passes fused
(an `edgefleet::` kernel such as `edgefleet::fused_convolution.out` or
`edgefleet::fused_add_clamp.out`, paired with `add`, followed by
instructions of kind "fused") is compared with the last fused
operator's output, since that is what it writes (that operator's first
output; `edgefleet::max_pool2d_values.out`, the pool whose indices
nothing reads, is paired with `max_pool2d_with_indices` and compared on
its values); a "fused" instruction after any other (the weight transpose
`pack_matmul_panels` drops before `edgefleet::addmm_panels.out`, which is
paired with `addmm`) belongs to no one. A multi-output operator is
compared on its last outputs (the instruction's last argument). Folded, fused and control instructions
have no own output.

A tensor diverges when max|ours - torch| > atol + rtol * max|torch|.

Usage (the tools venv's Python, tools/export/setup_venv.sh):
  tools/.venv/bin/python tools/devtools/compare_intermediates.py \\
      --edgefleet-run build/default/runtime/tools/edgefleet-run --fixture small_cnn \\
      --work /tmp/cmp [--portable-only] [--reuse-dump] [--atol 1e-4] [--rtol 1e-3] [--json]
--reuse-dump compares an existing WORK/dump (e.g. edited by hand) without
running edgefleet-run again. Exit 0: no divergence; 1: a divergence (named
on stdout); 2: usage or tool error.
"""

import argparse
import json
import os
import subprocess
import sys
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "export"))


def base_name(name):
    """'aten::convolution.out' / 'aten.convolution.default' -> 'convolution'."""
    if "::" in name:
        base = name.split("::", 1)[1].split(".")[0]
    else:
        parts = name.split(".")
        base = parts[1] if len(parts) >= 3 else parts[-1]
    if base.startswith("fused_convolution"):
        return "convolution"
    if base.startswith("fused_") and base.endswith("_clamp"):  # fused_add_clamp: add
        return base[len("fused_"):-len("_clamp")]
    if base == "addmm_panels":
        return "addmm"
    if base == "max_pool2d_values":  # the pool without its unread indices
        return "max_pool2d_with_indices"
    if base == "et_view":
        return "view_copy"
    return base


def build_case(fixture):
    import export_fixtures
    import torch

    builds = {name: build for name, _, build in export_fixtures.FIXTURES}
    if fixture not in builds:
        raise SystemExit(f"unknown fixture {fixture!r}; one of {sorted(builds)}")
    torch.manual_seed(zlib.crc32(fixture.encode()))
    with torch.no_grad():
        case = builds[fixture]()
        case.module.eval()
    return case


def export(case, pte_path):
    """The ExecuTorch program manager (its graph is what the instructions
    were emitted from)."""
    from executorch.exir import to_edge_transform_and_lower
    from torch.export import export as torch_export

    ep = torch_export(case.module, case.export_inputs, dynamic_shapes=case.dynamic_shapes,
                      strict=True)
    edge = to_edge_transform_and_lower(ep)
    program = edge.to_executorch()
    with open(pte_path, "wb") as f:
        f.write(program.buffer)
    return program


def eager_outputs(program, inputs):
    """[(operator name, output)] of every operator node of the program's
    graph (out-variant operators, run eagerly by torch), in graph order;
    memory planning's allocations and getitem are not operators."""
    import torch

    gm = program.exported_program().module()
    recorded = []

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            if n.op != "call_function" or "getitem" in str(n.target):
                return out
            name = str(n.target)
            if name.startswith("<"):  # a Python function: executorch's view, alloc
                if getattr(n.target, "__name__", "") != "view":
                    return out
                name = "executorch_prim.et_view.default"
            recorded.append((name, out))
            return out

    with torch.no_grad():
        Recorder(gm).run(*inputs)
    return recorded


def as_arrays(out):
    import torch

    if isinstance(out, torch.Tensor):
        return [out.detach().contiguous().numpy()]
    if isinstance(out, (tuple, list)):
        arrays = []
        for o in out:
            arrays.extend(as_arrays(o))
        return arrays
    return []


def compare(dump_dir, reference, atol, rtol):
    with open(os.path.join(dump_dir, "index.json")) as f:
        index = json.load(f)
    instructions = index["instructions"]
    rows = []
    node = 0
    names = [base_name(target) for target, _ in reference]
    for i, ins in enumerate(instructions):
        if ins["kernel"] in ("fused", "control", "folded"):
            continue
        base = base_name(ins["name"])
        try:
            at = names.index(base, node)
        except ValueError:
            rows.append({"instruction": ins["instruction"], "name": ins["name"],
                         "status": "unmatched"})
            continue
        node = at + 1
        # A fusing instruction writes the output of the operators fused into it.
        last = at
        j = i + 1
        values_only = ins["name"] == "edgefleet::max_pool2d_values.out"
        absorbs = ins["name"].startswith("edgefleet::") and not values_only
        while absorbs and j < len(instructions) and instructions[j]["kernel"] == "fused":
            fused_base = base_name(instructions[j]["name"])
            if fused_base in names[node:]:
                last = names.index(fused_base, node)
                node = last + 1
            j += 1
        if not ins["files"]:
            continue
        ref = as_arrays(reference[last][1])
        ours = [np.load(os.path.join(dump_dir, f)) for f in ins["files"]]
        # An edgefleet:: kernel writes the (fused group's last) operator's
        # first outputs (max_pool2d_values: the values, not the indices); an
        # instruction of its own writes all its outputs (its last argument,
        # a tensor list for several).
        ref = ref[:len(ours)] if absorbs or values_only else ref[len(ref) - len(ours):]
        worst = 0.0
        status = "ok"
        for a, b in zip(ours, ref):
            if a.shape != b.shape:
                status = f"shape {list(a.shape)} vs torch {list(b.shape)}"
                break
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
            err = float(np.max(np.abs(a64 - b64))) if a.size else 0.0
            scale = float(np.max(np.abs(b64))) if b.size else 0.0
            worst = max(worst, err)
            if not (err <= atol + rtol * scale):
                status = "diverges"
        rows.append({"instruction": ins["instruction"], "name": ins["name"],
                     "torch": reference[last][0], "max_abs_error": worst, "status": status})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edgefleet-run", required=True)
    parser.add_argument("--fixture", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--portable-only", action="store_true")
    parser.add_argument("--reuse-dump", action="store_true")
    parser.add_argument("--atol", type=float, default=1e-4)
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    os.makedirs(args.work, exist_ok=True)
    case = build_case(args.fixture)
    pte = os.path.join(args.work, "model.pte")
    dump = os.path.join(args.work, "dump")
    program = export(case, pte)
    input_files = []
    for i, t in enumerate(case.inputs):
        path = os.path.join(args.work, f"input_{i}.npy")
        np.save(path, t.contiguous().numpy())
        input_files += ["--input", path]
    if not args.reuse_dump:
        cmd = [args.edgefleet_run, "run", pte, "--iterations", "0", "--threads", "1",
               "--dump-intermediates", dump] + input_files
        if args.portable_only:
            cmd.append("--portable-only")
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            print(f"edgefleet-run failed: {run.stderr.strip()}", file=sys.stderr)
            return 2
    rows = compare(dump, eager_outputs(program, case.inputs), args.atol, args.rtol)
    first = next((r for r in rows if r["status"] not in ("ok", "unmatched")), None)
    if args.json:
        print(json.dumps({"fixture": args.fixture, "rows": rows, "first_divergence": first}))
    else:
        for r in rows:
            err = f"{r['max_abs_error']:.3g}" if "max_abs_error" in r else "-"
            print(f"{r['instruction']:5d}  {r['name']:44s} {r.get('torch', '-'):40s} "
                  f"{err:>10s}  {r['status']}")
        compared = sum(1 for r in rows if r["status"] != "unmatched")
        if first is None:
            print(f"no divergence: {compared} instruction outputs match torch eager "
                  f"(atol {args.atol}, rtol {args.rtol})")
        else:
            print(f"first divergence: instruction {first['instruction']} {first['name']} "
                  f"(torch {first['torch']}): {first['status']}, max abs error "
                  f"{first.get('max_abs_error', float('nan')):.3g}")
    return 0 if first is None else 1


if __name__ == "__main__":
    sys.exit(main())
