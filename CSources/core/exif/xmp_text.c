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

void sy__xmp_cut(sy__xmp_text *x, size_t from, size_t to) {
    memmove(x->p + from, x->p + to, x->len - to);
    x->len -= to - from;
}

/* `P:Name...` at `at` names one of the properties (by leading name)? The whole qualified name's length, or 0. */
static size_t property_at(const sy__xmp_text *x, size_t at, const char *prefix, const char *const *names,
                          size_t count) {
    size_t pn = strlen(prefix), end = x->len;
    if (end - at < pn + 1 || memcmp(x->p + at, prefix, pn) != 0 || x->p[at + pn] != ':') return 0;
    for (size_t i = 0; i < count; i++) {
        size_t nn = strlen(names[i]);
        if (end - at - pn - 1 >= nn && memcmp(x->p + at + pn + 1, names[i], nn) == 0) {
            size_t q = at + pn + 1 + nn;
            while (q < end && sy__xmp_name_char(x->p[q])) q++;
            return q - at;
        }
    }
    return 0;
}

size_t sy__xmp_remove_properties(uint8_t *xmp, size_t len, const char *prefix, const char *const *names, size_t count,
                                 int *removed) {
    sy__xmp_text t = {xmp, len}, *x = &t;
    *removed = 0;
    for (size_t i = 1; i < x->len; i++) {
        uint8_t before = x->p[i - 1];
        size_t name = property_at(x, i, prefix, names, count);
        if (!name) continue;
        if (before == '<') { /* element: up to its end tag, or a self-closing tag */
            char close[SY__XMP_MAX_PREFIX + 80];
            if (name + 4 > sizeof close) continue;
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
            sy__xmp_cut(x, i - 1, stop);
            *removed = 1;
            i = i > 1 ? i - 2 : 0;
        } else if (space(before)) { /* attribute */
            size_t q = i + name;
            while (q < x->len && x->p[q] != '=' && x->p[q] != '>') q++;
            if (q >= x->len || x->p[q] != '=') continue;
            for (q++; q < x->len && x->p[q] != '"' && x->p[q] != '\'';) q++;
            if (q >= x->len) break;
            const uint8_t *closing = memchr(x->p + q + 1, x->p[q], x->len - q - 1);
            if (!closing) break;
            sy__xmp_cut(x, i - 1, (size_t)(closing + 1 - x->p));
            *removed = 1;
            i = i > 1 ? i - 2 : 0;
        }
    }
    return x->len;
}
