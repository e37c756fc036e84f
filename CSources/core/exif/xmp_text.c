/* xmp_text.c — bounded text scanning of XMP packets (exif/sy_xmp_text.h). */
#include <stdio.h>
#include <string.h>

#include "exif/sy_xmp_text.h"

const uint8_t *sy__xmp_find(const uint8_t *from, const uint8_t *end, const char *needle) {
    size_t n = strlen(needle);
    for (const uint8_t *s = from; n && s < end && (size_t)(end - s) >= n; s++)
        if (*s == (uint8_t)needle[0] && memcmp(s, needle, n) == 0) return s;
    return NULL;
}

int sy__xmp_name_char(uint8_t c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
}

static int space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void sy__xmp_prefix_for(const uint8_t *p, size_t len, const char *ns, const char *fallback,
                        char out[SY__XMP_MAX_PREFIX]) {
    const uint8_t *end = p + len;
    size_t ns_len = strlen(ns);
    for (const uint8_t *s = sy__xmp_find(p, end, "xmlns:"); s; s = sy__xmp_find(s + 6, end, "xmlns:")) {
        const uint8_t *name = s + 6, *q = name;
        while (q < end && sy__xmp_name_char(*q)) q++;
        size_t n = (size_t)(q - name);
        while (q < end && space(*q)) q++;
        if (q >= end || *q != '=') continue;
        for (q++; q < end && space(*q);) q++;
        if (q >= end || (*q != '"' && *q != '\'')) continue;
        if (n && n < SY__XMP_MAX_PREFIX && (size_t)(end - q - 1) >= ns_len && memcmp(q + 1, ns, ns_len) == 0 &&
            q + 1 + ns_len < end && q[1 + ns_len] == *q) {
            memcpy(out, name, n);
            out[n] = 0;
            return;
        }
    }
    snprintf(out, SY__XMP_MAX_PREFIX, "%s", fallback);
}

/* Copies [v, stop) into out[cap]: 1, or -1 when it does not fit. */
static int copy_value(const uint8_t *v, const uint8_t *stop, char *out, size_t cap) {
    size_t n = (size_t)(stop - v);
    if (n >= cap) return -1;
    memcpy(out, v, n);
    out[n] = 0;
    return 1;
}

int sy__xmp_value(const uint8_t *from, const uint8_t *end, const char *prefix, const char *name, char *out,
                  size_t cap) {
    char qname[SY__XMP_MAX_PREFIX + 64];
    int qn = snprintf(qname, sizeof qname, "%s:%s", prefix, name);
    if (qn <= 0 || (size_t)qn >= sizeof qname || cap == 0) return -1;
    for (const uint8_t *s = sy__xmp_find(from, end, qname); s; s = sy__xmp_find(s + 1, end, qname)) {
        const uint8_t *q = s + qn;
        if (s == from || (q < end && sy__xmp_name_char(*q))) continue; /* a longer name */
        if (s[-1] == '<') { /* element: <P:N ...>value</ */
            const uint8_t *gt = memchr(q, '>', (size_t)(end - q));
            if (!gt || gt[-1] == '/') return -1;
            const uint8_t *lt = memchr(gt + 1, '<', (size_t)(end - gt - 1));
            return lt ? copy_value(gt + 1, lt, out, cap) : -1;
        }
        if (!space(s[-1])) continue; /* the text of some other value */
        while (q < end && space(*q)) q++;
        if (q >= end || *q != '=') continue;
        for (q++; q < end && space(*q);) q++;
        if (q >= end || (*q != '"' && *q != '\'')) return -1;
        const uint8_t *close = memchr(q + 1, *q, (size_t)(end - q - 1));
        return close ? copy_value(q + 1, close, out, cap) : -1;
    }
    return 0;
}
