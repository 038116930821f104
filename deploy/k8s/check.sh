#!/usr/bin/env bash
# Offline check of the Kubernetes manifests (make test, ctest deploy.k8s):
# builds tools/k8scheck (Go; modules from the Go module proxy into the
# default GOPATH on first use, offline afterwards), runs its unit tests, then
# renders the base, every overlay and the prometheus-adapter config with
# kustomize and decodes every object strictly into the Kubernetes API types.
# The Secrets of components/secure and components/mtls (certificates and keys, admin token)
# are the operator's, never rendered: they are named external.
# Usage: deploy/k8s/check.sh BUILD_DIR   (from the repository root)
set -euo pipefail
build_dir=$(cd "${1:?usage: check.sh BUILD_DIR}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
go_bin=$(command -v go || true)
[ -n "$go_bin" ] || [ ! -x /usr/local/go/bin/go ] || go_bin=/usr/local/go/bin/go
[ -n "$go_bin" ] || { echo "check.sh: error: the Go toolchain is not installed" >&2; exit 1; }
cd "$root/tools/k8scheck"
"$go_bin" build -o "$build_dir/k8scheck" .
"$go_bin" test -count=1 ./...
cd "$root"
"$build_dir/k8scheck" -out "$build_dir/k8s-rendered" -rules deploy/prometheus/edgefleet.rules.yml \
  -external-secrets edgefleet-server-tls,edgefleet-admin-token,edgefleet-client-tls,edgefleet-scrape-tls \
  deploy/k8s/base deploy/k8s/overlays/dev deploy/k8s/overlays/prod deploy/k8s/prometheus-adapter
