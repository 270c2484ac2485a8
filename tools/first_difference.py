#!/usr/bin/env python3
"""Runs a model node by node in vision-cli and in LiteRT (built-in kernels, every tensor preserved) on the
same input and prints the first node whose output differs, with the differing positions.

    python3 tools/first_difference.py MODEL INPUT.npy [--cli PATH] [--tolerance 0]
"""
import argparse
import os
import subprocess
import tempfile

import numpy as np
from ai_edge_litert import interpreter as litert


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("input")
    p.add_argument("--cli", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "vision-cli"))
    p.add_argument("--tolerance", type=float, default=0.0)
    a = p.parse_args()
    x = np.load(a.input)
    interp = litert.Interpreter(model_path=a.model, experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
                                experimental_preserve_all_tensors=True)
    interp.allocate_tensors()
    interp.set_tensor(interp.get_input_details()[0]["index"], x)
    interp.invoke()
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([a.cli, "run", a.model, "--input", a.input, "--output-dir", out, "--dump-tensors"], check=True)
        for op in sorted(interp._get_ops_details(), key=lambda o: o["index"]):
            for t in op["outputs"]:
                ours = np.load(os.path.join(out, "tensors", f"t{t}.npy"))
                ref = interp.get_tensor(t)
                diff = np.abs(ours.astype(np.float64) - ref.astype(np.float64))
                if ours.shape != ref.shape or diff.max(initial=0) > a.tolerance:
                    where = np.argwhere(diff > a.tolerance)[:8]
                    print(f"node {op['index']} {op['op_name']} tensor {t}: {int((diff > a.tolerance).sum())} of {ref.size} differ "
                          f"(max {diff.max(initial=0)}); first {[(tuple(int(i) for i in w), ours[tuple(w)].item(), ref[tuple(w)].item()) for w in where]}")
                    return 1
    print("all node outputs agree")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
