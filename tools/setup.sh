#!/usr/bin/env bash
# Installs what the project needs on a Debian machine with Swift: OpenBLAS, libpng, libjpeg-turbo and
# pkg-config from Debian; LiteRT, NumPy and Pillow from PyPI (the reference runtime for tests and benchmarks).
# Idempotent and quiet when everything is there. TensorFlow is only needed to regenerate the op goldens:
# `tools/setup.sh --tensorflow`.
set -euo pipefail

packages=(libopenblas-dev libpng-dev libjpeg62-turbo-dev pkg-config)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

python_packages=(ai-edge-litert numpy pillow)
[ "${1:-}" = "--tensorflow" ] && python_packages+=(tensorflow-cpu==2.21.0)
if ! python3 -c "import ai_edge_litert, numpy, PIL" >/dev/null 2>&1 || [ "${1:-}" = "--tensorflow" ]; then
  echo "setup: pip install ${python_packages[*]}" >&2
  python3 -m pip install -q --disable-pip-version-check "${python_packages[@]}" 2>&1 | grep -v "^WARNING: Running pip as" >&2 || true
fi
