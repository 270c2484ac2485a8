#!/usr/bin/env python3
"""Runs single nodes of a model alone, on LiteRT's own inputs to them, in vision-cli and in LiteRT's built-in kernels,
and prints how far apart the two are: the difference each node adds by itself, apart from what it inherits.

    python3 tools/node_alone.py MODEL INPUT.npy NODE [NODE ...] [--cli PATH]

tools/first_difference.py finds where two runs of a whole model part; when the difference then grows through the
graph, this tells a node that computes differently (a large difference on identical inputs) from nodes that only pass
on and amplify a float32 rounding difference from upstream (identical inputs give a difference of a few roundings).
Each node is cut out as a one-op model with the schema's object API: its non-constant inputs become the model's
inputs, fed with the tensors LiteRT computed for them on INPUT.npy; constants, options and op code are kept.
"""
import argparse
import os
import subprocess
import tempfile

import flatbuffers
import numpy as np
from ai_edge_litert import interpreter as litert
from ai_edge_litert import schema_py_generated as fb


def one_node_model(model, index):
    """The .tflite bytes of `model`'s main-graph operator `index` alone, and its input and output tensor indices."""
    graph = model.subgraphs[0]
    op = graph.operators[index]
    used = [t for t in list(op.inputs) + list(op.outputs) if t >= 0]
    remap = {t: i for i, t in enumerate(dict.fromkeys(used))}
    new = fb.ModelT()
    new.version = model.version
    new.buffers = [fb.BufferT()]  # buffer 0: empty, as the schema wants
    new.operatorCodes = [model.operatorCodes[op.opcodeIndex]]
    sub = fb.SubGraphT()
    sub.tensors = []
    inputs = []
    for t in remap:
        tensor = graph.tensors[t]
        buffer = model.buffers[tensor.buffer]
        if buffer.data is not None and len(buffer.data) > 0 and t not in op.outputs:
            new.buffers.append(buffer)
            tensor.buffer = len(new.buffers) - 1
        else:
            tensor.buffer = 0
            if t not in op.outputs:
                inputs.append(t)
        sub.tensors.append(tensor)
    copy = fb.OperatorT()
    copy.opcodeIndex = 0
    copy.inputs = [remap[t] if t >= 0 else -1 for t in op.inputs]
    copy.outputs = [remap[t] for t in op.outputs]
    copy.builtinOptionsType, copy.builtinOptions = op.builtinOptionsType, op.builtinOptions
    copy.customOptions = op.customOptions
    sub.operators = [copy]
    sub.inputs = [remap[t] for t in inputs]
    sub.outputs = [remap[t] for t in op.outputs]
    new.subgraphs = [sub]
    builder = flatbuffers.Builder(1024)
    builder.Finish(new.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output()), inputs, list(op.outputs)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("input")
    p.add_argument("nodes", type=int, nargs="+")
    p.add_argument("--cli", default=os.path.join(os.path.dirname(__file__), "..", ".build", "release", "vision-cli"))
    a = p.parse_args()
    whole = litert.Interpreter(model_path=a.model, experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
                               experimental_preserve_all_tensors=True)
    whole.allocate_tensors()
    whole.set_tensor(whole.get_input_details()[0]["index"], np.load(a.input))
    whole.invoke()
    for index in a.nodes:
        model = fb.ModelT.InitFromObj(fb.Model.GetRootAsModel(open(a.model, "rb").read(), 0))
        name = fb.BuiltinOperator.__dict__
        code = model.operatorCodes[model.subgraphs[0].operators[index].opcodeIndex]
        op_name = next((k for k, v in name.items() if v == max(code.builtinCode, code.deprecatedBuiltinCode) and not k.startswith("_")), "?")
        data, inputs, outputs = one_node_model(model, index)
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "node.tflite")
            open(path, "wb").write(data)
            alone = litert.Interpreter(model_path=path, experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
            alone.allocate_tensors()
            arguments = []
            for i, (detail, t) in enumerate(zip(alone.get_input_details(), inputs)):
                value = whole.get_tensor(t)
                alone.set_tensor(detail["index"], value)
                np.save(os.path.join(work, f"in{i}.npy"), value)
                arguments += ["--input", os.path.join(work, f"in{i}.npy")]
            alone.invoke()
            subprocess.run([a.cli, "run", path, *arguments, "--output-dir", work], check=True, capture_output=True)
            for i, detail in enumerate(alone.get_output_details()):
                reference = alone.get_tensor(detail["index"]).astype(np.float64)
                ours = np.load(os.path.join(work, f"output_{i}.npy")).astype(np.float64)
                in_whole = whole.get_tensor(outputs[i]).astype(np.float64)
                largest = max(np.abs(reference).max(initial=0), 1e-30)
                difference = np.abs(ours - reference).max(initial=0)
                print(f"node {index} {op_name}: alone, ours vs LiteRT {difference:.3g} ({difference / largest:.3g} of the largest "
                      f"output {largest:.3g}); LiteRT alone vs LiteRT in the whole model {np.abs(reference - in_whole).max(initial=0):.3g}")


if __name__ == "__main__":
    main()
