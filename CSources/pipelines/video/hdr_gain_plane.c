/* hdr_gain_plane.c — an HDR picture's gain plane (sy_video_reader_gain.h):
 * per box of scale x scale pixels, the mean log2 of HDR over SDR, from the
 * picture's own signal (sy__yuv_hdr_gain_rows). */
#include <math.h>

#include "base/sy_internal.h"
#include "hevc/sy_hevc.h"
#include "video/sy_video_reader_gain.h"

sy_status sy__gain_plane_make(sy_context *ctx, const sy__yuv *pic, uint32_t scale, sy__gain_plane *plane,
                              sy_error *err) {
    if (scale < 1 || scale > 16) return sy__fail(err, SY_E_USAGE, "sy__gain_plane_make: scale %u", scale);
    uint32_t w = (pic->width + scale - 1) / scale, h = (pic->height + scale - 1) / scale;
    if (!plane->log2 || plane->width != w || plane->height != h) {
        sy__free(ctx, plane->log2);
        plane->log2 = sy__alloc(ctx, (size_t)w * h, sizeof(float), "gain plane", err);
        if (!plane->log2) return err ? err->code : SY_E_BUDGET;
        plane->width = w, plane->height = h;
    }
    float *rows = sy__alloc(ctx, (size_t)pic->width * scale, sizeof(float), "gain rows", err);
    if (!rows) return err ? err->code : SY_E_BUDGET;
    float *row_ptr[16];
    for (uint32_t j = 0; j < scale; j++) row_ptr[j] = rows + (size_t)j * pic->width;
    int hdr = 1;
    for (uint32_t by = 0; hdr && by < h; by++) {
        uint32_t y0 = by * scale, n = SY__MIN(scale, pic->height - y0);
        hdr = sy__yuv_hdr_gain_rows(pic, NULL, y0, n, row_ptr);
        for (uint32_t bx = 0; hdr && bx < w; bx++) {
            uint32_t x0 = bx * scale, m = SY__MIN(scale, pic->width - x0);
            double sum = 0;
            for (uint32_t j = 0; j < n; j++)
                for (uint32_t i = 0; i < m; i++) sum += log2(row_ptr[j][x0 + i]);
            plane->log2[(size_t)by * w + bx] = (float)(sum / (n * m));
        }
    }
    sy__free(ctx, rows);
    plane->peak = pic->vui.peak;
    if (!hdr) sy__gain_plane_free(ctx, plane);
    return SY_OK;
}

void sy__gain_plane_free(sy_context *ctx, sy__gain_plane *plane) {
    sy__free(ctx, plane->log2);
    plane->log2 = NULL;
    plane->width = plane->height = 0;
}

sy_status sy__gain_plane_stretch(sy_context *ctx, sy__gain_plane *plane, uint32_t num, uint32_t den, sy_error *err) {
    if (!plane->log2 || !num || !den || num == den) return SY_OK;
    int across = num > den;
    uint32_t w = plane->width, h = plane->height;
    uint32_t nw = across ? (uint32_t)(((uint64_t)w * num + den / 2) / den) : w;
    uint32_t nh = across ? h : (uint32_t)(((uint64_t)h * den + num / 2) / num);
    float *out = sy__alloc(ctx, (size_t)nw * nh, sizeof(float), "gain plane", err);
    if (!out) return err ? err->code : SY_E_BUDGET;
    uint32_t n = across ? w : h, nn = across ? nw : nh; /* along the stretched axis */
    for (uint32_t k = 0; k < nn; k++) {
        double at = ((double)k + 0.5) * n / nn - 0.5; /* box centres to box centres */
        if (at < 0) at = 0;
        uint32_t i = (uint32_t)at, j = i + 1 < n ? i + 1 : i;
        float f = (float)(at - i);
        if (across) {
            for (uint32_t y = 0; y < h; y++) {
                const float *row = plane->log2 + (size_t)y * w;
                out[(size_t)y * nw + k] = row[i] + (row[j] - row[i]) * f;
            }
        } else {
            const float *a = plane->log2 + (size_t)i * w, *b = plane->log2 + (size_t)j * w;
            for (uint32_t x = 0; x < w; x++) out[(size_t)k * w + x] = a[x] + (b[x] - a[x]) * f;
        }
    }
    sy__free(ctx, plane->log2);
    plane->log2 = out;
    plane->width = nw;
    plane->height = nh;
    return SY_OK;
}
