#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install the peer libraries the cross-check tests compare srs with, pinned, from the npm registry.
#
#   tests/tools/npm_peers.sh DIR
#
# Installs ts-fsrs and @open-spaced-repetition/binding (fsrs-rs's Node binding) into DIR/node_modules
# once (a stamp file records the versions; a second call with the same versions does nothing).
# Exit status: 0 installed (or already there); 77 node or npm is not installed (the calling test is
# then reported as skipped); 1 the installation failed (no registry access, unknown version).
set -euo pipefail

TS_FSRS_VERSION=5.4.2   # FSRS-6; its default parameters are the benchmark's defaults
BINDING_VERSION=0.5.0   # bundles fsrs-rs 6.5.0, the version srs::sched::compat::FsrsRsF32 follows

dir="${1:?usage: npm_peers.sh DIR}"
for tool in node npm; do
  if ! command -v "$tool" >/dev/null; then
    echo "npm_peers: '$tool' is not installed (Debian: apt-get install nodejs npm)" >&2
    exit 77
  fi
done
stamp="$dir/.srs-npm-peers"
want="ts-fsrs@$TS_FSRS_VERSION @open-spaced-repetition/binding@$BINDING_VERSION"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
mkdir -p "$dir"
# One installation at a time: two tests may start it together.
exec 9>"$dir/.srs-npm-peers.lock"
flock 9
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
# shellcheck disable=SC2086
if ! npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error $want >&2; then
  echo "npm_peers: npm install $want into $dir failed (is the npm registry reachable?)" >&2
  exit 1
fi
printf '%s' "$want" >"$stamp"
