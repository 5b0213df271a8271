#!/usr/bin/env bash
# Checks that a fresh clone of the committed tree compiles and tests with bare go commands:
# no frontend build (frontend/dist holds only its placeholder), no build tags, no components
# (the tests that need the Ollama server, Xvfb or the desktop binary skip and say why).
# Uncommitted changes are not in the clone: commit first.
set -euo pipefail
cd "$(dirname "$0")/.."

clone=$(mktemp -d)
trap 'rm -rf "$clone"' EXIT
git clone --quiet --no-hardlinks "$PWD" "$clone/prototyper"
cd "$clone/prototyper"

# What `make` sets would hide a missing piece: drop it, and the tools it put on PATH.
unset GOFLAGS PROTOTYPER_REQUIRE_COMPONENTS PROTOTYPER_OLLAMA PROTOTYPER_BIN PROTOTYPER_DEB
PATH=$(tr ':' '\n' <<<"$PATH" | grep -v '/\.tools/bin$' | paste -sd:)
export PATH

ls -A frontend/dist | grep -qvx '.gitkeep' && { echo "clean clone: frontend/dist holds more than its placeholder" >&2; exit 1; }
echo "clean clone: go build ./..."
go build ./...
echo "clean clone: go vet ./..."
go vet ./...
echo "clean clone: go test ./..."
status=0
go test -count=1 ./... >"$clone/test.log" 2>&1 || status=$?
grep -v '^ok ' "$clone/test.log" || true
if ((status != 0)); then
  echo "clean clone: go test ./... failed (exit $status)" >&2
  exit 1
fi
echo "clean clone: builds, vets and tests"
