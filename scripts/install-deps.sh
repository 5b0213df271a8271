#!/usr/bin/env bash
# Installs the Debian packages Prototyper needs to build and test (and any named as arguments),
# skipping those already installed. Uses sudo only when not root.
set -euo pipefail

packages=(
  # the desktop window (Wails v2 on WebKitGTK 4.1)
  build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev
  # the desktop tests: a display, input, screenshots, a session bus (one window per database),
  # the accessibility bus it starts (the tests find controls by their accessible names),
  # checking the desktop entry of the package
  xvfb xdotool xclip imagemagick x11-utils dbus-daemon at-spi2-core desktop-file-utils
  # building the Ollama server from its Go module
  nlohmann-json3-dev libstb-dev
  # confining the commands the agent runs (package sandbox): bwrap; unshare, prlimit and
  # mount come with util-linux, timeout with coreutils
  bubblewrap
)
# extra packages named on the command line (e.g. chromium for `make bench-stream`)
packages+=("$@")
# Wanted where the distribution has them: WebKitGTK 4.0's headers let a bare `go build ./...`
# (without -tags webkit2_41, which the Makefile sets) compile the window on Debian 12.
optional=(libwebkit2gtk-4.0-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
missing_optional=()
for p in "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing_optional+=("$p")
done
if ((${#missing[@]} == 0 && ${#missing_optional[@]} == 0)); then
  exit 0
fi

if ! command -v apt-get >/dev/null; then
  ((${#missing[@]} == 0)) && exit 0
  echo "install-deps: missing packages (${missing[*]}) and no apt-get: install them with your package manager" >&2
  exit 1
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  ((${#missing[@]} == 0)) && ! command -v sudo >/dev/null && exit 0
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
for p in "${missing_optional[@]}"; do
  # only what this distribution offers; its absence is no failure
  if apt-cache show "$p" >/dev/null 2>&1; then missing+=("$p"); fi
done
if ((${#missing[@]} > 0)); then
  echo "install-deps: installing ${missing[*]}"
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
