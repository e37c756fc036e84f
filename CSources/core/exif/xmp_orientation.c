/* xmp_orientation.c — an XMP packet's tiff:Orientation made 1 for upright
 * pixels. Apps that read the XMP orientation (as many do when Exif has none
 * or disagrees) would otherwise turn an already turned picture again. The
 * value is one digit in either XMP form — the attribute tiff:Orientation="6"
 * and the element <tiff:Orientation>6</tiff:Orientation> — so the packet is
 * rewritten in place, its length unchanged. */
#include <string.h>

#include "exif/sy_exif.h"

static const char PROPERTY[] = "tiff:Orientation";

/* The digit after the property name at `at` (attribute or element form), or NULL. */
static uint8_t *value_digit(uint8_t *at, const uint8_t *end) {
    uint8_t *p = at + sizeof PROPERTY - 1;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    if (p < end && *p == '=') { /* attribute: ="6" or ='6' */
        p++;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
        if (p + 2 < end && (*p == '"' || *p == '\'') && p[2] == *p) return p + 1;
        return NULL;
    }
    if (p < end && *p == '>') { /* element: >6< (whitespace around the digit allowed) */
        p++;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
        uint8_t *digit = p++;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
        return p < end && *p == '<' ? digit : NULL;
    }
    return NULL;
}

int sy__xmp_set_upright(uint8_t *xmp, size_t len) {
    int changed = 0;
    const uint8_t *end = xmp + len;
    for (uint8_t *at = xmp; at < end;) {
        uint8_t *found = memmem(at, (size_t)(end - at), PROPERTY, sizeof PROPERTY - 1);
        if (!found) break;
        uint8_t *digit = value_digit(found, end);
        if (digit && *digit >= '2' && *digit <= '8') {
            *digit = '1';
            changed++;
        }
        at = found + sizeof PROPERTY - 1;
    }
    return changed;
}
