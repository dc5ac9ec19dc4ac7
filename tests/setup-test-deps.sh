#!/usr/bin/env bash
# Installs what only the tests need: the Python reference packages (transformers, torch,
# tokenizers, safetensors, numpy) into a virtual environment at build/venv, which sees the
# system's site-packages so already-installed copies are reused. Prints the venv's python.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV=build/venv
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv --system-site-packages "$VENV" >&2
fi
if ! "$VENV/bin/python" -c "import torch, transformers, tokenizers, safetensors, numpy" >/dev/null 2>&1; then
  echo "setup-test-deps: installing the Python reference packages (this downloads torch once)" >&2
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    "torch>=2.4" "transformers>=4.56" "tokenizers>=0.21" "safetensors>=0.4" numpy >&2
fi
"$VENV/bin/python" -c "import torch, transformers, tokenizers; print('setup-test-deps: torch', torch.__version__, 'transformers', transformers.__version__, 'tokenizers', tokenizers.__version__)" >&2
echo "$PWD/$VENV/bin/python"
