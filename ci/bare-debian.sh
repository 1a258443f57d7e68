#!/usr/bin/env bash
# The README's two commands on a bare Debian 12 (a minbase root from scripts/container-base,
# no node, npm, git, curl, sudo or python3): a fresh clone of this repository's HEAD, then
# `scripts/run` until its first label answers (clone-to-first-label), then `scripts/setup --test`.
# Not part of `npm test` (it downloads and compiles for minutes); run by hand or in a nightly job:
#   ci/bare-debian.sh            (as root, podman installed; amd64, or arm64 under qemu with ARCH=arm64)
set -euo pipefail
cd "$(dirname "$0")/.."
export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/ci/containers.conf}"
arch="${ARCH:-$(dpkg --print-architecture)}"
scripts/container-base "$arch"
clone="$(mktemp -d)"; trap 'rm -rf "$clone"' EXIT
start=$(date +%s.%N)
git clone -q . "$clone/labelmaker"
ca=(); [[ -f /etc/ssl/certs/ca-certificates.crt ]] && ca=(-v /etc/ssl/certs/ca-certificates.crt:/run/host-ca.crt:ro -e NODE_EXTRA_CA_CERTS=/run/host-ca.crt)
podman run --rm --arch "$arch" -v "$clone/labelmaker":/src -w /src "${ca[@]}" -e START="$start" \
  docker.io/library/debian:bookworm-slim bash -c '
  set -euo pipefail
  scripts/run > /tmp/run.log 2>&1 &
  pid=$!
  until grep -qo "Bearer lm_[A-Za-z0-9_-]*" /tmp/run.log; do
    kill -0 $pid 2>/dev/null || { cat /tmp/run.log; echo "bare-debian: scripts/run stopped"; exit 1; }
    sleep 0.5
  done
  token=$(grep -o "Bearer lm_[A-Za-z0-9_-]*" /tmp/run.log | head -1 | cut -d" " -f2)
  source scripts/lib/runtime.sh
  node -e "fetch(\"http://127.0.0.1:8080/v1/labelmaker/assets/000-001\", {headers: {authorization: \"Bearer $token\"}})
    .then(async r => { const b = Buffer.from(await r.arrayBuffer()); if (r.status !== 200 || b.subarray(1, 4).toString() !== \"PNG\") throw new Error(\"label: \" + r.status); })"
  echo "bare-debian: clone to first label: $(node -p "($(date +%s.%N) - $START).toFixed(1)") s ($(uname -m))"
  kill $pid || true
  t=$(date +%s); scripts/setup --test > /tmp/setup-test.log 2>&1 || { tail -20 /tmp/setup-test.log; exit 1; }
  echo "bare-debian: scripts/setup --test after that: $(( $(date +%s) - t )) s"
'
