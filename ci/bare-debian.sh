#!/usr/bin/env bash
# The README's two commands on a bare Debian 12 (a minbase root from scripts/container-base,
# no node, npm, git, curl, sudo or python3), in podman: a fresh clone of this repository's
# HEAD, `scripts/run` until its first label answers (clone-to-first-label), then
# `scripts/setup --test`. Prints each step's time since the clone (the breakdown) and the totals.
# Run by test/container/bare-debian.test.ts (in npm test), or by hand:
#   ci/bare-debian.sh            (as root, podman installed; amd64, or arm64 under qemu with ARCH=arm64)
# BARE_NAME names the container (default: lm-bare-PID); BARE_OUT, a folder that receives the
# first label (label.png) and the logs (run.log, setup-test.log).
set -euo pipefail
cd "$(dirname "$0")/.."
export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/ci/containers.conf}"
arch="${ARCH:-$(dpkg --print-architecture)}"
name="${BARE_NAME:-lm-bare-$$}"
scripts/container-base "$arch"
clone="$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")"
# The container writes root-owned files into the clone: both go on every exit.
# SIGTERM (the test's time limit) ends the script at once: podman runs in the background and
# the script waits for it, as bash would run no trap until a foreground command ends.
trap 'podman rm -f -t 0 "$name" >/dev/null 2>&1 || true; rm -rf "$clone"' EXIT
trap 'exit 143' TERM INT
start=${EPOCHREALTIME/./}
git clone -q . "$clone/labelmaker"
ca=(); [[ -f /etc/ssl/certs/ca-certificates.crt ]] && ca=(-v /etc/ssl/certs/ca-certificates.crt:/run/host-ca.crt:ro -e NODE_EXTRA_CA_CERTS=/run/host-ca.crt)
mkdir -p "$clone/out"
podman run --name "$name" --arch "$arch" -v "$clone/labelmaker":/src -v "$clone/out":/out -w /src "${ca[@]}" -e START="$start" \
  docker.io/library/debian:bookworm-slim bash -c '
  set -euo pipefail
  # Each line of output with the seconds since the clone began.
  since() { local t=$(( (${EPOCHREALTIME/./} - START) / 100000 )); printf "%d.%d" $((t / 10)) $((t % 10)); }
  stamp() { while IFS= read -r line; do printf "%7s %s\n" "$(since)" "$line"; done; }
  echo "$(since) git clone done"
  scripts/run > >(stamp > /out/run.log) 2>&1 &
  pid=$!
  until grep -qo "Bearer lm_[A-Za-z0-9_-]*" /out/run.log 2>/dev/null; do
    kill -0 $pid 2>/dev/null || { sleep 1; cat /out/run.log; echo "bare-debian: scripts/run stopped"; exit 1; }
    sleep 0.5
  done
  token=$(grep -o "Bearer lm_[A-Za-z0-9_-]*" /out/run.log | head -1 | cut -d" " -f2)
  source scripts/lib/runtime.sh
  node -e "fetch(\"http://127.0.0.1:8080/v1/labelmaker/assets/000-001\", {headers: {authorization: \"Bearer $token\"}})
    .then(async r => { const b = Buffer.from(await r.arrayBuffer()); if (r.status !== 200) throw new Error(\"label: \" + r.status); require(\"fs\").writeFileSync(\"/out/label.png\", b); })"
  total=$(since)
  grep -E "^ *[0-9.]+ (git clone|setup: |compiling|building|.*labelmaker listening)" /out/run.log | cut -c1-150
  echo "bare-debian: clone to first label: $total s ($(uname -m), $(nproc) cores)"
  t=$SECONDS; scripts/setup --test > /out/setup-test.log 2>&1 || { tail -20 /out/setup-test.log; exit 1; }
  echo "bare-debian: scripts/setup --test after that: $(( SECONDS - t )) s"
' &
wait $!
if [[ -n "${BARE_OUT:-}" ]]; then mkdir -p "$BARE_OUT" && cp "$clone"/out/* "$BARE_OUT"/; fi
