#!/usr/bin/env python3
"""The Kubernetes fleet Jobs, run locally (docs/deploy.md): takes the rendered
manifests of deploy/k8s (written by tools/k8scheck -out), starts
edgefleet-server with the Deployment's own arguments and the ConfigMaps'
own files (device classes, arms, fleet spec), runs the Indexed Job's shard
command for every index with $(JOB_COMPLETION_INDEX) substituted, runs the
report Job's command on the shard files, then runs the same fleet
unsharded, and requires the two report.json files to be identical but for
the unsharded run's "explanation" (the server's Profile answers, which the
report command cannot ask for), which must be there: the server, with the
host profile of its ConfigMap, answers Profile.

Container paths map to local ones: /opt/edgefleet/bin/* to the built
binaries, ConfigMap mounts to files written from the rendered ConfigMaps,
/models to test/fixtures, /results to a temporary directory; the Service
address to the local server; 0.0.0.0 to 127.0.0.1. The fleet spec is
scaled down (150 devices, 2 of them running real inference) to keep the
test short; everything else is as rendered.
Usage: indexed_job_test.py RENDERED.yaml SERVER_BIN LOADTEST_BIN CALIBRATION
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from local_fleet import LocalFleet  # noqa: E402
from rendered_manifests import load, localize, mounts_to_local, pod_spec  # noqa: E402


def fail(text):
    print("FAIL " + text, flush=True)
    sys.exit(1)


def main():
    rendered, server_bin, loadtest_bin, calibration = sys.argv[1:5]
    objs = load(rendered)
    configmaps = {o["metadata"]["name"]: o for o in objs if o["kind"] == "ConfigMap"}
    deployment = next(o for o in objs if o["kind"] == "Deployment")
    jobs = [o for o in objs if o["kind"] == "Job"]
    indexed = next(j for j in jobs if j["spec"].get("completionMode") == "Indexed")
    report_job = next(j for j in jobs if j is not indexed)
    shards = indexed["spec"]["completions"]
    print(f"{rendered}: Indexed Job {indexed['metadata']['name']} with {shards} shards, "
          f"report Job {report_job['metadata']['name']}", flush=True)

    workdir = tempfile.mkdtemp(prefix="edgefleet-job-")
    results = os.path.join(workdir, "results")
    os.makedirs(results)
    shutil.copy(calibration, os.path.join(workdir, "calibration.textproto"))
    server = pod_spec(deployment)["containers"][0]
    paths = mounts_to_local(pod_spec(deployment), server, configmaps, workdir)
    paths.update({"/models": os.path.abspath("test/fixtures"),
                  "/var/lib/edgefleet": workdir})
    flags = [a for a in localize(server["args"], paths)
             if not a.startswith(("--address=", "--port=", "--metrics_port="))]
    fleet = LocalFleet(server_bin, flags, workdir, replicas=1)
    try:
        service = "edgefleet-server:8001"
        shard = pod_spec(indexed)["containers"][0]
        paths_job = mounts_to_local(pod_spec(indexed), shard, configmaps, workdir)
        paths_job.update({"/opt/edgefleet/bin/edgefleet-loadtest": loadtest_bin,
                          "/results": results})
        shard_args = [a.replace(service, fleet.server_addresses())
                      for a in localize(shard["command"] + shard["args"], paths_job)]
        if not any(a.startswith("--server=" + fleet.server_addresses()) for a in shard_args):
            fail(f"the shard command does not name the Service {service}: {shard_args}")
        for i in range(shards):
            args = [a.replace("$(JOB_COMPLETION_INDEX)", str(i)) for a in shard_args]
            run = subprocess.run(args, capture_output=True, text=True, timeout=600)
            if run.returncode != 0:
                fail(f"shard {i}: exit {run.returncode}: {run.stderr.strip()[-500:]}")
            print(f"ok   shard {i}/{shards}: {run.stdout.strip().splitlines()[-1]}", flush=True)
        report = pod_spec(report_job)["containers"][0]
        report_args = localize(report["command"] + report["args"],
                               {"/opt/edgefleet/bin/edgefleet-loadtest": loadtest_bin,
                                "/results": results})
        run = subprocess.run(report_args, capture_output=True, text=True, timeout=600)
        if run.returncode not in (0, 2, 3, 4):
            fail(f"report Job command: exit {run.returncode}: {run.stderr.strip()[-500:]}")
        print(f"ok   report Job command: exit {run.returncode} (a verdict)", flush=True)

        whole = os.path.join(workdir, "whole")
        whole_args = ["--out-dir=" + whole if a.startswith("--out-dir=") else a
                      for a in shard_args if not a.startswith("--shard=")]
        run_whole = subprocess.run(whole_args, capture_output=True, text=True, timeout=600)
        if run_whole.returncode != run.returncode:
            fail(f"unsharded run exit {run_whole.returncode}, merged shards {run.returncode}: "
                 f"{run_whole.stderr.strip()[-500:]}")
        with open(os.path.join(results, "report", "report.json")) as f:
            merged = json.load(f)
        with open(os.path.join(whole, "report.json")) as f:
            unsharded = json.load(f)
        # The one difference by design: a whole run asks the server where the
        # time goes (Profile, --explain 1) and adds "explanation"; the report
        # command reads result files only. That the server started with the
        # Deployment's arguments answers it shows the host profile ConfigMap
        # reaches the device-time model.
        explanation = unsharded.pop("explanation", None)
        if merged.pop("explanation", None):
            fail("the report command wrote an \"explanation\" from result files alone")
        if not explanation:
            fail("the unsharded run has no \"explanation\": the server with the Deployment's "
                 f"arguments did not answer Profile: {run_whole.stderr.strip()[-500:]}")
        print(f"ok   Profile answered by the Deployment's server: explanation for "
              f"{len(explanation)} classes", flush=True)
        if merged != unsharded:
            diff = [k for k in unsharded if merged.get(k) != unsharded.get(k)]
            fail(f"merged shards and the unsharded run differ in {diff}")
        sessions = sum(s["arms"][x]["sessions"] for s in merged["scopes"][:1] for x in "AB")
        print(f"ok   {shards} shards merged = one unsharded run: identical report.json "
              f"({sessions} sessions, verdict {merged['status']})")
        print(f"{shards + 3} passed, 0 failed")  # shards, report, Profile, comparison
        return 0
    finally:
        fleet.stop()
        if not os.environ.get("KEEP_WORKDIR"):
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
