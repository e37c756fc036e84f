/* gainmap_signal_png.c — the gain map of an HDR PNG (cICP transfer PQ or
 * HLG, PNG 3rd edition). Like an HDR-signal HEIF (gainmap_signal.c) it
 * stores no map: the engine shows its SDR Display P3 rendition
 * (png/sy_png_source.h) and derives the map from the same signal, per box of
 * scale x scale pixels the mean log2 of how much brighter the HDR display
 * shows them, with the numbers of sy__gainmap_signal_params.
 *
 * What it holds: rows arrive top to bottom in a plain PNG, so one row of box
 * sums is enough. An Adam7-interlaced PNG hands out its pixels in seven passes
 * over the whole picture, so no box is complete before the last pass: it
 * holds the sums of every box (4 bytes per map pixel, 1/4 byte per picture
 * pixel at scale 4; 3 MB for 12 MP) besides the map itself, charged to the
 * context's budget like any allocation and refused by it, never a whole
 * decoded picture. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/sy_hdr_tone.h"
#include "gainmap/sy_gainmap_internal.h"
#include "png/sy_png_source.h"

int sy__gainmap_probe_png_signal(sy_context *ctx, const char *path, const sy_image_info *img, sy_gainmap_info *info) {
    sy__png_hdr hdr;
    sy_error ignored = {0};
    if (sy__png_probe_hdr(ctx, path, &hdr, &ignored) != SY_OK || !hdr.present) return 0;
    sy_cicp signal = {.transfer = hdr.transfer, .peak = hdr.peak};
    sy__gainmap_signal_info(info, "PNG (cICP)", &signal, img->stored_width, img->stored_height, 0);
    return 1;
}

/* Writes map row `by` from its box sums. */
static void emit_row(sy_gainmap_image *out, const float *sums, uint32_t by, uint32_t scale, uint32_t w, uint32_t h,
                     uint16_t peak) {
    const uint32_t rows = SY__MIN(scale, h - by * scale);
    uint8_t *dst = out->pixels + (size_t)by * out->stride;
    for (uint32_t bx = 0; bx < out->width; bx++) {
        uint32_t cols = SY__MIN(scale, w - bx * scale);
        dst[bx] = sy__gainmap_signal_code(sums[bx] / ((double)rows * cols), peak);
    }
}

sy_status sy__gainmap_decode_png_signal(sy_context *ctx, const char *path, uint32_t reduce, sy_gainmap_image *out,
                                        sy_error *err) {
    sy__source *src = NULL;
    sy_status st = sy__png_gain_open(ctx, path, &src, err);
    if (st != SY_OK) return st;
    sy__png_hdr hdr;
    sy__png_source_hdr(src, &hdr);
    float *gain = NULL, *sums = NULL;
    uint32_t *given = NULL;
    if (!hdr.present) {
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: the PNG is no HDR picture", path);
        goto done;
    }
    const uint32_t scale = SY__GAINMAP_SIGNAL_SCALE * (reduce >= 4 ? 4 : reduce >= 2 ? 2 : 1);
    const uint32_t w = src->width, h = src->height;
    out->width = (w + scale - 1) / scale, out->height = (h + scale - 1) / scale;
    out->channels = 1, out->stride = out->width;
    /* Map rows whose sums are held at once: one, or all of them (interlaced). */
    const uint32_t band = sy__png_source_interlaced(src) ? out->height : 1;
    out->pixels = sy__alloc(ctx, out->stride, out->height, "gain map pixels", err);
    gain = out->pixels ? sy__alloc(ctx, w, sizeof *gain, "gain row", err) : NULL;
    given = gain ? sy__calloc(ctx, band, sizeof *given, "gain map rows given", err) : NULL;
    sums = given ? sy__calloc(ctx, (size_t)out->width * band, sizeof *sums, "gain map sums", err) : NULL;
    if (!sums) {
        st = err ? err->code : SY_E_BUDGET;
        if (err && band > 1) { /* say why this one needs so much */
            char reason[sizeof err->message];
            memcpy(reason, err->message, sizeof reason);
            reason[sizeof reason - 1] = 0;
            sy__fail(err, st, "%s: interlaced (Adam7) PNG: its %ux%u gain map is summed whole (%zu bytes): %s", path,
                     out->width, out->height, (size_t)out->width * band * (sizeof *sums + 1), reason);
        }
        goto done;
    }
    sy__png_gain_run run;
    for (uint64_t n = 0;; n++) {
        if ((n & 63) == 0 && (st = sy__check_cancel(ctx, err)) != SY_OK) break;
        if ((st = sy__png_read_gains(src, gain, &run, err)) != SY_OK || run.count == 0) break;
        const uint32_t by = run.y / scale, slot = band > 1 ? by : 0;
        float *row = sums + (size_t)slot * out->width;
        for (uint32_t i = 0, x = run.x0; i < run.count; i++, x += run.step) row[x / scale] += log2f(gain[i]);
        given[slot] += run.count;
        if (given[slot] < SY__MIN(scale, h - by * scale) * w) continue;
        emit_row(out, row, by, scale, w, h, hdr.peak);
        memset(row, 0, (size_t)out->width * sizeof *row);
        given[slot] = 0;
    }
done:
    sy__free(ctx, sums);
    sy__free(ctx, given);
    sy__free(ctx, gain);
    src->close(src);
    if (st != SY_OK) sy_gainmap_image_free(ctx, out);
    return st;
}
