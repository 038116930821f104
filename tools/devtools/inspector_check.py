#!/usr/bin/env python3
"""Opens our ETDump files with the real ExecuTorch Inspector and checks them.

For each program: runs `edgefleet-run run MODEL.pte --iterations N --etdump
FILE`, opens FILE with executorch.devtools.Inspector (no ETRecord: zoo
models are exported without one) and checks that
  - the Inspector finds the "Default" block (load phases) and the
    "Execute" block;
  - every instruction the runtime ran (`edgefleet-run inspect --json`)
    appears under its operator's name (native_call_<operator>,
    DELEGATE_CALL, MOVE_CALL, ...) with N durations, all positive;
  - every delegate-internal event (one per XNNPACK step: a node on our own
    kernels, or a run of nodes handed to one XNNPACK runtime) is listed as a
    delegated op named "<node> #k" with N positive durations.
Prints one line per program and exits 1 if any check fails.

Usage (tools venv, tools/export/setup_venv.sh):
  tools/.venv/bin/python tools/devtools/inspector_check.py \\
      --edgefleet-run build/default/runtime/tools/edgefleet-run [--runs N] MODEL.pte...

test/devtools/inspector_etdump_test.py uses inspector_events() and
check_events() on models it exports with ETRecords.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

CONTROL_NAMES = {"move": "MOVE_CALL", "jump_false": "JF_CALL", "free": "FREE_CALL"}


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if result.returncode != 0:
        raise RuntimeError(f"{cmd[:3]} exited {result.returncode}:\n{result.stdout}\n"
                           f"{result.stderr}")
    return result.stdout


def instructions_of(edgefleet_run, pte):
    """{index, operator, kind} of every instruction of `forward`."""
    doc = json.loads(run([edgefleet_run, "inspect", pte, "--json"]))
    method = next(m for m in doc["methods"] if m["name"] == "forward")
    return [{"index": i, "operator": name, "kind": kind}
            for i, (name, kind) in enumerate(zip(method["instruction_names"],
                                                 method["instruction_kinds"]))]


def etdump_name(instruction):
    """The name an instruction's event has in our ETDump files."""
    if instruction["kind"] == "delegate":
        return "DELEGATE_CALL"
    op = instruction["operator"]
    if op in CONTROL_NAMES:
        return CONTROL_NAMES[op]
    return "native_call_" + (op[len("aten::"):] if op.startswith("aten::") else op)


def inspector_events(etdump, etrecord=None):
    """The Inspector's event blocks of `etdump`, as plain dicts (needs executorch)."""
    from executorch.devtools import Inspector
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
    return blocks


def check_events(instructions, blocks, runs):
    """Problems (strings) with the Inspector's view of one program's ETDump,
    and a summary dict."""
    problems = []
    names = [b["name"] for b in blocks]
    if names != ["Default", "Execute"]:
        return [f"event blocks {names}"], {}
    load = {e["name"] for e in blocks[0]["events"]}
    for phase in ("Program::load_method", "Method::init", "parse_values", "init_instructions"):
        if phase not in load:
            problems.append(f"load phase {phase} missing from {sorted(load)}")
    execute = blocks[1]["events"]
    by_instruction = {}
    for e in execute:
        # Load phases and Method::execute carry instruction id -1.
        if e["instruction_id"] not in (None, -1) and not e["is_delegated_op"]:
            by_instruction[e["instruction_id"]] = e
    if len(by_instruction) != len(instructions):
        problems.append(f"{len(by_instruction)} instruction events, the runtime has "
                        f"{len(instructions)} instructions")
    shortest = float("inf")
    for ins in instructions:
        e = by_instruction.get(ins["index"])
        if e is None:
            problems.append(f"instruction {ins['index']} ({ins['operator']}) has no event")
            continue
        if e["name"] != etdump_name(ins):
            problems.append(f"instruction {ins['index']} ({ins['operator']}) named {e['name']}")
        if len(e["raw"]) != runs or not all(t > 0 for t in e["raw"]):
            problems.append(f"instruction {ins['index']} durations {e['raw']}")
        shortest = min([shortest] + e["raw"])
    delegated = [e for e in execute if e["is_delegated_op"]]
    for e in delegated:
        if len(e["raw"]) != runs or not all(t > 0 for t in e["raw"]):
            problems.append(f"delegate event {e['name']} durations {e['raw']}")
        # Named as the upstream XNNPACK delegate names its operators.
        if re.fullmatch(r"\S+ #[0-9]+", e["name"]) is None:
            problems.append(f"delegate event named {e['name']}")
        shortest = min([shortest] + e["raw"])
    if any(i["kind"] == "delegate" for i in instructions) and not delegated:
        problems.append("a delegated program without delegate-internal events")
    delegate_inits = sum(1 for name in load if name.startswith("init_delegate "))
    phases = sorted(name for name in load if not name.startswith("init_delegate "))
    if delegate_inits:
        phases.append(f"init_delegate x{delegate_inits}")
    summary = {"instructions": len(instructions), "delegate_events": len(delegated),
               "load_phases": phases, "shortest_ms": shortest}
    return problems, summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edgefleet-run", required=True)
    parser.add_argument("--runs", type=int, default=3, help="executes recorded (3)")
    parser.add_argument("models", nargs="+", metavar="MODEL.pte")
    args = parser.parse_args()
    if not 1 <= args.runs <= 100:
        parser.error("--runs must be in [1, 100]")
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, pte in enumerate(args.models):
            etdump = os.path.join(tmp, f"{n}.etdp")
            try:
                run([args.edgefleet_run, "run", pte, "--iterations", str(args.runs),
                     "--etdump", etdump])
                problems, summary = check_events(instructions_of(args.edgefleet_run, pte),
                                                 inspector_events(etdump), args.runs)
            except Exception as e:  # one line per program, whatever failed
                problems, summary = [f"{type(e).__name__}: {e}"], {}
            if problems:
                failed += 1
                print(f"FAIL {pte}: " + "; ".join(problems[:5]) +
                      (f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""))
            else:
                print(f"ok   {pte}: {summary['instructions']} instructions and "
                      f"{summary['delegate_events']} delegate-internal events, each with "
                      f"{args.runs} positive durations (shortest {summary['shortest_ms']:.6f} "
                      f"ms); load phases {', '.join(summary['load_phases'])}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
