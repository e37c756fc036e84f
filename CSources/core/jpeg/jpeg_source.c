/* jpeg_source.c — JPEG probe and row source (libjpeg scanline API).
 *
 * Decodes at the smallest DCT scale n/8 (n = 1..16) that still covers what the
 * layout needs, so a 12 MP photo drawn 1080 wide costs a 3/8-scale decode.
 * YCbCr files are delivered as YCbCr (no colour conversion: the output encoder
 * takes YCbCr too), greyscale as YCbCr with neutral chroma, Adobe CMYK/YCCK
 * converted to RGB here. */
#include <stdlib.h>
#include <string.h>

#include "base/sy_input.h"
#include "base/sy_internal.h"
#include "jpeg/sy_jpeg_source.h"
#include "exif/sy_exif.h"
#include "jpeg/sy_jpeg_error.h"

/* Hard cap for libjpeg's own pools (progressive coefficient buffers): with
 * libjpeg-turbo's jmemnobs, a larger request fails cleanly instead of allocating. */
#define SY__JPEG_MAX_MEMORY (1024L * 1024L * 1024L)

typedef struct jpeg_source {
    sy__source base;
    sy_context *ctx;
    FILE *file;
    struct jpeg_decompress_struct cinfo;
    sy__jpeg_error jerr;
    int started;
    int cmyk;
    uint8_t *cmyk_row;
    sy__cmyk_convert convert; /* colour-managed CMYK -> R'G'B' (sy__jpeg_source_convert_cmyk) */
    void *convert_user;
    void (*convert_release)(void *);
    size_t charged;
    char path[200];
} jpeg_source;

static uint8_t orientation_from_markers(j_decompress_ptr cinfo) {
    for (jpeg_saved_marker_ptr m = cinfo->marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length > 6 && memcmp(m->data, "Exif\0\0", 6) == 0)
            return sy__exif_orientation(m->data + 6, m->data_length - 6);
    }
    return 1;
}

static sy_status check_header(j_decompress_ptr cinfo, const char *path, sy_error *err) {
    if (cinfo->image_width == 0 || cinfo->image_height == 0)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: JPEG has zero size", path);
    if (cinfo->image_width > SY_MAX_INPUT_DIMENSION || cinfo->image_height > SY_MAX_INPUT_DIMENSION ||
        (uint64_t)cinfo->image_width * cinfo->image_height > SY_MAX_INPUT_PIXELS)
        return sy__fail(err, SY_E_BUDGET, "%s: JPEG %ux%u exceeds the input limit (%llu pixels)", path,
                        cinfo->image_width, cinfo->image_height, (unsigned long long)SY_MAX_INPUT_PIXELS);
    if (cinfo->num_components != 1 && cinfo->num_components != 3 && cinfo->num_components != 4)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: JPEG with %d components", path, cinfo->num_components);
    return SY_OK;
}

sy_status sy__jpeg_probe(sy_context *ctx, FILE *file, const char *path, sy_image_info *out, sy_error *err) {
    (void)ctx;
    struct jpeg_decompress_struct cinfo;
    sy__jpeg_error jerr;
    cinfo.err = sy__jpeg_error_init(&jerr);
    if (setjmp(jerr.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: not a readable JPEG: %s", path, jerr.message);
    }
    jpeg_create_decompress(&cinfo);
    jpeg_stdio_src(&cinfo, file);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    sy_status st = check_header(&cinfo, path, err);
    if (st == SY_OK) {
        memset(out, 0, sizeof *out);
        out->format = SY_FORMAT_JPEG;
        out->stored_width = cinfo.image_width;
        out->stored_height = cinfo.image_height;
        out->orientation = orientation_from_markers(&cinfo);
        int turned = out->orientation >= 5;
        out->width = turned ? cinfo.image_height : cinfo.image_width;
        out->height = turned ? cinfo.image_width : cinfo.image_height;
        out->progressive = jpeg_has_multiple_scans(&cinfo) ? 1 : 0;
        out->bit_depth = 8;
    }
    jpeg_destroy_decompress(&cinfo);
    return st;
}

/* Smallest n in 1..16 with ceil(dim*n/8) >= need on both axes (16 = 2x upscale cap). */
static unsigned pick_scale(uint32_t w, uint32_t h, uint32_t need_w, uint32_t need_h) {
    for (unsigned n = 1; n < 16; n++) {
        uint64_t sw = ((uint64_t)w * n + 7) / 8, sh = ((uint64_t)h * n + 7) / 8;
        if (sw >= need_w && sh >= need_h) return n;
    }
    return 16;
}

/* What libjpeg will hold while decoding: a progressive file keeps every DCT
 * coefficient (2 bytes each, all components); a baseline one a few MCU rows. */
static size_t working_estimate(j_decompress_ptr cinfo) {
    size_t row_bytes = (size_t)cinfo->output_width * 4;
    size_t bytes = row_bytes * (size_t)cinfo->max_v_samp_factor * 16 * 3;
    if (cinfo->buffered_image || jpeg_has_multiple_scans(cinfo)) {
        for (int c = 0; c < cinfo->num_components; c++) {
            jpeg_component_info *comp = &cinfo->comp_info[c];
            size_t bw = ((size_t)cinfo->image_width * comp->h_samp_factor + cinfo->max_h_samp_factor * 8 - 1) /
                        ((size_t)cinfo->max_h_samp_factor * 8);
            size_t bh = ((size_t)cinfo->image_height * comp->v_samp_factor + cinfo->max_v_samp_factor * 8 - 1) /
                        ((size_t)cinfo->max_v_samp_factor * 8);
            bytes += (bw + comp->h_samp_factor) * (bh + comp->v_samp_factor) * 64 * sizeof(JCOEF);
        }
    }
    return bytes;
}

static void cmyk_to_rgb(const uint8_t *in, uint8_t *out, uint32_t width, int inverted) {
    for (uint32_t x = 0; x < width; x++) {
        unsigned c = in[4 * x], m = in[4 * x + 1], y = in[4 * x + 2], k = in[4 * x + 3];
        if (!inverted) c = 255 - c, m = 255 - m, y = 255 - y, k = 255 - k;
        out[3 * x] = (uint8_t)((c * k + 127) / 255);
        out[3 * x + 1] = (uint8_t)((m * k + 127) / 255);
        out[3 * x + 2] = (uint8_t)((y * k + 127) / 255);
    }
}

static sy_status truncation_check(jpeg_source *s, sy_error *err) {
    if (s->jerr.truncated)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: JPEG truncated at row %u of %u", s->path,
                        s->cinfo.output_scanline, s->cinfo.output_height);
    return SY_OK;
}

static sy_status jpeg_read_rows(sy__source *self, uint8_t *const *rows, uint32_t count, sy_error *err) {
    jpeg_source *s = (jpeg_source *)self;
    if (setjmp(s->jerr.jump))
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: JPEG decode failed at row %u: %s", s->path,
                        s->cinfo.output_scanline, s->jerr.message);
    for (uint32_t i = 0; i < count;) {
        if (s->cinfo.output_scanline >= s->cinfo.output_height)
            return sy__fail(err, SY_E_USAGE, "%s: read past the last row", s->path);
        JSAMPROW row = s->cmyk ? s->cmyk_row : rows[i];
        if (jpeg_read_scanlines(&s->cinfo, &row, 1) != 1) continue;
        if (s->cmyk && s->convert) s->convert(s->convert_user, s->cmyk_row, rows[i], s->cinfo.output_width);
        else if (s->cmyk) cmyk_to_rgb(s->cmyk_row, rows[i], s->cinfo.output_width, s->cinfo.saw_Adobe_marker);
        else if (s->cinfo.out_color_space == JCS_GRAYSCALE) {
            /* expand Y in place to Y,128,128 (back to front) */
            uint8_t *r = rows[i];
            for (uint32_t x = s->cinfo.output_width; x-- > 0;) {
                r[3 * x] = r[x];
                r[3 * x + 1] = r[3 * x + 2] = 128;
            }
        }
        i++;
    }
    return truncation_check(s, err);
}

static sy_status jpeg_skip_rows(sy__source *self, uint32_t count, sy_error *err) {
    jpeg_source *s = (jpeg_source *)self;
    if (setjmp(s->jerr.jump))
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: JPEG decode failed at row %u: %s", s->path,
                        s->cinfo.output_scanline, s->jerr.message);
    while (count > 0) {
        JDIMENSION skipped = jpeg_skip_scanlines(&s->cinfo, count);
        if (skipped == 0) return sy__fail(err, SY_E_INVALID_INPUT, "%s: cannot skip rows", s->path);
        count -= skipped;
    }
    return truncation_check(s, err);
}

static void jpeg_close(sy__source *self) {
    jpeg_source *s = (jpeg_source *)self;
    if (!s) return;
    sy_context *ctx = s->ctx;
    jpeg_destroy_decompress(&s->cinfo);
    if (s->file) fclose(s->file);
    sy__discharge(ctx, s->charged);
    sy__free(ctx, s->cmyk_row);
    if (s->convert_release) s->convert_release(s->convert_user);
    sy__free(ctx, s);
}

int sy__jpeg_source_cmyk(const sy__source *src, int *inverted) {
    const jpeg_source *s = (const jpeg_source *)src;
    if (inverted) *inverted = s && s->cmyk && s->cinfo.saw_Adobe_marker;
    return s && s->cmyk;
}

void sy__jpeg_source_convert_cmyk(sy__source *src, sy__cmyk_convert convert, void *user, void (*release)(void *)) {
    jpeg_source *s = (jpeg_source *)src;
    s->convert = convert;
    s->convert_user = user;
    s->convert_release = release;
}

/* rgb: deliver YCbCr files as R'G'B' through libjpeg's own (SIMD) colour conversion. */
static sy_status open_source(sy_context *ctx, const char *path, uint32_t min_width, uint32_t min_height, int rgb,
                             sy__source **out, sy_error *err) {
    *out = NULL;
    jpeg_source *s = sy__calloc(ctx, 1, sizeof *s, "jpeg source", err);
    if (!s) return err ? err->code : SY_E_BUDGET;
    s->ctx = ctx;
    snprintf(s->path, sizeof s->path, "%s", path);
    s->base.read_rows = jpeg_read_rows;
    s->base.skip_rows = jpeg_skip_rows;
    s->base.close = jpeg_close;
    s->cinfo.err = sy__jpeg_error_init(&s->jerr);
    jpeg_create_decompress(&s->cinfo);
    sy_status opened = sy__input_open(path, &s->file, err);
    if (opened != SY_OK) {
        jpeg_close(&s->base);
        return opened;
    }
    sy_status st = SY_OK;
    if (setjmp(s->jerr.jump)) {
        sy__fail(err, SY_E_INVALID_INPUT, "%s: not a readable JPEG: %s", path, s->jerr.message);
        jpeg_close(&s->base);
        return SY_E_INVALID_INPUT;
    }
    jpeg_stdio_src(&s->cinfo, s->file);
    jpeg_save_markers(&s->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&s->cinfo, TRUE);
    if ((st = check_header(&s->cinfo, path, err)) != SY_OK) {
        jpeg_close(&s->base);
        return st;
    }
    s->base.orientation = orientation_from_markers(&s->cinfo);
    s->cinfo.mem->max_memory_to_use = SY__JPEG_MAX_MEMORY;
    unsigned n = pick_scale(s->cinfo.image_width, s->cinfo.image_height, min_width, min_height);
    s->cinfo.scale_num = n;
    s->cinfo.scale_denom = 8;
    switch (s->cinfo.jpeg_color_space) {
    case JCS_YCbCr:
        s->cinfo.out_color_space = rgb ? JCS_RGB : JCS_YCbCr;
        s->base.pixels = rgb ? SY__PIX_RGB : SY__PIX_YCC;
        break;
    case JCS_GRAYSCALE: s->cinfo.out_color_space = JCS_GRAYSCALE; s->base.pixels = SY__PIX_YCC; break;
    case JCS_CMYK:
    case JCS_YCCK: s->cinfo.out_color_space = JCS_CMYK; s->cmyk = 1; s->base.pixels = SY__PIX_RGB; break;
    default: s->cinfo.out_color_space = JCS_RGB; s->base.pixels = SY__PIX_RGB; break;
    }
    jpeg_calc_output_dimensions(&s->cinfo);
    s->base.width = s->cinfo.output_width;
    s->base.height = s->cinfo.output_height;
    size_t working = working_estimate(&s->cinfo);
    if ((st = sy__charge(ctx, working, path, err)) != SY_OK) {
        jpeg_close(&s->base);
        return st;
    }
    s->charged = working;
    s->base.working_bytes = working;
    if (s->cmyk) {
        s->cmyk_row = sy__alloc(ctx, s->cinfo.output_width, 4, "cmyk row", err);
        if (!s->cmyk_row) {
            jpeg_close(&s->base);
            return err ? err->code : SY_E_BUDGET;
        }
    }
    jpeg_start_decompress(&s->cinfo);
    s->started = 1;
    *out = &s->base;
    return SY_OK;
}

sy_status sy__jpeg_source_open(sy_context *ctx, const char *path, uint32_t min_width, uint32_t min_height,
                               sy__source **out, sy_error *err) {
    return open_source(ctx, path, min_width, min_height, 0, out, err);
}

sy_status sy__jpeg_source_open_rgb(sy_context *ctx, const char *path, uint32_t min_width, uint32_t min_height,
                                   sy__source **out, sy_error *err) {
    return open_source(ctx, path, min_width, min_height, 1, out, err);
}
