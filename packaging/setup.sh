#!/usr/bin/env bash
# Sets up a fresh Debian (12+) machine for Carbon Studio and builds it: installs the system
# packages the project needs (compiler, CMake, Ninja, nlohmann-json, SQLite, zlib, Qt 6 base and
# Charts, Xvfb for the UI tests, desktop-file-utils / appstream / shared-mime-info for the
# packaging check), configures and builds into build/.
#   bash packaging/setup.sh          set up and build
#   bash packaging/setup.sh --run    set up, build, then run the main job (see below)
#   bash packaging/setup.sh --deps-only   install the system packages only
# Extra CMake options can be passed in CARBON_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

RUN=0
DEPS_ONLY=0
for a in "$@"; do
  case "$a" in
    --run) RUN=1 ;;
    --deps-only) DEPS_ONLY=1 ;;
    *) echo "setup.sh: unknown argument $a" >&2; exit 2 ;;
  esac
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

PACKAGES=(build-essential clang cmake ninja-build pkg-config python3 python3-venv
          nlohmann-json3-dev libsqlite3-dev sqlite3 zlib1g-dev libhts-dev libbigwig-dev libxlsxwriter-dev libopenblas-dev
          qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev xvfb xauth
          desktop-file-utils appstream shared-mime-info)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

[ "$DEPS_ONLY" = 1 ] && exit 0

# The main job needs the programs, not the test suite (tests/run-all.sh turns it on): the first
# command on a new machine builds about half as much.
TESTS=""
if [ "$RUN" = 1 ] && [[ "${CARBON_CMAKE_ARGS:-}" != *CARBON_TESTS* ]]; then TESTS="-DCARBON_TESTS=OFF"; fi
# shellcheck disable=SC2086
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCARBON_GUI=ON $TESTS ${CARBON_CMAKE_ARGS:-}
cmake --build build --parallel "$(nproc)"

if [ "$RUN" = 1 ]; then
  # The main job: make a small random checkpoint in the real Carbon layout (or use
  # CARBON_MODEL=DIR with real weights), show what the engine detects, design four 30 bp
  # promoter-like sequences (a pinned TATA box, no EcoRI site, at most 4 identical bases in a
  # row) after a context, base by base (FNS), ranked with a right flank, store them in a project
  # file, and then, when there is a display, open Carbon Studio on that model and project.
  MODEL="${CARBON_MODEL:-build/models/tiny}"
  if [ -z "${CARBON_MODEL:-}" ] && [ ! -f "$MODEL/config.json" ]; then
    build/bin/carbon-cli make-test-model --preset tiny --out "$MODEL"
  fi
  build/bin/carbon-cli info --model "$MODEL"
  build/bin/carbon-cli generate --model "$MODEL" --context ATGCGCTAGCTACGATCGATCGTAGCTAGCTAGCTAGCTACG \
    --template NNNNNNNNNNTATAAANNNNNNNNNNNNNN --count 4 --temperature 0.8 --seed 7 --forbid GAATTC \
    --max-homopolymer 4 --right-flank ATGGCCAAGCTTGGCACTGG --out build/designs.fasta \
    --project build/demo.carbon
  cat build/designs.fasta
  build/bin/carbon-cli project list build/demo.carbon
  if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x build/bin/carbon-studio ]; then
    build/bin/carbon-studio "$MODEL" build/demo.carbon
  else
    echo "(no display: start the desktop application with build/bin/carbon-studio $MODEL build/demo.carbon)"
  fi
fi
