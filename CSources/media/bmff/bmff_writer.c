/* bmff_writer.c — ISO-BMFF box writer: appends big-endian fields to a growable
 * engine-allocated buffer; `begin` reserves a 32-bit size that `end` patches.
 * (The reading half of sy_bmff.h lives in bmff_reader.c.) */
#include <string.h>

#include "base/sy_internal.h"
#include "bmff/sy_bmff.h"

/* Deepest box nesting the writer accepts (HEIF meta needs 4: meta/iprp/ipco/x). */
#define SY_BMFF_WRITER_MAX_DEPTH 32

struct sy_bmff_writer {
    sy_context *ctx;
    uint8_t *data;
    size_t length, capacity;
    size_t open[SY_BMFF_WRITER_MAX_DEPTH]; /* offsets of the open boxes' headers */
    unsigned depth;
};

sy_status sy_bmff_writer_create(sy_context *ctx, sy_bmff_writer **out, sy_error *err) {
    if (!out) return sy__fail(err, SY_E_USAGE, "sy_bmff_writer_create: out is NULL");
    *out = NULL;
    if (!ctx) return sy__fail(err, SY_E_USAGE, "sy_bmff_writer_create: ctx is NULL");
    sy_bmff_writer *w = sy__calloc(ctx, 1, sizeof *w, "bmff writer", err);
    if (!w) return err ? err->code : SY_E_BUDGET;
    w->ctx = ctx;
    *out = w;
    return SY_OK;
}

void sy_bmff_writer_destroy(sy_bmff_writer *w) {
    if (!w) return;
    sy_context *ctx = w->ctx;
    sy__free(ctx, w->data);
    sy__free(ctx, w);
}

/* Makes room for `extra` more bytes (doubling, starting at 4 KiB). */
static sy_status reserve(sy_bmff_writer *w, size_t extra, sy_error *err) {
    if (extra <= w->capacity - w->length) return SY_OK;
    if (extra > SIZE_MAX / 2 - w->length)
        return sy__fail(err, SY_E_BUDGET, "sy_bmff_writer: size overflow (%zu + %zu bytes)", w->length, extra);
    size_t want = w->length + extra, cap = w->capacity ? w->capacity : 4096;
    while (cap < want) cap *= 2;
    uint8_t *grown = sy__alloc(w->ctx, cap, 1, "bmff writer buffer", err);
    if (!grown) return err ? err->code : SY_E_BUDGET;
    if (w->length) memcpy(grown, w->data, w->length);
    sy__free(w->ctx, w->data);
    w->data = grown;
    w->capacity = cap;
    return SY_OK;
}

sy_status sy_bmff_writer_bytes(sy_bmff_writer *w, const void *data, size_t len, sy_error *err) {
    if (!w) return sy__fail(err, SY_E_USAGE, "sy_bmff_writer_bytes: writer is NULL");
    if (len == 0) return SY_OK;
    if (!data) return sy__fail(err, SY_E_USAGE, "sy_bmff_writer_bytes: data is NULL for %zu bytes", len);
    sy_status st = reserve(w, len, err);
    if (st != SY_OK) return st;
    memcpy(w->data + w->length, data, len);
    w->length += len;
    return SY_OK;
}

static sy_status put_be(sy_bmff_writer *w, uint64_t v, unsigned bytes, sy_error *err) {
    uint8_t b[8];
    for (unsigned i = 0; i < bytes; i++) b[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    return sy_bmff_writer_bytes(w, b, bytes, err);
}

sy_status sy_bmff_writer_u8(sy_bmff_writer *w, uint8_t v, sy_error *err) { return put_be(w, v, 1, err); }
sy_status sy_bmff_writer_u16(sy_bmff_writer *w, uint16_t v, sy_error *err) { return put_be(w, v, 2, err); }
sy_status sy_bmff_writer_u32(sy_bmff_writer *w, uint32_t v, sy_error *err) { return put_be(w, v, 4, err); }
sy_status sy_bmff_writer_u64(sy_bmff_writer *w, uint64_t v, sy_error *err) { return put_be(w, v, 8, err); }

sy_status sy_bmff_writer_begin(sy_bmff_writer *w, uint32_t type, int version, uint32_t flags, sy_error *err) {
    if (!w) return sy__fail(err, SY_E_USAGE, "sy_bmff_writer_begin: writer is NULL");
    if (w->depth >= SY_BMFF_WRITER_MAX_DEPTH)
        return sy__fail(err, SY_E_USAGE, "sy_bmff_writer_begin: more than %d nested boxes", SY_BMFF_WRITER_MAX_DEPTH);
    if (version > 255 || flags > 0xFFFFFFu)
        return sy__fail(err, SY_E_USAGE, "sy_bmff_writer_begin: version %d / flags 0x%x out of range", version,
                        (unsigned)flags);
    size_t at = w->length;
    sy_status st = put_be(w, 0, 4, err); /* size, patched by end */
    if (st == SY_OK) st = put_be(w, type, 4, err);
    if (st == SY_OK && version >= 0) st = put_be(w, (uint32_t)version << 24 | flags, 4, err);
    if (st != SY_OK) {
        w->length = at;
        return st;
    }
    w->open[w->depth++] = at;
    return SY_OK;
}

sy_status sy_bmff_writer_end(sy_bmff_writer *w, sy_error *err) {
    if (!w) return sy__fail(err, SY_E_USAGE, "sy_bmff_writer_end: writer is NULL");
    if (w->depth == 0) return sy__fail(err, SY_E_USAGE, "sy_bmff_writer_end: no open box");
    size_t at = w->open[--w->depth];
    size_t size = w->length - at;
    if (size > UINT32_MAX)
        return sy__fail(err, SY_E_UNSUPPORTED, "sy_bmff_writer_end: box of %zu bytes needs a 64-bit size", size);
    uint8_t *p = w->data + at;
    p[0] = (uint8_t)(size >> 24);
    p[1] = (uint8_t)(size >> 16);
    p[2] = (uint8_t)(size >> 8);
    p[3] = (uint8_t)size;
    return SY_OK;
}

size_t sy_bmff_writer_length(const sy_bmff_writer *w) { return w ? w->length : 0; }

uint8_t *sy_bmff_writer_at(sy_bmff_writer *w, size_t offset) {
    if (!w || !w->data || offset > w->length) return NULL;
    return w->data + offset;
}

const uint8_t *sy_bmff_writer_data(const sy_bmff_writer *w) { return w ? w->data : NULL; }
