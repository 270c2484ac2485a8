#!/usr/bin/env bash
# Installs what the project needs on a Debian machine with Swift: OpenBLAS, libpng, libjpeg-turbo, libwebp, giflib,
# libtiff, libcurl (opened at a model's first download), pkg-config and qemu-user (the tests run the binary on an emulated CPU without AVX) from Debian; LiteRT, NumPy and Pillow from PyPI (the reference runtime for tests and benchmarks).
# Idempotent and quiet when everything is there. TensorFlow is only needed to regenerate the op goldens:
# `tools/setup.sh --tensorflow`; training the digital ink models (tools/ink/) also needs Debian's Hershey fonts and
# word list and PyPI's wordfreq: `tools/setup.sh --ink`. MediaPipe (for the classifier and detection goldens) pins numpy 2 and OpenCV, so
# `tools/setup.sh --mediapipe` puts it in its own virtualenv, .venv-mediapipe.
set -euo pipefail

packages=(libopenblas-dev libpng-dev libjpeg62-turbo-dev libwebp-dev libgif-dev libtiff-dev zlib1g-dev libcurl4 pkg-config qemu-user)
[ "${1:-}" = "--ink" ] && packages+=(hershey-fonts-data wamerican wamerican-insane wamerican-huge wbritish-huge)
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
[ "${1:-}" = "--tensorflow" ] && python_packages+=(tensorflow-cpu==2.21.0 tf_keras==2.21.0)
[ "${1:-}" = "--ink" ] && python_packages+=(tensorflow-cpu==2.21.0 tf_keras==2.21.0 wordfreq==3.1.1)
if ! python3 -c "import ai_edge_litert, numpy, PIL" >/dev/null 2>&1 || [ "${1:-}" = "--tensorflow" ] || [ "${1:-}" = "--ink" ]; then
  echo "setup: pip install ${python_packages[*]}" >&2
  python3 -m pip install -q --disable-pip-version-check "${python_packages[@]}" 2>&1 | grep -v "^WARNING: Running pip as" >&2 || true
fi

if [ "${1:-}" = "--mediapipe" ]; then
  cd "$(dirname "$0")/.."
  if [ ! -x .venv-mediapipe/bin/python ] || ! .venv-mediapipe/bin/python -c "import mediapipe, ai_edge_litert, PIL" >/dev/null 2>&1; then
    echo "setup: creating .venv-mediapipe (mediapipe==0.10.14, ai-edge-litert, pillow)" >&2
    python3 -m venv .venv-mediapipe
    .venv-mediapipe/bin/pip install -q --disable-pip-version-check mediapipe==0.10.14 ai-edge-litert pillow >&2
  fi
fi
