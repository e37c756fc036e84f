/* upright.c — decode a still into upright RGB8 (sy__upright_decode).
 *
 * The codec's row source delivers rows in the file's stored orientation;
 * rows are read 16 at a time and put where the EXIF orientation says
 * (sy_orient.h: orientations 1-4 decode straight into their upright rows,
 * 5-8 through a 16-row band that is scattered). */
#include <string.h>

#include "base/sy_color.h"
#include "still/sy_orient.h"
#include "still/sy_still_internal.h"

#define BATCH 16
#define WORKING_FLOOR ((size_t)32 << 20) /* two 640x896 tile decoders and a two-row ring, with room */

void sy__upright_free(sy_context *ctx, sy__upright *img) {
    if (!img) return;
    sy__free(ctx, img->rgb);
    memset(img, 0, sizeof *img);
}

static sy_status read_upright(sy_context *ctx, sy__source *src, const sy__orient *m, sy__upright *img, uint8_t *band,
                               sy_error *err) {
    const uint32_t sw = src->width, sh = src->height;
    sy_status st = SY_OK;
    for (uint32_t y0 = 0; y0 < sh && st == SY_OK; y0 += BATCH) {
        if ((st = sy__check_cancel(ctx, err)) != SY_OK) break;
        uint32_t n = SY__MIN(BATCH, sh - y0);
        uint8_t *rows[BATCH];
        sy__orient_band_rows(m, img->rgb, img->stride, band, y0, n, rows);
        if ((st = src->read_rows(src, rows, n, err)) != SY_OK) break;
        if (src->pixels == SY__PIX_YCC) sy__ycc_rows_to_rgb(rows, n, sw);
        sy__orient_band_place(m, rows, y0, n, img->rgb, img->stride);
        sy__progress(ctx, "decode", y0 + n, sh);
    }
    return st;
}

sy_status sy__upright_decode(sy_context *ctx, const char *path, const sy_image_info *info, uint32_t min_w,
                             uint32_t min_h, uint32_t threads, sy__upright *out, sy_error *err) {
    memset(out, 0, sizeof *out);
    int turned = info->orientation >= 5;
    uint32_t want_w = info->width, want_h = info->height;
    if (min_w && min_h) want_w = SY__MIN(min_w, info->width), want_h = SY__MIN(min_h, info->height);
    /* The whole upright image is held anyway: its size again, and at least
     * WORKING_FLOOR for a small one, may go to the codec's extra threads (for
     * a HEIC: a second tile decoder and a ring for the next tile row, so
     * tiles decode while rows are converted). A tile the context's limit
     * refuses makes the source go on one tile at a time. */
    size_t image_bytes = (size_t)want_w * want_h * 3;
    sy__source_means means = {.threads = threads, .working_bytes = SY__MAX(image_bytes, WORKING_FLOOR)};
    sy__source *src = NULL;
    sy_status st = sy__source_open(ctx, path, info, turned ? want_h : want_w, turned ? want_w : want_h,
                                   threads > 1 ? &means : NULL, &src, err);
    if (st != SY_OK) return st;
    const sy__orient m = sy__orient_plan(src->orientation, src->width, src->height);
    uint8_t *band = NULL;
    out->width = m.width;
    out->height = m.height;
    out->stride = (size_t)out->width * 3;
    out->rgb = sy__alloc(ctx, out->stride, out->height, "upright image", err);
    if (!out->rgb) st = err ? err->code : SY_E_BUDGET;
    if (st == SY_OK && sy__orient_transposes(&m)) {
        band = sy__alloc(ctx, (size_t)src->width * 3, BATCH, "upright transpose rows", err);
        if (!band) st = err ? err->code : SY_E_BUDGET;
    }
    if (st == SY_OK) st = read_upright(ctx, src, &m, out, band, err);
    sy__free(ctx, band);
    src->close(src);
    if (st != SY_OK) sy__upright_free(ctx, out);
    return st;
}
