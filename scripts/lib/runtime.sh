# Sourced by scripts/setup, run and test: puts the project's pinned Node (24 LTS,
# installed by scripts/setup into scripts/runtime/) first on PATH, and points
# node-gyp at its headers so native modules (canvas, better-sqlite3) are built
# for that Node, not for the system's. Nothing outside the clone changes.
LABELMAKER_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# The Node package for this machine's architecture (npm installs only that one).
case "$(uname -m)" in
  x86_64) LABELMAKER_NODE_ARCH=x64 ;;
  aarch64 | arm64) LABELMAKER_NODE_ARCH=arm64 ;;
  *) echo "runtime.sh: no pinned Node for $(uname -m) (x86_64 and aarch64 only)" >&2; LABELMAKER_NODE_ARCH=x64 ;;
esac
LABELMAKER_NODE_HOME="$LABELMAKER_ROOT/scripts/runtime/node_modules/node-linux-$LABELMAKER_NODE_ARCH"
# Where the machine had no npm 10 (a bare Debian), the npm scripts/setup fetched into
# scripts/runtime/bootstrap/ is the project's npm (`npm test`, and the builds bin/labelmaker runs).
LABELMAKER_NPM_BIN=""
[[ -x "$LABELMAKER_ROOT/scripts/runtime/bootstrap/bin/npm" ]] && LABELMAKER_NPM_BIN="$LABELMAKER_ROOT/scripts/runtime/bootstrap/bin:"
export PATH="$LABELMAKER_NODE_HOME/bin:$LABELMAKER_NPM_BIN$LABELMAKER_ROOT/node_modules/.bin:$PATH"
# node-gyp's own variable (npm_config_nodedir makes npm 11 warn and later npm fail: npm/cli#8153).
export npm_package_config_node_gyp_nodedir="$LABELMAKER_NODE_HOME"
# Dependencies' telemetry (at install and at run time: Redocly CLI reports every command
# unless REDOCLY_TELEMETRY=off) and update checks stay off.
export SCARF_ANALYTICS=false DISABLE_OPENCOLLECTIVE=1 ADBLOCK=1 NEXT_TELEMETRY_DISABLED=1 npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
