/* jpeg_xmp_extension.c — reassembles a JPEG's extended XMP (sy_jpeg_xmp_extension.h). */
#include <stdlib.h>
#include <string.h>

#include "jpeg/sy_jpeg_xmp_extension.h"

typedef struct chunk {
    uint32_t offset;
    uint32_t len;
    const uint8_t *data;
} chunk;

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* 1 with the chunk and the full length it states when `m` is an APP1 chunk of `guid`. */
static int chunk_of(jpeg_saved_marker_ptr m, const char guid[33], chunk *c, uint32_t *full) {
    static const char sig[] = SY__XMP_EXT_SIGNATURE;
    if (m->marker != JPEG_APP0 + 1 || m->data_length <= SY__XMP_EXT_HEADER || memcmp(m->data, sig, sizeof sig) != 0 ||
        memcmp(m->data + sizeof sig, guid, 32) != 0)
        return 0;
    *full = be32(m->data + sizeof sig + 32);
    c->offset = be32(m->data + sizeof sig + 36);
    c->len = m->data_length - SY__XMP_EXT_HEADER;
    c->data = m->data + SY__XMP_EXT_HEADER;
    return 1;
}

static int by_offset(const void *a, const void *b) {
    uint32_t x = ((const chunk *)a)->offset, y = ((const chunk *)b)->offset;
    return x < y ? -1 : x > y;
}

sy_status sy__jpeg_xmp_extension_read(sy_context *ctx, jpeg_saved_marker_ptr markers, const char guid[33],
                                      uint8_t **out, size_t *len, sy_error *err) {
    *out = NULL, *len = 0;
    size_t count = 0;
    uint64_t total = 0;
    uint32_t full = 0, stated;
    chunk c;
    for (jpeg_saved_marker_ptr m = markers; m; m = m->next) {
        if (!chunk_of(m, guid, &c, &stated)) continue;
        if (count && stated != full) return SY_OK; /* chunks that disagree on the whole: not one packet */
        full = stated, count++, total += c.len;
    }
    if (!count || full == 0 || total != full) return SY_OK; /* none, missing or repeated parts */
    chunk *chunks = sy__alloc(ctx, count, sizeof *chunks, "extended XMP chunks", err);
    if (!chunks) return err ? err->code : SY_E_BUDGET;
    size_t n = 0;
    for (jpeg_saved_marker_ptr m = markers; m; m = m->next)
        if (chunk_of(m, guid, &c, &stated)) chunks[n++] = c;
    qsort(chunks, n, sizeof *chunks, by_offset);
    uint64_t next = 0; /* contiguous from 0 to full, each byte once */
    for (size_t i = 0; i < n && next <= full; i++) next = chunks[i].offset == next ? next + chunks[i].len : (uint64_t)full + 1;
    sy_status st = SY_OK;
    if (next == full && (*out = sy__alloc(ctx, full, 1, "extended XMP", err)) != NULL) {
        for (size_t i = 0; i < n; i++) memcpy(*out + chunks[i].offset, chunks[i].data, chunks[i].len);
        *len = full;
    } else if (next == full) {
        st = err ? err->code : SY_E_BUDGET;
    }
    sy__free(ctx, chunks);
    return st;
}
