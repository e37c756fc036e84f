/* metadata.c — dispatch, freeing, and the small Exif edits a conversion needs. */
#include <string.h>

#include "still/sy_metadata.h"

sy_status sy__metadata_read(sy_context *ctx, const char *path, const sy_image_info *info, sy__metadata *out,
                            sy_error *err) {
    memset(out, 0, sizeof *out);
    switch (info->format) {
    case SY_FORMAT_JPEG: return sy__jpeg_metadata_read(ctx, path, out, err);
    case SY_FORMAT_HEIF: return sy__heif_metadata_read(ctx, path, out, err);
    default: return SY_OK; /* PNG: nothing carried yet */
    }
}

void sy__metadata_free(sy_context *ctx, sy__metadata *md) {
    sy__free(ctx, md->exif);
    sy__free(ctx, md->xmp);
    sy__free(ctx, md->icc);
    memset(md, 0, sizeof *md);
}

/* ---- bounded TIFF walking ---- */

typedef struct tiff {
    uint8_t *p;
    size_t len;
    int le;
} tiff;

static int tiff_open(tiff *t, uint8_t *p, size_t len) {
    if (!p || len < 8) return 0;
    if (p[0] == 'I' && p[1] == 'I') t->le = 1;
    else if (p[0] == 'M' && p[1] == 'M') t->le = 0;
    else return 0;
    t->p = p, t->len = len;
    return 1;
}
static uint32_t rd16(const tiff *t, size_t at) {
    return at + 2 > t->len ? 0 : t->le ? t->p[at] | t->p[at + 1] << 8 : t->p[at] << 8 | t->p[at + 1];
}
static uint32_t rd32(const tiff *t, size_t at) {
    if (at + 4 > t->len) return 0;
    const uint8_t *b = t->p + at;
    return t->le ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24
                 : (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

/* Offset of the 12-byte entry for `tag` in the IFD at `ifd`, or 0. */
static size_t find_tag(const tiff *t, size_t ifd, uint16_t tag) {
    if (ifd == 0 || ifd + 2 > t->len) return 0;
    uint32_t n = rd16(t, ifd);
    for (uint32_t i = 0; i < n; i++) {
        size_t e = ifd + 2 + (size_t)i * 12;
        if (e + 12 > t->len) return 0;
        if (rd16(t, e) == tag) return e;
    }
    return 0;
}

int sy__exif_set_orientation(uint8_t *data, size_t len, uint8_t orientation) {
    tiff t;
    if (!tiff_open(&t, data, len)) return 0;
    size_t e = find_tag(&t, rd32(&t, 4), 0x0112);
    if (!e || rd16(&t, e + 2) != 3) return 0;
    if (t.le) t.p[e + 8] = orientation, t.p[e + 9] = 0;
    else t.p[e + 8] = 0, t.p[e + 9] = orientation;
    return 1;
}

/* Writes `value` into a count-1 SHORT or LONG entry in place; 1 if written. */
static int set_uint(tiff *t, size_t e, uint32_t value) {
    if (!e || rd32(t, e + 4) != 1) return 0;
    uint32_t type = rd16(t, e + 2);
    uint8_t *v = t->p + e + 8;
    if (type == 3 && value <= 0xFFFF) {
        if (t->le) v[0] = (uint8_t)value, v[1] = (uint8_t)(value >> 8);
        else v[0] = (uint8_t)(value >> 8), v[1] = (uint8_t)value;
        return 1;
    }
    if (type != 4) return 0;
    for (int i = 0; i < 4; i++) v[t->le ? i : 3 - i] = (uint8_t)(value >> (8 * i));
    return 1;
}

int sy__exif_set_dimensions(uint8_t *data, size_t len, uint32_t width, uint32_t height) {
    tiff t;
    if (!tiff_open(&t, data, len)) return 0;
    size_t exif_ptr = find_tag(&t, rd32(&t, 4), 0x8769);
    if (!exif_ptr) return 0;
    size_t ifd = rd32(&t, exif_ptr + 8);
    int a = set_uint(&t, find_tag(&t, ifd, 0xA002), width);
    int b = set_uint(&t, find_tag(&t, ifd, 0xA003), height);
    return a || b;
}

static int ascii_at(const tiff *t, size_t e, char out[20]) {
    if (!e || rd16(t, e + 2) != 2 || rd32(t, e + 4) < 19) return 0;
    size_t at = rd32(t, e + 8);
    if (at + 19 > t->len) return 0;
    memcpy(out, t->p + at, 19);
    out[19] = 0;
    return 1;
}

int sy__exif_capture_date(const uint8_t *data, size_t len, char out[20]) {
    tiff t;
    if (!tiff_open(&t, (uint8_t *)data, len)) return 0;
    size_t ifd0 = rd32(&t, 4);
    size_t exif_ptr = find_tag(&t, ifd0, 0x8769);
    if (exif_ptr && ascii_at(&t, find_tag(&t, rd32(&t, exif_ptr + 8), 0x9003), out)) return 1;
    return ascii_at(&t, find_tag(&t, ifd0, 0x0132), out);
}

int sy__exif_has_gps(const uint8_t *data, size_t len) {
    tiff t;
    if (!tiff_open(&t, (uint8_t *)data, len)) return 0;
    return find_tag(&t, rd32(&t, 4), 0x8825) != 0;
}

int sy__exif_has_camera(const uint8_t *data, size_t len) {
    tiff t;
    if (!tiff_open(&t, (uint8_t *)data, len)) return 0;
    size_t ifd0 = rd32(&t, 4);
    return find_tag(&t, ifd0, 0x010F) != 0 || find_tag(&t, ifd0, 0x0110) != 0; /* Make, Model */
}

/* Case-insensitive search of an ASCII needle in bytes; UTF-16 text is matched
 * by skipping NUL bytes, so "S\0c\0r\0..." matches too. */
static int contains_ascii(const uint8_t *p, size_t n, const char *needle) {
    size_t m = strlen(needle);
    for (size_t i = 0; i < n; i++) {
        size_t at = i, k = 0;
        while (k < m && at < n) {
            if (p[at] == 0) { at++; continue; }
            uint8_t c = p[at], w = (uint8_t)needle[k];
            if ((c | 0x20) != (w | 0x20)) break;
            at++, k++;
        }
        if (k == m) return 1;
    }
    return 0;
}

int sy__exif_user_comment_has(const uint8_t *data, size_t len, const char *needle) {
    tiff t;
    if (!tiff_open(&t, (uint8_t *)data, len)) return 0;
    size_t exif_ptr = find_tag(&t, rd32(&t, 4), 0x8769);
    if (!exif_ptr) return 0;
    size_t e = find_tag(&t, rd32(&t, exif_ptr + 8), 0x9286); /* UserComment, UNDEFINED */
    if (!e || rd16(&t, e + 2) != 7) return 0;
    size_t count = rd32(&t, e + 4);
    size_t at = count <= 4 ? e + 8 : rd32(&t, e + 8);
    if (count < 8 || at > t.len || count > t.len - at) return 0;
    /* 8-byte character code ("ASCII\0\0\0", "UNICODE\0", ...) then the text */
    return contains_ascii(t.p + at + 8, count - 8, needle);
}

int sy__xmp_user_comment_has(const uint8_t *xmp, size_t len, const char *needle) {
    static const char key[] = "exif:UserComment";
    size_t k = sizeof key - 1;
    for (size_t i = 0; xmp && i + k <= len; i++) {
        if (memcmp(xmp + i, key, k) != 0) continue;
        size_t window = SY__MIN(len - i, (size_t)512); /* the property's value follows closely */
        if (contains_ascii(xmp + i, window, needle)) return 1;
    }
    return 0;
}
