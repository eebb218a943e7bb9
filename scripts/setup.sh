#!/usr/bin/env bash
# Installs and starts everything the tests and the demo need on a fresh Debian 12 machine:
# system packages, a Docker engine, node modules, the bundles, the offline base image, and
# code-server with Chromium. Every step is skipped when its result is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for pkg in docker.io debootstrap chromium libkrb5-dev ripgrep flake8 python3-pytest git; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi

bash scripts/start-docker.sh

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
npm run build --silent

node dist/cli.js image build

if [ -f scripts/setup-code-server.sh ]; then
  bash scripts/setup-code-server.sh
fi
echo "setup: ready"
