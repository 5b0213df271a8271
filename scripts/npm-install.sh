#!/usr/bin/env bash
# npm-install.sh: installs the frontend's npm packages at the lockfile's versions and stamps
# frontend/node_modules/.package-lock.json, which make and build.sh compare with the lockfile.
# `npm install --no-save` installs the lockfile's versions and leaves the file as it is (without
# --no-save, npm 11 rewrites it and a fresh clone is left with a change). Not `npm ci`: npm 11
# writes lockfiles without other platforms' optional packages (rollup's, esbuild's) and its own
# `npm ci` then refuses them as out of sync. --prefer-offline: what the npm cache holds is not
# asked for again.
set -euo pipefail
cd "$(dirname "$0")/../frontend"
# --no-update-notifier: a newer npm is not this project's step to take.
# npm warns about the install script of esbuild (vite's bundler), which it runs as it should
# (the blank line npm prints before its summary is left out: make's output is progress only)
npm install --no-audit --no-fund --no-update-notifier --no-save --prefer-offline --loglevel=error | sed '/^$/d'
touch node_modules/.package-lock.json
