/* jpeg_writer.c — see sy_jpeg_writer.h. */
#include <string.h>

#include "base/sy_output.h"
#include "jpeg/sy_jpeg_error.h"
#include "jpeg/sy_jpeg_writer.h"
#include "jpeg/sy_jpeg_xmp_extension.h"

struct sy__jpeg_writer {
    sy_context *ctx;
    struct jpeg_compress_struct cinfo;
    sy__jpeg_error jerr;
    int started;
    char path[200];
};

uint32_t sy__jpeg_luma_stride(uint32_t width) { return (width + 15) & ~15u; }
uint32_t sy__jpeg_chroma_stride(uint32_t width) { return sy__jpeg_luma_stride(width) / 2; }

/* libjpeg longjmp'd out of `what`: a failed write of the file (SY_E_IO
 * naming the output and errno's reason, as every other writer says it) or
 * the encoder's own complaint. */
static sy_status encoder_failed(sy__jpeg_writer *w, const char *what, sy_error *err) {
    int e = w->jerr.write_errno;
    if (e) return sy__fail_sub(err, SY_E_IO, e, "%.*s: write failed: %s", sy__output_display_len(w->path), w->path, strerror(e));
    if (w->started && w->cinfo.next_scanline < w->cinfo.image_height && !strcmp(what, "JPEG encoder"))
        return sy__fail(err, SY_E_CODEC, "%s: JPEG encoder at row %u: %s", w->path, w->cinfo.next_scanline, w->jerr.message);
    return sy__fail(err, SY_E_CODEC, "%s: %s: %s", w->path, what, w->jerr.message);
}

/* libjpeg failed while a writer was being created. */
static sy_status create_failed(sy__jpeg_writer *w, sy_error *err) {
    encoder_failed(w, "JPEG encoder", err);
    sy__jpeg_writer_destroy(w);
    return SY_E_CODEC;
}

/* A compressor on `file` with libjpeg's defaults for `space` input (3
 * components), ready for the caller's settings and jpeg_start_compress. */
static sy_status writer_new(sy_context *ctx, FILE *file, const char *path, uint32_t width, uint32_t height,
                            J_COLOR_SPACE space, sy__jpeg_writer **out, sy_error *err) {
    *out = NULL;
    if (width == 0 || height == 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION)
        return sy__fail(err, SY_E_BUDGET, "%s: JPEG cannot be %ux%u (libjpeg limit %ld px per side)", path, width,
                        height, (long)JPEG_MAX_DIMENSION);
    sy__jpeg_writer *w = sy__calloc(ctx, 1, sizeof *w, "jpeg writer", err);
    if (!w) return err ? err->code : SY_E_BUDGET;
    w->ctx = ctx;
    snprintf(w->path, sizeof w->path, "%s", path);
    w->cinfo.err = sy__jpeg_error_init(&w->jerr);
    jpeg_create_compress(&w->cinfo);
    if (setjmp(w->jerr.jump)) return create_failed(w, err);
    jpeg_stdio_dest(&w->cinfo, file);
    w->cinfo.image_width = width;
    w->cinfo.image_height = height;
    w->cinfo.input_components = 3;
    w->cinfo.in_color_space = space;
    jpeg_set_defaults(&w->cinfo); /* YCbCr 4:2:0, ISLOW DCT, standard Huffman tables */
    *out = w;
    return SY_OK;
}

static int clamp_quality(int q) { return q < 1 ? 1 : q > 100 ? 100 : q; }

sy_status sy__jpeg_writer_create(sy_context *ctx, FILE *file, const char *path, uint32_t width, uint32_t height,
                                 int quality, sy__jpeg_writer **out, sy_error *err) {
    sy__jpeg_writer *w = NULL;
    sy_status st = writer_new(ctx, file, path, width, height, JCS_YCbCr, &w, err);
    if (st != SY_OK) return st;
    if (setjmp(w->jerr.jump)) return create_failed(w, err); /* the frame libjpeg jumps back to */
    jpeg_set_quality(&w->cinfo, clamp_quality(quality), TRUE);
    /* Baseline, standard tables: optimize_coding or progression would make
     * libjpeg keep every coefficient of the image in memory. */
    w->cinfo.optimize_coding = FALSE;
    w->cinfo.raw_data_in = TRUE;
    w->cinfo.comp_info[0].h_samp_factor = w->cinfo.comp_info[0].v_samp_factor = 2;
    for (int c = 1; c < 3; c++) w->cinfo.comp_info[c].h_samp_factor = w->cinfo.comp_info[c].v_samp_factor = 1;
    w->cinfo.dct_method = JDCT_ISLOW;
    jpeg_start_compress(&w->cinfo, TRUE);
    w->started = 1;
    *out = w;
    return SY_OK;
}

sy_status sy__jpeg_writer_create_rgb(sy_context *ctx, FILE *file, const char *path, uint32_t width, uint32_t height,
                                     const sy__jpeg_rgb_options *opts, sy__jpeg_writer **out, sy_error *err) {
    sy__jpeg_writer *w = NULL;
    sy_status st = writer_new(ctx, file, path, width, height, JCS_RGB, &w, err);
    if (st != SY_OK) return st;
    if (setjmp(w->jerr.jump)) return create_failed(w, err); /* the frame libjpeg jumps back to */
    jpeg_set_quality(&w->cinfo, clamp_quality(opts->quality), TRUE);
    w->cinfo.optimize_coding = FALSE;
    if (opts->dpi) {
        w->cinfo.density_unit = 1;
        w->cinfo.X_density = w->cinfo.Y_density = opts->dpi;
    }
    if (opts->progressive) jpeg_simple_progression(&w->cinfo);
    jpeg_start_compress(&w->cinfo, TRUE);
    w->started = 1;
    *out = w;
    return SY_OK;
}

sy_status sy__jpeg_writer_write_rgb_rows(sy__jpeg_writer *w, const uint8_t *const *rows, uint32_t count, sy_error *err) {
    if (setjmp(w->jerr.jump)) return encoder_failed(w, "JPEG encoder", err);
    if (w->cinfo.raw_data_in || count > w->cinfo.image_height - w->cinfo.next_scanline)
        return sy__fail(err, SY_E_USAGE, "%s: %u R'G'B' rows do not fit this JPEG writer", w->path, count);
    uint32_t done = 0;
    while (done < count) done += jpeg_write_scanlines(&w->cinfo, (JSAMPARRAY)(rows + done), count - done);
    return SY_OK;
}

sy_status sy__jpeg_writer_write_metadata(sy__jpeg_writer *w, const uint8_t *exif_tiff, size_t exif_len,
                                         const uint8_t *xmp, size_t xmp_len, const uint8_t *icc, size_t icc_len,
                                         sy_error *err) {
    static const char xmp_prefix[] = "http://ns.adobe.com/xap/1.0/"; /* written with its NUL */
    _Static_assert(sizeof xmp_prefix + SY__JPEG_XMP_MAX == 65533, "one APP1 holds the prefix and the packet");
    if (exif_len + 6 > 65533 || xmp_len > SY__JPEG_XMP_MAX)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: Exif (%zu bytes) or XMP (%zu bytes) too large for one APP1",
                        w->path, exif_len, xmp_len);
    if (setjmp(w->jerr.jump)) return encoder_failed(w, "JPEG metadata", err);
    if (exif_tiff && exif_len) {
        jpeg_write_m_header(&w->cinfo, JPEG_APP0 + 1, (unsigned)(exif_len + 6));
        static const uint8_t exif_prefix[6] = {'E', 'x', 'i', 'f', 0, 0};
        for (size_t i = 0; i < sizeof exif_prefix; i++) jpeg_write_m_byte(&w->cinfo, exif_prefix[i]);
        for (size_t i = 0; i < exif_len; i++) jpeg_write_m_byte(&w->cinfo, exif_tiff[i]);
    }
    if (xmp && xmp_len) {
        jpeg_write_m_header(&w->cinfo, JPEG_APP0 + 1, (unsigned)(xmp_len + sizeof xmp_prefix));
        for (size_t i = 0; i < sizeof xmp_prefix; i++) jpeg_write_m_byte(&w->cinfo, (int)xmp_prefix[i]);
        for (size_t i = 0; i < xmp_len; i++) jpeg_write_m_byte(&w->cinfo, xmp[i]);
    }
    if (icc && icc_len) jpeg_write_icc_profile(&w->cinfo, icc, (unsigned)icc_len);
    return SY_OK;
}

sy_status sy__jpeg_writer_write_xmp_extension(sy__jpeg_writer *w, const char guid[33], const uint8_t *data, size_t len,
                                              sy_error *err) {
    static const char sig[] = SY__XMP_EXT_SIGNATURE;
    if (!data || !len) return SY_OK;
    if (len > UINT32_MAX || strlen(guid) != 32)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: extended XMP of %zu bytes cannot be written", w->path, len);
    if (setjmp(w->jerr.jump)) return sy__fail(err, SY_E_CODEC, "%s: extended XMP: %s", w->path, w->jerr.message);
    for (size_t at = 0; at < len; at += SY__XMP_EXT_CHUNK) {
        size_t n = len - at < SY__XMP_EXT_CHUNK ? len - at : SY__XMP_EXT_CHUNK;
        jpeg_write_m_header(&w->cinfo, JPEG_APP0 + 1, (unsigned)(SY__XMP_EXT_HEADER + n));
        for (size_t i = 0; i < sizeof sig; i++) jpeg_write_m_byte(&w->cinfo, (int)sig[i]);
        for (size_t i = 0; i < 32; i++) jpeg_write_m_byte(&w->cinfo, (int)guid[i]);
        const uint32_t words[2] = {(uint32_t)len, (uint32_t)at};
        for (int k = 0; k < 2; k++)
            for (int shift = 24; shift >= 0; shift -= 8) jpeg_write_m_byte(&w->cinfo, (int)(words[k] >> shift & 0xFF));
        for (size_t i = 0; i < n; i++) jpeg_write_m_byte(&w->cinfo, data[at + i]);
    }
    return SY_OK;
}

sy_status sy__jpeg_writer_write_marker(sy__jpeg_writer *w, int marker, const uint8_t *data, size_t len, sy_error *err) {
    if (len > 65533 || marker < 0xE0 || marker > 0xEF)
        return sy__fail(err, SY_E_USAGE, "%s: APP segment 0x%X of %zu bytes", w->path, (unsigned)marker, len);
    if (setjmp(w->jerr.jump)) return encoder_failed(w, "JPEG marker", err);
    jpeg_write_marker(&w->cinfo, marker, data, (unsigned)len);
    return SY_OK;
}

sy_status sy__jpeg_writer_write_strip(sy__jpeg_writer *w, uint8_t *const *y_rows, uint8_t *const *cb_rows,
                                      uint8_t *const *cr_rows, sy_error *err) {
    if (setjmp(w->jerr.jump)) return encoder_failed(w, "JPEG encoder", err);
    JSAMPARRAY planes[3] = {(JSAMPARRAY)y_rows, (JSAMPARRAY)cb_rows, (JSAMPARRAY)cr_rows};
    if (jpeg_write_raw_data(&w->cinfo, planes, SY__JPEG_STRIP_ROWS) != SY__JPEG_STRIP_ROWS)
        return sy__fail(err, SY_E_CODEC, "%s: JPEG encoder refused a strip", w->path);
    return SY_OK;
}

sy_status sy__jpeg_strip_init(sy_context *ctx, uint32_t width, const char *what, sy__jpeg_strip *s, sy_error *err) {
    memset(s, 0, sizeof *s);
    s->width = width;
    s->stride[0] = sy__jpeg_luma_stride(width);
    s->stride[1] = s->stride[2] = sy__jpeg_chroma_stride(width);
    size_t bytes = (size_t)s->stride[0] * SY__JPEG_STRIP_ROWS + 2 * (size_t)s->stride[1] * (SY__JPEG_STRIP_ROWS / 2);
    s->mem = sy__alloc(ctx, bytes, 1, what, err);
    if (!s->mem) return err ? err->code : SY_E_BUDGET;
    uint8_t *p = s->mem;
    for (int r = 0; r < SY__JPEG_STRIP_ROWS; r++, p += s->stride[0]) s->rows[0][r] = p;
    for (int c = 1; c < 3; c++)
        for (int r = 0; r < SY__JPEG_STRIP_ROWS / 2; r++, p += s->stride[c]) s->rows[c][r] = p;
    return SY_OK;
}

void sy__jpeg_strip_free(sy_context *ctx, sy__jpeg_strip *s) {
    if (!s) return;
    sy__free(ctx, s->mem);
    memset(s, 0, sizeof *s);
}

static void pad_strip(sy__jpeg_strip *s, uint32_t rows) {
    const uint32_t w = s->width, cw = (w + 1) / 2, crows = (rows + 1) / 2;
    for (uint32_t r = 0; r < rows; r++) memset(s->rows[0][r] + w, s->rows[0][r][w - 1], s->stride[0] - w);
    for (int c = 1; c < 3; c++)
        for (uint32_t r = 0; r < crows; r++) memset(s->rows[c][r] + cw, s->rows[c][r][cw - 1], s->stride[c] - cw);
    for (uint32_t r = rows; r < SY__JPEG_STRIP_ROWS; r++) memcpy(s->rows[0][r], s->rows[0][rows - 1], s->stride[0]);
    for (int c = 1; c < 3; c++)
        for (uint32_t r = crows; r < SY__JPEG_STRIP_ROWS / 2; r++) memcpy(s->rows[c][r], s->rows[c][crows - 1], s->stride[c]);
}

sy_status sy__jpeg_writer_write_padded(sy__jpeg_writer *w, sy__jpeg_strip *s, uint32_t rows, sy_error *err) {
    pad_strip(s, rows);
    return sy__jpeg_writer_write_strip(w, s->rows[0], s->rows[1], s->rows[2], err);
}

sy_status sy__jpeg_writer_finish(sy__jpeg_writer *w, sy_error *err) {
    if (setjmp(w->jerr.jump)) return encoder_failed(w, "JPEG encoder", err);
    if (w->cinfo.next_scanline < w->cinfo.image_height)
        return sy__fail(err, SY_E_USAGE, "%s: JPEG finished after %u of %u rows", w->path, w->cinfo.next_scanline,
                        w->cinfo.image_height);
    jpeg_finish_compress(&w->cinfo);
    w->started = 0;
    return SY_OK;
}

void sy__jpeg_writer_destroy(sy__jpeg_writer *w) {
    if (!w) return;
    jpeg_destroy_compress(&w->cinfo);
    sy__free(w->ctx, w);
}
