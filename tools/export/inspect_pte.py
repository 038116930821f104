#!/usr/bin/env python3
"""Dumps what is inside a .pte file, using ExecuTorch's own deserializer.

Usage (with the venv python from setup_venv.sh):
    inspect_pte.py [--json] MODEL.pte [MODEL.pte ...]

Prints the file layout (extended header, segments, constant segment), and for
each method its operators (name.overload), value kinds, inputs/outputs,
planned buffer sizes, instruction counts and delegates. `operators(path)` is
used by export_fixtures.py to record each fixture's op list in manifest.json.
"""

import argparse
import collections
import json
import logging
import sys

# torchao (imported by executorch) logs a deprecation warning through torch.
logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)

from executorch.exir._serialize import _program as pte  # noqa: E402


def _raw_program(data):
    """The flatbuffer Program as stored (segments not folded back in)."""
    eh = pte._get_extended_header(data)
    size = eh.program_size if eh and eh.is_valid() else len(data)
    return eh, pte._flatbuffer_to_program(data[:size])


def _op_name(op):
    return f"{op.name}.{op.overload}" if op.overload else op.name


def operators(path):
    """Sorted unique 'name.overload' strings over all methods of a .pte."""
    with open(path, "rb") as f:
        program = pte.deserialize_pte_binary(f.read()).program
    return sorted({_op_name(op) for plan in program.execution_plan for op in plan.operators})


def describe(path):
    with open(path, "rb") as f:
        data = f.read()
    eh, raw = _raw_program(data)
    program = pte.deserialize_pte_binary(data).program
    out = {
        "file": path,
        "bytes": len(data),
        "identifier": data[4:8].decode(errors="replace"),
        "schema_version": program.version,
        "extended_header": None,
        "segments": [{"offset": s.offset, "size": s.size} for s in raw.segments],
        "constant_segment": {
            "segment_index": raw.constant_segment.segment_index,
            "num_offsets": len(raw.constant_segment.offsets),
        },
        "inline_constant_buffers": len(raw.constant_buffer),
        "mutable_data_segments": len(raw.mutable_data_segments or []),
        "named_data": [n.key for n in raw.named_data or []],
        "methods": [],
    }
    if eh and eh.is_valid():
        out["extended_header"] = {
            "program_size": eh.program_size,
            "segment_base_offset": eh.segment_base_offset,
            "segment_data_size": eh.segment_data_size,
        }
    for plan in program.execution_plan:
        kinds = collections.Counter(type(v.val).__name__ for v in plan.values)
        instr = collections.Counter(
            type(i.instr_args).__name__ for c in plan.chains for i in c.instructions
        )
        calls = collections.Counter(
            _op_name(plan.operators[i.instr_args.op_index])
            for c in plan.chains
            for i in c.instructions
            if type(i.instr_args).__name__ == "KernelCall"
        )
        out["methods"].append(
            {
                "name": plan.name,
                "inputs": plan.inputs,
                "outputs": plan.outputs,
                "operators": [_op_name(op) for op in plan.operators],
                "kernel_calls": dict(calls),
                "value_kinds": dict(kinds),
                "instructions": dict(instr),
                "chains": len(plan.chains),
                "non_const_buffer_sizes": plan.non_const_buffer_sizes,
                "delegates": [d.id for d in plan.delegates],
            }
        )
    return out


def _print_text(d):
    print(f"{d['file']}: {d['bytes']} bytes, identifier {d['identifier']}")
    eh = d["extended_header"]
    print(f"  extended header: {eh if eh else 'absent'}")
    print(f"  segments: {d['segments']}")
    cs = d["constant_segment"]
    print(
        f"  constant_segment: segment {cs['segment_index']}, {cs['num_offsets']} offsets;"
        f" inline constant_buffer entries: {d['inline_constant_buffers']};"
        f" mutable data segments: {d['mutable_data_segments']}; named data: {d['named_data']}"
    )
    for m in d["methods"]:
        print(f"  method {m['name']}: inputs {m['inputs']} outputs {m['outputs']}")
        print(f"    planned buffers: {m['non_const_buffer_sizes']}  chains: {m['chains']}")
        print(f"    instructions: {m['instructions']}")
        print(f"    values: {m['value_kinds']}")
        print(f"    delegates: {m['delegates']}")
        print("    operators:")
        for op in m["operators"]:
            print(f"      {op}  x{m['kernel_calls'].get(op, 0)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print JSON instead of text")
    ap.add_argument("pte", nargs="+")
    args = ap.parse_args()
    for path in args.pte:
        d = describe(path)
        if args.json:
            json.dump(d, sys.stdout, indent=1)
            print()
        else:
            _print_text(d)


if __name__ == "__main__":
    main()
