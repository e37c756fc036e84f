/* upright.c — decode a still into upright RGB8 (sy__upright_decode).
 *
 * The codec's row source delivers rows in the file's stored orientation;
 * rows are read 16 at a time and put where the EXIF orientation says. The
 * orientations without a transpose (1-4) decode straight into their
 * destination rows; the transposed ones (5-8) go through a 16-row buffer so
 * each stored row lands as a run of 16 neighbouring pixels per upright row
 * (cache friendly) instead of one pixel per row. */
#include <string.h>

#include "edit/sy_edit_internal.h"
#include "base/sy_source.h"
#include "base/sy_color.h"

#define BATCH 16

void sy__upright_free(sy_context *ctx, sy__upright *img) {
    if (!img) return;
    sy__free(ctx, img->rgb);
    memset(img, 0, sizeof *img);
}

static void reverse_pixels(uint8_t *row, uint32_t n) {
    for (uint32_t a = 0, b = n - 1; a < b; a++, b--) {
        uint8_t t[3];
        memcpy(t, row + 3 * (size_t)a, 3);
        memcpy(row + 3 * (size_t)a, row + 3 * (size_t)b, 3);
        memcpy(row + 3 * (size_t)b, t, 3);
    }
}

/* Orientations 5-8: stored rows [y0, y0 + n) of a sw x sh frame (in `rows`,
 * stride sw*3) into the upright image (sh x sw). Stored (x, y) goes to
 * 5: (y, x)   6: (sh-1-y, x)   7: (sh-1-y, sw-1-x)   8: (y, sw-1-x). */
static void put_transposed(sy__upright *img, uint8_t o, const uint8_t *rows, uint32_t sw, uint32_t sh, uint32_t y0,
                           uint32_t n) {
    int mirror_x = o == 6 || o == 7; /* upright column falls as the stored row rises */
    int mirror_y = o == 7 || o == 8;
    for (uint32_t x = 0; x < sw; x++) {
        uint32_t uy = mirror_y ? sw - 1 - x : x;
        uint8_t *dst = img->rgb + (size_t)uy * img->stride;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t ux = mirror_x ? sh - 1 - (y0 + i) : y0 + i;
            memcpy(dst + 3 * (size_t)ux, rows + (size_t)i * sw * 3 + 3 * (size_t)x, 3);
        }
    }
}

static sy_status read_upright(sy_context *ctx, sy__source *src, sy__upright *img, uint8_t *batch, sy_error *err) {
    const uint8_t o = src->orientation;
    const uint32_t sw = src->width, sh = src->height;
    const int transposed = o >= 5;
    const int flip_rows = o == 3 || o == 4, mirror = o == 2 || o == 3;
    sy_status st = SY_OK;
    for (uint32_t y0 = 0; y0 < sh && st == SY_OK; y0 += BATCH) {
        if ((st = sy__check_cancel(ctx, err)) != SY_OK) break;
        uint32_t n = SY__MIN(BATCH, sh - y0);
        uint8_t *rows[BATCH];
        for (uint32_t i = 0; i < n; i++) {
            uint32_t y = y0 + i;
            rows[i] = transposed ? batch + (size_t)i * sw * 3
                                 : img->rgb + (size_t)(flip_rows ? sh - 1 - y : y) * img->stride;
        }
        if ((st = src->read_rows(src, rows, n, err)) != SY_OK) break;
        if (src->pixels == SY__PIX_YCC) sy__ycc_rows_to_rgb(rows, n, sw);
        if (mirror)
            for (uint32_t i = 0; i < n; i++) reverse_pixels(rows[i], sw);
        if (transposed) put_transposed(img, o, batch, sw, sh, y0, n);
        sy__progress(ctx, "decode", y0 + n, sh);
    }
    return st;
}

sy_status sy__upright_decode(sy_context *ctx, const char *path, const sy_image_info *info, uint32_t min_w,
                             uint32_t min_h, sy__upright *out, sy_error *err) {
    memset(out, 0, sizeof *out);
    int turned = info->orientation >= 5;
    uint32_t want_w = info->width, want_h = info->height;
    if (min_w && min_h) want_w = SY__MIN(min_w, info->width), want_h = SY__MIN(min_h, info->height);
    sy__source *src = NULL;
    sy_status st = sy__source_open(ctx, path, info, turned ? want_h : want_w, turned ? want_w : want_h, &src, err);
    if (st != SY_OK) return st;
    if (src->orientation < 1 || src->orientation > 8) src->orientation = 1;
    turned = src->orientation >= 5;
    uint8_t *batch = NULL;
    out->width = turned ? src->height : src->width;
    out->height = turned ? src->width : src->height;
    out->stride = (size_t)out->width * 3;
    out->rgb = sy__alloc(ctx, out->stride, out->height, "upright image", err);
    if (!out->rgb) st = err ? err->code : SY_E_BUDGET;
    if (st == SY_OK && turned) {
        batch = sy__alloc(ctx, (size_t)src->width * 3, BATCH, "upright transpose rows", err);
        if (!batch) st = err ? err->code : SY_E_BUDGET;
    }
    if (st == SY_OK) st = read_upright(ctx, src, out, batch, err);
    sy__free(ctx, batch);
    src->close(src);
    if (st != SY_OK) sy__upright_free(ctx, out);
    return st;
}
