/* jpeg_complete.c — see sy_jpeg_complete.h. */
#include <string.h>

#include "jpeg/sy_jpeg_complete.h"

#define CHUNK 16384

typedef struct reader {
    FILE *file;
    uint8_t buf[CHUNK];
    size_t len, at;
    uint64_t consumed; /* bytes before buf[0] */
} reader;

static int next_byte(reader *r) {
    if (r->at == r->len) {
        r->consumed += r->len;
        r->len = fread(r->buf, 1, CHUNK, r->file);
        r->at = 0;
        if (r->len == 0) return -1;
    }
    return r->buf[r->at++];
}

static uint64_t position(const reader *r) { return r->consumed + r->at; }

/* Skips `n` bytes; 0 when the file ends first. */
static int skip(reader *r, uint64_t n) {
    while (n > 0) {
        size_t here = r->len - r->at;
        if (here == 0) {
            if (next_byte(r) < 0) return 0;
            n--;
            continue;
        }
        size_t step = n < here ? (size_t)n : here;
        r->at += step;
        n -= step;
    }
    return 1;
}

/* Entropy-coded data up to the next marker that is not a restart: its code,
 * or -1 at the end of the file. */
static int after_scan(reader *r) {
    for (;;) {
        if (r->at == r->len && next_byte(r) >= 0) r->at--; /* refill, keep the byte */
        if (r->at == r->len) return -1;
        const uint8_t *ff = memchr(r->buf + r->at, 0xFF, r->len - r->at);
        if (!ff) {
            r->at = r->len;
            continue;
        }
        r->at = (size_t)(ff - r->buf) + 1;
        int b;
        do b = next_byte(r); while (b == 0xFF); /* fill bytes */
        if (b < 0) return -1;
        if (b == 0x00 || (b >= 0xD0 && b <= 0xD7)) continue; /* a stuffed 0xFF, a restart marker */
        return b;
    }
}

static sy_status truncated(const reader *r, const char *path, const char *where, sy_error *err) {
    return sy__fail(err, SY_E_INVALID_INPUT, "%s: JPEG truncated: the file ends at byte %llu, %s, before its end-of-image marker",
                    path, (unsigned long long)position(r), where);
}

/* The markers from just after SOI: segments are skipped by their lengths,
 * each scan's data searched for the marker after it. */
static sy_status walk(reader *r, const char *path, sy_error *err) {
    int in_scan = 0;
    for (;;) {
        int m;
        if (in_scan) {
            m = after_scan(r);
            if (m < 0) return truncated(r, path, "inside image data", err);
        } else {
            int b = next_byte(r);
            if (b < 0) return truncated(r, path, "between segments", err);
            if (b != 0xFF)
                return sy__fail(err, SY_E_INVALID_INPUT, "%s: not a JPEG marker at byte %llu", path,
                                (unsigned long long)position(r) - 1);
            do m = next_byte(r); while (m == 0xFF);
            if (m < 0) return truncated(r, path, "inside a marker", err);
        }
        if (m == 0xD9) return SY_OK;             /* EOI */
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD8)) { /* TEM, RSTn, a stray SOI: no length */
            in_scan = 0;
            continue;
        }
        int hi = next_byte(r), lo = next_byte(r);
        if (hi < 0 || lo < 0) return truncated(r, path, "inside a segment", err);
        unsigned len = (unsigned)hi << 8 | (unsigned)lo;
        if (len < 2)
            return sy__fail(err, SY_E_INVALID_INPUT, "%s: JPEG segment 0x%02X of length %u at byte %llu", path,
                            (unsigned)m, len, (unsigned long long)position(r) - 4);
        if (!skip(r, len - 2)) return truncated(r, path, "inside a segment", err);
        in_scan = m == 0xDA; /* SOS: entropy-coded data follows its header */
    }
}

sy_status sy__jpeg_complete(FILE *file, const char *path, sy_error *err) {
    reader r = {.file = file};
    if (fseeko(file, 0, SEEK_SET) != 0 || next_byte(&r) != 0xFF || next_byte(&r) != 0xD8)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: no JPEG start-of-image marker", path);
    return walk(&r, path, err);
}
