/* bmff_reader.c — bounded ISO-BMFF box cursor and big-endian span readers.
 *
 * The cursor walks the boxes inside [position, end) of an in-memory buffer.
 * Nothing is trusted: a 32-bit size, a 64-bit largesize (size == 1) or
 * "to the end" (size == 0) must describe a box that lies wholly inside the
 * enclosing range and is at least as large as its own header; at most
 * SY_BMFF_MAX_CHILDREN boxes are returned per cursor. Errors name the box
 * type (printable, or hex) and absolute offsets (cursor base + position).
 */
#include <string.h>

#include "bmff/sy_bmff.h"
#include "base/sy_internal.h"

const char *sy_bmff_fourcc_text(uint32_t type, char out[16]) {
    unsigned char c[4] = {(unsigned char)(type >> 24), (unsigned char)(type >> 16), (unsigned char)(type >> 8),
                          (unsigned char)type};
    for (int i = 0; i < 4; i++) {
        if (c[i] < 0x20 || c[i] > 0x7e) {
            snprintf(out, 16, "0x%08x", (unsigned)type);
            return out;
        }
    }
    snprintf(out, 16, "%c%c%c%c", c[0], c[1], c[2], c[3]);
    return out;
}

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

void sy_bmff_cursor_init(sy_bmff_cursor *c, const uint8_t *data, uint64_t base, uint64_t begin, uint64_t end) {
    if (!c) return;
    c->data = data;
    c->base = base;
    c->position = begin;
    c->end = end < begin ? begin : end;
    c->seen = 0;
}

void sy_bmff_cursor_children(sy_bmff_cursor *c, const sy_bmff_cursor *parent, const sy_bmff_box *box, uint64_t skip) {
    if (!c) return;
    if (!parent || !box) {
        sy_bmff_cursor_init(c, NULL, 0, 0, 0);
        return;
    }
    uint64_t begin = box->payload_offset + (skip < box->payload_size ? skip : box->payload_size);
    sy_bmff_cursor_init(c, parent->data, parent->base, begin, box->payload_offset + box->payload_size);
}

sy_status sy_bmff_next(sy_bmff_cursor *c, sy_bmff_box *out, sy_error *err) {
    if (!out) return sy__fail(err, SY_E_USAGE, "sy_bmff_next: out is NULL");
    memset(out, 0, sizeof *out);
    if (!c) return sy__fail(err, SY_E_USAGE, "sy_bmff_next: cursor is NULL");
    if (c->position >= c->end) return SY_OK;
    if (!c->data) return sy__fail(err, SY_E_USAGE, "sy_bmff_next: cursor has no data");
    const uint64_t at = c->position, left = c->end - at;
    const unsigned long long abs_at = (unsigned long long)(c->base + at);
    const unsigned long long abs_end = (unsigned long long)(c->base + c->end);
    if (c->seen >= SY_BMFF_MAX_CHILDREN)
        return sy__fail(err, SY_E_INVALID_INPUT, "sy_bmff_next: more than %u boxes before offset %llu (range ends at %llu)",
                        SY_BMFF_MAX_CHILDREN, abs_at, abs_end);
    if (left < 8)
        return sy__fail(err, SY_E_INVALID_INPUT,
                        "sy_bmff_next: %llu stray bytes at offset %llu, too few for a box header (range ends at %llu)",
                        (unsigned long long)left, abs_at, abs_end);
    const uint8_t *p = c->data + at;
    uint64_t size = be32(p);
    const uint32_t type = be32(p + 4);
    uint64_t header = 8;
    char name[16];
    if (size == 1) {
        if (left < 16)
            return sy__fail(err, SY_E_INVALID_INPUT,
                            "sy_bmff_next: box '%s' at offset %llu: 64-bit size cut off (range ends at %llu)",
                            sy_bmff_fourcc_text(type, name), abs_at, abs_end);
        size = be64(p + 8);
        header = 16;
    } else if (size == 0) {
        size = left; /* extends to the end of the enclosing range */
    }
    if (type == SY_FOURCC('u', 'u', 'i', 'd')) {
        if (left < header + 16)
            return sy__fail(err, SY_E_INVALID_INPUT,
                            "sy_bmff_next: box 'uuid' at offset %llu: extended type cut off (range ends at %llu)", abs_at,
                            abs_end);
        memcpy(out->uuid, p + header, 16);
        header += 16;
    }
    if (size < header)
        return sy__fail(err, SY_E_INVALID_INPUT,
                        "sy_bmff_next: box '%s' at offset %llu: size %llu is smaller than its %llu-byte header",
                        sy_bmff_fourcc_text(type, name), abs_at, (unsigned long long)size, (unsigned long long)header);
    if (size > left)
        return sy__fail(err, SY_E_INVALID_INPUT,
                        "sy_bmff_next: box '%s' at offset %llu: size %llu runs past the end of its parent at offset %llu",
                        sy_bmff_fourcc_text(type, name), abs_at, (unsigned long long)size, abs_end);
    out->type = type;
    out->offset = at;
    out->size = size;
    out->payload_offset = at + header;
    out->payload_size = size - header;
    c->position = at + size;
    c->seen++;
    return SY_OK;
}

/* ---- span readers ---- */

int sy_bmff_u8(sy_bmff_span *s, uint8_t *value) {
    if (!s || s->left < 1) return 0;
    if (value) *value = s->p[0];
    s->p += 1;
    s->left -= 1;
    return 1;
}

int sy_bmff_u16(sy_bmff_span *s, uint16_t *value) {
    if (!s || s->left < 2) return 0;
    if (value) *value = (uint16_t)(s->p[0] << 8 | s->p[1]);
    s->p += 2;
    s->left -= 2;
    return 1;
}

int sy_bmff_u32(sy_bmff_span *s, uint32_t *value) {
    if (!s || s->left < 4) return 0;
    if (value) *value = be32(s->p);
    s->p += 4;
    s->left -= 4;
    return 1;
}

int sy_bmff_u64(sy_bmff_span *s, uint64_t *value) {
    if (!s || s->left < 8) return 0;
    if (value) *value = be64(s->p);
    s->p += 8;
    s->left -= 8;
    return 1;
}

int sy_bmff_uN(sy_bmff_span *s, unsigned bytes, uint64_t *value) {
    if (!s || bytes > 8 || s->left < bytes) return 0;
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++) v = v << 8 | s->p[i];
    if (value) *value = v;
    s->p += bytes;
    s->left -= bytes;
    return 1;
}

int sy_bmff_skip(sy_bmff_span *s, uint64_t n) {
    if (!s || s->left < n) return 0;
    s->p += n;
    s->left -= n;
    return 1;
}

int sy_bmff_cstring(sy_bmff_span *s, char *out, size_t cap) {
    if (out && cap) out[0] = '\0';
    if (!s || s->left == 0) return 0;
    const uint8_t *nul = memchr(s->p, 0, (size_t)SY__MIN(s->left, (uint64_t)SIZE_MAX));
    /* A string cut off by the end of the span (no NUL) is taken whole: some
     * writers omit the last terminator of a box. */
    uint64_t len = nul ? (uint64_t)(nul - s->p) : s->left;
    if (out && cap) {
        size_t n = (size_t)SY__MIN(len, (uint64_t)(cap - 1));
        memcpy(out, s->p, n);
        out[n] = '\0';
    }
    uint64_t used = nul ? len + 1 : len;
    s->p += used;
    s->left -= used;
    return 1;
}

int sy_bmff_full_header(sy_bmff_span *s, uint8_t *version, uint32_t *flags) {
    uint32_t v;
    *version = 0;
    *flags = 0;
    if (!sy_bmff_u32(s, &v)) return 0;
    *version = (uint8_t)(v >> 24);
    *flags = v & 0xFFFFFFu;
    return 1;
}
