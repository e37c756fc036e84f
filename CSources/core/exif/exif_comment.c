/* exif_comment.c — searching the user comment, in Exif (UserComment 0x9286)
 * and in XMP (exif:UserComment), e.g. for a "Screenshot" marker. */
#include <string.h>

#include "exif/sy_exif.h"

#define TAG_USER_COMMENT 0x9286
#define CHARSET_BYTES 8 /* "ASCII\0\0\0", "UNICODE\0", ... before the text */

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

int sy__exif_user_comment_has(const uint8_t *tiff, size_t len, const char *needle) {
    sy__tiff t;
    sy__tiff_ifd ifd0, exif;
    sy__tiff_entry e;
    if (!sy__tiff_open(&t, tiff, len) || !sy__tiff_ifd0(&t, &ifd0) || sy__exif_ifd(&t, &ifd0, &exif) != 1) return 0;
    if (!sy__tiff_find(&t, &exif, TAG_USER_COMMENT, &e) || e.type != SY__TIFF_UNDEFINED || e.size < CHARSET_BYTES)
        return 0;
    const uint8_t *p = sy__tiff_value(&t, &e);
    return p && contains_ascii(p + CHARSET_BYTES, (size_t)e.size - CHARSET_BYTES, needle);
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
