#!/usr/bin/env bash
# Installs the Debian packages Prototyper needs to build and test (and any named as arguments),
# skipping those already installed. Uses sudo only when not root.
set -euo pipefail

packages=(
  # the desktop window (Wails v2 on WebKitGTK 4.1)
  build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev
  # the desktop tests: a display, input, screenshots
  xvfb xdotool imagemagick x11-utils
  # building the Ollama server from its Go module
  nlohmann-json3-dev libstb-dev
)
# extra packages named on the command line (e.g. chromium for `make bench-stream`)
packages+=("$@")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi

if ! command -v apt-get >/dev/null; then
  echo "install-deps: missing packages (${missing[*]}) and no apt-get: install them with your package manager" >&2
  exit 1
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
