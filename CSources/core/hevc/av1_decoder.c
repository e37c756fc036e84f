/* av1_decoder.c — one AV1 still (AVIF image item) through libavcodec's
 * libdav1d decoder (sy_av1.h).
 *
 * As for HEVC (hevc_decoder.c): the av1C record is parsed once and kept;
 * every sy__av1_decode walks the item's OBUs (bounded), takes the largest
 * frame from a sequence header, refuses oversized pictures, charges an
 * estimate of the decoder's memory, runs a fresh one-thread libavcodec
 * context with the record as extradata and the OBUs as one packet, and
 * copies the picture into one engine block (dav1d's pictures are its own). */
#include <string.h>

#include "hevc/sy_av1.h"
#include "hevc/sy_avcodec.h"
#include "hevc/sy_hevc.h"

struct sy__av1_decoder {
    sy_context *ctx;
    uint8_t *record; /* copy of the av1C record */
    size_t record_len;
    sy__av1c av1c;
};

sy_status sy__av1_decoder_create(sy_context *ctx, const uint8_t *av1c, size_t av1c_len, sy__av1_decoder **out,
                                 sy_error *err) {
    if (!out) return sy__fail(err, SY_E_USAGE, "sy__av1_decoder_create: out is NULL");
    *out = NULL;
    if (!ctx) return sy__fail(err, SY_E_USAGE, "sy__av1_decoder_create: bad arguments");
    sy__av1c parsed;
    sy_status st = sy__av1c_parse(av1c, av1c_len, &parsed, err);
    if (st != SY_OK) return st;
    sy__av1_decoder *d = sy__calloc(ctx, 1, sizeof *d, "av1 decoder", err);
    if (!d) return err ? err->code : SY_E_BUDGET;
    d->ctx = ctx;
    d->av1c = parsed;
    if (!(d->record = sy__alloc_copy(ctx, av1c, av1c_len, "av1C record", err))) {
        sy__free(ctx, d);
        return err ? err->code : SY_E_BUDGET;
    }
    d->record_len = av1c_len;
    *out = d;
    return SY_OK;
}

void sy__av1_decoder_destroy(sy__av1_decoder *dec) {
    if (!dec) return;
    if (dec->record) sy__free(dec->ctx, dec->record);
    sy__free(dec->ctx, dec);
}

/* dav1d's heap for one still at one thread, outside the engine's allocator:
 * its picture, the per-block tables of one frame and its context. Measured
 * as the peak RSS of `ffmpeg -c:v libdav1d -threads 1` (libdav1d 1.0, FFmpeg
 * 5.1) on a 2048x1536 still over a 64x64 one: 4:2:0 8-bit +6.0 MB, 4:0:0
 * +4.3 MB, i.e. the picture + ~0.4 bytes per pixel. Charged on the high
 * side: the picture + 1 byte per pixel + 2 MB of context, plus libavcodec's
 * copy of the data. */
static size_t estimate_dav1d(const sy__av1_sequence *s, size_t data_len) {
    size_t px = (size_t)s->max_width * s->max_height;
    size_t picture = px * (s->bit_depth > 8 ? 2 : 1) * (s->chroma == 0 ? 2 : s->chroma == 1 ? 3 : s->chroma == 2 ? 4 : 6) / 2;
    return picture + px + ((size_t)2 << 20) + data_len;
}

static sy_status run_avcodec(sy__av1_decoder *dec, const uint8_t *data, size_t len, const sy__av1_sequence *seq,
                             sy__yuv *out, sy_error *err) {
    sy__avdec *av = NULL;
    /* libdav1d reads the record's sequence header; a bare 4-byte record says nothing it needs */
    sy_status st = sy__avdec_open(dec->ctx, SY__AVCODEC_AV1, dec->record, dec->record_len > 4 ? dec->record_len : 0, 1,
                                  "av1", &av, err);
    if (st == SY_OK) st = sy__avdec_send(av, data, len, 0, err);
    if (st == SY_OK) st = sy__avdec_send(av, NULL, 0, 0, err);
    sy__yuv view;
    int depth[3], got = 0;
    uint32_t tag = 0;
    if (st == SY_OK) st = sy__avdec_receive(av, &view, depth, &tag, &got, err);
    if (st == SY_OK && !got) st = sy__fail(err, SY_E_INVALID_INPUT, "av1: the item holds no picture");
    int received = st == SY_OK;
    if (st == SY_OK && (view.width > seq->max_width || view.height > seq->max_height))
        st = sy__fail(err, SY_E_INVALID_INPUT, "av1: picture %ux%u beyond its sequence header's %ux%u", view.width,
                      view.height, seq->max_width, seq->max_height);
    if (st == SY_OK) {
        st = sy__yuv_copy(dec->ctx, &view, depth, out, err);
        /* the sequence header's colour, range included (libavcodec's frame may leave it unspecified) */
        if (st == SY_OK) out->vui = seq->colour, out->vui.present = 1, out->vui.full_range = seq->full_range;
    }
    if (received) sy__avdec_release(av);
    sy__avdec_close(av);
    return st;
}

sy_status sy__av1_decode(sy__av1_decoder *dec, const uint8_t *data, size_t len, sy__yuv *out, sy_error *err) {
    if (out) memset(out, 0, sizeof *out);
    if (!dec || !out || (!data && len)) return sy__fail(err, SY_E_USAGE, "sy__av1_decode: bad arguments");
    if (!len) return sy__fail(err, SY_E_INVALID_INPUT, "av1: the item holds no data");
    sy__av1_sequence seq = dec->av1c.sequence;
    uint8_t has = 0;
    size_t at = 0;
    const char *why = sy__av1_walk_item(data, len, &seq, &has, &at);
    if (why) return sy__fail(err, SY_E_INVALID_INPUT, "av1: item data damaged: %s (byte %zu of %zu)", why, at, len);
    if (!has && !dec->av1c.has_sequence) return sy__fail(err, SY_E_INVALID_INPUT, "av1: no sequence header");
    if (has && (seq.profile != dec->av1c.profile || seq.bit_depth != dec->av1c.bit_depth ||
                seq.chroma != dec->av1c.chroma))
        return sy__fail(err, SY_E_INVALID_INPUT, "av1: the item's sequence header contradicts its av1C");
    if (seq.max_width > SY__AV1_MAX_SIDE || seq.max_height > SY__AV1_MAX_SIDE)
        return sy__fail(err, SY_E_BUDGET, "av1: frames up to %ux%u (limit %ux%u)", seq.max_width, seq.max_height,
                        SY__AV1_MAX_SIDE, SY__AV1_MAX_SIDE);
    size_t charge = estimate_dav1d(&seq, len);
    sy_status st = sy__charge(dec->ctx, charge, "libdav1d (estimate)", err);
    if (st != SY_OK) return st;
    st = run_avcodec(dec, data, len, &seq, out, err);
    sy__discharge(dec->ctx, charge);
    return st;
}
