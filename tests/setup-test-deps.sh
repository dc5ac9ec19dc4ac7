#!/usr/bin/env bash
# Installs what only the tests need: debootstrap (the bare-root check of the README's first
# command), Boost.Context (the kernels' host execution layer), and the Python reference packages
# (transformers, torch, tokenizers, safetensors, numpy; scikit-learn for fitted predictors; Biopython and pyjaspar's copy of the JASPAR
# database for the motif scanner; Ray for carbon-cluster's cluster test) into a virtual environment at build/venv, which sees the
# system's site-packages so already-installed copies are reused. Prints the venv's python on
# stdout; everything else goes to stderr.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
# debootstrap: the bare-root check; libboost-context-dev: the fast fiber build of the kernels'
# host execution layer (without it the layer falls back to ucontext fibers, about 8x slower);
# file: CPack's DEB generator needs it for dpkg-shlibdeps (packaging.check_package); samtools and
# tabix (bgzip) and bcftools: the reference and VCF tests make their inputs with htslib's own tools;
# iproute2 (ss): the cluster test checks that Ray listens on the loopback only; emboss-test: real
# GenBank and EMBL release entries, which the flat-file reader is compared on with Biopython;
# openbox, xdotool, x11-utils (xwininfo, xprop), x11-apps (xwd) and netpbm (xwdtopnm, pnmtopng):
# the application driven under Xvfb with a real window manager (python.test_gui_tour).
TEST_PACKAGES=(debootstrap libboost-context-dev file samtools tabix bcftools iproute2 emboss-test
               openbox xdotool x11-utils x11-apps netpbm)
if ! dpkg -s "${TEST_PACKAGES[@]}" >/dev/null 2>&1; then
  echo "setup-test-deps: installing ${TEST_PACKAGES[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends "${TEST_PACKAGES[@]}"; } >&2 ||
    echo "setup-test-deps: ${TEST_PACKAGES[*]} could not be installed; packaging.bare_root reports itself skipped and the kernel tests use ucontext fibers" >&2
fi
VENV=build/venv
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv --system-site-packages "$VENV" >&2
fi
# The wheels are kept in a wheelhouse outside the build tree (CARBON_WHEELHOUSE, default
# ~/.cache/carbon-studio/wheels): a new build tree or a rebuilt venv installs from it without the
# network; only what it lacks is downloaded (about 2.9 GB the first time: torch from PyPI brings
# its CUDA libraries).
# ray: carbon-cluster's local 3-node cluster test (2.60 binds its servers to the node address,
# so a cluster on 127.0.0.1 listens nowhere else).
# scikit-learn (and scipy, which it brings): the reference for predictors fitted to measurements.
# pyBigWig: libBigWig's Python binding, the reader the bigWig exports are checked with; openpyxl:
# the reader of the .xlsx order sheets.
REQS=("torch>=2.4" "transformers>=4.56" "tokenizers>=0.21" "safetensors>=0.4" numpy "biopython>=1.80" "pyjaspar>=3.0" "ray>=2.60"
      "scikit-learn>=1.3" "pyBigWig>=0.3.22" "openpyxl>=3.1")
WHEELS="${CARBON_WHEELHOUSE:-${XDG_CACHE_HOME:-$HOME/.cache}/carbon-studio/wheels}"
if ! "$VENV/bin/python" -c "import torch, transformers, tokenizers, safetensors, numpy, Bio, pyjaspar, ray, sklearn, scipy, pyBigWig, openpyxl" >/dev/null 2>&1; then
  pip=("$VENV/bin/python" -m pip --disable-pip-version-check)
  mkdir -p "$WHEELS"
  if "${pip[@]}" install --quiet --no-index --find-links "$WHEELS" "${REQS[@]}" >/dev/null 2>&1; then
    echo "setup-test-deps: installed the Python reference packages from the wheelhouse $WHEELS (nothing downloaded)" >&2
  else
    echo "setup-test-deps: downloading the Python reference packages into $WHEELS (about 2.9 GB the first time)" >&2
    "${pip[@]}" download --quiet --dest "$WHEELS" "${REQS[@]}" >&2
    "${pip[@]}" install --quiet --no-index --find-links "$WHEELS" "${REQS[@]}" >&2
  fi
fi
# gguf (llama.cpp's own Python package for the format, pure Python): the writer and reader the GGUF
# reader is checked against. Apart, so that a wheelhouse made before it was needed only gains it.
if ! "$VENV/bin/python" -c "import gguf" >/dev/null 2>&1; then
  pip=("$VENV/bin/python" -m pip --disable-pip-version-check)
  mkdir -p "$WHEELS"
  if ! "${pip[@]}" install --quiet --no-index --find-links "$WHEELS" "gguf>=0.10" >/dev/null 2>&1; then
    "${pip[@]}" download --quiet --dest "$WHEELS" "gguf>=0.10" >&2
    "${pip[@]}" install --quiet --no-index --find-links "$WHEELS" "gguf>=0.10" >&2
  fi
fi
# dnachisel (pinned: the synthesis checks are held to its rules location for location, quirks
# included): the reference for the vendor rule sets. One of its dependencies (docopt) is only an
# sdist, so setuptools and wheel join the wheelhouse to build it there without the network.
if ! "$VENV/bin/python" -c "import dnachisel" >/dev/null 2>&1; then
  pip=("$VENV/bin/python" -m pip --disable-pip-version-check)
  mkdir -p "$WHEELS"
  if ! "${pip[@]}" install --quiet --no-index --find-links "$WHEELS" "dnachisel==3.2.16" >/dev/null 2>&1; then
    "${pip[@]}" download --quiet --dest "$WHEELS" "dnachisel==3.2.16" setuptools wheel >&2
    "${pip[@]}" install --quiet --no-index --find-links "$WHEELS" "dnachisel==3.2.16" >&2
  fi
fi
# llama.cpp's own converter (convert_hf_to_gguf.py and its conversion/ and gguf-py/ packages),
# which python.test_gguf_model makes GGUF files of our checkpoints with: the llama.cpp source that
# PyPI's llama-cpp-python sdist vendors (about 77 MB, kept in the wheelhouse; nothing is built).
LLAMA_CPP_SDIST="$WHEELS/llama_cpp_python-0.3.36.tar.gz"
if [ ! -f "$LLAMA_CPP_SDIST" ]; then
  mkdir -p "$WHEELS"
  echo "setup-test-deps: downloading the llama-cpp-python 0.3.36 sdist (llama.cpp's GGUF converter) into $WHEELS" >&2
  "$VENV/bin/python" -m pip --disable-pip-version-check download --quiet --no-binary :all: --no-deps "llama-cpp-python==0.3.36" -d "$WHEELS" >&2
fi
"$VENV/bin/python" -c "import torch, transformers, tokenizers; print('setup-test-deps: torch', torch.__version__, 'transformers', transformers.__version__, 'tokenizers', tokenizers.__version__)" >&2
echo "$PWD/$VENV/bin/python"
