#ifndef LITE_KERNELS_H
#define LITE_KERNELS_H

// The engine's microkernels, one header per family. Every x86 kernel is compiled for one instruction-set level
// (the file's `#pragma clang attribute` target) and is reached only through LiteEngine's KernelConfiguration, which
// selects it after lite_cpu_features() says the CPU has that level. Declarations of x86 kernels are visible only on
// x86-64, so Swift code that names one must sit under `#if arch(x86_64)`.
#include "lite_cpu.h"
#include "lite_elementwise.h"
#include "lite_pool.h"
#include "lite_quantize.h"
#include "lite_qs8_widened.h"
#include "lite_s8_dot.h"
#include "lite_qs8_vnni.h"
#include "lite_f32_dwconv.h"
#include "lite_f32_gemm.h"
#include "lite_f32_vmath.h"
#include "lite_f32_lstm.h"

#endif
