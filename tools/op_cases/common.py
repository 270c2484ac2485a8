"""What every family module uses: the case registry (`case`), the benchmark shapes (`benchmark`), and the shared
random generator whose draws the modules make in their import order (see __init__.py)."""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
# Keras 2 (the tf_keras package): TensorFlow's converter fuses its LSTM layers into UNIDIRECTIONAL_SEQUENCE_LSTM;
# Keras 3's LSTM converts to a WHILE loop over its cell instead (the while_keras3_* cases).
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

CASES = []
BENCHMARKS = []


def _family(depth=2):
    """The family of the module that registers a case: its module name (qcase in quantized_int8 makes quantized_int8
    cases wherever it is called)."""
    return sys._getframe(depth).f_globals["__name__"].rsplit(".", 1)[-1]


def case(name, input_shapes, dtype=np.float32, low=-2.0, high=2.0, optimize=None, step=None, keras=False, run_shapes=None, built=False,
         tensorflow_reference=None, inputs=None, exact=False, special=False, family=None):
    """Registers a case: fn(*inputs) -> output(s); inputs are random in [low, high] (float inputs on a grid of `step`
    when given, to hit rounding ties).

    optimize: how the converter quantizes: None (float), "float16", "sparsity", "dynamic_range" (hybrid ops: int8
    weights per channel, float inputs quantized asymmetrically at run time, the converter's default),
    "dynamic_range_per_tensor", "dynamic_range_symmetric" (every op's asymmetric_quantize_inputs cleared after
    conversion), "quantize_int8" / "quantize_uint8" (integer model, calibrated on `low`..`high`), "quantize16x8_float32" /
    "quantize16x8_int16" (int16 activations, float or int16 model inputs).
    keras=True: fn() returns a Keras model, converted with from_keras_model (how PReLU layers become PRELU).
    built=True: fn() returns the .tflite bytes itself (ops no converter emits in the form wanted, see GraphBuilder).
    Shapes may contain None (a resizable dimension, -1 in the file's shape_signature); run_shapes then gives the
    shapes LiteRT and our engine are resized to before running.
    tensorflow_reference="why": the expected outputs are TensorFlow's own (fn run eagerly), not LiteRT's, where LiteRT
    is wrong for the reason given (the manifest keeps it, and LiteRT's outputs as output_<i>.litert.npy).
    inputs=[arrays]: these inputs instead of random ones (special values: NaN, infinities, overflow).
    exact=True: the test compares float outputs bit for bit (NaN matching any NaN), not within 1e-4.
    special=True: NaN, ±inf and ±FLT_MAX must be where LiteRT has them, other values within 1e-4 of the largest of
    them (sums whose order differs from LiteRT's, over inputs with special values).
    family: the test group (one XCTest method each in OpGoldenTests); by default the registering module's name.
    """
    family = family or _family()

    def register(fn):
        CASES.append(dict(name=name, fn=fn, shapes=input_shapes, dtype=dtype, low=low, high=high, optimize=optimize, step=step,
                          keras=keras, run_shapes=run_shapes, built=built, tensorflow_reference=tensorflow_reference,
                          inputs=inputs, exact=exact, special=special, family=family))
        return fn
    return register


def benchmark(name, op, **shape):
    """Registers an op benchmark (Benchmarks/OpBenchmarks builds the one-op model in memory from `op` and `shape`):
    real layer shapes, larger than the goldens'. `shape` holds what the builder for `op` reads (input, filters,
    kernel, stride, depthwise, type, numerics, ...)."""
    BENCHMARKS.append(dict(name=name, op=op, family=_family(), **shape))


rng = np.random.default_rng(1234)


def const(*shape, scale=0.5):
    return tf.constant(rng.normal(0, scale, size=shape).astype(np.float32))
