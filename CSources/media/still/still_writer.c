/* still_writer.c — RGB rows + metadata -> JPEG, PNG or HEIC through a temp
 * file (see sy_still_internal.h). The one exit path of edits and conversions.
 *
 * JPEG: 16-row strips converted to JFIF YCbCr 4:2:0 (chroma = mean of each
 * 2x2 block, summed in RGB before one conversion) for the raw-data JPEG
 * writer; rows arriving in runs of 16 are converted straight from the
 * caller's memory, shorter runs are staged. PNG: rows go to the streaming
 * PNG writer. HEIC: rows go to sy_heif_writer (which has its own temp file). */
#include <string.h>

#include "base/sy_rgb_to_ycbcr.h"
#include "base/sy_output.h"
#include "jpeg/sy_jpeg_writer.h"
#include "png/sy_png_writer.h"
#include "heif/sy_heif_writer.h"
#include "exif/sy_exif.h"
#include "still/sy_still_internal.h"

#define STRIP SY__JPEG_STRIP_ROWS

struct sy__still_writer {
    sy_context *ctx;
    sy_still_format format;
    uint32_t width, height, rows_in;
    sy__output out;             /* JPEG and PNG */
    sy__jpeg_writer *jpeg;
    sy__png_writer *png;
    sy_heif_writer *heic;
    /* JPEG strip */
    sy__ycbcr_matrix matrix;
    sy__jpeg_strip strip;
    uint8_t *stage;                /* 16 RGB rows for runs shorter than a strip */
    uint32_t staged;
    const sy__still_extra *extra;  /* gain-map additions, or NULL */
};

void sy__still_writer_destroy(sy__still_writer *w) {
    if (!w) return;
    sy__jpeg_writer_destroy(w->jpeg);
    sy__png_writer_destroy(w->png);
    sy_heif_writer_destroy(w->heic);
    sy__output_abort(&w->out);
    sy__jpeg_strip_free(w->ctx, &w->strip);
    sy__free(w->ctx, w->stage);
    sy__free(w->ctx, w);
}

/* 1 when md's XMP names its extended XMP (a packet that replaced the source's, e.g. a gain map's, does not). */
static int extension_named(const sy__metadata *md) {
    char guid[33];
    return md && md->xmp_ext && sy__xmp_extended_guid(md->xmp, md->xmp_len, guid) &&
           strcmp(guid, md->xmp_ext_guid) == 0;
}

/* The XMP a PNG or HEIC carries: one packet, the extension joined in (XMP Part 3: only JPEG splits it).
 * *joined (sy__free) when made; else md's own packet. */
static sy_status one_packet(sy_context *ctx, const sy__metadata *md, uint8_t **joined, const uint8_t **xmp,
                            size_t *len, sy_error *err) {
    *joined = NULL, *xmp = md->xmp, *len = md->xmp_len;
    if (!extension_named(md)) return SY_OK;
    sy_status st = sy__xmp_join_extension(ctx, md->xmp, md->xmp_len, md->xmp_ext, md->xmp_ext_len, joined, len, err);
    if (st == SY_OK) *xmp = *joined;
    return st;
}

/* Exif, XMP and ICC as a JPEG holds them. A main packet that fits one APP1 goes as it is, with the extension
 * its source named; a bigger one (a HEIC's or PNG's one packet, an edited main joined to its extension) is
 * split anew (XMP Part 3, exif/xmp_split.c) into a main packet and extended XMP chunks. */
static sy_status jpeg_metadata_wrapped(sy__still_writer *w, const sy__metadata *md, sy_error *err) {
    sy_status st;
    if (!md->xmp || md->xmp_len <= SY__JPEG_XMP_MAX) {
        st = sy__jpeg_writer_write_metadata(w->jpeg, md->exif, md->exif_len, md->xmp, md->xmp_len, md->icc,
                                            md->icc_len, err);
        if (st == SY_OK && extension_named(md))
            st = sy__jpeg_writer_write_xmp_extension(w->jpeg, md->xmp_ext_guid, md->xmp_ext, md->xmp_ext_len, err);
        return st;
    }
    uint8_t *joined = NULL;
    const uint8_t *xmp = NULL;
    size_t len = 0;
    sy__xmp_split split = {0};
    st = one_packet(w->ctx, md, &joined, &xmp, &len, err);
    if (st == SY_OK) st = sy__xmp_split_for_jpeg(w->ctx, xmp, len, SY__JPEG_XMP_MAX, &split, err);
    if (st == SY_OK)
        st = sy__jpeg_writer_write_metadata(w->jpeg, md->exif, md->exif_len, split.main, split.main_len, md->icc,
                                            md->icc_len, err);
    if (st == SY_OK) st = sy__jpeg_writer_write_xmp_extension(w->jpeg, split.guid, split.ext, split.ext_len, err);
    sy__xmp_split_free(w->ctx, &split);
    sy__free(w->ctx, joined);
    return st;
}

/* The main packet in its xpacket wrapper (exif/xmp_wrapper.c) before the size is judged: the wrapper's
 * bytes count against the APP1 too. */
static sy_status jpeg_metadata(sy__still_writer *w, const sy__metadata *md, sy_error *err) {
    uint8_t *wrapped = NULL;
    size_t wrapped_len = 0;
    sy_status st = sy__xmp_wrapped(w->ctx, md->xmp, md->xmp_len, &wrapped, &wrapped_len, err);
    if (st != SY_OK) return st;
    sy__metadata view = *md; /* md's blocks, the main packet swapped; md keeps ownership */
    if (wrapped) view.xmp = wrapped, view.xmp_len = wrapped_len;
    st = jpeg_metadata_wrapped(w, &view, err);
    sy__free(w->ctx, wrapped);
    return st;
}

static sy_status open_jpeg(sy__still_writer *w, const char *path, int quality, const sy__metadata *md,
                           sy_error *err) {
    sy__ycbcr_matrix_init(&w->matrix, 6, 1); /* BT.601 full range = JFIF */
    sy_status st = sy__jpeg_strip_init(w->ctx, w->width, "jpeg strip", &w->strip, err);
    if (st != SY_OK) return st;
    w->stage = sy__alloc(w->ctx, (size_t)w->width * 3, STRIP, "jpeg stage rows", err);
    if (!w->stage) return err ? err->code : SY_E_BUDGET;
    st = sy__jpeg_writer_create(w->ctx, w->out.file, path, w->width, w->height, quality, &w->jpeg, err);
    if (st == SY_OK && md) st = jpeg_metadata(w, md, err);
    if (st == SY_OK && md && md->iptc) /* APP13, after Exif and XMP, as cameras and Photoshop put it */
        st = sy__jpeg_writer_write_marker(w->jpeg, 0xED, md->iptc, md->iptc_len, err);
    if (st == SY_OK && w->extra && w->extra->jpeg_app2_first)
        st = sy__jpeg_writer_write_marker(w->jpeg, 0xE2, w->extra->jpeg_app2_first, w->extra->jpeg_app2_first_len, err);
    if (st == SY_OK && w->extra && w->extra->jpeg_app2)
        st = sy__jpeg_writer_write_marker(w->jpeg, 0xE2, w->extra->jpeg_app2, w->extra->jpeg_app2_len, err);
    return st;
}

static sy_status open_heic(sy__still_writer *w, const char *path, int quality, const char *preset,
                           const sy__metadata *md, sy_error *err) {
    sy_heif_writer_options o;
    sy_heif_writer_options_init(&o);
    o.width = w->width;
    o.height = w->height;
    o.quality = quality;
    o.x265_preset = preset;
    if (w->extra && w->extra->heic_one_encoder) o.encoders = 1;
    sy_status st = sy_heif_writer_create(w->ctx, path, &o, &w->heic, err);
    if (st == SY_OK && md && md->exif) st = sy_heif_writer_set_exif(w->heic, md->exif, md->exif_len, err);
    if (st == SY_OK && md && md->xmp) {
        uint8_t *joined = NULL;
        const uint8_t *xmp = NULL;
        size_t len = 0;
        st = one_packet(w->ctx, md, &joined, &xmp, &len, err);
        if (st == SY_OK) st = sy_heif_writer_set_xmp(w->heic, xmp, len, err); /* copied */
        sy__free(w->ctx, joined);
    }
    if (st == SY_OK && md && md->icc) st = sy_heif_writer_set_icc(w->heic, md->icc, md->icc_len, err);
    return st;
}

sy_status sy__still_writer_open(sy_context *ctx, const char *path, sy_still_format format, int quality,
                                const char *heic_preset, uint32_t width, uint32_t height, const sy__metadata *md,
                                sy__still_writer **out, sy_error *err) {
    return sy__still_writer_open_extra(ctx, path, format, quality, heic_preset, width, height, md, NULL, out, err);
}

sy_status sy__still_writer_open_extra(sy_context *ctx, const char *path, sy_still_format format, int quality,
                                      const char *heic_preset, uint32_t width, uint32_t height,
                                      const sy__metadata *md, const sy__still_extra *extra, sy__still_writer **out,
                                      sy_error *err) {
    *out = NULL;
    if (width == 0 || height == 0) return sy__fail(err, SY_E_USAGE, "%s: empty image %ux%u", path, width, height);
    if (quality < 1 || quality > 100) return sy__fail(err, SY_E_USAGE, "%s: quality %d is outside 1..100", path, quality);
    sy__still_writer *w = sy__calloc(ctx, 1, sizeof *w, "still writer", err);
    if (!w) return err ? err->code : SY_E_BUDGET;
    w->ctx = ctx;
    w->format = format;
    w->extra = extra;
    w->width = width;
    w->height = height;
    sy_status st;
    switch (format) {
    case SY_STILL_JPEG:
        st = sy__output_open(ctx, path, &w->out, err);
        if (st == SY_OK) st = open_jpeg(w, path, quality, md, err);
        break;
    case SY_STILL_PNG:
        st = sy__output_open(ctx, path, &w->out, err);
        if (st == SY_OK) st = sy__png_writer_create(ctx, w->out.file, path, width, height, 6, &w->png, err);
        if (st == SY_OK && md) {
            uint8_t *joined = NULL;
            const uint8_t *xmp = NULL;
            size_t len = 0;
            st = one_packet(ctx, md, &joined, &xmp, &len, err);
            if (st == SY_OK)
                st = sy__png_writer_write_metadata(w->png, md->exif, md->exif_len, xmp, len, md->icc, md->icc_len, err);
            sy__free(ctx, joined);
        }
        break;
    case SY_STILL_HEIC: st = open_heic(w, path, quality, heic_preset, md, err); break;
    default: st = sy__fail(err, SY_E_USAGE, "%s: unknown still format %d", path, (int)format); break;
    }
    if (st != SY_OK) {
        sy__still_writer_destroy(w);
        return st;
    }
    *out = w;
    return SY_OK;
}

/* One strip of `rows` (1..16) RGB rows starting at `rgb`. */
static sy_status jpeg_strip(sy__still_writer *w, const uint8_t *rgb, size_t stride, uint32_t rows, sy_error *err) {
    for (uint32_t r = 0; r < rows; r += 2) {
        const uint8_t *a = rgb + (size_t)r * stride, *b = r + 1 < rows ? a + stride : a;
        uint8_t *(*planes)[SY__JPEG_STRIP_ROWS] = w->strip.rows;
        sy__rgb_to_luma_row(&w->matrix, a, w->width, planes[0][r]);
        if (r + 1 < rows) sy__rgb_to_luma_row(&w->matrix, b, w->width, planes[0][r + 1]);
        sy__rgb_to_chroma420_row(&w->matrix, a, b, w->width, planes[1][r / 2], planes[2][r / 2]);
    }
    return sy__jpeg_writer_write_padded(w->jpeg, &w->strip, rows, err);
}

static sy_status jpeg_write(sy__still_writer *w, const uint8_t *rgb, size_t stride, uint32_t count, sy_error *err) {
    sy_status st = SY_OK;
    const size_t row_bytes = (size_t)w->width * 3;
    while (count > 0 && st == SY_OK) {
        uint32_t strip = SY__MIN(STRIP, w->height - (w->rows_in - w->staged)); /* rows of the strip being filled */
        if (w->staged == 0 && count >= strip) { /* a whole strip in the caller's memory */
            st = jpeg_strip(w, rgb, stride, strip, err);
            rgb += (size_t)strip * stride, count -= strip, w->rows_in += strip;
            continue;
        }
        uint32_t take = SY__MIN(count, strip - w->staged);
        for (uint32_t i = 0; i < take; i++)
            memcpy(w->stage + (size_t)(w->staged + i) * row_bytes, rgb + (size_t)i * stride, row_bytes);
        w->staged += take, w->rows_in += take;
        rgb += (size_t)take * stride, count -= take;
        if (w->staged == strip) {
            st = jpeg_strip(w, w->stage, row_bytes, strip, err);
            w->staged = 0;
        }
    }
    return st;
}

sy_status sy__still_writer_write(sy__still_writer *w, const uint8_t *rgb, size_t stride, uint32_t count,
                                 sy_error *err) {
    if (count > w->height - w->rows_in)
        return sy__fail(err, SY_E_USAGE, "still writer: %u rows past the %u of the image", count, w->height);
    if (w->format == SY_STILL_JPEG) return jpeg_write(w, rgb, stride, count, err);
    sy_status st = SY_OK;
    while (count > 0 && st == SY_OK) {
        const uint8_t *rows[STRIP];
        uint32_t n = SY__MIN(count, STRIP);
        for (uint32_t i = 0; i < n; i++) rows[i] = rgb + (size_t)i * stride;
        st = w->png ? sy__png_writer_write_rows(w->png, rows, n, err) : sy_heif_writer_write_rows(w->heic, rows, n, err);
        rgb += (size_t)n * stride, count -= n, w->rows_in += n;
    }
    return st;
}

sy_status sy__still_writer_add_thumbnail(sy__still_writer *w, const uint8_t *rgb, size_t stride, uint32_t width,
                                         uint32_t height, sy_error *err) {
    if (w->format != SY_STILL_HEIC) return sy__fail(err, SY_E_USAGE, "still writer: only a HEIC holds a thumbnail");
    const uint8_t **rows = sy__alloc(w->ctx, height ? height : 1, sizeof *rows, "thumbnail rows", err);
    if (!rows) return err ? err->code : SY_E_BUDGET;
    for (uint32_t y = 0; y < height; y++) rows[y] = rgb + (size_t)y * stride;
    sy_status st = sy_heif_writer_add_thumbnail(w->heic, width, height, rows, err);
    sy__free(w->ctx, (void *)rows);
    return st;
}

sy_status sy__still_writer_finish(sy__still_writer *w, sy_error *err) {
    if (w->rows_in != w->height)
        return sy__fail(err, SY_E_USAGE, "still writer: %u of %u rows written", w->rows_in, w->height);
    sy_status st;
    switch (w->format) {
    case SY_STILL_JPEG: st = sy__jpeg_writer_finish(w->jpeg, err); break;
    case SY_STILL_PNG: st = sy__png_writer_finish(w->png, err); break;
    default:
        st = w->extra && w->extra->heic_finish ? w->extra->heic_finish(w->extra->user, w->heic, err) : SY_OK;
        return st == SY_OK ? sy_heif_writer_finish(w->heic, err) : st;
    }
    if (st == SY_OK && w->format == SY_STILL_JPEG && w->extra && w->extra->jpeg_finish)
        st = w->extra->jpeg_finish(w->extra->user, w->out.file, err);
    if (st == SY_OK) st = sy__output_commit(&w->out, err);
    return st;
}
