#!/usr/bin/env python3
"""Our ETDump files, read by the real ExecuTorch Inspector.

Exports two small models with the real exporter (executorch in
tools/.venv), each with an ETRecord: one run by our portable/optimized
kernels, one lowered to XNNPACK. Runs each with
`edgefleet-run run MODEL.pte --etdump FILE`, then opens FILE with
executorch.devtools.Inspector together with the ETRecord and checks:
  - the "Default" block holds the load phases, the "Execute" block one
    event per instruction our runtime ran (from `edgefleet-run inspect`),
    named after its operator, with one positive duration per execute;
  - through the ETRecord's debug-handle map the Inspector attributes each
    kernel call to the operator it names (op_types), and each
    DELEGATE_CALL to the delegated operators; delegate-internal events are
    listed by name ("XNNStaticTranspose #1"), as upstream XNNPACK's are.

Usage: inspector_etdump_test.py EDGEFLEET_RUN [PYTHON_OF_TOOLS_VENV]
Exit 77 (ctest: skipped) when the tools venv or executorch is missing.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

SKIP = 77
RUNS = 3

EXPORT_SCRIPT = r'''
import sys, torch
from executorch.exir import to_edge, to_edge_transform_and_lower
from executorch.devtools import generate_etrecord

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8 * 8 * 8, 10)
    def forward(self, x):
        y = torch.relu(self.conv(x))
        y = torch.nn.functional.max_pool2d(y, 2)
        return torch.sigmoid(self.fc(y.flatten(1))) + 1.0

out_dir = sys.argv[1]
torch.manual_seed(0)
model = Net().eval()
example = (torch.randn(1, 3, 16, 16),)
for variant in sys.argv[2:]:
    exported = torch.export.export(model, example)
    if variant == "xnnpack":
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
        edge = to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()],
                                           generate_etrecord=True)
    else:
        edge = to_edge(exported, generate_etrecord=True)
    et = edge.to_executorch()
    with open(f"{out_dir}/{variant}.pte", "wb") as f:
        f.write(et.buffer)
    et.get_etrecord().save(f"{out_dir}/{variant}.etrecord")
'''

INSPECT_SCRIPT = r'''
import json, sys
from executorch.devtools import Inspector
files = {}
for etdump, etrecord in zip(sys.argv[1::2], sys.argv[2::2]):
    inspector = Inspector(etdump_path=etdump, etrecord=etrecord)
    blocks = []
    for block in inspector.event_blocks:
        events = []
        for e in block.events:
            events.append({
                "name": e.name,
                "instruction_id": e._instruction_id,
                "delegate_debug_identifier": e.delegate_debug_identifier,
                "is_delegated_op": bool(e.is_delegated_op),
                "op_types": list(e.op_types or []),
                "raw": [float(x) for x in (e.perf_data.raw if e.perf_data else [])],
            })
        blocks.append({"name": block.name, "events": events})
    files[etdump] = blocks
print(json.dumps(files))
'''


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def run(cmd, **kwargs):
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kwargs)
    if result.returncode != 0:
        fail(f"{cmd[:3]} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def instructions_of(edgefleet_run, pte):
    """{index, operator, kind} of every instruction, from `inspect --json`."""
    doc = json.loads(run([edgefleet_run, "inspect", pte, "--json"]))
    method = next(m for m in doc["methods"] if m["name"] == "forward")
    return [{"index": i, "operator": name, "kind": kind}
            for i, (name, kind) in enumerate(zip(method["instruction_names"],
                                                 method["instruction_kinds"]))]


def check_variant(edgefleet_run, variant, pte, blocks):
    instructions = instructions_of(edgefleet_run, pte)
    names = [b["name"] for b in blocks]
    check(names == ["Default", "Execute"], f"{variant}: event blocks {names}")
    load = {e["name"] for e in blocks[0]["events"]}
    for phase in ("Program::load_method", "Method::init", "parse_values", "init_instructions"):
        check(phase in load, f"{variant}: load phase {phase} missing from {sorted(load)}")
    execute = blocks[1]["events"]
    by_instruction = {}
    for e in execute:
        # Load phases and Method::execute carry instruction id -1.
        if e["instruction_id"] not in (None, -1) and not e["is_delegated_op"]:
            by_instruction[e["instruction_id"]] = e
    check(len(by_instruction) == len(instructions),
          f"{variant}: {len(by_instruction)} instruction events, runtime has "
          f"{len(instructions)} instructions")
    delegate_calls = 0
    for ins in instructions:
        e = by_instruction.get(ins["index"])
        check(e is not None, f"{variant}: instruction {ins['index']} has no event")
        check(len(e["raw"]) == RUNS and all(t > 0 for t in e["raw"]),
              f"{variant}: instruction {ins['index']} durations {e['raw']}")
        if ins["kind"] == "delegate":
            delegate_calls += 1
            check(e["name"] == "DELEGATE_CALL", f"{variant}: delegate event named {e['name']}")
            check(e["op_types"], f"{variant}: the ETRecord maps no operators to the delegate call")
            continue
        op = ins["operator"]
        short = op[len("aten::"):] if op.startswith("aten::") else op
        check(e["name"] == "native_call_" + short,
              f"{variant}: instruction {ins['index']} ({op}) named {e['name']}")
        if ins["kind"] in ("portable", "optimized") and op.startswith("aten::"):
            # The ETRecord maps the instruction id to the graph node it came
            # from: the Inspector's op type must be the operator we ran.
            base = short.split(".")[0]
            check(base in {t.split(".")[1] for t in e["op_types"] if t.count(".") >= 1},
                  f"{variant}: instruction {ins['index']} ({op}) has op_types {e['op_types']}")
    delegated = [e for e in execute if e["is_delegated_op"]]
    if variant == "xnnpack":
        check(delegate_calls >= 1, "xnnpack: no delegate call in the program")
        check(delegated, "xnnpack: no delegate-internal events")
        for e in delegated:
            check(len(e["raw"]) >= RUNS and all(t > 0 for t in e["raw"]),
                  f"xnnpack: delegate event {e['name']} durations {e['raw']}")
            # Named as the upstream XNNPACK delegate names its operators.
            check(re.fullmatch(r"\S+ #[0-9]+", e["name"]) is not None,
                  f"xnnpack: delegate event named {e['name']}")
    print(f"{variant}: {len(instructions)} instructions, {len(delegated)} delegate-internal "
          f"events, load phases {sorted(load)}")


def main():
    if len(sys.argv) < 2:
        fail("usage: inspector_etdump_test.py EDGEFLEET_RUN [PYTHON]")
    edgefleet_run = sys.argv[1]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    python = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "tools/.venv/bin/python")
    if not os.path.exists(python):
        print(f"SKIP: no tools venv at {python} (make it with tools/export/setup_venv.sh)")
        sys.exit(SKIP)
    probe = subprocess.run([python, "-c", "import executorch.devtools"], capture_output=True)
    if probe.returncode != 0:
        print(f"SKIP: {python} cannot import executorch.devtools")
        sys.exit(SKIP)
    variants = ("portable", "xnnpack")
    with tempfile.TemporaryDirectory() as tmp:
        run([python, "-W", "ignore", "-c", EXPORT_SCRIPT, tmp, *variants])
        pairs = []
        for variant in variants:
            etdump = f"{tmp}/{variant}.etdp"
            run([edgefleet_run, "run", f"{tmp}/{variant}.pte", "--iterations", str(RUNS),
                 "--etdump", etdump])
            pairs += [etdump, f"{tmp}/{variant}.etrecord"]
        # Our files, opened by the real Inspector (one process for both).
        inspected = json.loads(run([python, "-W", "ignore", "-c", INSPECT_SCRIPT, *pairs])
                               .strip().splitlines()[-1])
        for variant in variants:
            check_variant(edgefleet_run, variant, f"{tmp}/{variant}.pte",
                          inspected[f"{tmp}/{variant}.etdp"])
    print("PASS")


if __name__ == "__main__":
    main()
