/* image_probe.c — format sniffing, header probes and row-source dispatch. */
#include <string.h>

#include "../base/sy_internal.h"
#include "../base/sy_source.h"

sy_image_format sy_image_sniff(const uint8_t *head, size_t len) {
    if (len >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF) return SY_FORMAT_JPEG;
    if (len >= 8 && memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0) return SY_FORMAT_PNG;
    if (len >= 12 && memcmp(head + 4, "ftyp", 4) == 0) {
        static const char *brands[] = {"heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "miaf"};
        for (size_t i = 0; i < sizeof brands / sizeof *brands; i++)
            if (memcmp(head + 8, brands[i], 4) == 0) return SY_FORMAT_HEIF;
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
    uint8_t head[16];
    size_t got = fread(head, 1, sizeof head, file);
    sy_status st;
    sy_image_format format = sy_image_sniff(head, got);
    rewind(file);
    switch (format) {
    case SY_FORMAT_JPEG: st = sy__jpeg_probe(ctx, file, path, out, err); break;
    case SY_FORMAT_PNG: st = sy__png_probe(ctx, file, path, out, err); break;
    case SY_FORMAT_HEIF: st = sy__heif_probe(ctx, path, out, err); break;
    default:
        st = got == 0 ? sy__fail(err, SY_E_INVALID_INPUT, "%s: empty file", path)
                      : sy__fail(err, SY_E_INVALID_INPUT, "%s: not a JPEG, PNG or HEIF image", path);
    }
    fclose(file);
    return st;
}

sy_status sy__source_open(sy_context *ctx, const char *path, const sy_image_info *info, uint32_t min_width,
                          uint32_t min_height, sy__source **out, sy_error *err) {
    switch (info->format) {
    case SY_FORMAT_JPEG: return sy__jpeg_source_open(ctx, path, min_width, min_height, out, err);
    case SY_FORMAT_PNG: return sy__png_source_open(ctx, path, out, err);
    case SY_FORMAT_HEIF: return sy__heif_source_open(ctx, path, out, err);
    default: return sy__fail(err, SY_E_INVALID_INPUT, "%s: unknown format", path);
    }
}
