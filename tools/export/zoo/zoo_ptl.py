"""The old stack's file of a zoo model (export_zoo.py): model.ptl, written
by Debian's torch 1.13 through ../ptl_bridge.py with the same weights.
"""

import inspect
import os
import zlib

from zoo_int8 import calibration_images


def export_ptl(name, build, case, float_outputs, labels, d):
    """Writes d/model.ptl with Debian's torch (ptl_bridge.py): the float
    model prepacked for XNNPACK, or, for an int8 model, the float model
    quantized the way PyTorch Mobile users did (FX post-training static
    quantization, qnnpack engine, on calibration_images()). Returns the
    manifest facts, or {"ptl_skipped": reason} where Debian's torch cannot
    script or export the model."""
    import subprocess

    import ptl_bridge

    quantized = case.quantize is not None
    job = ptl_bridge.Job(
        name, os.path.abspath(inspect.getfile(build)), build.__name__, zlib.crc32(name.encode()),
        case.module,
        [t.numpy() for t in case.inputs], [t.numpy() for t in float_outputs],
        os.path.join(d, "model.ptl"),
        calibration=calibration_images().numpy() if quantized else None,
        top1=(case.top1_inputs.numpy(), labels) if quantized else None,
        rtol=1e-3, atol=1e-3)
    try:
        result = ptl_bridge.export([job])["results"][0]
    except subprocess.CalledProcessError:
        return {"ptl_skipped": "Debian's torch 1.13 could not export it (see the export log)"}
    del result["name"]
    return {"ptl": result}
