#!/usr/bin/env bash
# Writes base/prometheusrule.yaml: the Prometheus Operator's wrapper around
# deploy/prometheus/edgefleet.rules.yml (the one source of the rules).
# Run after editing the rules; tools/k8scheck -rules fails while they differ.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
{
  cat <<'HEAD'
# GENERATED from deploy/prometheus/edgefleet.rules.yml by
# deploy/k8s/sync_prometheusrule.sh; tools/k8scheck fails when they differ.
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: edgefleet
spec:
HEAD
  sed -n '/^groups:/,$p' "$here/../prometheus/edgefleet.rules.yml" | sed 's/^\(.\)/  \1/'
} >"$here/base/prometheusrule.yaml"
