#!/usr/bin/env python3
"""Times each node of a model alone, in vision-cli and in LiteRT with XNNPACK, and lists where ours loses most.

    .venv/bin/python tools/node_bench.py MODEL [--threads N] [--runs N] [--nodes I ...] [--top N] [--cli PATH]
                                         [--avx2-machine]

A whole-model benchmark says how far apart the two runtimes are; `vision-cli bench --profile` says where our time
goes, but XNNPACK runs a model as one delegate node and has no per-op profile. This cuts each node out as a one-op
model (tools/node_alone.py's `one_node_model`: constants, options and op code kept, the other inputs made model
inputs), times it both ways on random inputs (minimum of N runs, so that the noise of the machine shows less) and
prints the nodes by how many milliseconds ours takes over XNNPACK's. A node alone loses what fusion across nodes
gives either runtime (an ADD folded into the convolution before it, say), so the sum of the rows is not the model's
time; the rows tell which kernels to look at.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from ai_edge_litert import schema_py_generated as fb  # noqa: E402

from litert_bench import bench, avx2_machine  # noqa: E402
from node_alone import one_node_model  # noqa: E402


def op_code(model, op):
    code = model.operatorCodes[op.opcodeIndex]
    return max(code.builtinCode, code.deprecatedBuiltinCode)


def op_name(model, index):
    op = model.subgraphs[0].operators[index]
    builtin, code = op_code(model, op), model.operatorCodes[op.opcodeIndex]
    if builtin == fb.BuiltinOperator.CUSTOM:
        return (code.customCode or b"CUSTOM").decode() if isinstance(code.customCode, bytes) else str(code.customCode)
    return next((k for k, v in fb.BuiltinOperator.__dict__.items() if v == builtin and not k.startswith("_")), "?")


def fold_constant_dequantizes(model):
    """Gives each DEQUANTIZE of a constant (float16 or 8-bit weights) its float32 values as a constant, so that a
    node cut out with it reads constant weights, as both runtimes see them after their load-time folding."""
    graph = model.subgraphs[0]
    kinds = {fb.TensorType.FLOAT16: np.float16, fb.TensorType.INT8: np.int8, fb.TensorType.UINT8: np.uint8}
    for op in graph.operators:
        if op_code(model, op) != fb.BuiltinOperator.DEQUANTIZE:
            continue
        source, target = graph.tensors[op.inputs[0]], graph.tensors[op.outputs[0]]
        data = model.buffers[source.buffer].data
        if data is None or len(data) == 0 or source.type not in kinds:
            continue
        values = np.frombuffer(bytes(bytearray(data)), dtype=kinds[source.type]).astype(np.float32)
        q = source.quantization
        if source.type != fb.TensorType.FLOAT16 and q is not None and q.scale is not None and len(q.scale) > 0:
            axis, scale = q.quantizedDimension, np.asarray(q.scale, np.float32)
            zero = np.asarray(q.zeroPoint if q.zeroPoint is not None else [0], np.float32)
            shape = [1] * len(source.shape)
            if len(scale) > 1:
                shape[axis] = len(scale)
            values = ((values.reshape(source.shape) - zero.reshape(shape if len(zero) > 1 else [1] * len(shape)))
                      * scale.reshape(shape)).reshape(-1)
        buffer = fb.BufferT()
        buffer.data = list(values.astype(np.float32).tobytes())
        model.buffers.append(buffer)
        target.buffer = len(model.buffers) - 1


def ours(cli, path, threads, runs, environment=None):
    out = subprocess.run([cli, "bench", path, "--threads", str(threads), "--runs", str(runs), "--warmup", "5", "--json"],
                         check=True, capture_output=True, text=True, env=environment).stdout
    return json.loads(out.strip().splitlines()[-1])["min_ms"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--nodes", type=int, nargs="+", help="node indices (default: every node of the main graph)")
    p.add_argument("--top", type=int, default=20, help="rows to print")
    p.add_argument("--cli", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "vision-cli"))
    p.add_argument("--avx2-machine", action="store_true",
                   help="both sides as on an AVX2-only machine (as tools/bench_vs_litert.py --avx2-machine)")
    a = p.parse_args()
    environment = avx2_machine() if a.avx2_machine else None
    data = open(a.model, "rb").read()
    count = len(fb.ModelT.InitFromObj(fb.Model.GetRootAsModel(data, 0)).subgraphs[0].operators)
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for index in a.nodes or range(count):
            model = fb.ModelT.InitFromObj(fb.Model.GetRootAsModel(data, 0))
            name = op_name(model, index)
            if name == "DEQUANTIZE":
                continue
            fold_constant_dequantizes(model)
            shape = [int(d) for d in model.subgraphs[0].tensors[model.subgraphs[0].operators[index].outputs[0]].shape]
            node, _, _ = one_node_model(model, index)
            path = os.path.join(work, f"node{index}.tflite")
            open(path, "wb").write(node)
            try:
                mine = ours(a.cli, path, a.threads, a.runs, environment)
                theirs = bench(path, a.threads, a.runs)["min_ms"]
            except (subprocess.CalledProcessError, RuntimeError, ValueError) as error:
                print(f"node {index} {name}: not timed ({str(error).splitlines()[0]})", file=sys.stderr)
                continue
            rows.append((mine - theirs, index, name, shape, mine, theirs))
    rows.sort(reverse=True)
    print(f"{'node':>5} {'op':<22} {'output':<22} {'ours ms':>8} {'XNNPACK':>8} {'ratio':>6} {'over ms':>8}")
    for over, index, name, shape, mine, theirs in rows[:a.top]:
        print(f"{index:>5} {name:<22} {str(shape):<20} {mine:8.4f} {theirs:8.4f} {mine / max(theirs, 1e-9):6.2f} {over:8.4f}")
    total_ours, total_theirs = sum(r[4] for r in rows), sum(r[5] for r in rows)
    print(f"sum of {len(rows)} nodes alone: ours {total_ours:.3f} ms, XNNPACK {total_theirs:.3f} ms "
          f"({total_ours / max(total_theirs, 1e-9):.2f}); threads {a.threads}")


if __name__ == "__main__":
    main()
