#!/usr/bin/env bash
# Renders the hicolor PNG icons from the SVG (run by hand after editing the SVG; the PNGs are
# committed so that building and packaging need no SVG renderer). Debian: librsvg2-bin.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
ID=org.carbonstudio.CarbonStudio
for s in 16 22 24 32 48 64 128 256 512; do
  mkdir -p "${s}x${s}"
  rsvg-convert -w "$s" -h "$s" "$ID.svg" -o "${s}x${s}/$ID.png"
done
