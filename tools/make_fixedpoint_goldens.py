#!/usr/bin/env python3
"""Records gemmlowp's 16-bit fixed-point logistic and tanh (what TensorFlow Lite's integer LSTM computes its
gates with) for all 65,536 inputs, compiled from the gemmlowp headers in TensorFlow's wheel.

Writes Tests/LiteEngineTests/Goldens/fixedpoint16.json: per function the SHA-256 of the 65,536 results (int16
little-endian, indexed by the input's bit pattern) and every 257th value, so a failing test can say where.

    pip install tensorflow-cpu==2.21.0      (tools/setup.sh --tensorflow; needs g++)
    python3 tools/make_fixedpoint_goldens.py
"""
import hashlib
import json
import os
import subprocess
import tempfile

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "Tests", "LiteEngineTests", "Goldens", "fixedpoint16.json")


def main():
    include = os.path.join(os.path.dirname(tf.__file__), "include", "external", "gemmlowp")
    with tempfile.TemporaryDirectory() as tmp:
        binary = os.path.join(tmp, "oracle")
        subprocess.run(["g++", "-O1", "-std=c++17", "-I", include, os.path.join(HERE, "oracles", "gemmlowp_fixedpoint16.cc"),
                        "-o", binary], check=True)
        text = subprocess.run([binary], check=True, capture_output=True, text=True).stdout
    goldens = {}
    for line in text.strip().split("\n"):
        name, *values = line.split()
        table = np.array([int(v) for v in values], dtype="<i2")
        assert table.size == 65536, name
        goldens[name] = {"sha256": hashlib.sha256(table.tobytes()).hexdigest(),
                         "samples": {str(i - 65536 if i >= 32768 else i): int(table[i]) for i in range(0, 65536, 257)}}
    json.dump(goldens, open(OUT, "w"), indent=1)
    print(f"wrote {OUT}: {', '.join(goldens)}")


if __name__ == "__main__":
    main()
