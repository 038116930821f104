#!/usr/bin/env python3
"""Mutual TLS of the Kubernetes manifests, run locally (docs/deploy.md,
"Mutual TLS"): takes the rendered prod overlay (components/secure and
components/mtls), makes a throwaway CA with server and client certificates
(test/service/make_test_certs.sh) laid out as the four operator Secrets,
and runs the pods' own commands with their own arguments:

  * edgefleet-server with the Deployment's arguments (TLS, admin token,
    --tls_client_ca) and ConfigMaps;
  * each of its exec probes (edgefleet-health with the client certificate
    of edgefleet-client-tls) must answer SERVING; the same probe without the
    client certificate must fail (the server requires one);
  * the metrics-tls sidecar: Debian's stunnel with the ConfigMap's
    stunnel.conf (its connect must be the server's --metrics_port, its
    accept the sidecar's containerPort), in front of the server's metrics;
  * a real Prometheus scraping it as the PodMonitor says (scheme, CA,
    client certificate and key of edgefleet-scrape-tls, serverName): the
    target is up and serves the server's metrics; a second job with the
    same settings but no client certificate stays down;
  * shard 0 of the Indexed Job's command (with the client certificate)
    completes against the server; the same command without the client
    certificate fails.

Container paths map to local ones as in indexed_job_test.py; the fleet
spec is scaled down. Usage: mtls_test.py RENDERED.yaml SERVER_BIN
LOADTEST_BIN HEALTH_BIN CALIBRATION (from the repository root).
"""

import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, summary  # noqa: E402
from local_fleet import LocalFleet, free_port, wait_for  # noqa: E402
from rendered_manifests import load, localize, mounts_to_local, pod_spec  # noqa: E402

def without_client_cert(args):
    return [a for a in args if not a.startswith(("--tls_cert=", "--tls_key="))]


def check_client(cmd, what, timeout_s, refused_too):
    """cmd (a client of the server) succeeds; with refused_too, the same
    command without its client certificate fails."""
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    check(run.returncode == 0, f"{what} with the client certificate: exit {run.returncode} "
          f"{run.stderr.strip()[-300:]}")
    if refused_too:
        run = subprocess.run(without_client_cert(cmd), capture_output=True, text=True, timeout=timeout_s)
        last = run.stderr.strip().splitlines()[-1][:200] if run.stderr.strip() else ""
        check(run.returncode != 0, f"{what} without a client certificate is refused: exit "
              f"{run.returncode} {last}")


def make_secrets(workdir):
    """The operator's Secrets as directories of their keys."""
    certs = os.path.join(workdir, "certs")
    subprocess.run(["test/service/make_test_certs.sh", certs], check=True, capture_output=True)
    client = {"tls.crt": "client.pem", "tls.key": "client.key.pem", "ca.crt": "ca.pem"}
    layout = {
        "edgefleet-server-tls": {"tls.crt": "server.pem", "tls.key": "server.key.pem", "ca.crt": "ca.pem"},
        "edgefleet-admin-token": {"token": "admin_token"},
        "edgefleet-client-tls": client,
        "edgefleet-scrape-tls": client,
    }
    secrets = {}
    for name, keys in layout.items():
        d = os.path.join(workdir, "secrets", name)
        os.makedirs(d)
        for key, file in keys.items():
            shutil.copy(os.path.join(certs, file), os.path.join(d, key))
        secrets[name] = d
    return secrets


def start_sidecar(spec, sidecar, configmaps, secrets, workdir, metrics_port, server_args):
    """stunnel with the ConfigMap's configuration, its paths made local,
    accepting on a free port; returns (process, port)."""
    paths = mounts_to_local(spec, sidecar, configmaps, workdir, secrets)
    conf_in = localize(sidecar["command"][1:], paths)[0]
    port = free_port()
    manifest_metrics = next(a.split("=", 1)[1] for a in server_args if a.startswith("--metrics_port="))
    container_port = str(sidecar["ports"][0]["containerPort"])
    lines = []
    with open(conf_in) as f:
        for line in f:
            key, eq, value = (p.strip() for p in line.partition("="))
            if eq and key == "connect":
                check(value == "127.0.0.1:" + manifest_metrics,
                      f"stunnel connects to the server's metrics port: {value}")
                value = f"127.0.0.1:{metrics_port}"
            elif eq and key == "accept":
                check(value == container_port, f"stunnel accepts on the sidecar's containerPort {value}")
                value = f"127.0.0.1:{port}"
            elif eq and value.startswith("/"):
                value = localize([value], paths)[0]
            lines.append(f"{key} = {value}\n" if eq else line)
    conf = os.path.join(workdir, "stunnel.conf")
    with open(conf, "w") as f:
        f.writelines(lines)
    stunnel = shutil.which("stunnel") or shutil.which("stunnel4")
    if not stunnel:
        raise SystemExit("FAIL stunnel is not installed (deploy/install-deps.sh installs stunnel4)")
    log = open(os.path.join(workdir, "stunnel.log"), "w")
    proc = subprocess.Popen([stunnel, conf], stdout=log, stderr=subprocess.STDOUT)
    return proc, port


def scrape_configs(endpoint, secrets, port, with_cert):
    """The PodMonitor endpoint as a Prometheus scrape job on the sidecar."""
    tls = endpoint["tlsConfig"]

    def secret_file(ref):
        return os.path.join(secrets[ref["name"]], ref["key"])
    name = "edgefleet-server" if with_cert else "no-client-cert"
    cert = (f"      cert_file: {secret_file(tls['cert']['secret'])}\n"
            f"      key_file: {secret_file(tls['keySecret'])}\n") if with_cert else ""
    return f"""  - job_name: {name}
    scheme: {endpoint['scheme']}
    metrics_path: {endpoint.get('path', '/metrics')}
    static_configs:
      - targets: [127.0.0.1:{port}]
    tls_config:
      ca_file: {secret_file(tls['ca']['secret'])}
      server_name: {tls['serverName']}
{cert}"""


def main():
    rendered, server_bin, loadtest_bin, health_bin, calibration = sys.argv[1:6]
    objs = load(rendered)
    configmaps = {o["metadata"]["name"]: o for o in objs if o["kind"] == "ConfigMap"}
    deployment = next(o for o in objs if o["kind"] == "Deployment")
    indexed = next(o for o in objs if o["kind"] == "Job" and o["spec"].get("completionMode") == "Indexed")
    monitor = next(o for o in objs if o["kind"] == "PodMonitor")
    spec = pod_spec(deployment)
    server = next(c for c in spec["containers"] if c["command"][0].endswith("/edgefleet-server"))
    sidecar = next(c for c in spec["containers"] if c is not server)
    check(any(a.startswith("--tls_client_ca=") for a in server["args"]),
          f"{rendered}: the server requires client certificates")

    workdir = tempfile.mkdtemp(prefix="edgefleet-mtls-")
    secrets = make_secrets(workdir)
    shutil.copy(calibration, os.path.join(workdir, "calibration.textproto"))
    paths = mounts_to_local(spec, server, configmaps, workdir, secrets)
    paths.update({"/models": os.path.abspath("test/fixtures"), "/var/lib/edgefleet": workdir})
    flags = [a for a in localize(server["args"], paths)
             if not a.startswith(("--address=", "--port=", "--metrics_port="))]
    fleet = LocalFleet(server_bin, flags, workdir, replicas=1)
    try:
        address = fleet.server_addresses()
        paths["/opt/edgefleet/bin/edgefleet-health"] = health_bin
        for name in ("startupProbe", "readinessProbe", "livenessProbe"):
            cmd = [a.replace("127.0.0.1:8001", address)
                   for a in localize(server[name]["exec"]["command"], paths)]
            check_client(cmd, name, timeout_s=60, refused_too=name == "livenessProbe")

        sidecar_proc, sidecar_port = start_sidecar(spec, sidecar, configmaps, secrets, workdir,
                                                   fleet.metrics_ports[0], server["args"])
        fleet.processes.append(sidecar_proc)
        endpoint = monitor["spec"]["podMetricsEndpoints"][0]
        check(endpoint["port"] == sidecar["ports"][0]["name"] and endpoint["scheme"] == "https",
              f"the PodMonitor scrapes the sidecar's port {endpoint['port']} over {endpoint['scheme']}")
        fleet.start_prometheus(None, scrape_configs=scrape_configs(endpoint, secrets, sidecar_port, True) +
                               scrape_configs(endpoint, secrets, sidecar_port, False))
        limit = fleet.scalar('sum(edgefleet_inflight_limit{job="edgefleet-server"})')
        check(limit == 18, f"Prometheus scrapes the server's metrics through the sidecar with its "
              f"client certificate (edgefleet_inflight_limit {limit})")
        down = wait_for("the scrape without a client certificate to be tried",
                        lambda: fleet.query('up{job="no-client-cert"}'), 30)
        check(float(down[0]["value"][1]) == 0, "the scrape without a client certificate is refused (up 0)")

        job = pod_spec(indexed)["containers"][0]
        job_paths = mounts_to_local(pod_spec(indexed), job, configmaps, workdir, secrets)
        job_paths.update({"/opt/edgefleet/bin/edgefleet-loadtest": loadtest_bin,
                          "/results": os.path.join(workdir, "results")})
        shard = [a.replace("edgefleet-server:8001", address).replace("$(JOB_COMPLETION_INDEX)", "0")
                 for a in localize(job["command"] + job["args"], job_paths)]
        check_client(shard, "shard 0", timeout_s=600, refused_too=True)
        summary()
        return 0
    finally:
        fleet.stop()
        if not os.environ.get("KEEP_WORKDIR"):
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
