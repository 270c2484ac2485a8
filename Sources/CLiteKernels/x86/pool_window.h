#ifndef LITE_POOL_WINDOW_H
#define LITE_POOL_WINDOW_H

// Scalar helpers of the MAX_POOL_2D row kernels of every level. Included inside a file's LITE_TARGET_*_BEGIN, so
// each copy is compiled for that file's level.
#include <stddef.h>

#include "../include/lite_pool.h"

/// Output pixel `ox`'s input columns [*x0, *x1).
static inline void lite_pool_columns(const lite_pool_row_geometry *g, ptrdiff_t ox, ptrdiff_t *x0, ptrdiff_t *x1) {
    const ptrdiff_t start = ox * g->stride - g->pad_left;
    const ptrdiff_t first = start > 0 ? start : 0;
    const ptrdiff_t end = start + g->filter_width < g->input_width ? start + g->filter_width : g->input_width;
    *x0 = first;
    *x1 = end > first ? end : first;
}

/// Swift's `min(max(m, low), high)`: max(x, y) is `y >= x ? y : x`, min(x, y) is `y < x ? y : x`.
static inline float lite_clamp_scalar(float m, float low, float high) {
    const float raised = low >= m ? low : m;
    return high < raised ? high : raised;
}

#endif
