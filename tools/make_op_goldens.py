#!/usr/bin/env python3
"""Builds single-op .tflite models with TensorFlow's converter, records LiteRT's outputs on them, and writes the op
table that the Swift tests and benchmarks read.

The cases live in tools/op_cases/, one module per op family. For each case this writes
Tests/LiteEngineTests/Goldens/ops/<case>/{model.tflite,input_<i>.npy,output_<i>.npy}, and the table
Tests/LiteEngineTests/Goldens/op_cases.json: every case with its family, the ops its model contains, its input and
output counts, how outputs compare and which numerics modes run it, and the op benchmarks' shapes. The Swift tests run
each model and compare with the recorded outputs (max |ours - LiteRT| <= 1e-4 * max(1, max |LiteRT|)).

    pip install ai-edge-litert numpy tensorflow-cpu==2.21.0 tf_keras==2.21.0     (tools/setup.sh --tensorflow)
    python3 tools/make_op_goldens.py                   # all cases
    python3 tools/make_op_goldens.py conv              # cases whose name contains "conv"
    python3 tools/make_op_goldens.py --op CONV_2D      # cases whose model has a CONV_2D (as recorded in the table)
    python3 tools/make_op_goldens.py --family lstm     # the cases of tools/op_cases/lstm.py
    python3 tools/make_op_goldens.py --table-only      # rewrite op_cases.json (e.g. new benchmark shapes), convert nothing
    python3 tools/make_op_goldens.py --list            # the cases and their families

Reference: LiteRT's built-in kernels (OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES), the same kernels
TensorFlow Lite's reference semantics are defined by.
"""
import argparse
import json
import os
import shutil
import zlib

from op_cases import BENCHMARKS, CASES
from op_cases.common import np, tf
from ai_edge_litert import interpreter as litert

GOLDENS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "LiteEngineTests", "Goldens")
NUMERICS = ["fast", "exact"]


def convert(c):
    if c["built"]:
        return c["fn"]()
    if c["keras"]:
        converter = tf.lite.TFLiteConverter.from_keras_model(c["fn"]())
    else:
        specs = [tf.TensorSpec(s, tf.float32) for s in c["shapes"]]
        fn = tf.function(c["fn"], input_signature=specs, autograph=False)
        converter = tf.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()], fn)
    if c["optimize"] == "float16":
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.target_spec.supported_types = [tf.float16]
    elif c["optimize"] == "sparsity":
        converter.optimizations = [tf.lite.Optimize.EXPERIMENTAL_SPARSITY]
    elif c["optimize"] == "sparsity_float16":
        # Sparse float16 weights, as MediaPipe's pose detector ships them: DENSIFY, then DEQUANTIZE of its output.
        converter.optimizations = [tf.lite.Optimize.EXPERIMENTAL_SPARSITY, tf.lite.Optimize.DEFAULT]
        converter.target_spec.supported_types = [tf.float16]
    elif c["optimize"] in ("dynamic_range", "dynamic_range_per_tensor", "dynamic_range_symmetric"):
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter._experimental_disable_per_channel = c["optimize"] == "dynamic_range_per_tensor"
    elif c["optimize"] and c["optimize"].startswith("quantize"):
        calibration_rng = np.random.default_rng(zlib.crc32(c["name"].encode()) + 1)
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = lambda: ([calibration_rng.uniform(c["low"], c["high"], size=s).astype(np.float32)
                                                     for s in c["shapes"]] for _ in range(64))
        if c["optimize"].startswith("quantize16x8_"):
            converter.target_spec.supported_ops = [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
            if c["optimize"] == "quantize16x8_int16":
                converter.inference_input_type = converter.inference_output_type = tf.int16
        else:
            converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
            io = tf.int8 if c["optimize"] == "quantize_int8" else tf.uint8
            converter.inference_input_type = io
            converter.inference_output_type = io
    model = converter.convert()
    return symmetric_inputs(model) if c["optimize"] == "dynamic_range_symmetric" else model


def symmetric_inputs(model_bytes):
    """The model with every hybrid op's `asymmetric_quantize_inputs` off (the converter always turns it on): its float
    inputs quantized symmetrically, to a zero point of 0, at run time."""
    from tensorflow.lite.tools import flatbuffer_utils
    model = flatbuffer_utils.convert_bytearray_to_object(model_bytes)
    for graph in model.subgraphs:
        for op in graph.operators:
            if hasattr(op.builtinOptions, "asymmetricQuantizeInputs"):
                op.builtinOptions.asymmetricQuantizeInputs = False
    return bytes(flatbuffer_utils.convert_object_to_bytearray(model))


def ops_of(model_bytes):
    interp = litert.Interpreter(model_content=model_bytes)
    return sorted({op["op_name"] for op in interp._get_ops_details()})


def record(c, root):
    """Converts case `c`, writes its model, inputs and LiteRT's outputs under `root`/<name>, and returns what the
    table says of its model: ops, input and output counts."""
    model = convert(c)
    folder = os.path.join(root, c["name"])
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    open(os.path.join(folder, "model.tflite"), "wb").write(model)
    interp = litert.Interpreter(model_content=model, experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    for detail, shape in zip(interp.get_input_details(), c["run_shapes"] or []):
        interp.resize_tensor_input(detail["index"], shape)
    interp.allocate_tensors()
    case_rng = np.random.default_rng(zlib.crc32(c["name"].encode()))
    for i, detail in enumerate(interp.get_input_details()):
        if c["inputs"] is not None:
            x = np.asarray(c["inputs"][i], dtype=detail["dtype"])
        elif detail["dtype"] in (np.int8, np.uint8, np.int16):
            info = np.iinfo(detail["dtype"])
            x = case_rng.integers(info.min, info.max + 1, size=detail["shape"]).astype(detail["dtype"])
        else:
            x = case_rng.uniform(c["low"], c["high"], size=detail["shape"])
            if c["step"]:
                x = np.round(x / c["step"]) * c["step"]
            x = x.astype(detail["dtype"])
        if c["run_shapes"]:
            assert list(detail["shape"]) == list(c["run_shapes"][i]) and -1 in detail["shape_signature"], c["name"]
        np.save(os.path.join(folder, f"input_{i}.npy"), x)
        interp.set_tensor(detail["index"], x)
    interp.invoke()
    for i, detail in enumerate(interp.get_output_details()):
        suffix = ".litert" if c["tensorflow_reference"] else ""
        np.save(os.path.join(folder, f"output_{i}{suffix}.npy"), interp.get_tensor(detail["index"]))
    if c["tensorflow_reference"]:
        inputs = [np.load(os.path.join(folder, f"input_{i}.npy")) for i in range(len(interp.get_input_details()))]
        expected = c["fn"](*[tf.constant(x) for x in inputs])
        for i, value in enumerate(expected if isinstance(expected, (list, tuple)) else [expected]):
            np.save(os.path.join(folder, f"output_{i}.npy"), np.asarray(value))
    ops = ops_of(model)
    if any(op in " ".join(ops) for op in ("LSTM", "ASSIGN_VARIABLE", "SVDF", "RANDOM_", "MULTINOMIAL")):
        # Recurrent state lives in variable tensors (resource variables for ASSIGN_VARIABLE) and carries over to the
        # next invocation; so does a random op's stream.
        interp.invoke()
        for i, detail in enumerate(interp.get_output_details()):
            np.save(os.path.join(folder, f"output_{i}.second_invocation.npy"), interp.get_tensor(detail["index"]))
    return {"ops": ops, "inputs": len(interp.get_input_details()), "outputs": len(interp.get_output_details())}


def entry(c, model):
    """A case's row in the table: its family, its model's ops and counts, how its outputs compare, and the numerics
    modes (`fast`, `exact`) OpGoldenTests and KernelConsistencyTests run it in."""
    row = {"family": c["family"], **model}
    if c["exact"]:
        row["exact"] = True
    if c["special"]:
        row["special"] = True
    if c["tensorflow_reference"]:
        row["reference"] = "TensorFlow: " + c["tensorflow_reference"]
    row["numerics"] = NUMERICS
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="only cases whose name contains one of these")
    parser.add_argument("--op", action="append", default=[], help="only cases whose recorded model has this op (repeatable)")
    parser.add_argument("--family", action="append", default=[], help="only cases of this family (a module of tools/op_cases)")
    parser.add_argument("--goldens", default=GOLDENS, help="the Goldens folder to write (default: the tests')")
    parser.add_argument("--table-only", action="store_true", help="rewrite op_cases.json from the recorded models, convert nothing")
    parser.add_argument("--list", action="store_true", help="print the cases and their families, convert nothing")
    args = parser.parse_args()

    table_path = os.path.join(args.goldens, "op_cases.json")
    old = json.load(open(table_path)) if os.path.exists(table_path) else {"cases": {}}
    recorded = old["cases"]
    filtered = bool(args.names or args.op or args.family)
    selected = [c for c in CASES
                if (not args.names or any(a in c["name"] for a in args.names))
                and (not args.op or any(op in recorded.get(c["name"], {}).get("ops", []) for op in args.op))
                and (not args.family or c["family"] in args.family)]
    if args.list:
        for c in selected:
            print(f"{c['name']:50s} {c['family']:24s} {', '.join(recorded.get(c['name'], {}).get('ops', []))}")
        return
    root = os.path.join(args.goldens, "ops")
    os.makedirs(root, exist_ok=True)
    cases = dict(recorded) if filtered or args.table_only else {}
    for c in selected:
        if args.table_only:
            if c["name"] not in recorded:
                raise SystemExit(f"{c['name']} has no recorded model: run without --table-only")
            model = {k: recorded[c["name"]][k] for k in ("ops", "inputs", "outputs")}
        else:
            model = record(c, root)
            print(f"{c['name']:40s} {', '.join(model['ops'])}")
        cases[c["name"]] = entry(c, model)
    known = {c["name"] for c in CASES}
    cases = {name: row for name, row in cases.items() if name in known}
    table = {"cases": dict(sorted(cases.items())), "benchmarks": BENCHMARKS}
    json.dump(table, open(table_path, "w"), indent=1)
    open(table_path, "a").write("\n")


if __name__ == "__main__":
    main()
