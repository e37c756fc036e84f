/* ycc_rows.c — JFIF YCbCr rows to R'G'B' in place, for whole batches of
 * decoder rows (upright decodes, collage cells). The conversion is a third
 * of a full-size decode in plain SSE2 (no byte shuffles for 3-channel
 * pixels); an AVX2 clone picked at load time vectorizes it. */
#include "base/sy_color.h"

#if defined(__x86_64__) && defined(__has_attribute) && !defined(__SANITIZE_ADDRESS__)
#if __has_attribute(target_clones)
#define YCC_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef YCC_CLONES
#define YCC_CLONES
#endif

YCC_CLONES void sy__ycc_rows_to_rgb(uint8_t *const *rows, uint32_t n, uint32_t width) {
    for (uint32_t i = 0; i < n; i++) sy__ycc_row_to_rgb(rows[i], width);
}
