#!/usr/bin/env bash
# announce.sh LABEL MINUTES -- COMMAND…: says what a long step is doing and what it costs
# before it starts, then a line a minute while it runs, so a first build is never a silent
# quarter of an hour. The command's own exit status is this script's.
set -euo pipefail
label=$1 minutes=$2
shift 3
echo "make: $label (about $minutes min the first time, once; later builds reuse it)"
start=$SECONDS
"$@" &
cmd=$!
(
  while sleep 60; do
    echo "make: still $label ($(((SECONDS - start) / 60)) min so far)"
  done
) &
ticker=$!
status=0
wait "$cmd" || status=$?
kill "$ticker" 2>/dev/null || true
wait "$ticker" 2>/dev/null || true
if ((status == 0)); then
  echo "make: done $label in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
fi
exit "$status"
