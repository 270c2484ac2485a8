"""The op cases: one table behind the LiteRT op goldens, OpGoldenTests, KernelConsistencyTests' table-driven check and
Benchmarks/OpBenchmarks. Each family module registers its cases (`case`) and benchmark shapes (`benchmark`) when
imported; tools/make_op_goldens.py converts the cases, records LiteRT's outputs and writes the table,
Tests/LiteEngineTests/Goldens/op_cases.json.

The modules are imported in this order, always all of them, and the cases are converted in the order they were
registered: constants drawn from the shared generator (`const` at module level, `const` inside a case's function and
GraphBuilder's weights while converting) come out the same on every full run. A case regenerated alone may draw other
weights than in a full run (its model and outputs still agree with each other). A new case that draws from the shared
generator shifts the draws of every case after it, so give new cases a generator of their own, as the `*_rng`
constants do.
"""
from . import (convolution, matmul, elementwise, pooling_and_reductions, data_movement, recurrent, math, special_values,  # noqa: F401
               miscellaneous, volumes_and_state, quantized_int8, quantized_int16, hybrid, built_float, quantized_rounding, lstm,
               control_flow, keras3_layers, weight_formats, int64, hybrid_shapes)
from .common import BENCHMARKS, CASES  # noqa: F401
