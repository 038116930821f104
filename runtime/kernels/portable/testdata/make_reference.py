#!/usr/bin/env python3
"""Writes reference_<i>.json: operator cases for the portable kernels with the
outputs PyTorch computes for them (torch_reference_test.cc replays each case
through the registered kernel and compares).

The cases live in elementwise_cases.py, reduction_cases.py,
shape_index_cases.py, quantized_cases.py, resampling_cases.py,
comparison_cases.py, convolution_cases.py, pooling_3d_cases.py and
reduced_float_cases.py (float16 and bfloat16; the format and generators in
reference_cases.py); main() draws them in a fixed order. Run once and commit
the output (the tests never run Python):

    tools/.venv/bin/python runtime/kernels/portable/testdata/make_reference.py

Inputs are seeded; rerunning with the same torch version rewrites the same
file. The torch version used is recorded in the output.

A case lists the kernel's arguments in schema order. Tensors carry dtype,
sizes, values in logical (row-major) order and optionally a dim order (the
test lays the data out accordingly). OUT(k) is the k-th expected output,
created by the test with that dtype, shape and dim order (for a functional
op, "functional" cases, it is the return value, not an argument). Error cases give
the out tensors' dtype and shape instead and expect the kernel to fail.
"""

import json
import pathlib

import torch

from comparison_cases import allclose
from convolution_cases import convolution_3d, convolution_backward
from elementwise_cases import activations, binary_misc, bitwise, sign_classify, unary_floating
from quantized_cases import (
    choose_qparams_per_token, mixed_matmuls, quantized_add, quantized_token_embedding)
from pooling_3d_cases import avg_pool_3d, max_pool_3d
from reduced_float_cases import reduced_floats
from reduction_cases import copies_fills, norms, reductions, sort, topk_ties
from reference_cases import cases
from resampling_cases import grid_sampler_2d, max_pool_backward, upsample_aa
from shape_index_cases import index_copy_distance_ops, scatter_reduce, shape_ops

OUT_DIR = pathlib.Path(__file__).parent
# Each output file stays well below the repository's 2 MiB limit for
# tracked files: the cases are written in order to reference_0.json,
# reference_1.json, ... (the test reads them all).
SHARD_BYTES = 1 << 20


def main():
    torch.manual_seed(20261125)  # before any input is drawn
    unary_floating()
    sign_classify()
    activations()
    bitwise()
    binary_misc()
    reductions()
    norms()
    copies_fills()
    shape_ops()
    index_copy_distance_ops()
    quantized_token_embedding()
    max_pool_backward()
    quantized_add()
    upsample_aa()
    choose_qparams_per_token()
    mixed_matmuls()
    allclose()
    convolution_backward()
    convolution_3d()
    grid_sampler_2d()
    sort()
    scatter_reduce()
    reduced_floats()
    avg_pool_3d()
    max_pool_3d()
    topk_ties()
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    for old in OUT_DIR.glob("reference_*.json"):
        old.unlink()
    shards, size = [[]], 0
    for c in cases:
        text = json.dumps(c, separators=(",", ":"), allow_nan=False)
        if shards[-1] and size + len(text) > SHARD_BYTES:
            shards.append([])
            size = 0
        shards[-1].append(c)
        size += len(text) + 1
    for i, shard in enumerate(shards):
        (OUT_DIR / f"reference_{i}.json").write_text(json.dumps(
            {"generator": "make_reference.py", "torch": torch.__version__,
             "cases": shard}, indent=None, separators=(",", ":"),
            allow_nan=False) + "\n")
    print(f"wrote {len(cases)} cases to {len(shards)} files reference_<i>.json in {OUT_DIR}")


if __name__ == "__main__":
    main()
