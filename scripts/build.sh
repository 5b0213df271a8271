#!/usr/bin/env bash
# build.sh TAGS: builds build/bin/prototyper with the go command alone, the binary `wails build`
# makes (tags desktop,production and TAGS; -ldflags "-w -s"; cgo), without the wails CLI, so a
# fresh clone compiles no CLI first. The steps, each skipped when what it makes is current:
#
#   1. the frontend's npm packages (from the lockfile), downloading while Go compiles;
#   2. the bindings: the app built with the tag `bindings` is Wails' generator, which writes
#      frontend/wailsjs (the window's calls and the Go types) when run;
#   3. the frontend bundle, rebuilt when its sources or the bindings changed, while the Go
#      packages of the window binary compile beside it (they do not depend on the bundle);
#   4. the window binary: its main package, which embeds the bundle, and the link.
#
# It prints progress and what the user must act on only: a line when a step starts and, while
# any runs, one every 30 s with the time so far and about how much is left; the known noise of
# the bindings generator (the structs it knows, time.Time which it types as any) is left out.
set -euo pipefail
cd "$(dirname "$0")/.."
tags=$1

# A first build with empty caches on two free cores (about 115 s of CPU, half of it in
# parallel); later builds take seconds.
first_build_s=90
bin=build/bin/prototyper
generator=build/bin/.bindings-generator
prod_tags="desktop,production,$tags"
# as `wails build` compiles: cgo on (the window is WebKitGTK), no VCS stamp
export CGO_ENABLED=1
go_build=(go build -buildvcs=false)

say() { echo "make: $*"; }

clock() { printf '%d min %d s' $(($1 / 60)) $(($1 % 60)); }

# The ticker: every 30 s, what runs (the file $phase) and about how long is left.
start=$SECONDS
phase=$(mktemp)
ticker=
stop_ticker() {
  if [[ -n $ticker ]]; then
    kill "$ticker" 2>/dev/null || true
    wait "$ticker" 2>/dev/null || true
  fi
  ticker=
  rm -f "$phase"
}
trap 'stop_ticker; jobs -p | xargs -r kill 2>/dev/null || true' EXIT
(
  # sleep's output goes nowhere: a sleep left when the ticker is killed holds no pipe open
  while sleep 30 >/dev/null 2>&1; do
    s=$((SECONDS - start))
    left=$((first_build_s - s))
    if ((left >= 60)); then
      eta="about $(((left + 30) / 60)) min left"
    elif ((left > 0)); then
      eta="about a minute left"
    else
      eta="longer than the $(clock "$first_build_s") a first build takes on two free cores"
    fi
    echo "make: still $(<"$phase") ($(clock "$s") so far, $eta)"
  done
) &
ticker=$!
doing() {
  echo "$*" >"$phase"
  say "$*"
}

# quiet: drops the lines the bindings generator prints on every run that say nothing to act on
quiet() {
  awk '
    /KnownStructs:/ { next }
    /^Not found: time\.Time$/ { next }
    /^[[:space:]]*$/ { next }
    { print; fflush() }
  '
}

# 1. npm packages: in the background, while Go compiles
npm_pid=
node_stamp=frontend/node_modules/.package-lock.json
if [[ ! $node_stamp -nt frontend/package.json || ! $node_stamp -nt frontend/package-lock.json ]]; then
  say "installing the frontend's npm packages from the lockfile (while Go compiles)"
  scripts/npm-install.sh &
  npm_pid=$!
fi

# 2. the bindings: go build relinks the generator only when a Go source changed, and it runs
# only when it is not the one that wrote frontend/wailsjs
doing "compiling the Go side of the window's bindings"
mkdir -p build/bin
"${go_build[@]}" -tags "$tags,bindings" -o "$generator" .
generated=frontend/wailsjs/.generator
want_gen=$(sha256sum "$generator" | cut -d' ' -f1)
if [[ -f $generated && $(<"$generated") == "$want_gen" && -f frontend/wailsjs/go/models.ts ]]; then
  say "the window's bindings are up to date"
else
  say "generating the window's bindings"
  rm -f "$generated"
  # its output lists every type it converts; what it warns about goes to stderr
  tsprefix='' tssuffix='' tsoutputtype=classes "$generator" 2>&1 >/dev/null | quiet
  echo "$want_gen" >"$generated"
fi

if [[ -n $npm_pid ]]; then
  if kill -0 "$npm_pid" 2>/dev/null; then doing "installing the frontend's npm packages"; fi
  wait "$npm_pid"
fi

# 3. the bundle, from a hash of its sources and the generated bindings; meanwhile the Go
# packages the window binary imports compile into Go's cache
sources_hash() {
  (
    cd frontend
    find src public wailsjs index.html package.json package-lock.json tsconfig.json vite.config.ts scripts \
      -type f ! -name .generator -print0 2>/dev/null |
      sort -z | xargs -0 sha256sum
  ) | sha256sum | cut -d' ' -f1
}
stamp=frontend/dist/.sources
want=$(sources_hash)
front_pid=
if [[ -f frontend/dist/index.html && -f $stamp && $(<"$stamp") == "$want" ]]; then
  say "the frontend is up to date"
else
  rm -f "$stamp"
  (cd frontend && npm run --silent build 2>&1 | awk '!/^[[:space:]]*$/ { print; fflush() }') &
  front_pid=$!
fi
# every package of the binary but its main one (the last go list -deps prints)
mapfile -t deps < <(go list -buildvcs=false -tags "$prod_tags" -deps . | sed '$d')
if [[ -n $front_pid ]]; then
  doing "building the frontend and compiling the app's Go packages"
else
  doing "compiling the app's Go packages"
fi
"${go_build[@]}" -tags "$prod_tags" "${deps[@]}"
if [[ -n $front_pid ]]; then
  if kill -0 "$front_pid" 2>/dev/null; then doing "building the frontend"; fi
  wait "$front_pid"
  echo "$want" >"$stamp"
fi

# 4. the binary
doing "compiling and linking the app"
"${go_build[@]}" -tags "$prod_tags" -ldflags "-w -s" -o "$bin" .
stop_ticker
test -x "$bin"
say "built $bin in $(clock $((SECONDS - start)))"
