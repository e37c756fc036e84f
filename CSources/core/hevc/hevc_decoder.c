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
#include "hevc/sy_de265.h"
#include "hevc/sy_hevc.h"

struct sy__hevc_decoder {
    sy_context *ctx;
    uint8_t *record; /* copy of the hvcC record */
    size_t record_len;
    sy__hvcc hvcc;   /* parameter-set offsets into record, length size, SPS bound */
    int de265_ref;   /* holds a de265_init reference */
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
    d->de265_ref = sy__de265_hold(); /* keeps libde265's tables alive between per-tile contexts */
    *out = d;
    return SY_OK;
}

void sy__hevc_decoder_destroy(sy__hevc_decoder *dec) {
    if (!dec) return;
    sy_context *ctx = dec->ctx;
    sy__de265_drop(dec->de265_ref);
    if (dec->record) sy__free(ctx, dec->record);
    sy__free(ctx, dec);
}

/* ---- decoding ---- */

void sy__yuv_release(sy_context *ctx, sy__yuv *yuv) {
    if (!yuv) return;
    if (yuv->plane[0]) sy__free(ctx, yuv->plane[0]);
    memset(yuv, 0, sizeof *yuv);
}

/* libde265's heap for one picture of the given SPS bound, measured with a
 * malloc hook (peak over the decode, libde265 1.0.11): 512x512 4:2:0 8-bit
 * 1.07 MB, 10-bit 1.70 MB, 4:0:0 0.92 MB, 4:4:4 1.45 MB, 2048x1536 11.9 MB,
 * i.e. ~1.2 x the picture + ~2.5 bytes per pixel of metadata (per-4x4 motion,
 * modes, deblocking, SAO). Charged a little above that, plus the queued NAL copies. */
static size_t estimate_de265(const sy__hevc_bound *b, size_t data_len) {
    size_t px = (size_t)b->width * b->height;
    return sy__hevc_picture_bytes(b) * 3 / 2 + px * 5 / 2 + ((size_t)256 << 10) + 2 * data_len;
}

/* Copies a decoded picture into one engine block, each plane at the deepest
 * plane's bit depth (a shallower plane is scaled up to it). */
static sy_status copy_picture(sy_context *ctx, const struct de265_image *img, sy__yuv *out, sy_error *err) {
    sy__yuv view;
    int depth[3];
    sy_status st = sy__de265_view(img, &view, depth, "hevc", err);
    if (st != SY_OK) return st;
    if (view.width > SY__HEVC_MAX_SIDE || view.height > SY__HEVC_MAX_SIDE)
        return sy__fail(err, SY_E_INVALID_INPUT, "hevc: decoded picture is %ux%u", view.width, view.height);
    int planes = view.chroma == 0 ? 1 : 3;
    size_t bps = view.bit_depth > 8 ? 2 : 1, total = 0;
    for (int c = 0; c < planes; c++) total += (size_t)view.plane_width[c] * view.plane_height[c] * bps;
    uint8_t *block = sy__alloc(ctx, total, 1, "hevc picture", err);
    if (!block) return err ? err->code : SY_E_BUDGET;
    *out = view;
    out->bytes = total;
    uint8_t *dst = block;
    for (int c = 0; c < planes; c++) {
        uint32_t pw = view.plane_width[c];
        size_t row_bytes = (size_t)pw * bps;
        out->plane[c] = dst;
        out->stride[c] = (uint32_t)row_bytes;
        int up = view.bit_depth - depth[c];
        for (uint32_t y = 0; y < view.plane_height[c]; y++, dst += row_bytes) {
            const uint8_t *s = view.plane[c] + (size_t)y * view.stride[c];
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

/* Runs one libde265 context over the parameter sets and `data`. */
static sy_status run_de265(sy__hevc_decoder *dec, const uint8_t *data, size_t len, uint32_t nal_count, sy__yuv *out,
                           sy_error *err) {
    de265_decoder_context *de = sy__de265_new_decoder();
    if (!de) return sy__fail(err, SY_E_CODEC, "hevc: libde265 could not create a decoder");
    sy_status st = SY_OK;
    de265_error e = sy__de265_push_parameter_sets(de, dec->record, &dec->hvcc);
    if (de265_isOK(e)) e = sy__de265_push_nals(de, data, len, dec->hvcc.length_size, 0);
    if (de265_isOK(e)) e = de265_flush_data(de);
    if (!de265_isOK(e)) {
        st = sy__fail_sub(err, SY_E_CODEC, (int32_t)e, "hevc: libde265: %s", de265_get_error_text(e));
        goto done;
    }
    int got = 0, more = 1;
    /* One NAL unit per de265_decode call, plus the end-of-stream flushes. */
    uint64_t budget = (uint64_t)dec->hvcc.ps_count + nal_count + 16;
    while (more && !got) {
        if (budget-- == 0) {
            st = sy__fail(err, SY_E_CODEC, "hevc: libde265 made no progress");
            goto done;
        }
        more = 0;
        e = de265_decode(de, &more);
        if (e == DE265_ERROR_WAITING_FOR_INPUT_DATA) break; /* cannot happen after flush */
        if (!de265_isOK(e) && e != DE265_ERROR_IMAGE_BUFFER_FULL) {
            st = sy__fail_sub(err, SY_E_CODEC, (int32_t)e, "hevc: libde265: %s", de265_get_error_text(e));
            goto done;
        }
        const struct de265_image *img = de265_get_next_picture(de);
        if (img) {
            st = copy_picture(dec->ctx, img, out, err);
            de265_release_next_picture(de);
            if (st != SY_OK) goto done;
            got = 1;
        } else if (e == DE265_ERROR_IMAGE_BUFFER_FULL) {
            st = sy__fail(err, SY_E_CODEC, "hevc: libde265 picture buffer full without output");
            goto done;
        }
    }
    if (!got) st = sy__fail(err, SY_E_INVALID_INPUT, "hevc: the stream holds no picture");
done:
    de265_free_decoder(de);
    return st;
}

sy_status sy__hevc_decode(sy__hevc_decoder *dec, const uint8_t *data, size_t len, sy__yuv *out, sy_error *err) {
    if (out) memset(out, 0, sizeof *out);
    if (!dec || !out || (!data && len)) return sy__fail(err, SY_E_USAGE, "sy__hevc_decode: bad arguments");
    /* Frame the NAL units (bounded) and read any in-band SPS before libde265 sees anything. */
    sy__hevc_bound b = dec->hvcc.bound;
    uint32_t nal_count = 0;
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
            sy_status st = sy__hevc_note_nal(data + pos, n, &b, "hevc: item data", err);
            if (st != SY_OK) return st;
            nal_count++;
        }
        pos += n;
    }
    if (!b.seen) return sy__fail(err, SY_E_INVALID_INPUT, "hevc: no sequence parameter set");
    if (b.width == 0 || b.height == 0 || b.width > SY__HEVC_MAX_SIDE || b.height > SY__HEVC_MAX_SIDE)
        return sy__fail(err, b.width && b.height ? SY_E_BUDGET : SY_E_INVALID_INPUT,
                        "hevc: coded picture %ux%u (limit %ux%u)", b.width, b.height, SY__HEVC_MAX_SIDE,
                        SY__HEVC_MAX_SIDE);
    size_t charge = estimate_de265(&b, len);
    sy_status st = sy__charge(dec->ctx, charge, "libde265 (estimate)", err);
    if (st != SY_OK) return st;
    st = run_de265(dec, data, len, nal_count, out, err);
    sy__discharge(dec->ctx, charge);
    return st;
}
