#!/usr/bin/env bash
# Stops the cluster scripts/slurm/start.sh started: the two slurmd and slurmctld, by their pid
# files (munged is left running: it is harmless and other tools may use it). Idempotent.
set -uo pipefail
state=${SWE_WORKBENCH_STATE:-/var/lib/swe-workbench}/slurm
for p in "$state/slurmd-n1.pid" "$state/slurmd-n2.pid" "$state/slurmctld.pid"; do
  if [ -f "$p" ]; then
    pid=$(cat "$p")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    rm -f "$p"
  fi
done
exit 0
