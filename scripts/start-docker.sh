#!/usr/bin/env bash
# Installs (when missing) and starts a Docker engine without systemd, then waits until the
# socket answers. Idempotent: an engine that already answers is left alone.
set -euo pipefail
if docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then exit 0; fi
if ! command -v dockerd >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq docker.io >/dev/null
fi
log_dir=${SWE_WORKBENCH_STATE:-/var/lib/swe-workbench}
mkdir -p "$log_dir"
setsid dockerd >"$log_dir/dockerd.log" 2>&1 < /dev/null &
for _ in $(seq 1 60); do
  if docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then exit 0; fi
  sleep 0.5
done
echo "start-docker: dockerd did not answer within 30 s; its log:" >&2
tail -n 30 "$log_dir/dockerd.log" >&2
exit 1
