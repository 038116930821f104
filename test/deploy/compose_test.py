#!/usr/bin/env python3
"""Offline check of deploy/docker/compose.yaml (docs/deploy.md), where no
image can be pulled: `docker-compose config` validates the file against
the Compose schema (a misspelled key fails: checked first on a broken
copy) and resolves it with this test's own ports in the environment; the
resolved file must then wire up what `docker-compose up` runs:

  * server1..3, prometheus and grafana start with a plain `up` (no
    profile); the driver is in its profile;
  * the replicas run the image read-only on the environment's distinct
    ports; the driver's --server names the three gRPC ports;
  * Prometheus listens on EDGEFLEET_PROMETHEUS_PORT, its default config
    (prometheus.yml) scrapes the three default metrics ports and loads the
    rule file that compose mounts (deploy/prometheus/edgefleet.rules.yml);
  * Grafana: a pinned official image, on EDGEFLEET_GRAFANA_PORT; the
    provisioning and dashboard directories mounted where the provisioning
    files expect them; every $VARIABLE those files use set in its
    environment, the datasource URL at compose's Prometheus; every
    datasource uid of the dashboard is the provisioned one.
Usage: compose_test.py (from the repository root).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, summary  # noqa: E402

COMPOSE = "deploy/docker/compose.yaml"
def compose_command():
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"],
                                                 capture_output=True).returncode == 0:
        return ["docker", "compose"]
    raise SystemExit("FAIL neither docker-compose nor the docker compose plugin is installed "
                     "(deploy/install-deps.sh installs docker-compose)")


def config(cmd, path, env):
    run = subprocess.run(cmd + ["-f", path, "config"], capture_output=True, text=True,
                         env={**os.environ, **env}, timeout=120)
    return run.returncode, run.stdout, run.stderr


def flag(args, name):
    values = [a.split("=", 1)[1] for a in args if a.startswith(f"--{name}=")]
    return values[0] if values else None


def mounts(service):
    """{container path: host path} of the service's bind mounts."""
    out = {}
    for v in service.get("volumes", []):
        if isinstance(v, str):
            source, target = v.split(":")[:2]
        else:
            source, target = v.get("source"), v["target"]
        out[target] = os.path.realpath(source)
    return out


def main():
    cmd = compose_command()
    with tempfile.TemporaryDirectory() as tmp:
        broken = os.path.join(tmp, "compose.yaml")
        with open(COMPOSE) as f:
            text = f.read()
        with open(broken, "w") as f:
            f.write(text.replace("network_mode: host", "network_mod: host", 1))
        code, _, err = config(cmd, broken, {})
        check(code != 0, f"a misspelled key fails validation: {err.strip().splitlines()[-1][:120] if err.strip() else ''}")

    env = {"EDGEFLEET_PORT_1": "18101", "EDGEFLEET_PORT_2": "18201", "EDGEFLEET_PORT_3": "18301",
           "EDGEFLEET_METRICS_PORT_1": "18102", "EDGEFLEET_METRICS_PORT_2": "18202",
           "EDGEFLEET_METRICS_PORT_3": "18302", "EDGEFLEET_PROMETHEUS_PORT": "19090",
           "EDGEFLEET_GRAFANA_PORT": "13000"}
    code, out, err = config(cmd, COMPOSE, env)
    check(code == 0, f"{' '.join(cmd)} config validates {COMPOSE} {err.strip()[-300:]}")
    services = yaml.safe_load(out)["services"]
    default = sorted(n for n, s in services.items() if not s.get("profiles"))
    check(default == ["grafana", "prometheus", "server1", "server2", "server3"],
          f"`up` starts {default}")
    check(services["driver"].get("profiles") == ["driver"], "the driver is in the driver profile")

    grpc = []
    for i in (1, 2, 3):
        s = services[f"server{i}"]
        args = s["command"]
        ok = (s["image"] == "edgefleet:latest" and s.get("read_only") and s["network_mode"] == "host"
              and flag(args, "port") == env[f"EDGEFLEET_PORT_{i}"]
              and flag(args, "metrics_port") == env[f"EDGEFLEET_METRICS_PORT_{i}"]
              and flag(args, "address") == "127.0.0.1")
        check(ok, f"server{i}: edgefleet:latest read-only on 127.0.0.1:{flag(args, 'port')}, "
                  f"metrics {flag(args, 'metrics_port')}")
        grpc.append(f"127.0.0.1:{flag(args, 'port')}")
    driver_servers = flag(services["driver"]["command"], "server")
    check(driver_servers == ",".join(grpc), f"the driver runs against the three replicas: {driver_servers}")

    prom = services["prometheus"]
    listen = flag(prom["command"], "web.listen-address")
    check(listen == "127.0.0.1:" + env["EDGEFLEET_PROMETHEUS_PORT"], f"Prometheus listens on {listen}")
    code, out, _ = config(cmd, COMPOSE, {})
    prom_default = yaml.safe_load(out)["services"]["prometheus"]
    prom_mounts = mounts(prom_default)
    with open(prom_mounts[flag(prom_default["command"], "config.file")]) as f:
        prom_config = yaml.safe_load(f)
    targets = sorted(t for job in prom_config["scrape_configs"] for sc in job["static_configs"]
                     for t in sc["targets"])
    check(targets == ["127.0.0.1:8102", "127.0.0.1:8202", "127.0.0.1:8302"],
          f"prometheus.yml scrapes the default metrics ports {targets}")
    rule_files = [prom_mounts.get(r) for r in prom_config["rule_files"]]
    check(rule_files == [os.path.realpath("deploy/prometheus/edgefleet.rules.yml")],
          f"the rule file Prometheus loads is mounted from deploy/prometheus: {prom_config['rule_files']}")

    grafana = services["grafana"]
    image = grafana["image"]
    check(re.fullmatch(r"grafana/grafana(-oss)?:\d+\.\d+\.\d+", image) is not None,
          f"Grafana's image is the official one, pinned: {image}")
    genv = grafana.get("environment", {})
    check(str(genv.get("GF_SERVER_HTTP_PORT")) == env["EDGEFLEET_GRAFANA_PORT"]
          and genv.get("GF_SERVER_HTTP_ADDR") == "127.0.0.1",
          f"Grafana listens on {genv.get('GF_SERVER_HTTP_ADDR')}:{genv.get('GF_SERVER_HTTP_PORT')}")
    gmounts = mounts(grafana)
    provisioning = gmounts.get("/etc/grafana/provisioning")
    check(provisioning == os.path.realpath("deploy/grafana/provisioning"),
          "deploy/grafana/provisioning is mounted at /etc/grafana/provisioning")
    files = {}
    for root, _, names in os.walk(provisioning):
        for n in names:
            with open(os.path.join(root, n)) as f:
                files[os.path.relpath(os.path.join(root, n), provisioning)] = f.read()
    used = sorted({m for text in files.values()
                   for m in re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", re.sub(r"(?m)#.*$", "", text))})
    missing = [v for v in used if v not in genv]
    check(not missing, f"every variable of the provisioning files ({used}) is set in Grafana's environment")
    datasources = yaml.safe_load(files["datasources/prometheus.yaml"])["datasources"]
    url = datasources[0]["url"].replace("${EDGEFLEET_PROMETHEUS_URL}", genv.get("EDGEFLEET_PROMETHEUS_URL", ""))
    check(url == "http://" + listen, f"the datasource URL is compose's Prometheus: {url}")
    provider = yaml.safe_load(files["dashboards/edgefleet.yaml"])["providers"][0]["options"]["path"]
    dashboards = gmounts.get(provider)
    check(dashboards == os.path.realpath("deploy/grafana/dashboards"),
          f"the dashboard provider's path {provider} is deploy/grafana/dashboards")
    uids = set()
    for name in os.listdir(dashboards):
        with open(os.path.join(dashboards, name)) as f:
            text = f.read()
        json.loads(text)
        uids |= {d["uid"] for d in re.findall(r'"datasource": *(\{[^}]*\})', text) for d in [json.loads(d)]}
    check(uids == {datasources[0]["uid"]}, f"the dashboards use the provisioned datasource uid: {sorted(uids)}")
    summary()
    return 0


if __name__ == "__main__":
    sys.exit(main())
