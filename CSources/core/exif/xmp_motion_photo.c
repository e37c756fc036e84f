/* xmp_motion_photo.c — removes the Motion Photo claims from an XMP packet
 * (sy_exif.h), for a still written without the video that followed it.
 *
 * Google's Motion Photo format (and Samsung's use of it) says "a video is
 * appended to this file" in two places: GCamera properties (MotionPhoto,
 * MotionPhotoVersion, MotionPhotoPresentationTimestampUs, and the older
 * MicroVideo, MicroVideoVersion, MicroVideoOffset, ...), and a
 * Container:Directory item whose Item:Semantic is "MotionPhoto" with the
 * video's length. Both are removed, as attributes or as elements; the rest of
 * the directory (the primary image, a gain map) stays. Prefixes are the ones
 * the packet binds to the two namespaces. Text is only ever removed, so the
 * packet shrinks in place; every scan is bounded by the packet. */
#include <stdio.h>
#include <string.h>

#include "exif/sy_exif.h"
#include "exif/sy_xmp_text.h"

#define MAX_PREFIX SY__XMP_MAX_PREFIX

typedef struct xmp_text {
    uint8_t *p;
    size_t len;
} xmp_text;

static void cut(xmp_text *x, size_t from, size_t to) {
    memmove(x->p + from, x->p + to, x->len - to);
    x->len -= to - from;
}

/* `P:Name...` at s names a Motion Photo property of the camera prefix? */
static size_t property_at(const xmp_text *x, size_t at, const char *prefix) {
    static const char *const names[] = {"MotionPhoto", "MicroVideo"};
    size_t pn = strlen(prefix), end = x->len;
    if (end - at < pn + 1 || memcmp(x->p + at, prefix, pn) != 0 || x->p[at + pn] != ':') return 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t nn = strlen(names[i]);
        if (end - at - pn - 1 >= nn && memcmp(x->p + at + pn + 1, names[i], nn) == 0) {
            size_t q = at + pn + 1 + nn;
            while (q < end && sy__xmp_name_char(x->p[q])) q++;
            return q - at; /* the whole qualified name */
        }
    }
    return 0;
}

/* Removes ` P:MotionPhoto…="…"` attributes and `<P:MotionPhoto…>…</P:MotionPhoto…>` elements. */
static int strip_properties(xmp_text *x, const char *prefix) {
    int removed = 0;
    for (size_t i = 1; i < x->len; i++) {
        uint8_t before = x->p[i - 1];
        size_t name = property_at(x, i, prefix);
        if (!name) continue;
        if (before == '<') { /* element: up to its end tag, or a self-closing tag */
            char close[MAX_PREFIX + 48];
            snprintf(close, sizeof close, "</%.*s>", (int)name, (const char *)x->p + i);
            const uint8_t *gt = sy__xmp_find(x->p + i, x->p + x->len, ">");
            if (!gt) break;
            size_t stop;
            if (gt[-1] == '/') {
                stop = (size_t)(gt + 1 - x->p);
            } else {
                const uint8_t *c = sy__xmp_find(gt, x->p + x->len, close);
                if (!c) break;
                stop = (size_t)(c - x->p) + strlen(close);
            }
            cut(x, i - 1, stop);
            removed = 1;
            i = i > 1 ? i - 2 : 0;
        } else if (before == ' ' || before == '\t' || before == '\n' || before == '\r') { /* attribute */
            size_t q = i + name;
            while (q < x->len && x->p[q] != '=' && x->p[q] != '>') q++;
            if (q >= x->len || x->p[q] != '=') continue;
            for (q++; q < x->len && x->p[q] != '"' && x->p[q] != '\'';) q++;
            if (q >= x->len) break;
            const uint8_t *closing = memchr(x->p + q + 1, x->p[q], x->len - q - 1);
            if (!closing) break;
            cut(x, i - 1, (size_t)(closing + 1 - x->p));
            removed = 1;
            i = i > 1 ? i - 2 : 0;
        }
    }
    return removed;
}

/* Removes each <rdf:li>…</rdf:li> whose item says Semantic "MotionPhoto". */
static int strip_directory_item(xmp_text *x, const char *item_prefix) {
    char attr[MAX_PREFIX + 16], elem[MAX_PREFIX + 16];
    snprintf(attr, sizeof attr, "%s:Semantic=", item_prefix);
    snprintf(elem, sizeof elem, "<%s:Semantic>", item_prefix);
    int removed = 0;
    for (size_t from = 0; from < x->len;) {
        const uint8_t *end = x->p + x->len, *s = sy__xmp_find(x->p + from, end, attr);
        size_t skip = strlen(attr);
        const uint8_t *e = sy__xmp_find(x->p + from, end, elem);
        if (!s || (e && e < s)) s = e, skip = strlen(elem);
        if (!s) break;
        const uint8_t *value = s + skip;
        if (value < end && (*value == '"' || *value == '\'')) value++;
        if ((size_t)(end - value) < 11 || memcmp(value, "MotionPhoto", 11) != 0 ||
            (value + 11 < end && sy__xmp_name_char(value[11]))) {
            from = (size_t)(s - x->p) + skip;
            continue;
        }
        const uint8_t *open = NULL; /* the last <rdf:li before the property */
        for (const uint8_t *o = sy__xmp_find(x->p, s, "<rdf:li"); o; o = sy__xmp_find(o + 1, s, "<rdf:li")) open = o;
        const uint8_t *close = sy__xmp_find(s, end, "</rdf:li>");
        if (!open || !close) break;
        cut(x, (size_t)(open - x->p), (size_t)(close - x->p) + 9);
        removed = 1;
        from = (size_t)(open - x->p);
    }
    return removed;
}

size_t sy__xmp_strip_motion_photo(uint8_t *xmp, size_t len, int *removed) {
    *removed = 0;
    if (!xmp || !len) return len;
    xmp_text x = {xmp, len};
    char camera[MAX_PREFIX], item[MAX_PREFIX];
    sy__xmp_prefix_for(x.p, x.len, SY__XMP_NS_CAMERA, "GCamera", camera);
    sy__xmp_prefix_for(x.p, x.len, SY__XMP_NS_ITEM, "Item", item);
    *removed = strip_properties(&x, camera);
    *removed |= strip_directory_item(&x, item);
    return x.len;
}
