#!/usr/bin/env python3
"""Times LiteRT on a model: XNNPACK (the default delegate) or the built-in kernels, median of N runs.

    python3 tools/litert_bench.py MODEL [--threads N] [--runs N] [--warmup N] [--builtin] [--json]

Also reports memory as LiteRT's benchmark_model does: the process's peak resident set before the model is loaded,
and how much it grew by the end of initialization and by the end of the runs (meaningful in a fresh process only:
the peak never goes down, so a second model in the same process reads the first one's peak).
"""
import argparse
import ctypes
import json
import os
import subprocess
import time

import numpy as np
from ai_edge_litert import interpreter as litert


def input_values(rng, dtype, shape):
    """The values `vision-cli bench` feeds (Docs/benchmarks.md, "vision-cli bench"), which are benchmark_model's:
    floats uniform in [-0.5, 0.5], uint8 in [0, 254], int8 in [-127, 127], bool 0 or 1, wider integers (ids,
    positions) zeros."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.uniform(-0.5, 0.5, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(-0.5, 0.5, shape) + 1j * rng.uniform(-0.5, 0.5, shape)).astype(dtype)
    if dtype == np.uint8:
        return rng.integers(0, 254, shape, endpoint=True).astype(dtype)
    if dtype == np.int8:
        return rng.integers(-127, 127, shape, endpoint=True).astype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 1, shape, endpoint=True).astype(dtype)
    return np.zeros(shape, dtype)


# XNNPACK's x86 feature bits (`arch_flags` in its `struct xnn_hardware_config`) in the ai-edge-litert 2.3.0 wheel,
# read off the microkernels `perf report` shows under each mask: up to 1 << 7 (avx2, with fma3 and f16c below it)
# they are what an AVX2-only EPYC has; 1 << 8 is avx256skx and 1 << 9 avx512f. Another wheel may number them
# differently, so limit_xnnpack_to_avx2 refuses any other version.
XNNPACK_FLAGS_WHEEL = "2.3.0"
XNNPACK_AVX2_MACHINE_FLAGS = 0xFF


def limit_xnnpack_to_avx2():
    """Makes this process's XNNPACK pick the microkernels it picks on an AVX2-only x86 machine, so that an AVX-512
    machine can compare `LITEVISION_ISA=avx2` with what LiteRT does on such a machine. Call it before the first
    interpreter: XNNPACK's hardware configuration is made once per process, and its kernel tables read it when
    they are first used. Finds XNNPACK's `xnn_init_hardware_config` in the wheel's symbol table (`nm`), calls it, and
    clears the feature bits above AVX2 in the configuration it returns."""
    from importlib.metadata import version
    if version("ai-edge-litert") != XNNPACK_FLAGS_WHEEL:
        raise RuntimeError(f"XNNPACK's feature bits were read off ai-edge-litert {XNNPACK_FLAGS_WHEEL}, "
                           f"not {version('ai-edge-litert')}: check them with perf before limiting")
    library = os.path.join(os.path.dirname(litert.__file__), "libpywrap_litert_common.so")
    symbols = subprocess.run(["nm", library], check=True, capture_output=True, text=True).stdout
    offset = next(int(line.split()[0], 16) for line in symbols.splitlines() if line.endswith(" xnn_init_hardware_config"))
    with open("/proc/self/maps") as maps:
        base = next(int(line.split("-")[0], 16) for line in maps
                    if line.rstrip().endswith(library) and line.split()[2] == "00000000")
    config = ctypes.CFUNCTYPE(ctypes.c_void_p)(base + offset)()
    # struct xnn_hardware_config in this wheel: a uint64 before arch_flags, then the cache sizes.
    arch_flags = ctypes.c_uint64.from_address(config + 8)
    if arch_flags.value & 0xE0 != 0xE0:
        raise RuntimeError(f"XNNPACK's arch_flags read {arch_flags.value:#x}: no AVX2 there, so not the expected layout")
    arch_flags.value &= XNNPACK_AVX2_MACHINE_FLAGS


def avx2_machine():
    """Both sides as on an AVX2-only x86 machine: limits this process's XNNPACK to its AVX2 kernels and returns the
    environment for vision-cli (its AVX2 kernels, and OpenBLAS's Zen kernels as such a machine would pick)."""
    limit_xnnpack_to_avx2()
    return dict(os.environ, LITEVISION_ISA="avx2", LITEVISION_BLAS_CORETYPE="Zen")


def peak_rss_mb():
    """The process's peak resident set (VmHWM) in MB of 2^20 bytes, or None without /proc."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def bench(model, threads=1, runs=50, warmup=5, builtin=False, shape=None):
    baseline_rss = peak_rss_mb()
    kwargs = {"num_threads": threads}
    if builtin:
        kwargs["experimental_op_resolver_type"] = litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    start = time.perf_counter()
    interp = litert.Interpreter(model_path=model, **kwargs)
    if shape:
        interp.resize_tensor_input(interp.get_input_details()[0]["index"], shape)
    interp.allocate_tensors()
    load_ms = (time.perf_counter() - start) * 1e3
    rng = np.random.default_rng(0)
    for d in interp.get_input_details():
        interp.set_tensor(d["index"], input_values(rng, d["dtype"], d["shape"]))
    for _ in range(warmup):
        interp.invoke()
    init_rss = peak_rss_mb()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        interp.invoke()
        times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    peak_rss = peak_rss_mb()
    memory = {}
    if baseline_rss is not None:
        memory = {"baseline_rss_mb": baseline_rss, "peak_rss_mb": peak_rss,
                  "init_rss_increase_mb": init_rss - baseline_rss, "peak_rss_increase_mb": peak_rss - baseline_rss}
    return {"median_ms": times[len(times) // 2], "min_ms": times[0], "p90_ms": times[min(len(times) - 1, len(times) * 9 // 10)],
            "load_ms": load_ms, **memory}


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--builtin", action="store_true")
    p.add_argument("--json", action="store_true")
    p.add_argument("--xnnpack-avx2", action="store_true", help="XNNPACK as on an AVX2-only machine")
    a = p.parse_args()
    if a.xnnpack_avx2:
        limit_xnnpack_to_avx2()
    r = bench(a.model, a.threads, a.runs, a.warmup, a.builtin)
    print(json.dumps(r) if a.json else f"median {r['median_ms']:.3f} ms  min {r['min_ms']:.3f} ms")
