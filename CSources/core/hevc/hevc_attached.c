/* hevc_attached.c — see sy_hevc_attached.h. */
#include <string.h>

#include "hevc/sy_hevc_attached.h"

enum { HEVC_PREFIX_SEI = 39, SEI_USER_DATA_REGISTERED_T35 = 4 };

static int64_t find(const sy__hevc_attached_queue *q, int64_t pts) {
    for (uint32_t i = 0; i < q->count; i++)
        if (q->items[i].pts == pts) return i;
    return -1;
}

sy_status sy__hevc_attached_add(sy_context *ctx, sy__hevc_attached_queue *q, int64_t pts, const uint8_t *payload, size_t len,
                           sy_error *err) {
    if (!payload || len == 0 || len > ((size_t)1 << 20))
        return sy__fail(err, SY_E_USAGE, "x265 encoder: %zu bytes to hand on with a picture", len);
    if (find(q, pts) >= 0)
        return sy__fail(err, SY_E_USAGE, "x265 encoder: two of a kind for the picture at pts %lld", (long long)pts);
    if (q->count == q->cap) {
        uint32_t cap = q->cap ? q->cap * 2 : 16;
        sy__hevc_attached *grown = sy__alloc(ctx, cap, sizeof *grown, "messages in flight", err);
        if (!grown) return err ? err->code : SY_E_BUDGET;
        if (q->count) memcpy(grown, q->items, q->count * sizeof *grown);
        if (q->items) sy__free(ctx, q->items);
        q->items = grown;
        q->cap = cap;
    }
    uint8_t *copy = sy__alloc_copy(ctx, payload, len, "message for a picture", err);
    if (!copy) return err ? err->code : SY_E_BUDGET;
    q->items[q->count++] = (sy__hevc_attached){pts, len, copy};
    return SY_OK;
}

size_t sy__hevc_attached_sei_bound(const sy__hevc_attached_queue *q, int64_t pts) {
    int64_t i = find(q, pts);
    if (i < 0) return 0;
    size_t rbsp = 1 + q->items[i].len / 255 + 1 + q->items[i].len + 1; /* type, size, payload, trailing bits */
    return 4 + 2 + rbsp + rbsp / 2 + 1;                                   /* escapes: one per two bytes at most */
}

/* rbsp byte `b` appended after `zeros` zero bytes, with an emulation-prevention byte where needed */
static size_t put(uint8_t *out, size_t o, uint8_t b, unsigned *zeros) {
    if (*zeros >= 2 && b <= 3) {
        out[o++] = 3;
        *zeros = 0;
    }
    out[o++] = b;
    *zeros = b == 0 ? *zeros + 1 : 0;
    return o;
}

/* Removes and returns the item for `pts` (its bytes are the caller's to free). */
static sy__hevc_attached take(sy__hevc_attached_queue *q, int64_t i) {
    sy__hevc_attached m = q->items[i];
    q->items[i] = q->items[--q->count];
    return m;
}

static void put_length(uint8_t *out, size_t nal) {
    out[0] = (uint8_t)(nal >> 24), out[1] = (uint8_t)(nal >> 16), out[2] = (uint8_t)(nal >> 8), out[3] = (uint8_t)nal;
}

size_t sy__hevc_attached_take_sei(sy_context *ctx, sy__hevc_attached_queue *q, int64_t pts, uint8_t *out) {
    int64_t i = find(q, pts);
    if (i < 0) return 0;
    sy__hevc_attached m = take(q, i);
    size_t o = 4;
    out[o++] = HEVC_PREFIX_SEI << 1; /* nuh_layer_id 0 */
    out[o++] = 1;                    /* temporal id 0 */
    unsigned zeros = 0;
    o = put(out, o, SEI_USER_DATA_REGISTERED_T35, &zeros);
    size_t size = m.len;
    for (; size >= 255; size -= 255) o = put(out, o, 255, &zeros);
    o = put(out, o, (uint8_t)size, &zeros);
    for (size_t k = 0; k < m.len; k++) o = put(out, o, m.bytes[k], &zeros);
    o = put(out, o, 0x80, &zeros); /* rbsp_trailing_bits */
    put_length(out, o - 4);
    sy__free(ctx, m.bytes);
    return o;
}

size_t sy__hevc_attached_nal_bound(const sy__hevc_attached_queue *q, int64_t pts) {
    int64_t i = find(q, pts);
    return i < 0 ? 0 : 4 + q->items[i].len;
}

size_t sy__hevc_attached_take_nal(sy_context *ctx, sy__hevc_attached_queue *q, int64_t pts, uint8_t *out) {
    int64_t i = find(q, pts);
    if (i < 0) return 0;
    sy__hevc_attached m = take(q, i);
    put_length(out, m.len);
    memcpy(out + 4, m.bytes, m.len);
    sy__free(ctx, m.bytes);
    return 4 + m.len;
}

void sy__hevc_attached_free(sy_context *ctx, sy__hevc_attached_queue *q) {
    for (uint32_t i = 0; i < q->count; i++) sy__free(ctx, q->items[i].bytes);
    if (q->items) sy__free(ctx, q->items);
    memset(q, 0, sizeof *q);
}
