#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctest crosscheck.ts_fsrs_lifecycle: card life cycles through ts-fsrs (tests/tools/ts_fsrs_lifecycle.mjs)
# replayed through srs::sched::Scheduler (tests/tools/ts_fsrs_lifecycle.cpp, built as DRIVER).
#
#   tests/tools/ts_fsrs_lifecycle.sh DRIVER PEERS_DIR WORK_DIR
#
# Exit status: 0 all agree; 77 node or npm missing (ctest reports the test as skipped); else a failure.
set -euo pipefail
driver="${1:?usage: ts_fsrs_lifecycle.sh DRIVER PEERS_DIR WORK_DIR}"
peers="${2:?peers dir}"
work="${3:?work dir}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rc=0
bash "$here/npm_peers.sh" "$peers" || rc=$?
if [ "$rc" -ne 0 ]; then
  exit "$rc"
fi
mkdir -p "$work"
node "$here/ts_fsrs_lifecycle.mjs" "$peers" "$work/ts_fsrs_lifecycle.txt" 300
"$driver" "$work/ts_fsrs_lifecycle.txt"
