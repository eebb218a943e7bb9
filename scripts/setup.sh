#!/usr/bin/env bash
# Installs and starts everything the tests and the demo need on a fresh Debian 12 machine:
# system packages, a Docker engine, node modules, the bundles, the offline base image, and
# code-server with its Node 24. The steps live in scripts/setup-steps.mjs, shared with `npm start`.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v node >/dev/null || { echo "setup: Node is needed to run the setup (apt-get install -y nodejs npm, or Node 22+ from nodejs.org)" >&2; exit 1; }
exec node scripts/setup.mjs "$@"
