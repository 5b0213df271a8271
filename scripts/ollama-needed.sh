#!/usr/bin/env bash
# ollama-needed.sh: exits 0 when `make run` must build the pinned Ollama server, 1 when the
# app will find one by itself: an `ollama` on PATH (the app starts it), or a server already
# answering at OLLAMA_HOST (else 127.0.0.1:11434). Says which it found.
set -uo pipefail
if command -v ollama >/dev/null 2>&1; then
  echo "make: using the ollama on PATH ($(command -v ollama)); not building one"
  exit 1
fi
host=${OLLAMA_HOST:-127.0.0.1:11434}
[[ $host == *://* ]] || host="http://$host"
if curl -fsS --max-time 2 "$host/api/version" >/dev/null 2>&1; then
  echo "make: an Ollama server answers at $host; not building one"
  exit 1
fi
exit 0
