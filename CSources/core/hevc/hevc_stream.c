/* hevc_stream.c — a movie's HEVC track through one libavcodec decoder (issues 4, 15).
 *
 * The hvcC parameter sets (or, for hev1 without them, those of sample 0) are
 * read with hevc_params.c before libavcodec sees anything: the picture size,
 * chroma format, bit depth and DPB size bound what libavcodec will allocate,
 * and that estimate is charged to the context for the decoder's lifetime.
 * An in-band SPS asking for more than the stream was set up for is refused
 * before libavcodec reads it. The hvcC record goes to libavcodec as its
 * extradata (NAL length size included), each sample as one packet whose
 * timestamp is the sample's tag; libavcodec applies the DPB bumping process
 * and hands pictures out in display order, cropped to the conformance
 * window, with the tag of their sample.
 *
 * Frame threads decode up to STREAM_THREADS pictures at once in the
 * background, so the caller's colour conversion overlaps decoding; the output
 * is bit-exact with a single thread. Damage is an error naming its sample
 * (sy_avcodec.h). */
#include <string.h>

#include "base/sy_hdr_static.h"
#include "base/sy_nal.h"
#include "hevc/sy_avcodec.h"
#include "hevc/sy_hevc.h"
#include "hevc/sy_hevc_params.h"

enum { NAL_RASL_N = 8, NAL_RASL_R = 9, NAL_FIRST_NON_VCL = 32 };

typedef struct hevc_stream {
    sy__avdec_vstream dec; /* first: the shared operations take the stream as a sy__avdec_vstream */
    uint32_t length_size;
    sy__hevc_bound bound; /* what the charge covers */
    int layered;          /* some SPS has more than one temporal sub-layer */
} hevc_stream;

/* Finds the parameters of the first SPS among sample 0's length-prefixed NAL
 * units (hev1 may carry them there) and widens the bound with every SPS. */
static int first_sps_in_sample(const uint8_t *data, size_t len, uint32_t length_size, sy__hevc_sps *sps,
                               sy__hevc_bound *b, sy_error *err, sy_status *st) {
    int found = 0;
    const uint8_t *nal;
    uint32_t n;
    for (size_t pos = 0; sy__nal_next(data, len, length_size, &pos, &nal, &n);) {
        if (n >= 2 && sy__hevc_nal_type(nal) == SY__HEVC_NAL_SPS) {
            if ((*st = sy__hevc_note_nal(nal, n, b, "sample 0", err)) != SY_OK) return 0;
            if (!found) found = sy__hevc_sps_parse(nal, n, sps);
        }
    }
    return found;
}

static sy_status hevc_send(sy__vstream *base, const uint8_t *data, size_t len, uint32_t tag, int *may_vanish,
                           sy_error *err) {
    hevc_stream *s = (hevc_stream *)base;
    *may_vanish = 0;
    uint32_t nals = 0;
    sy_status st = sy__nal_framing(data, len, s->length_size, tag, &nals, err);
    if (st != SY_OK) return st;
    /* In-band parameter sets must fit what was charged; note the picture type. */
    int first_vcl = -1;
    for (size_t pos = 0; pos < len;) {
        uint32_t n = sy__nal_length(data + pos, s->length_size);
        pos += s->length_size;
        if (n >= 2) {
            unsigned type = sy__hevc_nal_type(data + pos);
            if (type < NAL_FIRST_NON_VCL && first_vcl < 0) first_vcl = (int)type;
            if (type == SY__HEVC_NAL_SPS) {
                sy__hevc_bound b = {0};
                char where[32];
                snprintf(where, sizeof where, "sample %u", tag);
                if ((st = sy__hevc_note_nal(data + pos, n, &b, where, err)) != SY_OK) return st;
                sy__hevc_sps in_band;
                if (!sy__hevc_sps_parse(data + pos, n, &in_band) || in_band.max_sub_layers > 1) s->layered = 1;
                if (b.width > s->bound.width || b.height > s->bound.height || b.chroma > s->bound.chroma ||
                    b.bit_depth > s->bound.bit_depth || b.dpb > s->bound.dpb)
                    return sy__fail(err, SY_E_UNSUPPORTED,
                                    "sample %u: a new sequence parameter set (%ux%u, %u-bit) exceeds the stream's "
                                    "first (%ux%u, %u-bit)",
                                    tag, b.width, b.height, b.bit_depth, s->bound.width, s->bound.height,
                                    s->bound.bit_depth);
            }
        } else if (n == 1) {
            return sy__fail(err, SY_E_INVALID_INPUT, "sample %u: NAL unit of 1 byte", tag);
        }
        pos += n;
    }
    *may_vanish = first_vcl == NAL_RASL_N || first_vcl == NAL_RASL_R;
    return sy__avdec_send(s->dec.av, data, len, tag, err);
}

/* The type of a sample's first VCL NAL unit, which says what its picture
 * is; -1 when the sample holds none or is malformed. */
static int first_vcl_type(const hevc_stream *s, const uint8_t *data, size_t len) {
    const uint8_t *nal;
    uint32_t n;
    for (size_t pos = 0; sy__nal_next(data, len, s->length_size, &pos, &nal, &n);) {
        if (n < 2) return -1;
        unsigned type = sy__hevc_nal_type(nal);
        if (type < NAL_FIRST_NON_VCL) return (int)type;
    }
    return -1;
}

/* TRAIL_N, TSA_N, STSA_N, RADL_N, RASL_N and the reserved _N types are the
 * even types below 16. */
static int hevc_disposable(const sy__vstream *base, const uint8_t *data, size_t len) {
    const hevc_stream *s = (const hevc_stream *)base;
    int type = s->layered ? -1 : first_vcl_type(s, data, len);
    return type >= 0 && type < 16 && (type & 1) == 0;
}

/* BLA (16..18) or IDR (19, 20). */
static int hevc_random_access(const sy__vstream *base, const uint8_t *data, size_t len) {
    int type = first_vcl_type((const hevc_stream *)base, data, len);
    return type >= 16 && type <= 20;
}

static const sy__vstream_ops hevc_ops = {hevc_send,
                                         sy__avdec_vstream_finish,
                                         sy__avdec_vstream_receive,
                                         sy__avdec_vstream_release,
                                         sy__avdec_vstream_destroy,
                                         hevc_disposable,
                                         hevc_random_access};

/* libavcodec's heap for a stream, measured with a malloc hook over whole
 * decodes (libavcodec 59.37 / FFmpeg 5.1, two frame threads, DPB size 5):
 * 320x240 8-bit 3.8 MB, 10-bit 4.7 MB, the iPhone Live movie 1920x1440 8-bit
 * 49.8 MB (ffmpeg itself with one thread: 44.1 MB) — DPB + threads + 1
 * pictures, each its samples plus ~0.65 bytes per pixel of motion and
 * per-picture tables, and ~2.5 MB of contexts. Charged a little above
 * (libde265 needed 46 MB for the iPhone movie). */
static size_t stream_estimate(const sy__hevc_bound *b, int threads) {
    size_t px = (size_t)b->width * b->height;
    size_t picture = sy__avcodec_picture_bytes(b->width, b->height, b->chroma, b->bit_depth) + px * 3 / 4;
    size_t pictures = (size_t)(b->dpb ? b->dpb : 16) + 1 + (size_t)threads;
    return picture * pictures + ((size_t)3 << 20);
}

sy_status sy__hevc_stream_create(sy_context *ctx, const uint8_t *config, size_t config_len, const uint8_t *first,
                                 size_t first_len, int threads, sy__vstream **out, sy_error *err) {
    *out = NULL;
    sy__hvcc hvcc;
    sy_status st = sy__hvcc_parse(config, config_len, &hvcc, err);
    if (st != SY_OK) return st;
    sy__hevc_sps sps, other;
    int have_sps = 0, layered = 0;
    for (uint32_t i = 0; i < hvcc.ps_count; i++) {
        const uint8_t *nal = config + hvcc.ps[i].offset;
        if (sy__hevc_nal_type(nal) != SY__HEVC_NAL_SPS) continue;
        int parsed = sy__hevc_sps_parse(nal, hvcc.ps[i].length, have_sps ? &other : &sps);
        if (!parsed || (have_sps ? &other : &sps)->max_sub_layers > 1) layered = 1;
        if (parsed) have_sps = 1;
    }
    if (!have_sps && first) {
        st = SY_OK;
        have_sps = first_sps_in_sample(first, first_len, hvcc.length_size, &sps, &hvcc.bound, err, &st);
        if (st != SY_OK) return st;
        if (have_sps && sps.max_sub_layers > 1) layered = 1;
    }
    if (!have_sps) return sy__fail(err, SY_E_INVALID_INPUT, "no sequence parameter set in hvcC or sample 0");
    const sy__hevc_bound *b = &hvcc.bound;
    if (b->width > SY__HEVC_MAX_SIDE || b->height > SY__HEVC_MAX_SIDE)
        return sy__fail(err, SY_E_BUDGET, "coded picture %ux%u exceeds %ux%u", b->width, b->height, SY__HEVC_MAX_SIDE,
                        SY__HEVC_MAX_SIDE);
    if (sps.out_width == 0 || sps.out_height == 0)
        return sy__fail(err, SY_E_INVALID_INPUT, "sequence parameter set gives an empty %ux%u picture", sps.out_width,
                        sps.out_height);
    if (sps.bit_depth_luma != sps.bit_depth_chroma && sps.chroma != 0)
        return sy__fail(err, SY_E_UNSUPPORTED, "luma %u-bit and chroma %u-bit differ", sps.bit_depth_luma,
                        sps.bit_depth_chroma);

    if (threads <= 0) threads = sy__vstream_threads();
    size_t charge = stream_estimate(b, threads);
    if ((st = sy__charge(ctx, charge, "libavcodec stream (estimate)", err)) != SY_OK) return st;
    hevc_stream *s = sy__calloc(ctx, 1, sizeof *s, "hevc stream", err);
    if (!s) {
        sy__discharge(ctx, charge);
        return err ? err->code : SY_E_BUDGET;
    }
    s->dec.base.ops = &hevc_ops;
    s->dec.base.ctx = ctx;
    sy__vstream_params_picture(&s->dec.base.params, sps.out_width, sps.out_height, sps.bit_depth_luma, sps.chroma,
                               sps.colour, sps.sar);
    for (uint32_t i = 0; i < hvcc.ps_count; i++) { /* the record's SEI arrays, then sample 0's SEI */
        const uint8_t *nal = config + hvcc.ps[i].offset;
        if (hvcc.ps[i].length >= 3 && sy__hevc_nal_type(nal) == SY__HEVC_NAL_PREFIX_SEI)
            sy__hdr_static_from_sei(nal, hvcc.ps[i].length, 2, &s->dec.base.params.hdr);
    }
    if (first) sy__hdr_static_from_sample(first, first_len, hvcc.length_size, 1, &s->dec.base.params.hdr);
    s->dec.base.params.charged = charge;
    s->length_size = hvcc.length_size;
    s->dec.base.params.length_size = (uint8_t)hvcc.length_size;
    s->bound = *b;
    s->layered = layered;
    if (!s->bound.dpb) s->bound.dpb = 16;
    if ((st = sy__avdec_open(ctx, SY__AVCODEC_HEVC, config, config_len, threads, NULL, &s->dec.av, err)) != SY_OK) {
        sy__avdec_vstream_destroy(&s->dec.base);
        return st;
    }
    *out = &s->dec.base;
    return SY_OK;
}
