/* image_probe.c — header probes and row-source dispatch over the codecs. */
#include <string.h>

#include "base/sy_icc.h"
#include "base/sy_input.h"
#include "color/sy_color_transform.h"
#include "jpeg/sy_jpeg_metadata.h"
#include "jpeg/sy_jpeg_complete.h"
#include "jpeg/sy_jpeg_source.h"
#include "png/sy_png_source.h"
#include "heif/sy_heif_source.h"
#include "still/sy_still_internal.h"

sy_status sy_image_probe(sy_context *ctx, const char *path, sy_image_info *out, sy_error *err) {
    if (!ctx || !path || !out) return sy__fail(err, SY_E_USAGE, "sy_image_probe: NULL argument");
    FILE *file = NULL;
    sy_status opened = sy__input_open(path, &file, err);
    if (opened != SY_OK) return opened;
    uint8_t head[64];
    size_t got = fread(head, 1, sizeof head, file);
    sy_status st;
    sy_image_format format = sy_image_sniff(head, got);
    rewind(file);
    switch (format) {
    case SY_FORMAT_JPEG: st = sy__jpeg_probe(ctx, file, path, out, err); break;
    case SY_FORMAT_PNG: st = sy__png_probe(ctx, file, path, out, err); break;
    case SY_FORMAT_HEIF: st = sy__heif_probe(ctx, path, out, err); break;
    default:
        if (got == 0) st = sy__fail(err, SY_E_INVALID_INPUT, "%s: empty file", path);
        else if (got >= 12 && memcmp(head + 4, "ftyp", 4) == 0)
            st = sy__fail(err, SY_E_UNSUPPORTED, "%s: ISO-BMFF file of brand '%.4s' is not a still image we read", path,
                          (const char *)head + 8);
        else st = sy__fail(err, SY_E_INVALID_INPUT, "%s: not a JPEG, PNG or HEIF image", path);
    }
    fclose(file);
    return st;
}

sy_status sy_image_probe_whole(sy_context *ctx, const char *path, sy_image_info *out, sy_error *err) {
    sy_status st = sy_image_probe(ctx, path, out, err);
    if (st != SY_OK) return st;
    if (out->format == SY_FORMAT_HEIF) return sy__heif_complete(ctx, path, err);
    if (out->format != SY_FORMAT_JPEG) return SY_OK; /* PNG: libpng reports a short file where it decodes */
    FILE *file = NULL;
    if ((st = sy__input_open(path, &file, err)) != SY_OK) return st;
    st = sy__jpeg_complete(file, path, err);
    fclose(file);
    return st;
}

static void cmyk_rows(const void *t, const uint8_t *cmyk, uint8_t *rgb, uint32_t width) {
    sy__color_cmyk_rows(t, cmyk, rgb, width);
}

static void cmyk_release(void *t) { sy__color_transform_destroy(t); }

/* A CMYK JPEG with a CMYK profile (print and stock photos) is delivered as
 * sRGB through that profile, as a colour-managed viewer shows it; without
 * one (or one lcms2 cannot use) the naive 1 - ink arithmetic stands, as
 * browsers do. The metadata then carries no profile (sy__metadata_read):
 * the pixels are sRGB. */
static sy_status jpeg_open(sy_context *ctx, const char *path, uint32_t min_width, uint32_t min_height,
                           sy__source **out, sy_error *err) {
    sy_status st = sy__jpeg_source_open(ctx, path, min_width, min_height, out, err);
    int inverted = 0;
    if (st != SY_OK || !sy__jpeg_source_cmyk(*out, &inverted)) return st;
    sy__metadata md;
    sy__color_transform *t = NULL;
    if (sy__jpeg_metadata_read(ctx, path, &md, NULL) == SY_OK && sy__icc_is_cmyk(md.icc, md.icc_len) &&
        sy__color_cmyk_create(ctx, md.icc, md.icc_len, inverted, &t, NULL) == SY_OK)
        sy__jpeg_source_convert_cmyk(*out, cmyk_rows, t, cmyk_release);
    sy__metadata_free(ctx, &md);
    return SY_OK;
}

sy_status sy__source_open(sy_context *ctx, const char *path, const sy_image_info *info, uint32_t min_width,
                          uint32_t min_height, const sy__source_means *means, sy__source **out, sy_error *err) {
    switch (info->format) {
    case SY_FORMAT_JPEG: return jpeg_open(ctx, path, min_width, min_height, out, err);
    case SY_FORMAT_PNG: return sy__png_source_open(ctx, path, out, err);
    case SY_FORMAT_HEIF: return sy__heif_source_open(ctx, path, min_width, min_height, means, out, err);
    default: return sy__fail(err, SY_E_INVALID_INPUT, "%s: unknown format", path);
    }
}
