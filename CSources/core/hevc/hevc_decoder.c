/* hevc_decoder.c — one HEVC still (HEIF tile / image item) through libavcodec.
 *
 * The hvcC record is parsed once (fully bounds-checked) and kept. Every
 * sy__hevc_decode runs a single-threaded libavcodec context (tile
 * parallelism is one level up: several decoders), with the record as its
 * extradata and the item's length-prefixed NAL units as one packet, drains
 * it and hands the first picture (cropped to the conformance window) over as
 * one engine allocation. The context is then freed, so nothing of libavcodec
 * outlives a picture — or, on a decoder kept warm (a grid's tiles), flushed
 * and kept for the next picture while its memory stays charged. The SPS is
 * read and the NAL units checked before anything is
 * handed to libavcodec (hevc_params.c, shared with the movie stream
 * decoder), so oversized pictures are refused and libavcodec's own memory is
 * charged to the context before it is allocated. */
#include <malloc.h>
#include <pthread.h>
#include <string.h>

#include "base/sy_nal.h"
#include "hevc/sy_avcodec.h"
#include "hevc/sy_hevc_params.h"
#include "hevc/sy_hevc.h"

struct sy__hevc_decoder {
    sy_context *ctx;
    uint8_t *record; /* copy of the hvcC record */
    size_t record_len;
    sy__hvcc hvcc;   /* parameter-set offsets into record, length size, SPS bound */
    int keep_warm;   /* keep `warm` from picture to picture */
    sy__avdec *warm; /* the context kept, flushed, with `warm_charge` still charged */
    size_t warm_charge;
    void *handed;    /* the last picture block handed over as libavcodec's own (recyclable) */
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
    d->record = sy__alloc_copy(ctx, hvcc, hvcc_len, "hvcC record", err);
    if (!d->record) {
        sy__free(ctx, d);
        return err ? err->code : SY_E_BUDGET;
    }
    d->record_len = hvcc_len;
    *out = d;
    return SY_OK;
}

static void drop_warm(sy__hevc_decoder *dec);

void sy__hevc_decoder_destroy(sy__hevc_decoder *dec) {
    if (!dec) return;
    sy_context *ctx = dec->ctx;
    drop_warm(dec);
    if (dec->record) sy__free(ctx, dec->record);
    sy__free(ctx, dec);
}

void sy__hevc_recycle(sy__hevc_decoder *dec, sy__yuv *yuv) {
    if (!dec || !yuv) return;
    if (dec->warm && yuv->block && yuv->block == dec->handed) {
        dec->handed = NULL;
        sy__avdec_recycle_picture(dec->warm, yuv->block);
        memset(yuv, 0, sizeof *yuv);
        return;
    }
    sy__yuv_release(dec->ctx, yuv);
}

void sy__hevc_decoder_keep_warm(sy__hevc_decoder *dec, int on) {
    if (!dec) return;
    dec->keep_warm = on;
    if (!on) drop_warm(dec);
}

/* ---- decoding ---- */

void sy__yuv_release(sy_context *ctx, sy__yuv *yuv) {
    if (!yuv) return;
    if (yuv->block) sy__free(ctx, yuv->block);
    else if (yuv->plane[0]) sy__free(ctx, yuv->plane[0]);
    memset(yuv, 0, sizeof *yuv);
}

/* libavcodec's heap for one picture of the given SPS bound, measured with a
 * malloc hook (peak over the decode, libavcodec 59.37 / FFmpeg 5.1, one
 * thread): 512x512 4:2:0 8-bit 2.4 MB, 2048x1536 4:2:0 19.7 MB, 4:0:0
 * 15.0 MB, 4:4:4 31.7 MB, i.e. ~2 x the picture + ~3.3 bytes per pixel of
 * per-block tables (motion, modes, deblocking, SAO) + ~0.7 MB of context.
 * The pictures (the decoded one and SAO's working copy) are engine blocks
 * now (sy__avdec_open_picture), charged as they are allocated; the rest is
 * charged a little above the measure, plus libavcodec's copy of the item's
 * data. (libde265 needed about two thirds of the whole: 11.9 MB at 2048x1536.) */
static size_t estimate_avcodec(const sy__hevc_bound *b, size_t data_len) {
    size_t px = (size_t)b->width * b->height;
    return px * 7 / 2 + ((size_t)1 << 20) + data_len;
}

size_t sy__hevc_decode_peak_bytes(uint32_t width, uint32_t height, uint8_t chroma, uint8_t bit_depth) {
    sy__hevc_bound b = {.width = width, .height = height, .chroma = chroma, .bit_depth = bit_depth};
    size_t picture = sy__avcodec_picture_bytes(width, height, chroma, bit_depth);
    /* the tables, the two pictures (one of them handed out), coded data well under a quarter of the samples */
    return estimate_avcodec(&b, picture / 4) + 2 * picture;
}

sy_status sy__yuv_copy(sy_context *ctx, const sy__yuv *view, const int depth[3], sy__yuv *out, sy_error *err) {
    if (view->width > SY__HEVC_MAX_SIDE || view->height > SY__HEVC_MAX_SIDE)
        return sy__fail(err, SY_E_INVALID_INPUT, "decoded picture is %ux%u", view->width, view->height);
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

/* glibc sets its malloc up on first use without a lock. In a process whose
 * malloc is another allocator's (AddressSanitizer's), that first use can be
 * two tile workers' malloc_trim at once, one walking bins the other is still
 * setting up (a SEGV in glibc's mtrim, once in a make sanitize run): the
 * first trim runs once, before any other. */
static pthread_once_t first_trim_once = PTHREAD_ONCE_INIT;
static void first_trim(void) { malloc_trim(0); }

static void release_heap(void) {
    pthread_once(&first_trim_once, first_trim);
    malloc_trim(0);
}

/* The kept context goes, its charge with it, and its heap back to the system. */
static void drop_warm(sy__hevc_decoder *dec) {
    if (!dec->warm) return;
    dec->handed = NULL; /* see run_avcodec */
    sy__avdec_close(dec->warm);
    dec->warm = NULL;
    sy__discharge(dec->ctx, dec->warm_charge);
    dec->warm_charge = 0;
    release_heap();
}

/* Runs one libavcodec context over the parameter sets and `data` (one
 * picture's NAL units) and hands the picture out. A fresh context per
 * picture frees libavcodec's ~2.4 MB (512x512) between tiles; a warm one
 * (kept by the grid's tile workers, issue 15, 2026-12-06) saves its set-up and
 * the ~600 fresh pages each tile faulted in and zeroed: 7-HEIC long image
 * 130,000 -> 50,000 page faults (20,000 with pictures given back,
 * sy__hevc_recycle), CPU 2.99 -> 2.75 s, same bytes. It costs
 * ~0.9 MiB of peak RSS with two workers, paid for by streamed long-image
 * cells (collage/prefetch.c: 1.3-2.3 MB less). `inband`: the picture carries
 * its own parameter sets, which would outlive it in a kept context (the next
 * tile must see the hvcC's), so the context is not kept after it. */
static sy_status run_avcodec(sy__hevc_decoder *dec, const uint8_t *data, size_t len, int inband, sy__yuv *out,
                             sy_error *err) {
    sy__avdec *av = dec->warm;
    dec->warm = NULL;
    sy_status st = av ? SY_OK
                      : sy__avdec_open_picture(dec->ctx, SY__AVCODEC_HEVC, dec->record, dec->record_len, "hevc",
                                               &av, err);
    if (st == SY_OK) st = sy__avdec_send(av, data, len, 0, err);
    if (st == SY_OK) st = sy__avdec_send(av, NULL, 0, 0, err);
    sy__yuv view;
    int depth[3], got = 0;
    uint32_t tag = 0;
    if (st == SY_OK) st = sy__avdec_receive(av, &view, depth, &tag, &got, err);
    if (st == SY_OK && !got) st = sy__fail(err, SY_E_INVALID_INPUT, "hevc: the stream holds no picture");
    /* One bit depth in every plane (the usual case): the decoder's picture is
     * handed over as it is, no copy. */
    int planes = st == SY_OK && view.chroma ? 3 : 1, one_depth = 1;
    for (int c = 1; c < planes; c++) one_depth = one_depth && depth[c] == depth[0];
    uint8_t *block = st == SY_OK && one_depth && view.width <= SY__HEVC_MAX_SIDE && view.height <= SY__HEVC_MAX_SIDE
                         ? sy__avdec_take_picture(av)
                         : NULL;
    if (block) {
        *out = view;
        out->block = block;
        dec->handed = block;
        out->bytes = 0;
        for (int c = 0; c < planes; c++) out->bytes += (size_t)out->stride[c] * out->plane_height[c];
    } else if (st == SY_OK) {
        st = sy__yuv_copy(dec->ctx, &view, depth, out, err);
    }
    if (st == SY_OK && dec->keep_warm && !inband) {
        sy__avdec_reset(av);
        dec->warm = av;
        return st;
    }
    /* Not kept: the picture is a plain engine block now (sy__yuv_release).
     * `handed` must not outlive it: a later copied picture (sy__yuv_copy) at
     * the same address would be taken for libavcodec's and never freed. */
    dec->handed = NULL;
    sy__avdec_close(av);
    /* libavcodec's ~2.4 MB per tile goes back to the system now, not into the
     * free lists of whichever thread's malloc arena decoded it: with tile and
     * prefetch workers, several arenas would each keep a tile's worth. */
    release_heap();
    return st;
}

sy_status sy__hevc_decode(sy__hevc_decoder *dec, const uint8_t *data, size_t len, sy__yuv *out, sy_error *err) {
    if (out) memset(out, 0, sizeof *out);
    if (!dec || !out || (!data && len)) return sy__fail(err, SY_E_USAGE, "sy__hevc_decode: bad arguments");
    /* Frame the NAL units (bounded) and read any in-band SPS before libavcodec sees anything. */
    sy__hevc_bound b = dec->hvcc.bound;
    int inband = 0; /* a VPS, SPS or PPS of its own */
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
            unsigned type = (data[pos] >> 1) & 0x3f;
            inband |= type >= 32 && type <= 34;
        }
        pos += n;
    }
    if (!b.seen) return sy__fail(err, SY_E_INVALID_INPUT, "hevc: no sequence parameter set");
    if (b.width == 0 || b.height == 0 || b.width > SY__HEVC_MAX_SIDE || b.height > SY__HEVC_MAX_SIDE)
        return sy__fail(err, b.width && b.height ? SY_E_BUDGET : SY_E_INVALID_INPUT,
                        "hevc: coded picture %ux%u (limit %ux%u)", b.width, b.height, SY__HEVC_MAX_SIDE,
                        SY__HEVC_MAX_SIDE);
    /* A warm context is charged already: only what this picture needs beyond it. */
    size_t charge = estimate_avcodec(&b, len), extra = charge > dec->warm_charge ? charge - dec->warm_charge : 0;
    sy_status st = sy__charge(dec->ctx, extra, "libavcodec (estimate)", err);
    if (st != SY_OK) return st;
    size_t held = dec->warm_charge + extra;
    dec->warm_charge = 0;
    st = run_avcodec(dec, data, len, inband, out, err);
    if (dec->warm) dec->warm_charge = held; /* kept: so is its charge */
    else sy__discharge(dec->ctx, held);
    return st;
}
