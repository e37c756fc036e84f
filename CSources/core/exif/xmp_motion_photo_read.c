/* xmp_motion_photo_read.c — reads the Motion Photo description from an XMP
 * packet (sy_exif.h): the Camera properties that say a video follows the
 * image and when its still frame is, and the Container:Directory that gives
 * the byte length of each item appended after the primary image. Prefixes
 * are the ones the packet binds to Google's namespaces. */
#include <stdio.h>
#include <string.h>

#include "exif/sy_exif.h"
#include "exif/sy_xmp_text.h"

/* A decimal integer (optional '-'), or -2 when `text` is not one / overflows. */
static int64_t parse_int(const char *text) {
    const char *s = text;
    while (*s == ' ') s++;
    int negative = *s == '-';
    if (negative) s++;
    if (*s < '0' || *s > '9') return -2;
    int64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (INT64_MAX - (*s - '0')) / 10) return -2;
        v = v * 10 + (*s - '0');
    }
    while (*s == ' ') s++;
    if (*s) return -2;
    return negative ? -v : v;
}

/* The property as a number: -1 absent (or written as -1, the format's
 * "unspecified"), -2 malformed or negative, else its value. */
static int64_t number(const uint8_t *from, const uint8_t *end, const char *prefix, const char *name) {
    char text[32];
    int found = sy__xmp_value(from, end, prefix, name, text, sizeof text);
    if (found == 0) return -1;
    int64_t v = found < 0 ? -2 : parse_int(text);
    return v < -1 ? -2 : v;
}

static void read_item(const uint8_t *from, const uint8_t *end, const char *item, sy__xmp_motion_item *out) {
    memset(out, 0, sizeof *out);
    if (sy__xmp_value(from, end, item, "Semantic", out->semantic, sizeof out->semantic) <= 0) out->semantic[0] = 0;
    if (sy__xmp_value(from, end, item, "Mime", out->mime, sizeof out->mime) <= 0) out->mime[0] = 0;
    out->length = number(from, end, item, "Length");
    out->padding = number(from, end, item, "Padding");
    if (out->padding == -1) out->padding = 0;
}

/* Each <rdf:li> of the Container:Directory, in file order. */
static void read_directory(const uint8_t *p, const uint8_t *end, const char *container, const char *item,
                           sy__xmp_motion_photo *out) {
    char open[SY__XMP_MAX_PREFIX + 16], close[SY__XMP_MAX_PREFIX + 16];
    snprintf(open, sizeof open, "<%s:Directory", container);
    snprintf(close, sizeof close, "</%s:Directory>", container);
    const uint8_t *dir = sy__xmp_find(p, end, open);
    if (!dir) return;
    const uint8_t *dir_end = sy__xmp_find(dir, end, close);
    if (!dir_end) dir_end = end;
    for (const uint8_t *li = sy__xmp_find(dir, dir_end, "<rdf:li"); li; li = sy__xmp_find(li + 1, dir_end, "<rdf:li")) {
        const uint8_t *li_end = sy__xmp_find(li, dir_end, "</rdf:li>");
        const uint8_t *next = sy__xmp_find(li + 1, dir_end, "<rdf:li");
        if (!li_end || (next && next < li_end)) li_end = next ? next : dir_end;
        if (out->item_count < SY__XMP_MOTION_ITEMS) read_item(li, li_end, item, &out->items[out->item_count++]);
        out->items_seen++;
    }
}

void sy__xmp_motion_photo_read(const uint8_t *xmp, size_t len, sy__xmp_motion_photo *out) {
    memset(out, 0, sizeof *out);
    out->version = out->presentation_us = out->micro_video_offset = -1;
    if (!xmp || !len) return;
    const uint8_t *end = xmp + len;
    char camera[SY__XMP_MAX_PREFIX], container[SY__XMP_MAX_PREFIX], item[SY__XMP_MAX_PREFIX];
    sy__xmp_prefix_for(xmp, len, SY__XMP_NS_CAMERA, "GCamera", camera);
    sy__xmp_prefix_for(xmp, len, SY__XMP_NS_CONTAINER, "Container", container);
    sy__xmp_prefix_for(xmp, len, SY__XMP_NS_ITEM, "Item", item);
    out->motion_photo = number(xmp, end, camera, "MotionPhoto") == 1;
    out->micro_video = number(xmp, end, camera, "MicroVideo") == 1;
    out->version = number(xmp, end, camera, out->motion_photo ? "MotionPhotoVersion" : "MicroVideoVersion");
    out->presentation_us = number(xmp, end, camera,
                                  out->motion_photo ? "MotionPhotoPresentationTimestampUs"
                                                    : "MicroVideoPresentationTimestampUs");
    out->micro_video_offset = number(xmp, end, camera, "MicroVideoOffset");
    read_directory(xmp, end, container, item, out);
}
