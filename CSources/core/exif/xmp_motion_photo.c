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


/* Removes each <rdf:li>…</rdf:li> whose item says Semantic "MotionPhoto". */
static int strip_directory_item(sy__xmp_text *x, const char *item_prefix) {
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
        sy__xmp_cut(x, (size_t)(open - x->p), (size_t)(close - x->p) + 9);
        removed = 1;
        from = (size_t)(open - x->p);
    }
    return removed;
}

size_t sy__xmp_strip_motion_photo(uint8_t *xmp, size_t len, int *removed) {
    *removed = 0;
    if (!xmp || !len) return len;
    sy__xmp_text x = {xmp, len};
    char camera[MAX_PREFIX], item[MAX_PREFIX];
    sy__xmp_prefix_for(x.p, x.len, SY__XMP_NS_CAMERA, "GCamera", camera);
    sy__xmp_prefix_for(x.p, x.len, SY__XMP_NS_ITEM, "Item", item);
    static const char *const names[] = {"MotionPhoto", "MicroVideo"};
    int props = 0;
    x.len = sy__xmp_remove_properties(x.p, x.len, camera, names, 2, &props);
    *removed = props | strip_directory_item(&x, item);
    return x.len;
}
