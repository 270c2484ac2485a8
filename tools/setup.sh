#!/usr/bin/env bash
# Installs what the project needs on a Debian machine with Swift: OpenBLAS, libpng, libjpeg-turbo, libwebp, giflib,
# libtiff, libcurl (opened at a model's first download), pkg-config, qemu-user (the tests run the binary on an
# emulated CPU without AVX) and python3-venv from Debian; LiteRT, NumPy, Pillow and PySpark from PyPI into the
# project's .venv (the reference runtime for tests and benchmarks). Stops with a message on any failure.
# Idempotent and quiet when everything is there. TensorFlow is only needed to regenerate the op goldens:
# `tools/setup.sh --tensorflow`; training the digital ink models (tools/ink/) also needs Debian's Hershey fonts,
# word lists (English; Spanish, German, French, Portuguese, Italian) and hunspell with its Spanish, French and Turkish
# dictionaries (names in those lexicons) and PyPI's wordfreq: `tools/setup.sh --ink`; the Chinese and Japanese ones add zinnia with Debian's models (the
# baseline tools/ink/cjk_compare.py measures), KANJIDIC (the jōyō list) and KanjiVG's stroke order: `tools/setup.sh --cjk`. MediaPipe (for the classifier and detection goldens) pins numpy 2 and OpenCV, so
# `tools/setup.sh --mediapipe` puts it in its own virtualenv, .venv-mediapipe.
set -euo pipefail

packages=(libopenblas-dev libpng-dev libjpeg62-turbo-dev libwebp-dev libgif-dev libtiff-dev zlib1g-dev libcurl4 pkg-config qemu-user python3-venv)
[ "${1:-}" = "--ink" ] || [ "${1:-}" = "--cjk" ] && packages+=(hershey-fonts-data wamerican wamerican-insane wamerican-huge wbritish-huge
  wspanish wngerman wfrench wportuguese wbrazilian witalian hunspell hunspell-es hunspell-fr-classical hunspell-tr)
[ "${1:-}" = "--cjk" ] && packages+=(zinnia-utils tegaki-zinnia-japanese tegaki-zinnia-simplified-chinese kanjidic)
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

# Python packages go into the project's own virtual environment, .venv (a stock Debian python3 refuses pip installs
# outside one: PEP 668's externally-managed-environment). tools/test.sh and tools/quickstart.sh put .venv/bin first
# on PATH; by hand: `. .venv/bin/activate`.
cd "$(dirname "$0")/.."
python_packages=(ai-edge-litert numpy pillow pyspark==4.3.0)
[ "${1:-}" = "--tensorflow" ] && python_packages+=(tensorflow-cpu==2.21.0 tf_keras==2.21.0)
[ "${1:-}" = "--ink" ] && python_packages+=(tensorflow-cpu==2.21.0 tf_keras==2.21.0 wordfreq==3.1.1)
[ "${1:-}" = "--cjk" ] && python_packages+=(tensorflow-cpu==2.21.0 tf_keras==2.21.0 wordfreq==3.1.1 kanjivg==20260714)
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv (python3 -m venv)" >&2
  python3 -m venv .venv || { echo "setup: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
fi
if ! .venv/bin/python -c "import ai_edge_litert, numpy, PIL, pyspark" >/dev/null 2>&1 || [ "${1:-}" = "--tensorflow" ] || [ "${1:-}" = "--ink" ] || [ "${1:-}" = "--cjk" ]; then
  echo "setup: pip install ${python_packages[*]} into .venv" >&2
  if ! .venv/bin/python -m pip install -q --disable-pip-version-check "${python_packages[@]}" >&2; then
    echo "setup: pip install into .venv failed (see above); PyPI must be reachable" >&2
    exit 1
  fi
fi

if [ "${1:-}" = "--mediapipe" ]; then
  if [ ! -x .venv-mediapipe/bin/python ] || ! .venv-mediapipe/bin/python -c "import mediapipe, ai_edge_litert, PIL" >/dev/null 2>&1; then
    echo "setup: creating .venv-mediapipe (mediapipe==0.10.14, ai-edge-litert, pillow)" >&2
    python3 -m venv .venv-mediapipe
    .venv-mediapipe/bin/pip install -q --disable-pip-version-check mediapipe==0.10.14 ai-edge-litert pillow >&2
  fi
fi
