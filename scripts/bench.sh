#!/usr/bin/env bash
# bench.sh: the figures that must hold at the size people reach, each measured beside its
# peer in one run, one row per size (the time per chat or per file shows the growth):
#
#   - SearchChats for words found in no chat, at 100, 1,000 and 10,000 chats of 50 messages
#     (store.BenchmarkSearchChatsBySize): under 100 ms at 1,000 chats, at most linear;
#   - an undo of a run that rewrote 10, 100 and 1,000 files, beside a plain rewrite of the same
#     files (agentloop.BenchmarkUndoBySize): under 100 ms at 100 files, at most 1.5 times the
#     rewrite;
#   - a chat's changes read at 10, 100 and 1,000 runs of 20 files (store.BenchmarkChangesByHistory):
#     every change decoded whole, beside what opening a chat reads (outlines) and what an
#     undo of the last run reads;
#   - search_files for a pattern found nowhere, over 1,000, 10,000 and 100,000 files, beside
#     ripgrep and grep -r on the same tree (tools.BenchmarkSearchFilesBySize): at most 1.2
#     times ripgrep (`make bench` installs it; a peer that is not installed is left out).
#   - the real window (the production binary under Xvfb, build/bin/prototyper or PROTOTYPER_BIN,
#     with the test Ollama, PROTOTYPER_OLLAMA; tests.BenchmarkWindowStream and
#     BenchmarkWindowMemory): batches delivered per second while a scripted model streams and
#     the paint acknowledgement's p50/p99, Enter → first text painted beside the server's own
#     first content for the same request (read at the server's door), and the memory of the app
#     and its web view, empty and with 10,000 chats and a chat of 1,000 messages open; a chat of
#     5,000 messages opened and taken to its first message by Home, and the memory over a chat
#     of 100 answers of 1,500 tokens, its floor and slope, and the web view's with every
#     collection of the whole heap (BenchmarkWindowLongChat,
#     BenchmarkWindowLongStream; PROTOTYPER_BENCH_ANSWERS sets how many),
#     each beside the build PROTOTYPER_BIN_BEFORE names if set. Without the binary or the
#     Ollama they are left out (PROTOTYPER_BIN_BEFORE must open this version's database).
#     BENCH_BEFORE=REF (a commit, branch or tag) builds that version in the temporary folder
#     and measures the stream with its binary and its own tests in the same run, a row above
#     this version's; BENCH_ROUNDS=N (default 1) measures the two streams in turn N times, so
#     a load that comes and goes weighs on both, and prints the medians.
#
# BENCHTIME sets the iterations of each benchmark (default 3x); BENCH_OUT is where the raw
# output is kept (default: a file in the temporary folder, named at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="${GOFLAGS:--tags=webkit2_41}"
benchtime=${BENCHTIME:-3x}
out=${BENCH_OUT:-$(mktemp "${TMPDIR:-/tmp}/prototyper-bench.XXXXXX")}
: >"$out"

run() { # PACKAGE BENCHMARK
  echo "bench: $2 in $1 …" >&2
  go test -run '^$' -bench "^$2\$" -benchtime="$benchtime" -timeout 60m "$1" | tee -a "$out" | grep -E '^Benchmark' >&2 || true
}
run ./store BenchmarkSearchChatsBySize
run ./store BenchmarkChangesByHistory
run ./agentloop BenchmarkUndoBySize
run ./tools BenchmarkSearchFilesBySize
bin=${PROTOTYPER_BIN:-$PWD/build/bin/prototyper}
ollama=${PROTOTYPER_OLLAMA:-$PWD/.tools/bin/ollama}
# build_before REF: the binary of REF, built once in the temporary folder from REF's files
# (the npm packages and the tools of this checkout lent to it); prints its path.
build_before() {
  local rev dir
  rev=$(git rev-parse --short=12 "$1^{commit}")
  dir=${TMPDIR:-/tmp}/prototyper-before-$rev
  if [[ ! -x $dir/build/bin/prototyper ]]; then
    echo "bench: building $1 ($rev) in $dir …" >&2
    rm -rf "$dir" && mkdir -p "$dir"
    git archive "$rev" | tar -x -C "$dir"
    ln -sfn "$(realpath frontend/node_modules)" "$dir/frontend/node_modules"
    [[ -e .tools ]] && ln -sfn "$(realpath .tools)" "$dir/.tools"
    make -C "$dir" build >&2
  fi
  echo "$dir/build/bin/prototyper"
}
# stream_before: BenchmarkWindowStream of BENCH_BEFORE's own tests with its binary, named
# ...Before: each version's window opens the database its own tests make (a newer schema is
# refused by an older app).
stream_before() {
  echo "bench: BenchmarkWindowStream in ./tests with $BENCH_BEFORE …" >&2
  (cd "${before%/build/bin/prototyper}" && PROTOTYPER_BIN=$before go test -run '^$' -bench '^BenchmarkWindowStream$' -benchtime="$benchtime" -timeout 60m ./tests) |
    sed 's/^BenchmarkWindowStream/BenchmarkWindowStreamBefore/' | tee -a "$out" | grep -E '^Benchmark' >&2 || true
}
if [[ -x $bin && -x $ollama ]]; then
  export PROTOTYPER_OLLAMA=$ollama PROTOTYPER_REQUIRE_COMPONENTS=1
  if [[ -n ${BENCH_BEFORE:-} ]]; then
    before=$(build_before "$BENCH_BEFORE")
    for ((round = 1; round < ${BENCH_ROUNDS:-1}; round++)); do
      stream_before
      PROTOTYPER_BIN=$bin run ./tests BenchmarkWindowStream
    done
    stream_before
  fi
  export PROTOTYPER_BIN=$bin
  run ./tests 'BenchmarkWindow(Stream|Memory|LongChat|LongStream)'
else
  echo "bench: the window's figures are left out: no $bin or $ollama (make build, or make bench from make)" >&2
fi

# BenchmarkName/size=N/peer-P  iterations  ns/op … → "name size peer ns"
awk '
function ms(ns) { return ns == "" ? "-" : sprintf(ns < 1e6 ? "%.2f ms" : "%.1f ms", ns / 1e6) }
function v(b, size, unit,   n, i, j, t, a) { # the median of the rounds
  if (!((b, size, unit) in metric)) return "-"
  n = rounds[b, size, unit]
  for (i = 1; i <= n; i++) a[i] = vals[b, size, unit, i]
  for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  return sprintf("%.1f", n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2)
}
function vp(b, size, peer, unit) { return ((b, size, peer, unit) in metricp) ? sprintf("%.1f", metricp[b, size, peer, unit]) : "-" }
function vp3(b, size, peer, unit) { return ((b, size, peer, unit) in metricp) ? sprintf("%.3f", metricp[b, size, peer, unit]) : "-" }
function per(ns, n) { return ns == "" ? "-" : sprintf("%.1f µs", ns / 1e3 / n) }
function ratio(a, b) { return (a == "" || b == "") ? "-" : sprintf("%.2f×", a / b) }
/^Benchmark/ && / ns\/op/ {
  name = $1; sub(/-[0-9]+$/, "", name)
  n = split(name, part, "/")
  size = (n >= 2) ? substr(part[2], index(part[2], "=") + 1) : ""
  peer = (n >= 3) ? part[3] : "-"
  for (i = 1; i <= NF; i++) if ($(i + 1) == "ns/op") ns[part[1], size, peer] = $i; else if (i > 2 && $(i + 1) ~ /[a-zA-Z]/) {
    metric[part[1], size, $(i + 1)] = metricp[part[1], size, peer, $(i + 1)] = $i
    vals[part[1], size, $(i + 1), ++rounds[part[1], size, $(i + 1)]] = $i
  }
  sizes[part[1], size] = 1
}
END {
  b = "BenchmarkSearchChatsBySize"
  print "\nSearchChats, words found in no chat (chats of 50 messages; goal: < 100 ms at 1,000, linear)"
  printf "  %8s  %12s  %12s\n", "chats", "time", "per chat"
  split("100 1000 10000", cs, " ")
  for (i = 1; i <= 3; i++) printf "  %8s  %12s  %12s\n", cs[i], ms(ns[b, cs[i], "-"]), per(ns[b, cs[i], "-"], cs[i])

  b = "BenchmarkChangesByHistory"
  print "\nChanges of a chat read, runs of 20 files: all decoded, beside what opening the chat and an undo of its last run read"
  printf "  %8s  %12s  %12s  %12s  %12s\n", "runs", "whole", "outlines", "last run", "whole/outl."
  split("10 100 1000", rs, " ")
  for (i = 1; i <= 3; i++) {
    w = ns[b, rs[i], "whole"]; o = ns[b, rs[i], "outlines"]; l = ns[b, rs[i], "last-run"]
    printf "  %8s  %12s  %12s  %12s  %12s\n", rs[i], ms(w), ms(o), ms(l), ratio(w, o)
  }

  b = "BenchmarkUndoBySize"
  print "\nUndo of a run that rewrote N files of 4 KiB, beside a plain rewrite (goal: < 100 ms at 100, ≤ 1.5× rewrite)"
  printf "  %8s  %12s  %12s  %12s  %12s\n", "files", "undo", "rewrite", "undo/rewrite", "undo/file"
  split("10 100 1000", fs, " ")
  for (i = 1; i <= 3; i++) {
    u = ns[b, fs[i], "undo"]; r = ns[b, fs[i], "rewrite"]
    printf "  %8s  %12s  %12s  %12s  %12s\n", fs[i], ms(u), ms(r), ratio(u, r), per(u, fs[i])
  }

  b = "BenchmarkSearchFilesBySize"
  print "\nsearch_files, a pattern found nowhere, beside ripgrep and grep -r (goal: ≤ 1.2× ripgrep, linear)"
  printf "  %8s  %14s  %12s  %12s  %14s  %12s\n", "files", "search_files", "ripgrep", "grep -r", "/ripgrep", "per file"
  split("1000 10000 100000", ss, " ")
  for (i = 1; i <= 3; i++) {
    s = ns[b, ss[i], "search_files"]; rg = ns[b, ss[i], "ripgrep"]; g = ns[b, ss[i], "grep"]
    printf "  %8s  %14s  %12s  %12s  %14s  %12s\n", ss[i], ms(s), ms(rg), ms(g), ratio(s, rg), per(s, ss[i])
  }

  print "\nThe real window while a scripted model streams (goal: >= 55 deliveries/s, ack p99 <= 2 frames of 16.7 ms, <= 1 frame added to the first text)"
  printf "  %8s  %14s  %10s  %10s  %12s\n", "", "deliveries/s", "ack p50", "ack p99", "server tok/s"
  split("BenchmarkWindowStreamBefore BenchmarkWindowStream", bs, " ")
  split("before now", label, " ")
  for (i = 1; i <= 2; i++) if ((bs[i], "", "deliveries/s") in metric)
    printf "  %8s  %14s  %10s  %10s  %12s\n", label[i], v(bs[i], "", "deliveries/s"), v(bs[i], "", "ack-p50-ms") " ms", v(bs[i], "", "ack-p99-ms") " ms", v(bs[i], "", "server-tok/s")
  print "  Enter → first text painted, beside the first content the server sent for the same request (at its door)"
  printf "  %8s  %12s  %14s  %10s  %14s  %12s  %12s  %12s  %14s\n", "", "Enter→text", "server: first", "added", "Enter→request", "of it: key", "window→Go", "Go→request", "content→paint"
  for (i = 1; i <= 2; i++) if ((bs[i], "", "enter-to-text-ms") in metric)
    printf "  %8s  %12s  %14s  %10s  %14s  %12s  %12s  %12s  %14s\n", label[i], v(bs[i], "", "enter-to-text-ms") " ms", v(bs[i], "", "server-first-ms") " ms", \
      v(bs[i], "", "added-ms") " ms", v(bs[i], "", "enter-to-request-ms") " ms", v(bs[i], "", "key-ms") " ms", \
      v(bs[i], "", "key-to-go-ms") " ms", v(bs[i], "", "go-to-request-ms") " ms", v(bs[i], "", "content-to-paint-ms") " ms"

  b = "BenchmarkWindowMemory"
  print "\nMemory of the real window (goal: within 1.5x of an empty window)"
  printf "  %28s  %10s  %12s\n", "window", "app MB", "web view MB"
  split("empty chats=10000+messages=1000", ws, " ")
  for (i = 1; i <= 2; i++) printf "  %28s  %10s  %12s\n", ws[i], v(b, ws[i], "app-MB"), v(b, ws[i], "webview-MB")

  b = "BenchmarkWindowLongChat"
  print "\nA chat of 5,000 messages in the real window, beside the build PROTOTYPER_BIN_BEFORE names (goal: open < 1 s, memory within 1.5x of empty, Home reaches the first message)"
  printf "  %28s  %8s  %9s  %8s  %10s  %9s  %10s  %12s\n", "window", "binary", "open ms", "app MB", "web MB", "Home ms", "app MB top", "web MB top"
  split("empty chats=10000+messages=5000", ws, " ")
  split("binary=this binary=before", bs, " ")
  for (i = 1; i <= 2; i++) for (j = 1; j <= 2; j++) if ((b, ws[i], bs[j], "app-MB") in metricp)
    printf "  %28s  %8s  %9s  %8s  %10s  %9s  %10s  %12s\n", ws[i], substr(bs[j], 8), vp(b, ws[i], bs[j], "open-ms"), vp(b, ws[i], bs[j], "app-MB"), \
      vp(b, ws[i], bs[j], "webview-MB"), vp(b, ws[i], bs[j], "home-ms"), vp(b, ws[i], bs[j], "app-MB-at-top"), vp(b, ws[i], bs[j], "webview-MB-at-top")

  b = "BenchmarkWindowLongStream"
  print "\nOne chat while answers of 1,500 tokens stream: the floor of the memory of each ten answers, and its slope from the tenth (goal: flat once painted)"
  printf "  %8s", "answers"; for (j = 1; j <= 2; j++) printf "  %14s  %14s", substr(bs[j], 8) " web MB", substr(bs[j], 8) " app MB"; print ""
  for (n = 20; n <= 1000; n += 10) {
    if (!(((b, "before", "-", "webview-floor-MB-after-" n) in metricp) || ((b, "this", "-", "webview-floor-MB-after-" n) in metricp))) continue
    printf "  %8s", n; for (j = 1; j <= 2; j++) printf "  %14s  %14s", vp(b, substr(bs[j], 8), "-", "webview-floor-MB-after-" n), vp(b, substr(bs[j], 8), "-", "app-floor-MB-after-" n); print ""
  }
  split("MB-per-answer MB-per-100KB", us, " ")
  for (u = 1; u <= 2; u++) {
    printf "  %8s", "per " substr(us[u], 8); for (j = 1; j <= 2; j++) printf "  %14s  %14s", vp3(b, substr(bs[j], 8), "-", "webview-" us[u]), vp3(b, substr(bs[j], 8), "-", "app-" us[u]); print ""
  }
  print "  the same chat in a web view whose collector takes the whole heap every time: what the page keeps"
  for (n = 20; n <= 1000; n += 10) {
    if (!(((b, "before", "-", "webview-wholegc-floor-MB-after-" n) in metricp) || ((b, "this", "-", "webview-wholegc-floor-MB-after-" n) in metricp))) continue
    printf "  %8s", n; for (j = 1; j <= 2; j++) printf "  %14s  %14s", vp(b, substr(bs[j], 8), "-", "webview-wholegc-floor-MB-after-" n), ""; print ""
  }
  for (u = 1; u <= 2; u++) {
    printf "  %8s", "per " substr(us[u], 8); for (j = 1; j <= 2; j++) printf "  %14s  %14s", vp3(b, substr(bs[j], 8), "-", "webview-wholegc-" us[u]), ""; print ""
  }
  print ""
}' "$out"
echo "the benchmarks' own output: $out"
