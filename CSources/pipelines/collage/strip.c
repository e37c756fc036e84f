/* strip.c — see sy_strip.h. */
#include <string.h>

#include "base/sy_internal.h"
#include "jpeg/sy_jpeg_writer.h"
#include "base/sy_color.h"
#include "still/sy_metadata.h"
#include "png/sy_png_writer.h"
#include <zlib.h>
#include "collage/sy_strip.h"

struct sy__strip_sink {
    sy_context *ctx;
    sy_output_format format;
    uint32_t width, height, y0;
    sy__jpeg_writer *jpeg;
    sy__png_writer *png;
    uint8_t *mem;
    uint8_t *rows[3][SY__STRIP_ROWS]; /* JPEG: Y (16), Cb (8), Cr (8); PNG: RGB rows in rows[0] */
    uint32_t stride[3];
    uint8_t background_rgb[3], background_ycc[3];
};

sy_status sy__strip_sink_create(sy_context *ctx, FILE *file, const char *path, const sy_collage_options *opts,
                                uint32_t width, uint32_t height, sy__strip_sink **out, sy_error *err) {
    *out = NULL;
    sy__strip_sink *s = sy__calloc(ctx, 1, sizeof *s, "strip sink", err);
    if (!s) return err ? err->code : SY_E_BUDGET;
    s->ctx = ctx;
    s->format = opts->format;
    s->width = width;
    s->height = height;
    memcpy(s->background_rgb, opts->background, 3);
    sy__rgb_to_ycc(s->background_rgb, s->background_ycc);
    size_t bytes;
    sy_status st;
    if (s->format == SY_OUTPUT_JPEG) {
        s->stride[0] = sy__jpeg_luma_stride(width);
        s->stride[1] = s->stride[2] = sy__jpeg_chroma_stride(width);
        bytes = (size_t)s->stride[0] * SY__STRIP_ROWS + 2 * (size_t)s->stride[1] * (SY__STRIP_ROWS / 2);
    } else {
        s->stride[0] = width * 3;
        bytes = (size_t)s->stride[0] * SY__STRIP_ROWS;
    }
    s->mem = sy__alloc(ctx, bytes, 1, "strip buffer", err);
    if (!s->mem) {
        sy__strip_sink_destroy(s);
        return err ? err->code : SY_E_BUDGET;
    }
    uint8_t *p = s->mem;
    for (int r = 0; r < SY__STRIP_ROWS; r++, p += s->stride[0]) s->rows[0][r] = p;
    if (s->format == SY_OUTPUT_JPEG) {
        for (int c = 1; c < 3; c++)
            for (int r = 0; r < SY__STRIP_ROWS / 2; r++, p += s->stride[c]) s->rows[c][r] = p;
        st = sy__jpeg_writer_create(ctx, file, path, width, height, opts->quality, &s->jpeg, err);
    } else {
        st = sy__png_writer_create(ctx, file, path, width, height, opts->png_compression, &s->png, err);
    }
    if (st != SY_OK) {
        sy__strip_sink_destroy(s);
        return st;
    }
    *out = s;
    return SY_OK;
}

void sy__strip_begin(sy__strip_sink *s, uint32_t y0) {
    s->y0 = y0;
    if (s->format == SY_OUTPUT_JPEG) {
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
        if (s->format == SY_OUTPUT_JPEG && cell->chroma_shift == 0) {
            put_full_row_jpeg(s, cell, rect, cy, sr, w);
        } else if (s->format == SY_OUTPUT_JPEG) {
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

/* JPEG pads partial MCUs: repeat the last real column and row. */
static void pad_jpeg_strip(sy__strip_sink *s, uint32_t rows) {
    uint32_t cw = (s->width + 1) / 2;
    for (uint32_t r = 0; r < rows; r++) {
        memset(s->rows[0][r] + s->width, s->rows[0][r][s->width - 1], s->stride[0] - s->width);
        if (r % 2 == 0)
            for (int c = 1; c < 3; c++)
                memset(s->rows[c][r / 2] + cw, s->rows[c][r / 2][cw - 1], s->stride[c] - cw);
    }
    for (uint32_t r = rows; r < SY__STRIP_ROWS; r++) memcpy(s->rows[0][r], s->rows[0][rows - 1], s->stride[0]);
    uint32_t crows = (rows + 1) / 2;
    for (int c = 1; c < 3; c++)
        for (uint32_t r = crows; r < SY__STRIP_ROWS / 2; r++) memcpy(s->rows[c][r], s->rows[c][crows - 1], s->stride[c]);
}

sy_status sy__strip_flush(sy__strip_sink *s, sy_error *err) {
    uint32_t rows = s->height - s->y0 < SY__STRIP_ROWS ? s->height - s->y0 : SY__STRIP_ROWS;
    if (s->format == SY_OUTPUT_JPEG) {
        pad_jpeg_strip(s, rows);
        return sy__jpeg_writer_write_strip(s->jpeg, s->rows[0], s->rows[1], s->rows[2], err);
    }
    return sy__png_writer_write_rows(s->png, (const uint8_t *const *)s->rows[0], rows, err);
}

sy_status sy__strip_sink_finish(sy__strip_sink *s, sy_error *err) {
    return s->format == SY_OUTPUT_JPEG ? sy__jpeg_writer_finish(s->jpeg, err) : sy__png_writer_finish(s->png, err);
}

void sy__strip_sink_destroy(sy__strip_sink *s) {
    if (!s) return;
    sy__jpeg_writer_destroy(s->jpeg);
    sy__png_writer_destroy(s->png);
    sy__free(s->ctx, s->mem);
    sy__free(s->ctx, s);
}

/* PNG: eXIf (TIFF as is), iCCP (zlib-compressed profile), iTXt XML:com.adobe.xmp. */
sy_status sy__png_writer_add_metadata(sy_context *ctx, sy__png_writer *png, const struct sy__metadata *md,
                                      sy_error *err) {
    sy_status st = SY_OK;
    if (md->exif && md->exif_len < 0x7FFFFFFF) st = sy__png_writer_add_chunk(png, "eXIf", md->exif, (uint32_t)md->exif_len, err);
    if (st == SY_OK && md->icc && md->icc_len) {
        static const char name[] = "ICC Profile"; /* + NUL + compression method 0 */
        uLong bound = compressBound((uLong)md->icc_len);
        size_t head = sizeof name + 1;
        uint8_t *chunk = sy__alloc(ctx, head + bound, 1, "iCCP", err);
        if (!chunk) return err ? err->code : SY_E_BUDGET;
        memcpy(chunk, name, sizeof name);
        chunk[sizeof name] = 0;
        uLongf packed = bound;
        if (compress2(chunk + head, &packed, md->icc, (uLong)md->icc_len, 9) == Z_OK)
            st = sy__png_writer_add_chunk(png, "iCCP", chunk, (uint32_t)(head + packed), err);
        sy__free(ctx, chunk);
    }
    if (st == SY_OK && md->xmp && md->xmp_len) {
        static const char keyword[] = "XML:com.adobe.xmp"; /* + NUL, flag 0, method 0, "" lang, "" translated */
        size_t head = sizeof keyword + 4;
        uint8_t *chunk = sy__alloc(ctx, head + md->xmp_len, 1, "iTXt", err);
        if (!chunk) return err ? err->code : SY_E_BUDGET;
        memcpy(chunk, keyword, sizeof keyword);
        memset(chunk + sizeof keyword, 0, 4);
        memcpy(chunk + head, md->xmp, md->xmp_len);
        st = sy__png_writer_add_chunk(png, "iTXt", chunk, (uint32_t)(head + md->xmp_len), err);
        sy__free(ctx, chunk);
    }
    return st;
}

sy_status sy__strip_sink_write_metadata(sy__strip_sink *s, const struct sy__metadata *md, sy_error *err) {
    if (s->format == SY_OUTPUT_JPEG)
        return sy__jpeg_writer_write_metadata(s->jpeg, md->exif, md->exif_len, md->xmp, md->xmp_len, md->icc,
                                              md->icc_len, err);
    return sy__png_writer_add_metadata(s->ctx, s->png, md, err);
}
