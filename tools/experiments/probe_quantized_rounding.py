#!/usr/bin/env python3
"""Compares vision-cli with LiteRT's built-in kernels on single 8-bit ops chosen to hit rounding ties and near-ties,
the runs behind the rounding rules in Docs/architecture.md ("Quantized arithmetic"):

    python3 tools/experiments/probe_quantized_rounding.py [--cli PATH]

- int8 DEPTHWISE_CONV_2D on scales powers of two apart, 4-28 channels: mismatches per output channel (x marks one);
- MEAN and SUM (8-bit) on random scales, axes and shapes (16 cases each);
- QUANTIZE from float: 100,003 values (a third on exact ties) at five scales, and short tensors (vector and leftover parts).
Each line prints the values that differ from LiteRT in `exact` and `fast` numerics; all should be 0.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tools/, for op_cases
from op_cases import builders as mg  # noqa: E402  (GraphBuilder and the built_* model makers)
from ai_edge_litert.interpreter import Interpreter, OpResolverType  # noqa: E402

WORK = tempfile.mkdtemp()


def litert(model, inputs):
    it = Interpreter(model_content=model, experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    it.allocate_tensors()
    for detail, x in zip(it.get_input_details(), inputs):
        it.set_tensor(detail["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"])


def ours(cli, model, inputs, numerics):
    path = os.path.join(WORK, "op.tflite")
    open(path, "wb").write(model)
    args = []
    for i, x in enumerate(inputs):
        np.save(os.path.join(WORK, f"x{i}.npy"), x)
        args += ["--input", os.path.join(WORK, f"x{i}.npy")]
    out = os.path.join(WORK, "out")
    subprocess.run(["rm", "-rf", out])
    subprocess.run([cli, "run", path] + args + ["--output-dir", out, "--numerics", numerics], check=True, capture_output=True)
    return np.load(os.path.join(out, "output_0.npy"))


def compare(cli, name, model, inputs, per_channel=False):
    reference = litert(model, inputs)
    row = [name]
    for numerics in ("exact", "fast"):
        differ = ours(cli, model, inputs, numerics) != reference
        if per_channel:
            row.append(numerics + " " + "".join("x" if d else "." for d in differ.reshape(-1, reference.shape[-1]).any(0)))
        else:
            row.append(f"{numerics} {int(differ.sum())}/{differ.size}")
    print("  ".join(row), flush=True)


def reduce_model(op, dtype, shape, axes, keep, qx, qy):
    return mg.built_reduce(op, dtype, shape, axes, keep, qx, qy)()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cli", default=os.path.join(HERE, "..", "..", ".build", "release", "vision-cli"))
    cli = p.parse_args().cli
    rng = np.random.default_rng(1)

    print("int8 DEPTHWISE_CONV_2D, scales powers of two apart (per output channel):")
    for channels in (4, 9, 12, 20, 28):
        shape = (1, 16, 16, channels)
        x = rng.integers(-128, 128, size=shape).astype(np.int8)
        compare(cli, f"  {channels} channels", mg.built_power_of_two_layer("DEPTHWISE_CONV_2D", np.int8, shape, channels, kernel=3)(), [x],
                per_channel=True)

    print("MEAN and SUM on random scales:")
    for op in ("MEAN", "SUM"):
        for trial in range(8):
            for dtype in (np.int8, np.uint8):
                info = np.iinfo(dtype)
                qx = (float(rng.uniform(0.01, 0.1)), int(rng.integers(info.min, info.max + 1)))
                qy = (float(qx[0] * rng.uniform(0.3, 3) * (4 if op == "SUM" else 1)), int(rng.integers(info.min // 2, info.max // 2 + 1)))
                shape, axes = (16, 7, 3, 48), [[1, 2], [2], [1, 3], [3]][trial % 4]
                keep = trial >= 4 and axes != [1, 2]
                x = rng.integers(info.min, info.max + 1, size=shape).astype(dtype)
                compare(cli, f"  {op} {dtype.__name__} axes {axes} keep_dims {keep}", reduce_model(op, dtype, shape, axes, keep, qx, qy), [x])

    print("QUANTIZE from float (a third of the values exact ties):")
    for dtype, q in ((np.int8, (0.0078125, -1)), (np.uint8, (0.0123, 131)), (np.int8, (0.037, 5)), (np.uint8, (0.0039215687, 0)),
                     (np.int8, (0.1, -128))):
        for n in (100003, 13, 8):
            x = (rng.uniform(-1.2, 1.2, size=(1, n)) * q[0] * 100).astype(np.float32)
            x[0, ::3] = ((rng.integers(-100, 100, size=x[0, ::3].shape) + 0.5) * np.float32(q[0])).astype(np.float32)
            compare(cli, f"  {dtype.__name__} scale {q[0]} n {n}", mg.built_quantize_float(dtype, (1, n), q)(), [x])


if __name__ == "__main__":
    main()
