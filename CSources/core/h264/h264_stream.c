/* h264_stream.c — a movie's H.264 track through one openh264 decoder (issue 4).
 *
 * openh264 2.3 decodes 8-bit 4:2:0 progressive streams, CAVLC and CABAC, with
 * B-frames: DecodeFrameNoDelay decodes a whole access unit at once and, for
 * profiles other than Baseline, releases pictures in display order (POC
 * bumping inside openh264), carrying the input timestamp through to the
 * output; what it still holds at the end comes out of FlushFrame. The reader
 * passes each sample's decode-order index as that timestamp and checks the
 * order of what comes back.
 *
 * The avcC SPS/PPS and every sample go to openh264 as Annex-B (start codes
 * instead of length prefixes) through one conversion buffer. Every SPS is
 * read first (h264_sps.c): the picture size bounds openh264's allocations,
 * which are charged to the context; streams openh264 cannot decode (4:2:2,
 * 4:4:4, > 8 bits, interlaced) are refused as unsupported. openh264 exposes
 * no colour description, so it comes from the SPS VUI (absent: unspecified,
 * converted as BT.601 limited range like ffmpeg does). Error concealment is
 * off, so a damaged access unit is reported instead of patched over. */
#include <string.h>
#include <wels/codec_api.h>

#include "base/sy_nal.h"
#include "h264/sy_h264.h"
#include "h264/sy_h264_sps.h"

#define H264_SAMPLE_CAP ((size_t)64 << 20)

enum { H264_NAL_SPS = 7 };

typedef struct h264_stream {
    sy__vstream base;
    ISVCDecoder *dec;
    uint32_t length_size;
    uint32_t bound_w, bound_h; /* largest coded size the charge covers */
    uint8_t *annexb;           /* conversion buffer */
    size_t annexb_cap;
    uint32_t tag;              /* last sample sent */
    int finished, holding, ready;
    uint32_t flush_left;       /* FlushFrame calls allowed */
    SBufferInfo out;           /* the picture ready or borrowed */
    uint8_t *planes[3];
} h264_stream;

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }

static sy_status grow(h264_stream *s, size_t need, sy_error *err) {
    if (need <= s->annexb_cap) return SY_OK;
    if (need > H264_SAMPLE_CAP + (H264_SAMPLE_CAP / 2))
        return sy__fail(err, SY_E_BUDGET, "sample %u: %zu bytes of Annex-B exceed the %zu MiB sample cap", s->tag,
                        need, H264_SAMPLE_CAP >> 20);
    size_t cap = SY__MAX(need, s->annexb_cap + s->annexb_cap / 2);
    uint8_t *b = sy__alloc(s->base.ctx, cap, 1, "h264 annex-b buffer", err);
    if (!b) return err ? err->code : SY_E_BUDGET;
    if (s->annexb) sy__free(s->base.ctx, s->annexb);
    s->annexb = b;
    s->annexb_cap = cap;
    return SY_OK;
}

static unsigned decoded_frames(h264_stream *s) {
    SDecoderStatistics stats;
    memset(&stats, 0, sizeof stats);
    (*s->dec)->GetOption(s->dec, DECODER_OPTION_GET_STATISTICS, &stats);
    return stats.uiDecodedFrameCount;
}

/* Decodes one Annex-B access unit and keeps any picture it releases. With
 * concealment off, openh264 drops a damaged picture without an error and
 * complains only at the next one (a lost reference); its decoded-frame count
 * shows the drop at once, so the damaged sample is the one named. */
static sy_status decode(h264_stream *s, size_t size, int has_picture, sy_error *err) {
    SBufferInfo info;
    memset(&info, 0, sizeof info);
    info.uiInBsTimeStamp = s->tag;
    uint8_t *planes[3] = {NULL, NULL, NULL};
    unsigned before = has_picture ? decoded_frames(s) : 0;
    DECODING_STATE ds = (*s->dec)->DecodeFrameNoDelay(s->dec, s->annexb, (int)size, planes, &info);
    if (ds != dsErrorFree)
        return sy__fail_sub(err, SY_E_INVALID_INPUT, (int32_t)ds, "sample %u: openh264 cannot decode it (state 0x%x%s)",
                            s->tag, (unsigned)ds, (ds & dsRefLost) ? ": a reference picture is missing" : "");
    if (has_picture && decoded_frames(s) == before)
        return sy__fail(err, SY_E_INVALID_INPUT, "sample %u: openh264 could not decode its picture", s->tag);
    if (info.iBufferStatus == 1) {
        s->out = info;
        memcpy(s->planes, planes, sizeof planes);
        s->ready = 1;
    }
    return SY_OK;
}

static sy_status h264_send(sy__vstream *base, const uint8_t *data, size_t len, uint32_t tag, int *may_vanish,
                           sy_error *err) {
    h264_stream *s = (h264_stream *)base;
    *may_vanish = 0;
    if (s->ready || s->holding) return sy__fail(err, SY_E_USAGE, "h264 stream: send with a picture pending");
    s->tag = tag;
    uint32_t nals = 0;
    sy_status st = sy__nal_framing(data, len, s->length_size, tag, &nals, err);
    if (st != SY_OK) return st;
    if ((st = grow(s, len + (size_t)nals * 4, err)) != SY_OK) return st;
    size_t o = 0;
    int has_picture = 0;
    for (size_t pos = 0; pos < len;) {
        uint32_t n = sy__nal_length(data + pos, s->length_size);
        pos += s->length_size;
        if (n == 0) continue;
        unsigned type = data[pos] & 0x1Fu;
        if (type >= 1 && type <= 5) has_picture = 1;
        if (type == H264_NAL_SPS) { /* in-band SPS: must fit what was charged */
            sy__h264_sps sps;
            if (!sy__h264_sps_parse(data + pos, n, &sps))
                return sy__fail(err, SY_E_INVALID_INPUT, "sample %u: unreadable sequence parameter set", tag);
            if (sps.width > s->bound_w || sps.height > s->bound_h || sps.chroma != 1 || sps.bit_depth_luma != 8 ||
                sps.bit_depth_chroma != 8 || !sps.frame_mbs_only)
                return sy__fail(err, SY_E_UNSUPPORTED,
                                "sample %u: a new sequence parameter set (%ux%u) does not fit the stream's first "
                                "(%ux%u, 8-bit 4:2:0)",
                                tag, sps.width, sps.height, s->bound_w, s->bound_h);
        }
        static const uint8_t start[4] = {0, 0, 0, 1};
        memcpy(s->annexb + o, start, 4);
        memcpy(s->annexb + o + 4, data + pos, n);
        o += 4 + (size_t)n;
        pos += n;
    }
    return decode(s, o, has_picture, err);
}

static sy_status h264_finish(sy__vstream *base, sy_error *err) {
    h264_stream *s = (h264_stream *)base;
    s->finished = 1;
    s->flush_left = 64; /* openh264 holds at most a DPB's worth */
    return SY_OK;
}

static sy_status h264_receive(sy__vstream *base, sy__yuv *pic, uint32_t *tag, int *got, sy_error *err) {
    h264_stream *s = (h264_stream *)base;
    *got = 0;
    if (s->holding) return sy__fail(err, SY_E_USAGE, "h264 stream: receive before release");
    if (!s->ready && s->finished && s->flush_left) {
        int left = 0;
        (*s->dec)->GetOption(s->dec, DECODER_OPTION_NUM_OF_FRAMES_REMAINING_IN_BUFFER, &left);
        if (left > 0) {
            s->flush_left--;
            SBufferInfo info;
            memset(&info, 0, sizeof info);
            uint8_t *planes[3] = {NULL, NULL, NULL};
            DECODING_STATE ds = (*s->dec)->FlushFrame(s->dec, planes, &info);
            if (ds != dsErrorFree)
                return sy__fail_sub(err, SY_E_INVALID_INPUT, (int32_t)ds,
                                    "sample %u: openh264 cannot flush (state 0x%x)", s->tag, (unsigned)ds);
            if (info.iBufferStatus == 1) {
                s->out = info;
                memcpy(s->planes, planes, sizeof planes);
                s->ready = 1;
            }
        }
    }
    if (!s->ready) return SY_OK;
    const sy__vstream_params *p = &base->params;
    const SSysMEMBuffer *m = &s->out.UsrData.sSystemBuffer;
    s->ready = 0;
    if (m->iWidth != (int)p->width || m->iHeight != (int)p->height)
        return sy__fail(err, SY_E_UNSUPPORTED, "sample %u: picture of %dx%d in a %ux%u stream", s->tag, m->iWidth,
                        m->iHeight, p->width, p->height);
    if (!s->planes[0] || !s->planes[1] || !s->planes[2] || m->iStride[0] < m->iWidth ||
        m->iStride[1] < (m->iWidth + 1) / 2)
        return sy__fail(err, SY_E_CODEC, "sample %u: openh264 returned no planes", s->tag);
    if (s->out.uiOutYuvTimeStamp > UINT32_MAX)
        return sy__fail(err, SY_E_CODEC, "sample %u: openh264 returned a picture of no sample", s->tag);
    memset(pic, 0, sizeof *pic);
    pic->width = p->width;
    pic->height = p->height;
    pic->bit_depth = 8;
    pic->chroma = 1;
    for (int c = 0; c < 3; c++) {
        pic->plane[c] = s->planes[c];
        pic->stride[c] = (uint32_t)m->iStride[c ? 1 : 0];
        pic->plane_width[c] = c ? (p->width + 1) / 2 : p->width;
        pic->plane_height[c] = c ? (p->height + 1) / 2 : p->height;
    }
    pic->vui = p->colour;
    *tag = (uint32_t)s->out.uiOutYuvTimeStamp;
    *got = 1;
    s->holding = 1;
    return SY_OK;
}

static void h264_release(sy__vstream *base) { ((h264_stream *)base)->holding = 0; }

static void h264_destroy(sy__vstream *base) {
    if (!base) return;
    h264_stream *s = (h264_stream *)base;
    sy_context *ctx = base->ctx;
    if (s->dec) {
        (*s->dec)->Uninitialize(s->dec);
        WelsDestroyDecoder(s->dec);
    }
    if (s->annexb) sy__free(ctx, s->annexb);
    if (base->params.charged) sy__discharge(ctx, base->params.charged);
    sy__free(ctx, s);
}

static const sy__vstream_ops h264_ops = {h264_send, h264_finish, h264_receive, h264_release, h264_destroy};

/* openh264's heap, measured with mallinfo2 over whole decodes (openh264
 * 2.3.1, libx264 streams with 1-4 reference frames and 1-3 B-frames):
 * 320x240 6.3 MB, 640x480 10.9 MB, 1280x720 23.8 MB, 1920x1088 47.2 MB, i.e.
 * ~3.6 MB of tables plus ~19 bytes per picture sample padded by 32 on every
 * side (a pool of ~12 padded 4:2:0 pictures with their per-macroblock data),
 * independent of the stream's reference count. Charged a little above. */
static size_t openh264_estimate(uint32_t w, uint32_t h) {
    size_t padded = ((size_t)w + 64) * ((size_t)h + 64);
    return padded * 20 + ((size_t)4 << 20);
}

/* The avcC record's SPS/PPS as Annex-B in s->annexb; the first SPS in *first. */
static sy_status parse_avcc(h264_stream *s, const uint8_t *rec, size_t len, sy__h264_sps *first, int *have,
                            size_t *annexb_len, sy_error *err) {
    if (!rec || len < 7) return sy__fail(err, SY_E_INVALID_INPUT, "avcC: record of %zu bytes, need at least 7", len);
    if (rec[0] != 1) return sy__fail(err, SY_E_UNSUPPORTED, "avcC: configuration version %u", rec[0]);
    s->length_size = (rec[4] & 3u) + 1;
    sy_status st = grow(s, len * 2 + 64, err);
    if (st != SY_OK) return st;
    size_t pos = 5, o = 0;
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
                s->bound_w = SY__MAX(s->bound_w, sps.width);
                s->bound_h = SY__MAX(s->bound_h, sps.height);
                if (!*have) *first = sps, *have = 1;
            }
            static const uint8_t start[4] = {0, 0, 0, 1};
            memcpy(s->annexb + o, start, 4);
            memcpy(s->annexb + o + 4, rec + pos, n);
            o += 4 + (size_t)n;
            pos += n;
        }
    }
    *annexb_len = o;
    return SY_OK;
}

/* hev1-style streams keep the SPS in sample 0: find the first one there. */
static int sps_in_sample(h264_stream *s, const uint8_t *data, size_t len, sy__h264_sps *sps) {
    for (size_t pos = 0; pos < len && len - pos >= s->length_size;) {
        uint32_t n = sy__nal_length(data + pos, s->length_size);
        pos += s->length_size;
        if (n > len - pos) break;
        if (n && (data[pos] & 0x1F) == H264_NAL_SPS && sy__h264_sps_parse(data + pos, n, sps)) {
            s->bound_w = SY__MAX(s->bound_w, sps->width);
            s->bound_h = SY__MAX(s->bound_h, sps->height);
            return 1;
        }
        pos += n;
    }
    return 0;
}

sy_status sy__h264_stream_create(sy_context *ctx, const uint8_t *config, size_t config_len, const uint8_t *first,
                                 size_t first_len, sy__vstream **out, sy_error *err) {
    *out = NULL;
    h264_stream *s = sy__calloc(ctx, 1, sizeof *s, "h264 stream", err);
    if (!s) return err ? err->code : SY_E_BUDGET;
    s->base.ops = &h264_ops;
    s->base.ctx = ctx;
    sy__h264_sps sps;
    int have = 0;
    size_t ps_len = 0;
    sy_status st = parse_avcc(s, config, config_len, &sps, &have, &ps_len, err);
    if (st == SY_OK && !have && first) have = sps_in_sample(s, first, first_len, &sps);
    if (st == SY_OK && !have) st = sy__fail(err, SY_E_INVALID_INPUT, "no sequence parameter set in avcC or sample 0");
    if (st == SY_OK && (sps.chroma != 1 || sps.bit_depth_luma != 8 || sps.bit_depth_chroma != 8 || !sps.frame_mbs_only))
        st = sy__fail(err, SY_E_UNSUPPORTED,
                      "H.264 profile %u with chroma format %u, %u-bit%s: openh264 decodes 8-bit 4:2:0 progressive "
                      "only",
                      sps.profile_idc, sps.chroma, sps.bit_depth_luma, sps.frame_mbs_only ? "" : ", interlaced");
    if (st == SY_OK && (sps.out_width == 0 || sps.out_height == 0))
        st = sy__fail(err, SY_E_INVALID_INPUT, "sequence parameter set gives an empty %ux%u picture", sps.out_width,
                      sps.out_height);
    if (st != SY_OK) {
        h264_destroy(&s->base);
        return st;
    }
    size_t charge = openh264_estimate(s->bound_w, s->bound_h);
    if ((st = sy__charge(ctx, charge, "openh264 stream (estimate)", err)) != SY_OK) {
        h264_destroy(&s->base);
        return st;
    }
    s->base.params.charged = charge;
    s->base.params.width = sps.out_width;
    s->base.params.height = sps.out_height;
    s->base.params.bit_depth = 8;
    s->base.params.chroma = 1;
    s->base.params.colour = sps.colour;

    if (WelsCreateDecoder(&s->dec) != 0 || !s->dec) {
        s->dec = NULL;
        h264_destroy(&s->base);
        return sy__fail(err, SY_E_CODEC, "openh264 could not create a decoder");
    }
    int quiet = WELS_LOG_QUIET;
    (*s->dec)->SetOption(s->dec, DECODER_OPTION_TRACE_LEVEL, &quiet);
    SDecodingParam param;
    memset(&param, 0, sizeof param);
    param.sVideoProperty.eVideoBsType = VIDEO_BITSTREAM_AVC;
    param.eEcActiveIdc = ERROR_CON_DISABLE;
    if ((*s->dec)->Initialize(s->dec, &param) != 0) {
        WelsDestroyDecoder(s->dec);
        s->dec = NULL;
        h264_destroy(&s->base);
        return sy__fail(err, SY_E_CODEC, "openh264 could not initialise a decoder");
    }
    (*s->dec)->SetOption(s->dec, DECODER_OPTION_TRACE_LEVEL, &quiet);
    if (ps_len && (st = decode(s, ps_len, 0, err)) != SY_OK) {
        h264_destroy(&s->base);
        return st;
    }
    s->ready = 0; /* parameter sets release no picture */
    *out = &s->base;
    return SY_OK;
}
