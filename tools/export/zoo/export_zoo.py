#!/usr/bin/env python3
"""Exports EdgeFleet's model zoo with the real ExecuTorch exporter.

Run through `make models` (tools/export/zoo/make_models.sh creates the venv).

Every model is built with seeded random weights (nothing is downloaded), made
to behave like a trained network by a data-dependent init (BatchNorm
statistics measured on seeded image-like inputs, classifier biases centred so
that the top-1 class depends on the input), and exported twice:
  model.pte          torch.export -> to_edge_transform_and_lower with NO
                     partitioner -> to_executorch: every op runs as a kernel
  model_xnnpack.pte  the same ExportedProgram lowered with XnnpackPartitioner
                     (for the benchmark's delegated comparison)
next to
  input_<i>.npy      seeded inputs (logical C order, the method's dtypes)
  expected_<j>.npy   torch eager's outputs on them (for the int8 model: torch
                     running the converted, quantized GraphModule)
  model.ptl          the old stack's file (PyTorch Mobile, written by Debian's
                     torch 1.13 through ../ptl_bridge.py with the same
                     weights: float models prepacked for XNNPACK by
                     optimize_for_mobile; the int8 model quantized from the
                     same float weights the way PyTorch Mobile users did,
                     FX post-training static quantization for qnnpack, set
                     up as the PT2E model is; its torch 1.13 reference
                     outputs in ptl_expected_<j>.npy, ptl_top1_expected.npy)
  manifest.json      shapes, dtypes, operators, sizes, tolerances
in <out>/<name>/ (default .cache/models/). The int8 model also gets
top1_inputs.npy ([100, 1, 3, 224, 224], seeded), top1_expected.npy (torch's
outputs for them) and top1_labels.npy (torch's top-1 class for each), and
the real ExecuTorch runtime's outputs on each file for input_0 and those
samples (runtime_expected_0.npy, runtime_top1_expected.npy for model.pte;
runtime_xnnpack_* for model_xnnpack.pte), the reference of the int8
agreement tests in test/zoo/ (docs/zoo.md, "The int8 model's scales").

Models whose model.pte is under 2 MB are also copied (model.pte, inputs,
expected, manifest.json) to test/fixtures/zoo_<name>/ with --update-fixtures,
so the zoo tests run without the cache.

Every model seeds torch with crc32(name): re-running gives the same bytes,
and adding a model does not change the others.

The models are built in zoo_models.py (zoo_int8.py: the int8 model, its
quantization recipe and its real-runtime references); zoo_ptl.py writes the
.ptl files; this file exports, caches and indexes them.
"""

import argparse
import hashlib
import importlib.metadata
import json
import logging
import os
import re
import shutil
import sys
import time
import zlib

logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)
logging.getLogger("torchao").setLevel(logging.ERROR)

import numpy as np  # noqa: E402
import torch  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

# The exporter's imports (torch.export, executorch, inspect_pte, ptl_bridge)
# are made where they are used, as in the model modules, which also run
# under Debian's torch 1.13 (tools/export/ptl_debian.py).

REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
DEFAULT_OUT = os.path.join(REPO, ".cache", "models")
FIXTURE_DIR = os.path.join(REPO, "test", "fixtures")
MAX_COMMITTED_PTE_BYTES = 2 * 1024 * 1024
# The modules whose code a cached model depends on (_exporter_id).
MODEL_FILES = ("zoo_models.py", "zoo_int8.py", "zoo_ptl.py")

import zoo_int8  # noqa: E402
import zoo_models  # noqa: E402
from zoo_ptl import export_ptl  # noqa: E402


def _exporter_id():
    """What a cached model depends on: this file, the model modules, the
    .ptl exporter's and the package versions."""
    digest = hashlib.sha256()
    files = [os.path.abspath(__file__)] + [os.path.join(HERE, f) for f in MODEL_FILES]
    for path in files + [os.path.join(os.path.dirname(HERE), "ptl_debian.py")]:
        with open(path, "rb") as f:
            digest.update(f.read())
    digest = digest.hexdigest()[:16]
    versions = ",".join(importlib.metadata.version(p)
                        for p in ("torch", "torchvision", "executorch"))
    return f"{digest}/{versions}"


MODELS = [
    ("mobilenet_v2", zoo_models.case_mobilenet_v2),
    ("mobilenet_v3_small", zoo_models.case_mobilenet_v3_small),
    ("resnet18", zoo_models.case_resnet18),
    ("deeplabv3_mobilenet_v3_large", zoo_models.case_deeplabv3_mobilenet_v3_large),
    ("text_langid", zoo_models.case_text_langid),
    ("bwe_gru", zoo_models.case_bwe_gru),
    ("kws_conv1d", zoo_models.case_kws_conv1d),
    ("mobilenet_v2_int8", zoo_int8.case_mobilenet_v2_int8),
    ("squeezenet", zoo_models.case_squeezenet),
    ("mobilenet", zoo_models.case_mobilenet),
    ("mobilenet_v3", zoo_models.case_mobilenet_v3),
    ("shufflenet_v2", zoo_models.case_shufflenet_v2),
    ("mnasnet", zoo_models.case_mnasnet),
    ("efficientnet_b0", zoo_models.case_efficientnet_b0),
    ("googlenet", zoo_models.case_googlenet),
    ("resnet50", zoo_models.case_resnet50),
    ("regnet_y_400mf", zoo_models.case_regnet_y_400mf),
    ("vit_tiny", zoo_models.case_vit_tiny),
]


# ---------------------------------------------------------------- export


def _flatten(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in _flatten(o)]
    raise TypeError(f"unsupported output type {type(out)}")


def _spec(t):
    return {"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")}


def _lower(ep, xnnpack):
    from executorch.exir import to_edge_transform_and_lower

    if not xnnpack:
        return to_edge_transform_and_lower(ep).to_executorch().buffer
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    return to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()]).to_executorch().buffer



def _write_pte(path, data):
    import inspect_pte

    with open(path, "wb") as f:
        f.write(data)
    return {"bytes": len(data), "operators": inspect_pte.operators(path)}



def export_one(name, build, out_dir, xnnpack):
    from torch.export import export

    torch.manual_seed(zlib.crc32(name.encode()))
    t0 = time.time()
    with torch.no_grad():
        case = build()
        case.module.eval()
        entry = {"name": name, "description": case.description}
        if case.quantize is not None:
            reference = case.quantize(case.module, case.inputs)
            entry["output_quant"] = zoo_int8.output_quant_params(reference)
        else:
            reference = case.module
        outputs = _flatten(reference(*case.inputs))
        ep = export(reference, case.inputs, strict=case.quantize is None)

        d = os.path.join(out_dir, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        pte = _write_pte(os.path.join(d, "model.pte"), _lower(ep, xnnpack=False))
        entry.update(pte_bytes=pte["bytes"], operators=pte["operators"])
        if xnnpack:
            x = _write_pte(os.path.join(d, "model_xnnpack.pte"), _lower(ep, xnnpack=True))
            entry.update(xnnpack_pte_bytes=x["bytes"], xnnpack_operators=x["operators"])
        for i, t in enumerate(case.inputs):
            np.save(os.path.join(d, f"input_{i}.npy"), t.contiguous().numpy())
        for j, t in enumerate(outputs):
            np.save(os.path.join(d, f"expected_{j}.npy"), t.contiguous().numpy())
        labels = None
        if case.top1_inputs is not None:
            logits = torch.cat([reference(x) for x in case.top1_inputs])
            labels = logits.argmax(dim=1).numpy().astype(np.int64)
            np.save(os.path.join(d, "top1_inputs.npy"), case.top1_inputs.numpy())
            np.save(os.path.join(d, "top1_expected.npy"), logits.numpy())
            np.save(os.path.join(d, "top1_labels.npy"), labels)
            entry["top1_samples"] = len(labels)
            entry["top1_distinct_labels"] = len(set(labels.tolist()))
        if case.quantize is not None:
            zoo_int8.save_real_runtime_outputs(d, case)
        float_outputs = outputs if case.quantize is None else _flatten(case.module(*case.inputs))
        entry.update(export_ptl(name, build, case, float_outputs, labels, d))
    entry.update(
        inputs=len(case.inputs),
        outputs=len(outputs),
        input_specs=[_spec(t) for t in case.inputs],
        output_specs=[_spec(t) for t in outputs],
        seed=zlib.crc32(name.encode()),
        exporter=_exporter_id(),
    )
    _write_json(os.path.join(d, "manifest.json"), entry)
    print(f"  {name}: {entry['pte_bytes']} bytes ({time.time() - t0:.0f} s),"
          f" ops {entry['operators']}", file=sys.stderr)
    return entry


def cached_entry(name, out_dir, xnnpack):
    """The manifest of a complete cached export by this exporter, or None."""
    d = os.path.join(out_dir, name)
    try:
        with open(os.path.join(d, "manifest.json")) as f:
            entry = json.load(f)
    except (OSError, ValueError):
        return None
    files = ["model.pte"] + [f"input_{i}.npy" for i in range(entry.get("inputs", 0))]
    files += [f"expected_{j}.npy" for j in range(entry.get("outputs", 0))]
    if xnnpack:
        files.append("model_xnnpack.pte")
    if "ptl" in entry:
        files.append("model.ptl")
        if "output_quant" in entry["ptl"]:  # the int8 .ptl's own reference outputs
            files += [f"ptl_expected_{j}.npy" for j in range(entry.get("outputs", 0))]
            files += ["ptl_top1_expected.npy", "top1_float_labels.npy"]
    if entry.get("top1_samples"):
        files += ["top1_inputs.npy", "top1_expected.npy", "top1_labels.npy"]
    files += zoo_int8.real_runtime_files(entry, xnnpack)
    if entry.get("exporter") != _exporter_id() or not all(
            os.path.exists(os.path.join(d, fn)) for fn in files):
        return None
    return entry


def copy_fixture(entry, out_dir):
    """Copies a small model (non-delegated program only) to test/fixtures."""
    src = os.path.join(out_dir, entry["name"])
    dst = os.path.join(FIXTURE_DIR, "zoo_" + entry["name"])
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    for fn in sorted(os.listdir(src)):
        if fn in ("model.pte", "model.ptl", "manifest.json") or re.match(r"(input|expected)_\d+\.npy$", fn):
            shutil.copy(os.path.join(src, fn), os.path.join(dst, fn))
    print(f"  copied {entry['name']} to {os.path.relpath(dst, REPO)}", file=sys.stderr)


def _write_json(path, obj):
    text = json.dumps(obj, indent=2)
    text = re.sub(r"\[\n[-\d,\s]+\]", lambda m: json.dumps(json.loads(m.group(0))), text)
    with open(path, "w") as f:
        f.write(text + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--only", nargs="*", help="export just these models")
    ap.add_argument("--force", action="store_true",
                    help="re-export models whose cached files are up to date")
    ap.add_argument("--no-xnnpack", action="store_true",
                    help="skip the XNNPACK-delegated model_xnnpack.pte variants")
    ap.add_argument("--update-fixtures", action="store_true",
                    help=f"also copy models under {MAX_COMMITTED_PTE_BYTES} bytes to"
                         " test/fixtures/zoo_<name>/")
    args = ap.parse_args()

    names = [n for n, _ in MODELS]
    for n in args.only or []:
        if n not in names:
            raise SystemExit(f"unknown model {n}; known: {' '.join(names)}")
    torch.use_deterministic_algorithms(True)
    # The fused inference fast path of nn.TransformerEncoderLayer is an op
    # outside core ATen; users exporting these models turn it off the same way.
    torch.backends.mha.set_fastpath_enabled(False)
    os.makedirs(args.out, exist_ok=True)
    for name, build in MODELS:
        if args.only and name not in args.only:
            continue
        entry = None if args.force else cached_entry(name, args.out, not args.no_xnnpack)
        if entry is not None:
            print(f"  {name}: up to date", file=sys.stderr)
        else:
            entry = export_one(name, build, args.out, xnnpack=not args.no_xnnpack)
        if args.update_fixtures and entry["pte_bytes"] < MAX_COMMITTED_PTE_BYTES:
            copy_fixture(entry, args.out)

    # The index covers every model present in the cache, not just this run's.
    models = []
    for name in names:
        path = os.path.join(args.out, name, "manifest.json")
        if os.path.exists(path):
            with open(path) as f:
                models.append(json.load(f))
    _write_json(os.path.join(args.out, "manifest.json"), {
        "models": models,
        "generated_by": "make models (tools/export/zoo/export_zoo.py)",
        "torch": importlib.metadata.version("torch"),
        "torchvision": importlib.metadata.version("torchvision"),
        "executorch": importlib.metadata.version("executorch"),
    })
    print(f"wrote {len(models)} models to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
