#!/usr/bin/env bash
# announce.sh LABEL MINUTES -- COMMAND…: says what a long step is doing and what it costs
# before it starts, then a line every 30 s while it runs (the command's own output, such as
# go's "downloading" lines, can stay the same for minutes), so a first build is never a
# silent quarter of an hour. The command's own exit status is this script's.
set -euo pipefail
label=$1 minutes=$2
shift 3
echo "make: $label: about $minutes min on two cores, once (later builds reuse it)"
start=$SECONDS
"$@" &
cmd=$!
(
  while sleep 30 >/dev/null 2>&1; do
    s=$((SECONDS - start))
    echo "make: still $label ($((s / 60)) min $((s % 60)) s so far, about $minutes min in all)"
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
