#!/usr/bin/env bash
# Installs the Debian packages EdgeFleet builds and tests with.
# Idempotent: packages already present are skipped, so `make` targets can call
# this on every run. Uses sudo when not root.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache
  libflatbuffers-dev flatbuffers-compiler
  libgtest-dev libgmock-dev libbenchmark-dev
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
  prometheus-cpp-dev
  libxnnpack-dev libpthreadpool-dev  # runtime/backends/xnnpack: the XNNPACK delegate
  libtorch-dev       # service/: the old stack, PyTorch Mobile's lite interpreter (libtorch 1.13)
  python3-torch python3-torchvision  # tools/export/ptl_debian.py: the .ptl files, with that torch's XNNPACK
  curl               # test/service: scrapes the metrics port
  openssl            # test/service: TLS certificates for the security test
  clang-14 llvm-14 libclang-rt-14-dev
  clang-format-14    # tools/checks/format.sh: the format check (house.format)
  python3 python3-venv python3-pip
  nlohmann-json3-dev  # loadtest/: results and report JSON
  chromium           # loadtest/report: headless render test of the HTML report
  prometheus         # deploy/prometheus: promtool and the real-Prometheus test (test/deploy)
  python3-yaml       # test/deploy: reads the rendered Kubernetes manifests
  stunnel4           # test/deploy: the metrics-tls sidecar of deploy/k8s/components/mtls
  docker-compose     # test/deploy: validates deploy/docker/compose.yaml (config only, no engine)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
