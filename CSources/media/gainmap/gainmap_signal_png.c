/* gainmap_signal_png.c — the gain map of an HDR PNG (cICP transfer PQ or
 * HLG, PNG 3rd edition). Like an HDR-signal HEIF (gainmap_signal.c) it
 * stores no map: the engine shows its SDR Display P3 rendition
 * (png/sy_png_source.h) and derives the map from the same signal, per box of
 * scale x scale pixels the mean log2 of how much brighter the HDR display
 * shows them, with the numbers of sy__gainmap_signal_params. PNG rows arrive
 * top to bottom, so one row of box sums is all it holds. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/sy_hdr_tone.h"
#include "gainmap/sy_gainmap_internal.h"
#include "png/sy_png_source.h"

int sy__gainmap_probe_png_signal(sy_context *ctx, const char *path, const sy_image_info *img, sy_gainmap_info *info) {
    if (img->progressive) return 0; /* interlaced: decoded whole as SDR, no signal rows to derive a map from */
    sy__source *src = NULL;
    sy_error ignored = {0};
    if (sy__png_source_open(ctx, path, &src, &ignored) != SY_OK) return 0;
    sy__png_hdr hdr;
    sy__png_source_hdr(src, &hdr);
    src->close(src);
    if (!hdr.present) return 0;
    info->kind = SY_GAINMAP_HDR_SIGNAL;
    snprintf(info->detail, sizeof info->detail,
             "%s HDR PNG (cICP), no stored map: shown as SDR Display P3, its gain map derived from the signal",
             hdr.transfer == SY_CICP_TRANSFER_PQ ? "PQ" : "HLG");
    sy__gainmap_signal_params(&info->params, hdr.peak);
    info->map_channels = 1;
    info->map_width = (img->stored_width + SY__GAINMAP_SIGNAL_SCALE - 1) / SY__GAINMAP_SIGNAL_SCALE;
    info->map_height = (img->stored_height + SY__GAINMAP_SIGNAL_SCALE - 1) / SY__GAINMAP_SIGNAL_SCALE;
    info->map_offset = 0;
    return 1;
}

sy_status sy__gainmap_decode_png_signal(sy_context *ctx, const char *path, uint32_t reduce, sy_gainmap_image *out,
                                        sy_error *err) {
    sy__source *src = NULL;
    sy_status st = sy__png_source_open(ctx, path, &src, err);
    if (st != SY_OK) return st;
    sy__png_hdr hdr;
    sy__png_source_hdr(src, &hdr);
    float *gain = NULL;
    double *sums = NULL;
    if (!hdr.present) {
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: the PNG is no HDR picture", path);
        goto done;
    }
    const uint32_t scale = SY__GAINMAP_SIGNAL_SCALE * (reduce >= 4 ? 4 : reduce >= 2 ? 2 : 1);
    const uint32_t w = src->width, h = src->height;
    out->width = (w + scale - 1) / scale, out->height = (h + scale - 1) / scale;
    out->channels = 1, out->stride = out->width;
    out->pixels = sy__alloc(ctx, out->stride, out->height, "gain map pixels", err);
    gain = out->pixels ? sy__alloc(ctx, w, sizeof *gain, "gain row", err) : NULL;
    sums = gain ? sy__calloc(ctx, out->width, sizeof *sums, "gain map sums", err) : NULL;
    if (!sums) {
        st = err ? err->code : SY_E_BUDGET;
        goto done;
    }
    for (uint32_t y = 0; y < h && st == SY_OK; y++) {
        if ((y & 63) == 0 && (st = sy__check_cancel(ctx, err)) != SY_OK) break;
        if ((st = sy__png_read_gain_row(src, gain, err)) != SY_OK) break;
        for (uint32_t x = 0; x < w; x++) sums[x / scale] += log2f(gain[x]);
        if ((y + 1) % scale && y + 1 < h) continue;
        uint32_t by = y / scale, rows = y + 1 - by * scale;
        uint8_t *dst = out->pixels + (size_t)by * out->stride;
        for (uint32_t bx = 0; bx < out->width; bx++) {
            uint32_t cols = SY__MIN(scale, w - bx * scale);
            dst[bx] = sy__gainmap_signal_code(sums[bx] / ((double)rows * cols), hdr.peak);
        }
        memset(sums, 0, (size_t)out->width * sizeof *sums);
    }
done:
    sy__free(ctx, sums);
    sy__free(ctx, gain);
    src->close(src);
    if (st != SY_OK) sy_gainmap_image_free(ctx, out);
    return st;
}
