/* image_probe.c — format sniffing, header probes and row-source dispatch. */
#include <string.h>

#include "../base/sy_internal.h"
#include "../base/sy_source.h"

static int is_heif_brand(const uint8_t *b) {
    static const char *brands[] = {"heic", "heix", "heim", "heis", "hevc", "hevx", "mif1",
                                   "mif2", "mif3", "msf1", "avif", "avis", "miaf", "avci"};
    for (size_t i = 0; i < sizeof brands / sizeof *brands; i++)
        if (memcmp(b, brands[i], 4) == 0) return 1;
    return 0;
}

sy_image_format sy_image_sniff(const uint8_t *head, size_t len) {
    if (len >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF) return SY_FORMAT_JPEG;
    if (len >= 8 && memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0) return SY_FORMAT_PNG;
    if (len >= 12 && memcmp(head + 4, "ftyp", 4) == 0) {
        /* major brand, then the compatible brands inside the ftyp box we were given */
        uint32_t box = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3];
        size_t end = box < len ? box : len;
        if (is_heif_brand(head + 8)) return SY_FORMAT_HEIF;
        for (size_t at = 16; at + 4 <= end; at += 4)
            if (is_heif_brand(head + at)) return SY_FORMAT_HEIF;
    }
    return SY_FORMAT_UNKNOWN;
}

const char *sy_image_format_name(sy_image_format format) {
    switch (format) {
    case SY_FORMAT_JPEG: return "jpeg";
    case SY_FORMAT_PNG: return "png";
    case SY_FORMAT_HEIF: return "heif";
    default: return "unknown";
    }
}

sy_status sy_image_probe(sy_context *ctx, const char *path, sy_image_info *out, sy_error *err) {
    if (!ctx || !path || !out) return sy__fail(err, SY_E_USAGE, "sy_image_probe: NULL argument");
    FILE *file = fopen(path, "rb");
    if (!file) return sy__fail(err, SY_E_IO, "%s: cannot open", path);
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

sy_status sy__source_open(sy_context *ctx, const char *path, const sy_image_info *info, uint32_t min_width,
                          uint32_t min_height, sy__source **out, sy_error *err) {
    switch (info->format) {
    case SY_FORMAT_JPEG: return sy__jpeg_source_open(ctx, path, min_width, min_height, out, err);
    case SY_FORMAT_PNG: return sy__png_source_open(ctx, path, out, err);
    case SY_FORMAT_HEIF: return sy__heif_source_open(ctx, path, min_width, min_height, out, err);
    default: return sy__fail(err, SY_E_INVALID_INPUT, "%s: unknown format", path);
    }
}
