#!/usr/bin/env python3
"""Records what LiteRT reads from every model in ../shared/models (ops in node order, every tensor's name,
shape, signature, dtype and quantization summary) into Tests/LiteFormatTests/Goldens/models.json, so the
Swift FlatBuffer reader is checked against TFLite's own reader.

    pip install ai-edge-litert numpy
    python3 tools/make_schema_goldens.py
"""
import glob
import json
import os

import numpy as np
from ai_edge_litert import interpreter as litert

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "models"))


def main():
    out = {}
    for path in sorted(glob.glob(os.path.join(SHARED, "**", "*.tflite"), recursive=True)):
        interp = litert.Interpreter(model_path=path)
        tensors = []
        for t in sorted(interp.get_tensor_details(), key=lambda d: d["index"]):
            q = t["quantization_parameters"]
            tensors.append({
                "index": int(t["index"]), "name": t["name"], "shape": [int(x) for x in t["shape"]],
                "signature": [int(x) for x in t["shape_signature"]], "dtype": np.dtype(t["dtype"]).name,
                "scales": len(q["scales"]), "scale": float(q["scales"][0]) if len(q["scales"]) else None,
                "zero_point": int(q["zero_points"][0]) if len(q["zero_points"]) else None,
                "quantized_dimension": int(q["quantized_dimension"]),
            })
        ops = [op["op_name"] for op in sorted(interp._get_ops_details(), key=lambda o: o["index"])]
        rel = os.path.relpath(path, SHARED)
        out[rel] = {"ops": ops, "tensors": tensors,
                    "inputs": [int(d["index"]) for d in interp.get_input_details()],
                    "outputs": [int(d["index"]) for d in interp.get_output_details()]}
        print(rel, len(ops), "ops", len(tensors), "tensors")
    json.dump(out, open(os.path.join(ROOT, "Tests", "LiteFormatTests", "Goldens", "models.json"), "w"), separators=(",", ":"))


if __name__ == "__main__":
    main()
