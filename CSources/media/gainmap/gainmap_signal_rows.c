/* gainmap_signal_rows.c — a gain map derived from an HDR signal delivered
 * row by row, top to bottom (an HDR AVIF through libheif): per box of
 * scale x scale pixels the mean log2 of the rows' gains, coded with
 * sy__gainmap_signal_code. One row of box sums is all it holds. */
#include <math.h>
#include <string.h>

#include "gainmap/sy_gainmap_internal.h"

sy_status sy__gainmap_signal_rows(sy_context *ctx, uint32_t w, uint32_t h, uint16_t peak, uint32_t reduce,
                                  sy_status (*next_row)(void *user, float *gain, sy_error *err), void *user,
                                  sy_gainmap_image *out, sy_error *err) {
    const uint32_t scale = SY__GAINMAP_SIGNAL_SCALE * (reduce >= 4 ? 4 : reduce >= 2 ? 2 : 1);
    if (!w || !h) return sy__fail(err, SY_E_INVALID_INPUT, "gain map of a %ux%u picture", w, h);
    out->width = (w + scale - 1) / scale, out->height = (h + scale - 1) / scale;
    out->channels = 1, out->stride = out->width;
    out->pixels = sy__alloc(ctx, out->stride, out->height, "gain map pixels", err);
    float *gain = out->pixels ? sy__alloc(ctx, w, sizeof *gain, "gain row", err) : NULL;
    double *sums = gain ? sy__calloc(ctx, out->width, sizeof *sums, "gain map sums", err) : NULL;
    sy_status st = sums ? SY_OK : (err ? err->code : SY_E_BUDGET);
    for (uint32_t y = 0; y < h && st == SY_OK; y++) {
        if ((y & 63) == 0 && (st = sy__check_cancel(ctx, err)) != SY_OK) break;
        if ((st = next_row(user, gain, err)) != SY_OK) break;
        for (uint32_t x = 0; x < w; x++) sums[x / scale] += log2f(gain[x]);
        if ((y + 1) % scale && y + 1 < h) continue;
        uint32_t by = y / scale, rows = y + 1 - by * scale;
        uint8_t *dst = out->pixels + (size_t)by * out->stride;
        for (uint32_t bx = 0; bx < out->width; bx++) {
            uint32_t cols = SY__MIN(scale, w - bx * scale);
            dst[bx] = sy__gainmap_signal_code(sums[bx] / ((double)rows * cols), peak);
        }
        memset(sums, 0, (size_t)out->width * sizeof *sums);
    }
    sy__free(ctx, sums);
    sy__free(ctx, gain);
    if (st != SY_OK) sy_gainmap_image_free(ctx, out);
    return st;
}
