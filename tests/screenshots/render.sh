#!/usr/bin/env bash
# Renders each main view of carbon-studio at 1920x1080 into docs/screenshots/, and at a laptop's
# 1366x768 into docs/screenshots/1366x768/, under Xvfb (the
# real X11 platform, fonts and styles, not Qt's offscreen one), following the welcome page's
# walkthrough on the sample project with a tiny random checkpoint. Rerun after changing a view
# and commit the images.
#   bash tests/screenshots/render.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
BUILD="${1:-build}"
EXE="$BUILD/bin/carbon_screenshots"
[ -x "$EXE" ] || { echo "$EXE missing: build with -DCARBON_GUI=ON" >&2; exit 1; }
command -v xvfb-run >/dev/null || { echo "xvfb-run missing: sudo apt-get install xvfb" >&2; exit 1; }
mkdir -p docs/screenshots/1366x768
XDG_RUNTIME_DIR="$(mktemp -d)" xvfb-run -a -s "-screen 0 1920x1200x24" "$EXE" docs/screenshots 1920x1080
XDG_RUNTIME_DIR="$(mktemp -d)" xvfb-run -a -s "-screen 0 1366x768x24" "$EXE" docs/screenshots/1366x768 1366x768
ls -l docs/screenshots docs/screenshots/1366x768
