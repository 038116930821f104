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
import subprocess
import sys
import tempfile

TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                     "tools", "devtools")
sys.path.insert(0, TOOLS)
import inspector_check  # noqa: E402  (the checks shared with the zoo check)

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

# Our files, opened by the real Inspector (one process for all of them).
INSPECT_SCRIPT = r'''
import json, sys
sys.path.insert(0, sys.argv[1])
from inspector_check import inspector_events
print(json.dumps({etdump: inspector_events(etdump, etrecord)
                  for etdump, etrecord in zip(sys.argv[2::2], sys.argv[3::2])}))
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


def check_variant(edgefleet_run, variant, pte, blocks):
    instructions = inspector_check.instructions_of(edgefleet_run, pte)
    # Every instruction under its operator's name with a positive duration
    # per execute, delegate-internal events named "<node> #k", load phases.
    problems, summary = inspector_check.check_events(instructions, blocks, RUNS)
    check(not problems, f"{variant}: " + "; ".join(problems))
    by_instruction = {e["instruction_id"]: e for e in blocks[1]["events"]
                      if e["instruction_id"] not in (None, -1) and not e["is_delegated_op"]}
    delegate_calls = 0
    for ins in instructions:
        e = by_instruction[ins["index"]]
        if ins["kind"] == "delegate":
            delegate_calls += 1
            check(e["op_types"], f"{variant}: the ETRecord maps no operators to the delegate call")
            continue
        op = ins["operator"]
        short = op[len("aten::"):] if op.startswith("aten::") else op
        if ins["kind"] in ("portable", "optimized") and op.startswith("aten::"):
            # The ETRecord maps the instruction id to the graph node it came
            # from: the Inspector's op type must be the operator we ran.
            base = short.split(".")[0]
            check(base in {t.split(".")[1] for t in e["op_types"] if t.count(".") >= 1},
                  f"{variant}: instruction {ins['index']} ({op}) has op_types {e['op_types']}")
    if variant == "xnnpack":
        check(delegate_calls >= 1, "xnnpack: no delegate call in the program")
        check(summary["delegate_events"] > 0, "xnnpack: no delegate-internal events")
    print(f"{variant}: {summary['instructions']} instructions, {summary['delegate_events']} "
          f"delegate-internal events, load phases {summary['load_phases']}")


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
        inspected = json.loads(run([python, "-W", "ignore", "-c", INSPECT_SCRIPT, TOOLS, *pairs])
                               .strip().splitlines()[-1])
        for variant in variants:
            check_variant(edgefleet_run, variant, f"{tmp}/{variant}.pte",
                          inspected[f"{tmp}/{variant}.etdp"])
    print("PASS")


if __name__ == "__main__":
    main()
