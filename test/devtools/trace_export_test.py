#!/usr/bin/env python3
"""edgefleet-run --etdump and --trace, checked by independent readers.

For committed fixtures (one on our kernels, one XNNPACK-delegated):
  - the ETDump file is decoded by flatc (the flatbuffers compiler's own
    schema-driven reader) with runtime/devtools/etdump.fbs, and its blocks
    and events must match what the runtime ran (instruction names and kinds
    from `edgefleet-run inspect --json`);
  - the Chrome trace must be valid Trace Event Format JSON: metadata, complete
    and instant events with the required fields, complete events properly
    nested per thread, one instruction event per instruction and execute;
  - `--profile`'s delegate-node rows must be the Chrome trace's delegate
    events of the same recording, per node name and engine.

Usage: trace_export_test.py EDGEFLEET_RUN FLATC SOURCE_DIR
Standard library only.
"""

import json
import os
import subprocess
import sys
import tempfile

RUNS = 2
FIXTURES = ["test/fixtures/small_cnn/model.pte",
            "test/fixtures/xnnpack_conv_mix/model_xnnpack.pte"]


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if result.returncode != 0:
        fail(f"{cmd} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result.stdout


def instructions_of(edgefleet_run, pte):
    doc = json.loads(run([edgefleet_run, "inspect", pte, "--json"]))
    method = next(m for m in doc["methods"] if m["name"] == "forward")
    return list(zip(method["instruction_names"], method["instruction_kinds"]))


def expected_etdump_name(name, kind):
    if kind == "delegate":
        return "DELEGATE_CALL"
    control = {"move": "MOVE_CALL", "jump_false": "JF_CALL", "free": "FREE_CALL"}
    if name in control:
        return control[name]
    return "native_call_" + (name[len("aten::"):] if name.startswith("aten::") else name)


def check_etdump(flatc, schema, etdump, tmp, instructions, label):
    run([flatc, "--json", "--strict-json", "--defaults-json", "--size-prefixed", "-o", tmp,
         schema, "--", etdump])
    doc = json.load(open(os.path.join(tmp, os.path.basename(etdump)[:-5] + ".json")))
    blocks = doc["run_data"]
    check([b["name"] for b in blocks] == ["Default"] + ["Execute"] * RUNS,
          f"{label}: blocks {[b['name'] for b in blocks]}")
    load = [e["profile_event"]["name"] for e in blocks[0]["events"]]
    check(load[:2] == ["Program::load_method", "Method::init"], f"{label}: load events {load}")
    for block in blocks[1:]:
        events = [e["profile_event"] for e in block["events"]]
        for e in events:
            check(e["end_time"] >= e["start_time"] > 0, f"{label}: times {e}")
        check(events[0]["name"] == "Method::execute" and events[0]["instruction_id"] == -1,
              f"{label}: first execute event {events[0]}")
        ops = [e for e in events if e["chain_index"] == 0 and "delegate_debug_id_str" not in e]
        got = [(e["instruction_id"], e["name"]) for e in ops]
        want = [(i, expected_etdump_name(n, k)) for i, (n, k) in enumerate(instructions)]
        check(got == want, f"{label}: instruction events {got}, expected {want}")
        nodes = [e for e in events if "delegate_debug_id_str" in e]
        delegate_pcs = {i for i, (_, k) in enumerate(instructions) if k == "delegate"}
        seen = {}
        for e in nodes:
            check(e["instruction_id"] in delegate_pcs, f"{label}: delegate node {e}")
            # "<name> #k", k counting that name's nodes within the call.
            key = (e["instruction_id"], e["name"])
            seen[key] = seen.get(key, 0) + 1
            check(e["delegate_debug_id_str"] == f"{e['name']} #{seen[key]}",
                  f"{label}: delegate node id {e['delegate_debug_id_str']}")
        if delegate_pcs:
            check(nodes, f"{label}: delegated program without delegate node events")


def check_chrome_trace(path, instructions, label):
    doc = json.load(open(path))
    check(isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list),
          f"{label}: no traceEvents array")
    complete_by_thread = {}
    counts = {}
    for e in doc["traceEvents"]:
        check(isinstance(e.get("name"), str) and e.get("ph") in ("X", "M", "i"),
              f"{label}: bad event {e}")
        check(isinstance(e.get("pid"), int) and isinstance(e.get("tid"), int),
              f"{label}: pid/tid {e}")
        if e["ph"] == "M":
            check(e["name"] in ("process_name", "thread_name") and
                  isinstance(e["args"].get("name"), str), f"{label}: metadata {e}")
            continue
        check(isinstance(e.get("ts"), (int, float)) and e["ts"] >= 0, f"{label}: ts {e}")
        check(isinstance(e.get("cat"), str), f"{label}: cat {e}")
        counts[e["cat"]] = counts.get(e["cat"], 0) + 1
        if e["ph"] == "i":
            check(e.get("s") in ("g", "p", "t"), f"{label}: instant scope {e}")
            check(isinstance(e["args"].get("bytes"), int), f"{label}: allocation {e}")
            continue
        check(isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0, f"{label}: dur {e}")
        complete_by_thread.setdefault((e["pid"], e["tid"]), []).append(e)
    # Complete events on one thread nest: each starts inside and ends inside
    # the innermost open event, or after it ends. Timestamps are rounded to
    # nanoseconds; allow that much.
    eps = 1e-3 + 1e-9
    for thread, events in complete_by_thread.items():
        events.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in events:
            while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"] - eps:
                stack.pop()
            if stack:
                parent = stack[-1]
                check(e["ts"] + e["dur"] <= parent["ts"] + parent["dur"] + eps,
                      f"{label}: {e['name']} overlaps {parent['name']} without nesting")
            stack.append(e)
    check(counts.get("execute") == RUNS, f"{label}: {counts.get('execute')} executes")
    check(counts.get("instruction") == RUNS * len(instructions),
          f"{label}: {counts.get('instruction')} instruction events for "
          f"{len(instructions)} instructions x {RUNS}")
    kinds = {e["args"].get("kernel") for es in complete_by_thread.values() for e in es
             if e["cat"] == "instruction"}
    check(kinds == {k for _, k in instructions}, f"{label}: kernel kinds {kinds}")
    check(counts.get("load", 0) >= 4, f"{label}: load phases {counts.get('load')}")
    return [e for es in complete_by_thread.values() for e in es if e["cat"] == "delegate"]


def check_delegate_nodes(report, trace_nodes, instructions, label):
    """--profile's delegate-node rows against the Chrome trace's events of the
    same recording: per node name and engine, events per execute and time."""
    delegated = any(k == "delegate" for _, k in instructions)
    check(bool(trace_nodes) == delegated,
          f"{label}: {len(trace_nodes)} delegate-node events, delegated={delegated}")
    want = {}
    for e in trace_nodes:
        args = e["args"]
        check(isinstance(args.get("engine"), str) and isinstance(args.get("instruction"), int),
              f"{label}: delegate node args {args}")
        check(isinstance(args.get("delegate_debug_id"), int), f"{label}: no debug id {args}")
        key = (e["name"], args["engine"])
        count, us = want.get(key, (0, 0.0))
        want[key] = (count + 1, us + e["dur"])
    rows = report["delegate_nodes"]
    got = {(r["node"], r["engine"]): r for r in rows}
    check(set(got) == set(want), f"{label}: profile rows {sorted(got)}, trace {sorted(want)}")
    for key, (count, us) in want.items():
        row = got[key]
        check(row["events_per_run"] == count // RUNS and count % RUNS == 0,
              f"{label}: {key}: {row['events_per_run']} events per run, trace has {count}")
        # The trace rounds each duration to a nanosecond.
        check(abs(row["ms_per_run"] - us / 1e3 / RUNS) <= 1e-6 * count + 1e-9,
              f"{label}: {key}: {row['ms_per_run']} ms per run, trace {us / 1e3 / RUNS}")
        check(0 <= row["share_of_delegate_calls"] <= 1, f"{label}: {key}: share {row}")
    if rows:
        check(sum(r["share_of_delegate_calls"] for r in rows) <= 1 + 1e-9,
              f"{label}: delegate node shares add up to more than the delegate calls")


def main():
    if len(sys.argv) != 4:
        fail("usage: trace_export_test.py EDGEFLEET_RUN FLATC SOURCE_DIR")
    edgefleet_run, flatc, source = sys.argv[1:]
    schema = os.path.join(source, "runtime/devtools/etdump.fbs")
    with tempfile.TemporaryDirectory() as tmp:
        for n, fixture in enumerate(FIXTURES):
            pte = os.path.join(source, fixture)
            etdump, trace = f"{tmp}/run{n}.etdp", f"{tmp}/trace{n}.json"
            report = json.loads(run([edgefleet_run, "run", pte, "--iterations", str(RUNS),
                                     "--etdump", etdump, "--trace", trace, "--profile",
                                     "--json"]))
            check(report["trace"]["dropped"] == 0, f"{fixture}: dropped events")
            instructions = instructions_of(edgefleet_run, pte)
            check_etdump(flatc, schema, etdump, tmp, instructions, fixture)
            trace_nodes = check_chrome_trace(trace, instructions, fixture)
            check_delegate_nodes(report, trace_nodes, instructions, fixture)
            print(f"{fixture}: {len(instructions)} instructions x {RUNS} runs ok")
    print("PASS")


if __name__ == "__main__":
    main()
