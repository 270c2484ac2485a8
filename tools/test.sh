#!/usr/bin/env bash
# The project's test command: installs what is missing, records LiteRT's outputs on the real models
# (tools/make_model_goldens.py), then runs every Swift test.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
python3 tools/make_model_goldens.py
swift test "$@"
