#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One fsrs-rs cross-check (ctest crosscheck.fsrs_rs_MODE):
#
#   tests/crosscheck/run_fsrs_rs.sh PEERS_DIR DRIVER MODE      (MODE: sm2, interval, evaluate)
#
# Installs the pinned npm peers into PEERS_DIR (tests/tools/npm_peers.sh), then runs
# tests/crosscheck/fsrs_rs.mjs against DRIVER (tests/crosscheck/fsrs_rs_driver.cpp).
# Exit 77 (ctest: skipped) when node or npm is not installed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
peers="${1:?usage: run_fsrs_rs.sh PEERS_DIR DRIVER MODE}"
driver="${2:?usage: run_fsrs_rs.sh PEERS_DIR DRIVER MODE}"
mode="${3:?usage: run_fsrs_rs.sh PEERS_DIR DRIVER MODE}"
status=0
bash "$here/../tools/npm_peers.sh" "$peers" || status=$?
if [ "$status" -ne 0 ]; then
  exit "$status"
fi
exec node "$here/fsrs_rs.mjs" --prefix "$peers" --driver "$driver" "$mode"
