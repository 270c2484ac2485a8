#!/usr/bin/env python3
"""Runs models in vision-cli and in LiteRT's built-in kernels on the same random input (float: uniform 0-255; 8-bit:
uniform over the type) and prints the largest difference of their first outputs, relative to the output's largest
magnitude for float outputs; 8-bit outputs must be equal byte for byte.

    python3 tools/compare_with_litert.py MODEL.tflite... [--cli .build/release/vision-cli]
"""
import argparse
import os
import subprocess
import tempfile

import numpy as np
from ai_edge_litert import interpreter as litert


def main():
    p = argparse.ArgumentParser()
    p.add_argument("models", nargs="+")
    p.add_argument("--cli", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "vision-cli"))
    a = p.parse_args()
    worst = 0.0
    for model in a.models:
        interp = litert.Interpreter(model_path=model, experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        interp.allocate_tensors()
        detail = interp.get_input_details()[0]
        rng = np.random.default_rng(1)
        if np.issubdtype(detail["dtype"], np.integer):
            info = np.iinfo(detail["dtype"])
            x = rng.integers(info.min, info.max + 1, detail["shape"]).astype(detail["dtype"])
        else:
            x = rng.uniform(0, 255, detail["shape"]).astype(detail["dtype"])
        interp.set_tensor(detail["index"], x)
        interp.invoke()
        reference = interp.get_tensor(interp.get_output_details()[0]["index"])
        with tempfile.TemporaryDirectory() as folder:
            np.save(os.path.join(folder, "x.npy"), x)
            run = subprocess.run([a.cli, "run", model, "--input", os.path.join(folder, "x.npy"), "--output-dir", folder], capture_output=True, text=True)
            outputs = sorted(f for f in os.listdir(folder) if f.startswith("output"))
            if run.returncode or not outputs:
                print(f"{os.path.basename(model)}: vision-cli failed: {run.stderr.strip()[-300:]}")
                worst = float("inf")
                continue
            ours = np.load(os.path.join(folder, outputs[0]))
        if np.issubdtype(reference.dtype, np.integer):
            differing = int(np.count_nonzero(ours != reference))
            worst = max(worst, float(differing))
            print(f"{os.path.basename(model)}: {differing} of {reference.size} outputs differ from LiteRT's (8-bit: must be 0)")
            continue
        scale = max(1.0, float(np.abs(reference).max()))
        error = float(np.abs(ours.astype(np.float64) - reference).max()) / scale
        worst = max(worst, error)
        # Random-weight networks can have tiny outputs, where the test rule's max(1, ...) says little: also relative to them.
        relative = float(np.abs(ours.astype(np.float64) - reference).max()) / max(float(np.abs(reference).max()), 1e-30)
        print(f"{os.path.basename(model)}: max |ours - LiteRT| / max(1, |LiteRT|) = {error:.2e} (/ max |LiteRT| = {relative:.2e}, "
              f"which is {float(np.abs(reference).max()):.2e}), top class the same: {ours.argmax() == reference.argmax()}")
    raise SystemExit(0 if worst <= 1e-4 else 1)


if __name__ == "__main__":
    main()
