"""The zoo's int8 model (export_zoo.py): the PT2E recipe that quantizes
mobilenet_v2 (XNNPACKQuantizer, calibrated on seeded images), the output
quantization parameters the manifest records, and the real ExecuTorch
runtime's outputs stored beside a quantized model's files.

case_mobilenet_v2_int8 also runs under Debian's torch 1.13 (ptl_debian.py
builds its float module for the .ptl): torch.export, torchao and executorch
are imported where they are used.
"""

import os

import numpy as np
import torch

from zoo_models import Case, images, init_classifier

TOP1_SAMPLES = 100


def quantize_mobilenet_v2(module, example_inputs, calibration=None):
    """PT2E int8 (XNNPACKQuantizer, per-channel symmetric weights), calibrated
    on `calibration` ([N, 3, H, W]; default calibration_images())."""
    # Registers the out variants of quantized_decomposed::* that to_executorch
    # needs when no partitioner takes the quantized ops.
    import executorch.kernels.quantized  # noqa: F401
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    from torch.export import export

    captured = export(module, example_inputs, strict=True).module()
    quantizer = XNNPACKQuantizer()
    quantizer.set_global(get_symmetric_quantization_config(is_per_channel=True))
    prepared = prepare_pt2e(captured, quantizer)
    for x in (calibration_images() if calibration is None else calibration):
        prepared(x.unsqueeze(0))
    return convert_pt2e(prepared)


def calibration_images(size=224):
    """The seeded images int8 quantization calibrates on ([16, 3, size, size]);
    the old stack's qnnpack model (ptl_debian.py) sees the same ones."""
    gen = torch.Generator().manual_seed(1234)
    return torch.cat([images(1, size, gen) for _ in range(16)])


def case_mobilenet_v2_int8():
    from torchvision.models import mobilenet_v2

    m = init_classifier(mobilenet_v2(weights=None))
    gen = torch.Generator().manual_seed(4321)
    top1 = images(TOP1_SAMPLES, 224, gen).unsqueeze(1)
    return Case(m, (images(1, 224),),
                "torchvision mobilenet_v2 quantized to int8 with PT2E (XNNPACKQuantizer,"
                " symmetric static per-channel weights, 16 seeded calibration images,"
                " the observers' own scales), exported without a partitioner"
                " (quantized_decomposed ops); input float [1,3,224,224]",
                quantize=quantize_mobilenet_v2, top1_inputs=top1)


def output_quant_params(gm):
    """(scale, zero_point, quant_min, quant_max) of the dequantize feeding each
    graph output of a converted PT2E GraphModule (None where there is none)."""
    out_node = next(n for n in gm.graph.nodes if n.op == "output")
    params = []
    for arg in _flatten_nodes(out_node.args[0]):
        if arg.op == "call_function" and "dequantize_per_tensor" in str(arg.target):
            scale, zp, qmin, qmax = arg.args[1:5]
            params.append({"scale": float(scale), "zero_point": int(zp), "quant_min": int(qmin),
                           "quant_max": int(qmax)})
        else:
            params.append(None)
    return params


# For a quantized model, the real ExecuTorch runtime's outputs on each
# exported file are stored beside it as <prefix>_expected_<j>.npy (the stored
# inputs) and <prefix>_top1_expected.npy (the top-1 samples): with the
# observers' scales, int8 results depend on the order of float summation, so
# a runtime is held to the real runtime on the same file (docs/zoo.md).
REAL_RUNTIME_OUTPUTS = (("model.pte", "runtime"), ("model_xnnpack.pte", "runtime_xnnpack"))


def _real_runtime(path):
    """forward of `path` on the real ExecuTorch runtime (its Python bindings,
    with the quantized kernels registered): inputs -> list of numpy outputs."""
    import executorch.kernels.quantized  # noqa: F401
    from executorch.runtime import Runtime, Verification

    program = Runtime.get().load_program(path, verification=Verification.InternalConsistency)
    method = program.load_method("forward")
    return lambda inputs: [o.contiguous().numpy() for o in method.execute(list(inputs))]


def save_real_runtime_outputs(d, case):
    """Runs every exported file of `d` on the real runtime (REAL_RUNTIME_OUTPUTS)."""
    for fn, prefix in REAL_RUNTIME_OUTPUTS:
        if not os.path.exists(os.path.join(d, fn)):
            continue
        run = _real_runtime(os.path.join(d, fn))
        for j, t in enumerate(run(case.inputs)):
            np.save(os.path.join(d, f"{prefix}_expected_{j}.npy"), t)
        if case.top1_inputs is not None:
            top1 = np.concatenate([run((x,))[0] for x in case.top1_inputs])
            np.save(os.path.join(d, f"{prefix}_top1_expected.npy"), top1)


def real_runtime_files(entry, xnnpack):
    """The real runtime's output files a quantized model's export writes."""
    if "output_quant" not in entry:
        return []
    files = []
    for fn, prefix in REAL_RUNTIME_OUTPUTS[:2 if xnnpack else 1]:
        files += [f"{prefix}_expected_{j}.npy" for j in range(entry.get("outputs", 0))]
        if entry.get("top1_samples"):
            files.append(f"{prefix}_top1_expected.npy")
    return files


def _flatten_nodes(a):
    if isinstance(a, (list, tuple)):
        return [n for x in a for n in _flatten_nodes(x)]
    return [a]
