/* hevc_decoder.c — one HEVC still (HEIF tile / image item) through libde265.
 *
 * The hvcC record is parsed once (fully bounds-checked) and its parameter-set
 * NAL units kept. Every sy__hevc_decode runs a fresh libde265 context (a
 * reference on libde265's global tables is held for the decoder's lifetime,
 * so they are not rebuilt per tile): pushes the parameter sets, then the
 * item's length-prefixed NAL units, decodes, copies the first picture into one
 * engine allocation and frees the context, so nothing of libde265 outlives a
 * tile. The SPS is read before anything is handed to libde265 (hevc_params.c,
 * shared with the movie stream decoder), so oversized pictures are refused
 * and libde265's own memory is charged to the context before it is allocated. */
#include <string.h>

#include "base/sy_nal.h"
#include "hevc/sy_avcodec.h"
#include "hevc/sy_hevc_params.h"
#include "hevc/sy_hevc.h"

#ifndef REUSE_CONTEXT
#define REUSE_CONTEXT 1
#endif

struct sy__hevc_decoder {
    sy_context *ctx;
    uint8_t *record; /* copy of the hvcC record */
    size_t record_len;
    sy__hvcc hvcc;   /* parameter-set offsets into record, length size, SPS bound */
    sy__avdec *av;   /* kept between tiles (REUSE_CONTEXT) */
};

sy_status sy__hevc_decoder_create(sy_context *ctx, const uint8_t *hvcc, size_t hvcc_len, sy__hevc_decoder **out,
                                  sy_error *err) {
    if (!out) return sy__fail(err, SY_E_USAGE, "sy__hevc_decoder_create: out is NULL");
    *out = NULL;
    if (!ctx || (!hvcc && hvcc_len)) return sy__fail(err, SY_E_USAGE, "sy__hevc_decoder_create: bad arguments");
    sy__hvcc parsed;
    sy_status st = sy__hvcc_parse(hvcc, hvcc_len, &parsed, err);
    if (st != SY_OK) return st;
    sy__hevc_decoder *d = sy__calloc(ctx, 1, sizeof *d, "hevc decoder", err);
    if (!d) return err ? err->code : SY_E_BUDGET;
    d->ctx = ctx;
    d->hvcc = parsed;
    d->record = sy__alloc(ctx, hvcc_len, 1, "hvcC record", err);
    if (!d->record) {
        sy__free(ctx, d);
        return err ? err->code : SY_E_BUDGET;
    }
    memcpy(d->record, hvcc, hvcc_len);
    d->record_len = hvcc_len;
    *out = d;
    return SY_OK;
}

void sy__hevc_decoder_destroy(sy__hevc_decoder *dec) {
    if (!dec) return;
    sy_context *ctx = dec->ctx;
    sy__avdec_close(dec->av);
    if (dec->record) sy__free(ctx, dec->record);
    sy__free(ctx, dec);
}

/* ---- decoding ---- */

void sy__yuv_release(sy_context *ctx, sy__yuv *yuv) {
    if (!yuv) return;
    if (yuv->plane[0]) sy__free(ctx, yuv->plane[0]);
    memset(yuv, 0, sizeof *yuv);
}

/* libavcodec's heap for one still of the given SPS bound: ESTIMATE_PLACEHOLDER */
static size_t estimate_avcodec(const sy__hevc_bound *b, size_t data_len) {
    size_t px = (size_t)b->width * b->height;
    return sy__avcodec_picture_bytes(b->width, b->height, b->chroma, b->bit_depth) * 3 / 2 + px * 5 / 2 +
           ((size_t)256 << 10) + 2 * data_len;
}

/* Copies a decoded picture into one engine block, each plane at the deepest
 * plane's bit depth (a shallower plane is scaled up to it). */
static sy_status copy_picture(sy_context *ctx, const sy__yuv *view, const int depth[3], sy__yuv *out,
                              sy_error *err) {
    if (view->width > SY__HEVC_MAX_SIDE || view->height > SY__HEVC_MAX_SIDE)
        return sy__fail(err, SY_E_INVALID_INPUT, "hevc: decoded picture is %ux%u", view->width, view->height);
    int planes = view->chroma == 0 ? 1 : 3;
    size_t bps = view->bit_depth > 8 ? 2 : 1, total = 0;
    for (int c = 0; c < planes; c++) total += (size_t)view->plane_width[c] * view->plane_height[c] * bps;
    uint8_t *block = sy__alloc(ctx, total, 1, "hevc picture", err);
    if (!block) return err ? err->code : SY_E_BUDGET;
    *out = *view;
    out->bytes = total;
    uint8_t *dst = block;
    for (int c = 0; c < planes; c++) {
        uint32_t pw = view->plane_width[c];
        size_t row_bytes = (size_t)pw * bps;
        out->plane[c] = dst;
        out->stride[c] = (uint32_t)row_bytes;
        int up = view->bit_depth - depth[c];
        for (uint32_t y = 0; y < view->plane_height[c]; y++, dst += row_bytes) {
            const uint8_t *s = view->plane[c] + (size_t)y * view->stride[c];
            if (bps == 1 || (depth[c] > 8 && up == 0)) {
                memcpy(dst, s, row_bytes);
            } else if (depth[c] > 8) {
                const uint16_t *s16 = (const uint16_t *)(const void *)s;
                uint16_t *d16 = (uint16_t *)(void *)dst;
                for (uint32_t x = 0; x < pw; x++) d16[x] = (uint16_t)(s16[x] << up);
            } else {
                uint16_t *d16 = (uint16_t *)(void *)dst;
                for (uint32_t x = 0; x < pw; x++) d16[x] = (uint16_t)(s[x] << up);
            }
        }
    }
    return SY_OK;
}

/* Decodes `data` (one picture's NAL units) and copies its picture out. */
static sy_status run_avcodec(sy__hevc_decoder *dec, const uint8_t *data, size_t len, sy__yuv *out, sy_error *err) {
    sy_status st = SY_OK;
    if (!dec->av)
        st = sy__avdec_open(dec->ctx, SY__AVCODEC_HEVC, dec->record, dec->record_len, 1, "hevc", &dec->av, err);
    if (st == SY_OK) st = sy__avdec_send(dec->av, data, len, 0, err);
    if (st == SY_OK) st = sy__avdec_send(dec->av, NULL, 0, 0, err);
    sy__yuv view;
    int depth[3], got = 0;
    uint32_t tag = 0;
    if (st == SY_OK) st = sy__avdec_receive(dec->av, &view, depth, &tag, &got, err);
    if (st == SY_OK && !got) st = sy__fail(err, SY_E_INVALID_INPUT, "hevc: the stream holds no picture");
    if (st == SY_OK) st = copy_picture(dec->ctx, &view, depth, out, err);
    if (dec->av && (!REUSE_CONTEXT || st != SY_OK)) {
        sy__avdec_close(dec->av);
        dec->av = NULL;
    } else if (dec->av) {
        sy__avdec_reset(dec->av);
    }
    return st;
}

sy_status sy__hevc_decode(sy__hevc_decoder *dec, const uint8_t *data, size_t len, sy__yuv *out, sy_error *err) {
    if (out) memset(out, 0, sizeof *out);
    if (!dec || !out || (!data && len)) return sy__fail(err, SY_E_USAGE, "sy__hevc_decode: bad arguments");
    /* Frame the NAL units (bounded) and read any in-band SPS before libde265 sees anything. */
    sy__hevc_bound b = dec->hvcc.bound;
    for (size_t pos = 0; pos < len;) {
        if (len - pos < dec->hvcc.length_size)
            return sy__fail(err, SY_E_INVALID_INPUT, "hevc: tile data truncated (length prefix at byte %zu of %zu)",
                            pos, len);
        uint32_t n = sy__nal_length(data + pos, dec->hvcc.length_size);
        pos += dec->hvcc.length_size;
        if (n > len - pos)
            return sy__fail(err, SY_E_INVALID_INPUT,
                            "hevc: tile data truncated (NAL unit of %u bytes at byte %zu, %zu left)", n, pos,
                            len - pos);
        if (n > (uint32_t)INT32_MAX) return sy__fail(err, SY_E_INVALID_INPUT, "hevc: NAL unit of %u bytes", n);
        if (n) {
            size_t run = sy__nal_forbidden_run(data + pos, n);
            if (run < n)
                return sy__fail(err, SY_E_INVALID_INPUT,
                                "hevc: tile data damaged (%02x %02x %02x at byte %zu of a NAL unit, which emulation "
                                "prevention forbids)",
                                data[pos + run], data[pos + run + 1], data[pos + run + 2], run);
            sy_status st = sy__hevc_note_nal(data + pos, n, &b, "hevc: item data", err);
            if (st != SY_OK) return st;
        }
        pos += n;
    }
    if (!b.seen) return sy__fail(err, SY_E_INVALID_INPUT, "hevc: no sequence parameter set");
    if (b.width == 0 || b.height == 0 || b.width > SY__HEVC_MAX_SIDE || b.height > SY__HEVC_MAX_SIDE)
        return sy__fail(err, b.width && b.height ? SY_E_BUDGET : SY_E_INVALID_INPUT,
                        "hevc: coded picture %ux%u (limit %ux%u)", b.width, b.height, SY__HEVC_MAX_SIDE,
                        SY__HEVC_MAX_SIDE);
    size_t charge = estimate_avcodec(&b, len);
    sy_status st = sy__charge(dec->ctx, charge, "libavcodec (estimate)", err);
    if (st != SY_OK) return st;
    st = run_avcodec(dec, data, len, out, err);
    sy__discharge(dec->ctx, charge);
    return st;
}
