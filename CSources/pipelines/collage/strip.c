/* strip.c — see sy_strip.h. */
#include <string.h>

#include "base/sy_internal.h"
#include "base/sy_color.h"
#include "jpeg/sy_jpeg_writer.h"
#include "png/sy_png_writer.h"
#include "collage/sy_strip.h"

struct sy__strip_sink {
    sy_context *ctx;
    sy_still_format format;
    uint32_t width, height, y0;
    sy__jpeg_writer *jpeg;
    sy__png_writer *png;
    sy__still_writer *heic;           /* HEIC: the still writer (its own temp file, the gain map at finish) */
    sy__still_extra heic_extra;       /* HEIC: the caller's extra + one encoder (the writer borrows it) */
    sy__jpeg_strip planes;            /* JPEG: Y (16 rows), Cb (8), Cr (8) */
    uint8_t *rgb_mem;                 /* PNG, HEIC: 16 RGB rows, in rows[0] */
    uint8_t *(*rows)[SY__STRIP_ROWS]; /* the strip being composed: planes.rows or rgb_rows */
    uint8_t *rgb_rows[3][SY__STRIP_ROWS];
    uint32_t *stride;                 /* planes.stride or rgb_stride */
    uint32_t rgb_stride[3];
    uint8_t background_rgb[3], background_ycc[3];
};

/* Takes the (sRGB) background into a Display P3 output and tags it with its
 * profile; writes `extra`'s XMP and APP2 blocks (a collage's gain map), or
 * for HEIC opens the still writer with the profile and `extra`. */
static sy_status write_header(sy__strip_sink *s, const char *path, int quality, sy__rgb_space space,
                              const sy__still_extra *extra, sy_error *err) {
    uint8_t *icc = NULL;
    size_t icc_len = 0;
    sy_status st = SY_OK;
    if (space != SY__RGB_SRGB) {
        if ((st = sy__color_from_srgb(s->ctx, space, s->background_rgb, err)) != SY_OK) return st;
        sy__rgb_to_ycc(s->background_rgb, s->background_ycc);
        if ((st = sy__color_space_icc(s->ctx, space, &icc, &icc_len, err)) != SY_OK) return st;
    }
    if (s->format == SY_STILL_HEIC) { /* its heic_finish adds the gain map's images after the base */
        sy__metadata md = {.icc = icc, .icc_len = icc_len};
        s->heic_extra = extra ? *extra : (sy__still_extra){0};
        s->heic_extra.heic_one_encoder = 1; /* the job's memory over a second tile at once */
        st = sy__still_writer_open_extra(s->ctx, path, SY_STILL_HEIC, quality, NULL, s->width, s->height, &md,
                                         &s->heic_extra, &s->heic, err);
        sy__free(s->ctx, icc);
        return st;
    }
    const uint8_t *xmp = extra ? extra->xmp : NULL;
    size_t xmp_len = extra ? extra->xmp_len : 0;
    if (icc || xmp)
        st = s->format == SY_STILL_JPEG ? sy__jpeg_writer_write_metadata(s->jpeg, NULL, 0, xmp, xmp_len, icc, icc_len, err)
                                        : sy__png_writer_write_metadata(s->png, NULL, 0, xmp, xmp_len, icc, icc_len, err);
    sy__free(s->ctx, icc);
    if (st == SY_OK && s->format == SY_STILL_JPEG && extra && extra->jpeg_app2_first)
        st = sy__jpeg_writer_write_marker(s->jpeg, 0xE2, extra->jpeg_app2_first, extra->jpeg_app2_first_len, err);
    if (st == SY_OK && s->format == SY_STILL_JPEG && extra && extra->jpeg_app2)
        st = sy__jpeg_writer_write_marker(s->jpeg, 0xE2, extra->jpeg_app2, extra->jpeg_app2_len, err);
    return st;
}

sy_status sy__strip_sink_create(sy_context *ctx, FILE *file, const char *path, const sy_collage_options *opts,
                                uint32_t width, uint32_t height, sy__rgb_space space,
                                const sy__still_extra *extra, sy__strip_sink **out, sy_error *err) {
    *out = NULL;
    sy__strip_sink *s = sy__calloc(ctx, 1, sizeof *s, "strip sink", err);
    if (!s) return err ? err->code : SY_E_BUDGET;
    s->ctx = ctx;
    s->format = opts->format;
    s->width = width;
    s->height = height;
    memcpy(s->background_rgb, opts->background, 3);
    sy__rgb_to_ycc(s->background_rgb, s->background_ycc);
    sy_status st;
    if (s->format == SY_STILL_JPEG) {
        s->rows = s->planes.rows, s->stride = s->planes.stride;
        st = sy__jpeg_strip_init(ctx, width, "strip buffer", &s->planes, err);
        if (st == SY_OK) st = sy__jpeg_writer_create(ctx, file, path, width, height, opts->quality, &s->jpeg, err);
    } else {
        s->rows = s->rgb_rows, s->stride = s->rgb_stride;
        s->rgb_stride[0] = width * 3;
        s->rgb_mem = sy__alloc(ctx, (size_t)s->rgb_stride[0] * SY__STRIP_ROWS, 1, "strip buffer", err);
        st = s->rgb_mem ? SY_OK : err ? err->code : SY_E_BUDGET;
        for (int r = 0; st == SY_OK && r < SY__STRIP_ROWS; r++) s->rgb_rows[0][r] = s->rgb_mem + (size_t)r * s->rgb_stride[0];
        if (st == SY_OK && s->format == SY_STILL_PNG)
            st = sy__png_writer_create(ctx, file, path, width, height, opts->png_compression, &s->png, err);
    }
    if (st == SY_OK) st = write_header(s, path, opts->quality, space, extra, err);
    if (st != SY_OK) {
        sy__strip_sink_destroy(s);
        return st;
    }
    *out = s;
    return SY_OK;
}

void sy__strip_begin(sy__strip_sink *s, uint32_t y0) {
    s->y0 = y0;
    if (s->format == SY_STILL_JPEG) {
        for (int c = 0; c < 3; c++) {
            int rows = c ? SY__STRIP_ROWS / 2 : SY__STRIP_ROWS;
            for (int r = 0; r < rows; r++) memset(s->rows[c][r], s->background_ycc[c], s->stride[c]);
        }
    } else {
        for (int r = 0; r < SY__STRIP_ROWS; r++)
            for (uint32_t x = 0; x < s->width; x++) memcpy(s->rows[0][r] + 3 * x, s->background_rgb, 3);
    }
}

/* Pixel (x, row) of a full-resolution cell as JFIF YCbCr. */
static void cell_ycc(const sy__cell *cell, uint32_t x, uint32_t row, uint8_t ycc[3]) {
    uint8_t v[3];
    for (int c = 0; c < 3; c++) v[c] = cell->plane[c][(size_t)row * cell->stride[c] + x];
    if (cell->pixels == SY__PIX_YCC) memcpy(ycc, v, 3);
    else sy__rgb_to_ycc(v, ycc);
}

/* A 4:4:4 cell (conversions) into a 4:2:0 strip: luma per pixel, chroma as 2x2 means. */
static void put_full_row_jpeg(sy__strip_sink *s, const sy__cell *cell, const sy__rect *rect, uint32_t cy,
                              uint32_t sr, uint32_t w) {
    uint8_t *yrow = s->rows[0][sr] + rect->x;
    for (uint32_t x = 0; x < w; x++) {
        uint8_t ycc[3];
        cell_ycc(cell, x, cy, ycc);
        yrow[x] = ycc[0];
    }
    if (cy & 1) return;
    uint32_t below = cy + 1 < cell->height ? cy + 1 : cy;
    for (uint32_t x = 0; x < w; x += 2) {
        uint32_t right = x + 1 < w ? x + 1 : x;
        uint8_t a[3], b[3], c[3], d[3];
        cell_ycc(cell, x, cy, a), cell_ycc(cell, right, cy, b), cell_ycc(cell, x, below, c), cell_ycc(cell, right, below, d);
        s->rows[1][sr / 2][(rect->x + x) / 2] = (uint8_t)((a[1] + b[1] + c[1] + d[1] + 2) >> 2);
        s->rows[2][sr / 2][(rect->x + x) / 2] = (uint8_t)((a[2] + b[2] + c[2] + d[2] + 2) >> 2);
    }
}

void sy__strip_put(sy__strip_sink *s, const sy__cell *cell, const sy__rect *rect) {
    uint32_t y1 = s->y0 + SY__STRIP_ROWS;
    uint32_t top = rect->y > s->y0 ? rect->y : s->y0;
    uint32_t bottom = rect->y + rect->height < y1 ? rect->y + rect->height : y1;
    if (top >= bottom || rect->x >= s->width) return;
    uint32_t w = rect->width < s->width - rect->x ? rect->width : s->width - rect->x;
    for (uint32_t y = top; y < bottom; y++) {
        uint32_t cy = y - rect->y, sr = y - s->y0;
        if (s->format == SY_STILL_JPEG && cell->chroma_shift == 0) {
            put_full_row_jpeg(s, cell, rect, cy, sr, w);
        } else if (s->format == SY_STILL_JPEG) {
            memcpy(s->rows[0][sr] + rect->x, cell->plane[0] + (size_t)cy * cell->stride[0], w);
            if ((cy & 1) == 0) { /* cells sit on even rows and columns: chroma lines up */
                for (int c = 1; c < 3; c++)
                    memcpy(s->rows[c][sr / 2] + rect->x / 2, cell->plane[c] + (size_t)(cy / 2) * cell->stride[c],
                           (w + 1) / 2);
            }
        } else {
            uint8_t *out = s->rows[0][sr] + (size_t)rect->x * 3;
            const uint8_t *p0 = cell->plane[0] + (size_t)cy * cell->stride[0];
            const uint8_t *p1 = cell->plane[1] + (size_t)cy * cell->stride[1];
            const uint8_t *p2 = cell->plane[2] + (size_t)cy * cell->stride[2];
            if (cell->pixels == SY__PIX_YCC) {
                sy__ycc_planes_to_rgb(p0, p1, p2, out, w);
            } else {
                for (uint32_t x = 0; x < w; x++) out[3 * x] = p0[x], out[3 * x + 1] = p1[x], out[3 * x + 2] = p2[x];
            }
        }
    }
}

sy_status sy__strip_flush(sy__strip_sink *s, sy_error *err) {
    uint32_t rows = s->height - s->y0 < SY__STRIP_ROWS ? s->height - s->y0 : SY__STRIP_ROWS;
    switch (s->format) {
    case SY_STILL_JPEG: return sy__jpeg_writer_write_padded(s->jpeg, &s->planes, rows, err);
    case SY_STILL_HEIC: return sy__still_writer_write(s->heic, s->rgb_mem, s->rgb_stride[0], rows, err);
    default: return sy__png_writer_write_rows(s->png, (const uint8_t *const *)s->rows[0], rows, err);
    }
}

sy_status sy__strip_sink_finish(sy__strip_sink *s, sy_error *err) {
    switch (s->format) {
    case SY_STILL_JPEG: return sy__jpeg_writer_finish(s->jpeg, err);
    case SY_STILL_HEIC: return sy__still_writer_finish(s->heic, err); /* the map after the base's x265 is gone */
    default: return sy__png_writer_finish(s->png, err);
    }
}

void sy__strip_sink_destroy(sy__strip_sink *s) {
    if (!s) return;
    sy__jpeg_writer_destroy(s->jpeg);
    sy__png_writer_destroy(s->png);
    sy__still_writer_destroy(s->heic);
    sy__jpeg_strip_free(s->ctx, &s->planes);
    sy__free(s->ctx, s->rgb_mem);
    sy__free(s->ctx, s);
}
