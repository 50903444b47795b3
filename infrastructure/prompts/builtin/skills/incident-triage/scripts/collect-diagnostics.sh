#!/bin/sh
# Read-only diagnostics for one namespace; prints one report to stdout.
set -u
ns="${1:?usage: collect-diagnostics.sh <namespace>}"
section() { printf '\n===== %s =====\n' "$1"; }

section "pods not running or not ready"
kubectl -n "$ns" get pods -o wide | awk 'NR==1 || $3!="Running" || $2 !~ /^([0-9]+)\/\1$/'
section "restart counts"
kubectl -n "$ns" get pods --sort-by='.status.containerStatuses[0].restartCount' \
  -o custom-columns=POD:.metadata.name,RESTARTS:.status.containerStatuses[0].restartCount
section "warning events (latest last)"
kubectl -n "$ns" get events --field-selector type=Warning --sort-by=.lastTimestamp
section "deployments"
kubectl -n "$ns" get deployments -o wide
section "recent rollouts"
for d in $(kubectl -n "$ns" get deployments -o name); do
  echo "$d"; kubectl -n "$ns" rollout history "$d" | tail -n 3
done
section "top pods by memory"
kubectl -n "$ns" top pods --sort-by=memory 2>/dev/null || echo "metrics-server not available"
