/* h264_stream.c — a movie's H.264 track through one libavcodec decoder (issues 4, 15).
 *
 * Every SPS is read first (h264_sps.c): the avcC record's (or, when it has
 * none, sample 0's) bound the picture size, chroma format and bit depth
 * libavcodec will allocate for, which is charged to the context; an in-band
 * SPS asking for more is refused before libavcodec reads it, and interlaced
 * streams are refused as unsupported (a field pair's timing is not one
 * sample's). The avcC record is libavcodec's extradata, each sample one
 * packet tagged with its decode-order index; libavcodec releases pictures
 * in display order (POC bumping) with their sample's tag, in frame threads
 * like the HEVC stream (hevc/sy_avcodec.h: damage is an error naming its
 * sample, concealment off). Colour comes from each frame, i.e. the SPS VUI
 * (absent: unspecified, converted as BT.601 limited range like ffmpeg). */
#include <string.h>

#include "base/sy_hdr_static.h"
#include "base/sy_nal.h"
#include "h264/sy_h264.h"
#include "h264/sy_h264_sps.h"
#include "hevc/sy_avcodec.h"

enum { H264_NAL_SPS = 7 };

typedef struct h264_stream {
    sy__avdec_vstream dec; /* first: the shared operations take the stream as a sy__avdec_vstream */
    uint32_t length_size;
    uint32_t bound_w, bound_h; /* largest coded size the charge covers */
    uint8_t bound_chroma, bound_depth;
    uint32_t bound_refs;       /* reference / reorder pictures (max_num_ref_frames, max_dec_frame_buffering) */
} h264_stream;

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }

static uint32_t refs_of(const sy__h264_sps *sps) {
    uint32_t refs = SY__MAX(sps->max_num_ref_frames, sps->has_reorder ? sps->max_dec_frame_buffering : 0u);
    return SY__MIN(SY__MAX(refs, 1u), 16u);
}

static void widen(h264_stream *s, const sy__h264_sps *sps) {
    s->bound_refs = SY__MAX(s->bound_refs, refs_of(sps));
    s->bound_w = SY__MAX(s->bound_w, sps->width);
    s->bound_h = SY__MAX(s->bound_h, sps->height);
    s->bound_chroma = SY__MAX(s->bound_chroma, sps->chroma);
    s->bound_depth = SY__MAX(s->bound_depth, SY__MAX(sps->bit_depth_luma, sps->bit_depth_chroma));
}

static sy_status h264_send(sy__vstream *base, const uint8_t *data, size_t len, uint32_t tag, int *may_vanish,
                           sy_error *err) {
    h264_stream *s = (h264_stream *)base;
    *may_vanish = 0;
    uint32_t nals = 0;
    sy_status st = sy__nal_framing(data, len, s->length_size, tag, &nals, err);
    if (st != SY_OK) return st;
    for (size_t pos = 0; pos < len;) {
        uint32_t n = sy__nal_length(data + pos, s->length_size);
        pos += s->length_size;
        if (n && (data[pos] & 0x1Fu) == H264_NAL_SPS) { /* in-band SPS: must fit what was charged */
            sy__h264_sps sps;
            if (!sy__h264_sps_parse(data + pos, n, &sps))
                return sy__fail(err, SY_E_INVALID_INPUT, "sample %u: unreadable sequence parameter set", tag);
            if (sps.width > s->bound_w || sps.height > s->bound_h || sps.chroma > s->bound_chroma ||
                sps.bit_depth_luma > s->bound_depth || sps.bit_depth_chroma > s->bound_depth ||
                refs_of(&sps) > s->bound_refs || !sps.frame_mbs_only)
                return sy__fail(err, SY_E_UNSUPPORTED,
                                "sample %u: a new sequence parameter set (%ux%u, %u-bit%s) does not fit the "
                                "stream's first (%ux%u, %u-bit)",
                                tag, sps.width, sps.height, sps.bit_depth_luma,
                                sps.frame_mbs_only ? "" : ", interlaced", s->bound_w, s->bound_h, s->bound_depth);
        }
        pos += n;
    }
    return sy__avdec_send(s->dec.av, data, len, tag, err);
}

/* Every slice (types 1 and 5) with nal_ref_idc 0: nothing refers to it. */
static int h264_disposable(const sy__vstream *base, const uint8_t *data, size_t len) {
    const h264_stream *s = (const h264_stream *)base;
    int slices = 0;
    const uint8_t *nal;
    uint32_t n;
    size_t pos = 0;
    while (sy__nal_next(data, len, s->length_size, &pos, &nal, &n)) {
        if (n < 1) return 0;
        unsigned type = nal[0] & 0x1Fu;
        if (type == 1 || type == 5) {
            if (nal[0] & 0x60u) return 0;
            slices++;
        }
    }
    return len - pos < s->length_size && slices > 0; /* stopped at a unit that does not fit: not disposable */
}

/* The first slice is an IDR slice (NAL type 5). */
static int h264_random_access(const sy__vstream *base, const uint8_t *data, size_t len) {
    const h264_stream *s = (const h264_stream *)base;
    const uint8_t *nal;
    uint32_t n;
    for (size_t pos = 0; sy__nal_next(data, len, s->length_size, &pos, &nal, &n);) {
        if (n < 1) return 0;
        unsigned type = nal[0] & 0x1Fu;
        if (type >= 1 && type <= 5) return type == 5;
    }
    return 0;
}

static const sy__vstream_ops h264_ops = {h264_send,
                                         sy__avdec_vstream_finish,
                                         sy__avdec_vstream_receive,
                                         sy__avdec_vstream_release,
                                         sy__avdec_vstream_destroy,
                                         h264_disposable,
                                         h264_random_access};

/* libavcodec's heap for a stream, measured with a malloc hook over whole
 * decodes (libavcodec 59.37 / FFmpeg 5.1, two frame threads): libx264
 * 320x240 (4 references) 4.7 MB, the corpus Live movie 720x960 (2
 * references) 10.5 MB; ffmpeg itself with one thread 2.9 and 8.1 MB. That
 * is references + threads + 2 pictures, each its samples plus ~0.15 bytes
 * per pixel of motion data, and ~2 MB of tables per thread context.
 * Charged a little above (openh264 needed 6.3 and 15.5 MB for the same). */
static size_t avcodec_estimate(const h264_stream *s, int threads) {
    size_t px = (size_t)s->bound_w * s->bound_h;
    size_t picture = sy__avcodec_picture_bytes(s->bound_w, s->bound_h, s->bound_chroma, s->bound_depth) + px / 4;
    return picture * ((size_t)s->bound_refs + (size_t)threads + 2) + ((size_t)2 << 20) * (size_t)threads +
           ((size_t)1 << 20);
}

/* Checks the avcC record's SPS/PPS arrays (libavcodec reads the record
 * itself) and widens the bound with every SPS; the first in *first. */
static sy_status parse_avcc(h264_stream *s, const uint8_t *rec, size_t len, sy__h264_sps *first, int *have,
                            sy_error *err) {
    if (!rec || len < 7) return sy__fail(err, SY_E_INVALID_INPUT, "avcC: record of %zu bytes, need at least 7", len);
    if (rec[0] != 1) return sy__fail(err, SY_E_UNSUPPORTED, "avcC: configuration version %u", rec[0]);
    s->length_size = (rec[4] & 3u) + 1;
    size_t pos = 5;
    for (int kind = 0; kind < 2; kind++) { /* SPS, then PPS */
        if (pos >= len) return sy__fail(err, SY_E_INVALID_INPUT, "avcC: truncated at byte %zu", pos);
        uint32_t count = kind == 0 ? rec[pos] & 31u : rec[pos];
        pos++;
        for (uint32_t i = 0; i < count; i++) {
            if (len - pos < 2) return sy__fail(err, SY_E_INVALID_INPUT, "avcC: truncated at byte %zu", pos);
            uint32_t n = be16(rec + pos);
            pos += 2;
            if (n > len - pos || n == 0)
                return sy__fail(err, SY_E_INVALID_INPUT, "avcC: parameter set of %u bytes at byte %zu (%zu left)", n,
                                pos, len - pos);
            if (kind == 0) {
                sy__h264_sps sps;
                if (!sy__h264_sps_parse(rec + pos, n, &sps))
                    return sy__fail(err, SY_E_INVALID_INPUT, "avcC: unreadable sequence parameter set %u", i);
                widen(s, &sps);
                if (!*have) *first = sps, *have = 1;
            }
            pos += n;
        }
    }
    return SY_OK;
}

/* Streams whose avcC holds no SPS keep it in sample 0: find the first one there. */
static int sps_in_sample(h264_stream *s, const uint8_t *data, size_t len, sy__h264_sps *sps) {
    const uint8_t *nal;
    uint32_t n;
    for (size_t pos = 0; sy__nal_next(data, len, s->length_size, &pos, &nal, &n);) {
        if (n && (nal[0] & 0x1F) == H264_NAL_SPS && sy__h264_sps_parse(nal, n, sps)) {
            widen(s, sps);
            return 1;
        }
    }
    return 0;
}

sy_status sy__h264_stream_create(sy_context *ctx, const uint8_t *config, size_t config_len, const uint8_t *first,
                                 size_t first_len, int threads, sy__vstream **out, sy_error *err) {
    *out = NULL;
    h264_stream *s = sy__calloc(ctx, 1, sizeof *s, "h264 stream", err);
    if (!s) return err ? err->code : SY_E_BUDGET;
    s->dec.base.ops = &h264_ops;
    s->dec.base.ctx = ctx;
    sy__h264_sps sps;
    int have = 0;
    sy_status st = parse_avcc(s, config, config_len, &sps, &have, err);
    if (st == SY_OK && !have && first) have = sps_in_sample(s, first, first_len, &sps);
    if (st == SY_OK && !have) st = sy__fail(err, SY_E_INVALID_INPUT, "no sequence parameter set in avcC or sample 0");
    if (st == SY_OK && !sps.frame_mbs_only)
        st = sy__fail(err, SY_E_UNSUPPORTED, "H.264 profile %u: interlaced streams are not supported",
                      sps.profile_idc);
    if (st == SY_OK && (sps.bit_depth_luma != sps.bit_depth_chroma && sps.chroma != 0))
        st = sy__fail(err, SY_E_UNSUPPORTED, "H.264 luma %u-bit and chroma %u-bit differ", sps.bit_depth_luma,
                      sps.bit_depth_chroma);
    if (st == SY_OK && (sps.out_width == 0 || sps.out_height == 0))
        st = sy__fail(err, SY_E_INVALID_INPUT, "sequence parameter set gives an empty %ux%u picture", sps.out_width,
                      sps.out_height);
    if (st != SY_OK) {
        sy__avdec_vstream_destroy(&s->dec.base);
        return st;
    }
    if (threads <= 0) threads = sy__vstream_threads();
    size_t charge = avcodec_estimate(s, threads);
    if ((st = sy__charge(ctx, charge, "libavcodec stream (estimate)", err)) != SY_OK) {
        sy__avdec_vstream_destroy(&s->dec.base);
        return st;
    }
    s->dec.base.params.charged = charge;
    sy__vstream_params_picture(&s->dec.base.params, sps.out_width, sps.out_height, sps.bit_depth_luma, sps.chroma,
                               sps.colour, sps.sar);
    s->dec.base.params.length_size = (uint8_t)s->length_size;
    if (first) sy__hdr_static_from_sample(first, first_len, s->length_size, 0, &s->dec.base.params.hdr);
    if ((st = sy__avdec_open(ctx, SY__AVCODEC_H264, config, config_len, threads, NULL, &s->dec.av, err)) != SY_OK) {
        sy__avdec_vstream_destroy(&s->dec.base);
        return st;
    }
    *out = &s->dec.base;
    return SY_OK;
}
