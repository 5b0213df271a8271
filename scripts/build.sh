#!/usr/bin/env bash
# build.sh TAGS: builds build/bin/prototyper, rebuilding the frontend only when its sources (or
# the bindings Wails generates from the Go types) changed since the last build, and printing
# only progress and what the user must act on: the known noise of Wails' binding generation
# (the structs it knows, time.Time which it types as any, its sponsor note) is left out.
set -euo pipefail
cd "$(dirname "$0")/.."
tags=$1
wails=${WAILS:-wails}

# quiet: drops the lines Wails prints on every build that say nothing to act on
quiet() {
  awk '
    /KnownStructs:/ { next }
    /^Not found: time\.Time$/ { next }
    /If Wails is useful to you or your company/ { next }
    /github\.com\/sponsors\/leaanthony/ { next }
    /^[[:space:]]*$/ { next }
    { print; fflush() }
  '
}

echo "make: generating the window's bindings"
"$wails" generate module -tags "$tags" -nocolour 2>&1 | quiet

# What the frontend bundle is made from: a hash of its sources and the generated bindings.
sources_hash() {
  (
    cd frontend
    find src public wailsjs index.html package.json package-lock.json tsconfig.json vite.config.ts scripts \
      -type f -print0 2>/dev/null |
      sort -z | xargs -0 sha256sum
  ) | sha256sum | cut -d' ' -f1
}
stamp=frontend/dist/.sources
want=$(sources_hash)
if [[ -f frontend/dist/index.html && -f $stamp && $(<"$stamp") == "$want" ]]; then
  echo "make: the frontend is up to date"
else
  echo "make: building the frontend"
  rm -f "$stamp"
  (cd frontend && npm run --silent build) 2>&1 | awk '!/^[[:space:]]*$/ { print; fflush() }'
  echo "$want" >"$stamp"
fi

echo "make: compiling the app"
# -m: no `go mod tidy` (it would drop test-only requirements); -s, -skipbindings: done above
"$wails" build -tags "$tags" -m -s -skipbindings -nocolour -v 0 2>&1 | quiet
test -x build/bin/prototyper
