/* image_format.c — which still format a file is, from its magic bytes. */
#include <string.h>

#include "sy_image.h"

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
