"""Local processes for the deployment tests: edgefleet-server replicas and a
real Prometheus scraping them through file-based service discovery, all on
127.0.0.1. Every wait is bounded; stop() ends exactly the processes started.
Not thread-safe."""

import json
import os
import socket
import subprocess
import time
import urllib.parse
import urllib.request

SERVER_FLAGS = [
    "--model_repository=test/fixtures",
    "--device_classes=deploy/device_classes,test/service/testdata/device_classes",
    "--arms=test/service/testdata/arms.textproto",
    "--calibration_samples=3",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, predicate, timeout_s, interval_s=0.2):
    """Polls predicate() until it returns a true value; raises after timeout_s."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout_s} s waiting for {what}")
        time.sleep(interval_s)


class LocalFleet:
    """`replicas` edgefleet-server processes with the same flags (give them
    one calibration, so every replica emulates the same figures), and
    optionally one Prometheus scraping them."""

    def __init__(self, server_bin, flags, workdir, replicas=3):
        """flags: the server's configuration flags (SERVER_FLAGS plus a
        --calibration=FILE, say); address, ports and port file are added."""
        self.workdir = workdir
        self.processes = []
        self.grpc_ports = []
        self.metrics_ports = []
        for i in range(replicas):
            port_file = os.path.join(workdir, f"server{i}.port")
            log = open(os.path.join(workdir, f"server{i}.log"), "w")
            proc = subprocess.Popen(
                [server_bin, *flags, "--address=127.0.0.1", "--port=0", "--metrics_port=0",
                 f"--port_file={port_file}"],
                stdout=log, stderr=subprocess.STDOUT)
            self.processes.append(proc)

            def listening(proc=proc, port_file=port_file, i=i):
                if proc.poll() is not None:
                    raise RuntimeError(f"server {i} exited {proc.returncode}; see {workdir}/server{i}.log")
                return os.path.exists(port_file) and open(port_file).read().split()
            grpc_port, metrics_port = wait_for(f"server {i} to listen", listening, 300)
            self.grpc_ports.append(int(grpc_port))
            self.metrics_ports.append(int(metrics_port))
        self.prometheus_url = None

    def server_addresses(self):
        return ",".join(f"127.0.0.1:{p}" for p in self.grpc_ports)

    def start_prometheus(self, rule_file, scrape_interval="1s", scrape_configs=None):
        """rule_file may be None. scrape_configs: the YAML of the
        scrape_configs list (indented as under the key), else one job
        edgefleet-server over every replica's metrics port through
        file-based service discovery; either way it waits until job
        edgefleet-server has one target up per replica."""
        targets = os.path.join(self.workdir, "targets.json")
        with open(targets, "w") as f:
            json.dump([{"targets": [f"127.0.0.1:{p}" for p in self.metrics_ports],
                        "labels": {"job": "edgefleet-server"}}], f)
        if scrape_configs is None:
            scrape_configs = f"""  - job_name: edgefleet-server
    file_sd_configs:
      - files: [{targets}]
        refresh_interval: 1s
"""
        rules = f"rule_files:\n  - {os.path.abspath(rule_file)}\n" if rule_file else ""
        config = os.path.join(self.workdir, "prometheus.yml")
        with open(config, "w") as f:
            f.write(f"""global:
  scrape_interval: {scrape_interval}
  evaluation_interval: {scrape_interval}
{rules}scrape_configs:
{scrape_configs}""")
        port = free_port()
        log = open(os.path.join(self.workdir, "prometheus.log"), "w")
        proc = subprocess.Popen(
            ["prometheus", f"--config.file={config}",
             f"--storage.tsdb.path={os.path.join(self.workdir, 'tsdb')}",
             f"--web.listen-address=127.0.0.1:{port}"],
            stdout=log, stderr=subprocess.STDOUT)
        self.processes.append(proc)
        self.prometheus_url = f"http://127.0.0.1:{port}"

        def ready():
            if proc.poll() is not None:
                raise RuntimeError(f"prometheus exited {proc.returncode}; see {self.workdir}/prometheus.log")
            try:
                with urllib.request.urlopen(self.prometheus_url + "/-/ready", timeout=2) as r:
                    return r.status == 200
            except OSError:
                return False
        wait_for("Prometheus to be ready", ready, 60)
        wait_for("Prometheus to scrape every replica",
                 lambda: self.scalar('count(up{job="edgefleet-server"} == 1)') == len(self.metrics_ports), 60)

    def query(self, expr):
        """Instant query; returns the result vector (list of {metric, value})."""
        url = self.prometheus_url + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        with urllib.request.urlopen(url, timeout=10) as r:
            body = json.load(r)
        if body.get("status") != "success":
            raise RuntimeError(f"query {expr!r} failed: {body}")
        if body["data"]["resultType"] != "vector":
            raise RuntimeError(f"query {expr!r}: {body['data']['resultType']}, not a vector")
        return body["data"]["result"]

    def scalar(self, expr):
        """The single value of a one-element result, or None when empty."""
        result = self.query(expr)
        if not result:
            return None
        if len(result) != 1:
            raise RuntimeError(f"query {expr!r} returned {len(result)} series, not 1")
        return float(result[0]["value"][1])

    def stop(self):
        for proc in reversed(self.processes):
            if proc.poll() is None:
                proc.terminate()
        for proc in self.processes:
            try:
                proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
