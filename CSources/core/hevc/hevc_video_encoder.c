/* hevc_video_encoder.c — upright RGB frames in, HEVC access units out (x265), issue 4.
 *
 * x265 setup: the chosen preset with no tune, Main profile, 8-bit 4:2:0,
 * level chosen by x265; average bitrate (ABR) with a VBV of 1.5x the rate
 * (maxrate) and 2 s of it (buffer); frame rate timescale/frame_duration as a
 * reduced fraction; closed GOPs (open-gop off) so every keyframe is an IDR a
 * player can start from; B-frames as asked (x265's B-pyramid stays on, so
 * the reorder delay is 2 frames with B-frames, 0 without); a bounded
 * rate-control look-ahead; parameter sets only in the hvcC (no repeated
 * headers), no info SEI (x265's version string), no AUD, no picture hash;
 * the VUI colour description (primaries/transfer/matrix/full range) as given.
 *
 * Packets: x265's Annex-B NAL units rewritten with 4-byte big-endian lengths;
 * VPS/SPS/PPS/AUD/EOS/EOB/filler are dropped (SEI, if any, kept).
 * Timestamps: pts is the caller's value for that frame. dts is computed here
 * (x265 3.5's own dts came out as garbage, e.g. 7089336938131513955, for
 * clips shorter than its reorder delay). With D the reorder delay (x265 decodes a
 * frame at most D positions after its presentation position: 2 with the
 * B-pyramid, 1 with plain B-frames, 0 without) and p[i] the i-th pushed pts,
 * packet n gets dts = p[n - D], and the first D packets p[n] - (p[D] - p[0])
 * (D x frame_duration when fewer frames exist). So dts is strictly
 * increasing, <= pts, and the first packet's dts = first pts - the delay (it
 * may be negative). Both rules are checked before a packet leaves. keyframe =
 * the access unit holds an IRAP NAL unit (IDR/CRA/BLA).
 *
 * Determinism: one frame thread (x265's frame-parallel rate planning counts
 * frames still in flight, which depends on thread timing) and no VBV (its
 * row-level re-planning under wavefront parallelism does too): the same
 * frames and options give the same bytes. Wavefront rows and the look-ahead still
 * use every core; on 2 cores this costs ~8% against 2 frame threads.
 *
 * Memory: one YCbCr 4:2:0 frame (reused for every push; x265 copies it), one
 * packet buffer grown to the largest access unit, and an estimate of x265's
 * own allocations charged to the context (video_encoder_estimate).
 */
#include <string.h>
#include <x265.h>

#include "base/sy_internal.h"
#include "hevc/sy_hvcc.h"
#include "base/sy_rgb_to_ycbcr.h"
#include "sy_video.h"

#define VE_DEFAULT_PRESET "fast"
#define VE_MIN_SIDE 64u /* x265: "Picture size must be at least one CTU" (64, see configure) */
#define VE_MAX_SIDE 16384u
#define VE_MAX_LUMA_PICTURE 35651584ull /* HEVC level 6.2 MaxLumaPs: beyond it no level fits */
#define VE_MAX_FPS 1000u
#define VE_MIN_BITRATE 10000u         /* x265 takes kbit/s */
#define VE_MAX_BITRATE 1000000000ull  /* 1 Gbit/s; keeps 2x that in kbit within int */
#define VE_MAX_BFRAMES 8u
#define VE_MAX_LOOKAHEAD 60u
#define VE_MAX_KEYINT 10000u
#define VE_PTS_RING 256u /* > frames x265 can hold (look-ahead 60 + B-frames 8 + frame thread + D) */

struct sy_video_encoder {
    sy_context *ctx;
    uint32_t width, height;
    sy_video_packet_sink sink;
    void *user;
    const x265_api *api;
    x265_param *param;
    x265_encoder *x265;
    x265_picture *picture;
    sy__ycbcr_matrix matrix;
    uint8_t *frame; /* Y, Cb, Cr planes in one block, reused */
    uint8_t *plane[3];
    size_t stride[3];
    uint8_t *hvcc;
    size_t hvcc_len;
    uint8_t *packet; /* one access unit, length-prefixed */
    size_t packet_cap;
    size_t charged;
    int64_t last_pts, last_dts;
    uint64_t pushed, delivered;
    uint32_t reorder;                /* D above */
    uint32_t frame_duration;
    int64_t delay;                   /* p[D] - p[0], fixed at the first packet */
    int64_t pts_ring[VE_PTS_RING];   /* p[i] at i % VE_PTS_RING, for i >= delivered - D */
    int flushed, failed;
};

/* ---- options ---- */

void sy_video_encoder_options_init(sy_video_encoder_options *opts) {
    if (!opts) return;
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
    opts->timescale = 600;
    opts->frame_duration = 20;
    opts->bframes = 3;
    opts->lookahead = 10;
    opts->primaries = 1; /* BT.709 */
    opts->transfer = 1;
    opts->matrix = 1;
    opts->full_range = 0;
}

static uint32_t gcd32(uint32_t a, uint32_t b) {
    while (b) {
        uint32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static sy_status check_options(const sy_video_encoder_options *o, sy_error *err) {
    const char *fn = "sy_video_encoder_create";
    if (o->version != 1) return sy__fail(err, SY_E_USAGE, "%s: options version %u (expected 1)", fn, o->version);
    if (o->width < VE_MIN_SIDE || o->height < VE_MIN_SIDE || ((o->width | o->height) & 1))
        return sy__fail(err, SY_E_USAGE, "%s: frame %ux%u (width and height must be even and >= %u)", fn, o->width,
                        o->height, VE_MIN_SIDE);
    if (o->width > VE_MAX_SIDE || o->height > VE_MAX_SIDE ||
        (uint64_t)o->width * o->height > VE_MAX_LUMA_PICTURE)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: frame %ux%u exceeds HEVC level 6.2 (%llu samples, sides <= %u)",
                        fn, o->width, o->height, VE_MAX_LUMA_PICTURE, VE_MAX_SIDE);
    if (o->timescale == 0 || o->frame_duration == 0)
        return sy__fail(err, SY_E_USAGE, "%s: timescale %u and frame_duration %u must both be > 0", fn, o->timescale,
                        o->frame_duration);
    if (o->timescale / o->frame_duration >= VE_MAX_FPS)
        return sy__fail(err, SY_E_USAGE, "%s: frame rate %u/%u is %u fps or more", fn, o->timescale, o->frame_duration,
                        VE_MAX_FPS);
    if (o->bitrate != 0 && (o->bitrate < VE_MIN_BITRATE || o->bitrate > VE_MAX_BITRATE))
        return sy__fail(err, SY_E_USAGE, "%s: bitrate %llu outside %u..%llu bit/s", fn,
                        (unsigned long long)o->bitrate, VE_MIN_BITRATE, VE_MAX_BITRATE);
    if (o->bframes > VE_MAX_BFRAMES)
        return sy__fail(err, SY_E_USAGE, "%s: %u B-frames (0..%u)", fn, o->bframes, VE_MAX_BFRAMES);
    if (o->keyint > VE_MAX_KEYINT)
        return sy__fail(err, SY_E_USAGE, "%s: keyint %u (0 = 2 s, at most %u)", fn, o->keyint, VE_MAX_KEYINT);
    if (o->threads > 256) return sy__fail(err, SY_E_USAGE, "%s: %u threads (at most 256)", fn, o->threads);
    if (o->primaries > 255 || o->transfer > 255 || o->matrix > 255 || o->full_range > 1)
        return sy__fail(err, SY_E_USAGE, "%s: colour description %u/%u/%u/%u out of range", fn, o->primaries,
                        o->transfer, o->matrix, o->full_range);
    return SY_OK;
}

/* Effective look-ahead: 1..60 frames, and longer than the B-frame run (x265
 * refuses a look-ahead that cannot hold a run and the frame after it). */
static uint32_t effective_lookahead(const sy_video_encoder_options *o) {
    uint32_t la = o->lookahead < 1 ? 1 : o->lookahead > VE_MAX_LOOKAHEAD ? VE_MAX_LOOKAHEAD : o->lookahead;
    return la <= o->bframes ? o->bframes + 1 : la;
}

/* Bytes x265 allocates for one encoder (charged to the context). Calibrated
 * from peak RSS growth on this 2-core machine, preset fast, 640x480 to
 * 1920x1440, look-ahead 1..60, 0 or 3 B-frames, 1 or 2 frame threads. Per
 * luma sample: ~4 bytes for each look-ahead frame (source copy, quarter-size
 * half-pel planes), ~13 for each B-frame of the run (look-ahead motion data,
 * frames held for reordering), ~22 per frame thread (the frame being encoded,
 * its reconstruction, per-CTU analysis), ~30 for references and the rest;
 * plus ~40 MiB of tables, the thread pool and stacks. E.g. 1920x1440 with
 * the defaults (look-ahead 10, 3 B-frames, 1 frame thread): 348-365 MiB
 * measured, 393 MiB estimated; 1280x960 look-ahead 60: 411-416 measured, 428
 * estimated; 1280x960, look-ahead 1, no B-frames: 103-104 measured, 106
 * estimated. */
static size_t video_encoder_estimate(uint32_t width, uint32_t height, uint32_t lookahead, uint32_t bframes,
                                     uint32_t frame_threads) {
    size_t w = ((size_t)width + 63) & ~(size_t)63, h = ((size_t)height + 63) & ~(size_t)63;
    size_t per_sample = 30 + 22 * (size_t)frame_threads + 4 * (size_t)lookahead + 13 * (size_t)bframes;
    return ((size_t)40 << 20) + w * h * per_sample;
}

/* ---- packets ---- */

static sy_status grow_packet(sy_video_encoder *enc, size_t need, sy_error *err) {
    if (need <= enc->packet_cap) return SY_OK;
    size_t cap = enc->packet_cap ? enc->packet_cap : 65536;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) return sy__fail(err, SY_E_CODEC, "x265: access unit of %zu bytes", need);
        cap *= 2;
    }
    uint8_t *grown = sy__alloc(enc->ctx, cap, 1, "HEVC access unit", err);
    if (!grown) return err ? err->code : SY_E_BUDGET;
    sy__free(enc->ctx, enc->packet);
    enc->packet = grown;
    enc->packet_cap = cap;
    return SY_OK;
}

/* dts of the next packet (see the file comment). */
static sy_status packet_dts(sy_video_encoder *enc, int64_t *dts, sy_error *err) {
    uint64_t n = enc->delivered, d = enc->reorder;
    if (n == 0) /* the delay, once: from the pushed pts when x265 has seen D + 1 frames */
        enc->delay = enc->pushed > d ? enc->pts_ring[d % VE_PTS_RING] - enc->pts_ring[0]
                                     : (int64_t)d * enc->frame_duration;
    if (n >= enc->pushed)
        return sy__fail(err, SY_E_CODEC, "x265: packet %llu for %llu frames pushed", (unsigned long long)n,
                        (unsigned long long)enc->pushed);
    *dts = n >= d ? enc->pts_ring[(n - d) % VE_PTS_RING] : enc->pts_ring[n % VE_PTS_RING] - enc->delay;
    return SY_OK;
}

/* Rewrites one output picture as a length-prefixed access unit and sinks it. */
static sy_status deliver(sy_video_encoder *enc, const x265_nal *nals, uint32_t count, const x265_picture *done,
                         sy_error *err) {
    size_t need = 0;
    for (uint32_t i = 0; i < count; i++) need += (size_t)nals[i].sizeBytes + 4;
    sy_status st = grow_packet(enc, need, err);
    if (st != SY_OK) return st;
    size_t o = 0;
    int keyframe = 0, slices = 0;
    for (uint32_t i = 0; i < count; i++) {
        size_t len;
        const uint8_t *p = sy__nal_strip_start_code(nals[i].payload, nals[i].sizeBytes, &len);
        if (len < 2) continue;
        uint32_t type = sy__hevc_nal_type(p);
        if (type >= 32 && type <= 38) continue; /* VPS/SPS/PPS (in hvcC), AUD, EOS, EOB, filler */
        if (type < 32) slices++;
        if (sy__hevc_nal_is_irap(type)) keyframe = 1;
        enc->packet[o++] = (uint8_t)(len >> 24);
        enc->packet[o++] = (uint8_t)(len >> 16);
        enc->packet[o++] = (uint8_t)(len >> 8);
        enc->packet[o++] = (uint8_t)len;
        memcpy(enc->packet + o, p, len);
        o += len;
    }
    if (slices == 0)
        return sy__fail(err, SY_E_CODEC, "x265: picture at pts %lld came out without slice data",
                        (long long)done->pts);
    int64_t dts = 0;
    if ((st = packet_dts(enc, &dts, err)) != SY_OK) return st;
    if (dts > done->pts || (enc->delivered > 0 && dts <= enc->last_dts))
        return sy__fail(err, SY_E_CODEC,
                        "x265: packet %llu (pts %lld) would get dts %lld: after its pts or not after dts %lld "
                        "(reordered deeper than %u frames)",
                        (unsigned long long)enc->delivered, (long long)done->pts, (long long)dts,
                        (long long)enc->last_dts, enc->reorder);
    enc->last_dts = dts;
    enc->delivered++;
    sy_video_packet packet = {enc->packet, o, done->pts, dts, (uint32_t)keyframe};
    return enc->sink(enc->user, &packet, err);
}

/* ---- create / destroy ---- */

static sy_status configure(sy_video_encoder *enc, const sy_video_encoder_options *o, uint32_t *frame_threads,
                           sy_error *err) {
    const x265_api *api = enc->api;
    x265_param *p = enc->param;
    const char *preset = o->preset ? o->preset : VE_DEFAULT_PRESET;
    if (api->param_default_preset(p, preset, NULL) < 0)
        return sy__fail(err, SY_E_USAGE, "sy_video_encoder_create: unknown x265 preset \"%s\"", preset);
    if (api->param_apply_profile(p, "main") < 0)
        return sy__fail(err, SY_E_CODEC, "x265_param_apply_profile(main) failed");
    p->internalCsp = X265_CSP_I420;
    p->internalBitDepth = 8;
    p->sourceWidth = (int)o->width;
    p->sourceHeight = (int)o->height;
    uint32_t g = gcd32(o->timescale, o->frame_duration);
    p->fpsNum = o->timescale / g;
    p->fpsDenom = o->frame_duration / g;
    p->totalFrames = 0;
    /* Keyframes: IDR (closed GOP) at most keyint frames apart, 2 s by default. */
    uint64_t keyint = o->keyint;
    if (keyint == 0) keyint = ((uint64_t)2 * o->timescale + o->frame_duration / 2) / o->frame_duration;
    if (keyint < 1) keyint = 1;
    if (keyint > VE_MAX_KEYINT) keyint = VE_MAX_KEYINT;
    p->keyframeMax = (int)keyint;
    p->keyframeMin = 0; /* x265 picks (min(keyint / 10, fps)) for scene cuts */
    p->bOpenGOP = 0;
    p->bframes = (int)o->bframes;
    p->lookaheadDepth = (int)effective_lookahead(o);
    /* Rate control: ABR at the SPEC C14 average, without a VBV. With a VBV,
     * x265 re-plans row QPs while other rows are in flight, so the bytes
     * depend on thread timing; const-vbv fixes that but starves B-frames on
     * short clips (measured: 35 dB on B vs 48 dB on P frames of a 480x640
     * clip at 12 Mbps). Live clips are 1.5-3 s: the average is what matters. */
    uint64_t rate = o->bitrate ? o->bitrate : sy_video_bitrate_c14(o->width, o->height);
    uint64_t kbps = (rate + 500) / 1000;
    p->rc.rateControlMode = X265_RC_ABR;
    p->rc.bitrate = (int)kbps;
    p->rc.vbvMaxBitrate = 0;
    p->rc.vbvBufferSize = 0;
    /* Headers only in hvcC; nothing in the stream that varies between runs or builds. */
    p->bRepeatHeaders = 0;
    p->bEmitInfoSEI = 0;
    p->bEnableAccessUnitDelimiters = 0;
    p->decodedPictureHashSEI = 0;
    p->bEmitHRDSEI = 0;
    p->bAnnexB = 1;
    p->maxCUSize = 64; /* x265 needs one CTU size across the encoders open in a process (HEIF writer: 64) */
    p->logLevel = X265_LOG_ERROR;
    p->vui.bEnableVideoSignalTypePresentFlag = 1;
    p->vui.videoFormat = 5; /* unspecified */
    p->vui.bEnableVideoFullRangeFlag = o->full_range ? 1 : 0;
    p->vui.bEnableColorDescriptionPresentFlag = 1;
    p->vui.colorPrimaries = o->primaries;
    p->vui.transferCharacteristics = o->transfer;
    p->vui.matrixCoeffs = o->matrix;
    if (o->threads) {
        char pools[16];
        snprintf(pools, sizeof pools, "%u", o->threads);
        if (api->param_parse(p, "pools", pools) < 0)
            return sy__fail(err, SY_E_CODEC, "x265_param_parse(pools=%s) failed", pools);
    }
    /* One frame at a time: deterministic rate control and less memory (see
     * the file comment); wavefront rows and the look-ahead keep the pool busy. */
    p->frameNumThreads = 1;
    *frame_threads = 1;
    return SY_OK;
}

sy_status sy_video_encoder_create(sy_context *ctx, const sy_video_encoder_options *opts, sy_video_packet_sink sink,
                                  void *user, sy_video_encoder **out, sy_error *err) {
    if (!out) return sy__fail(err, SY_E_USAGE, "sy_video_encoder_create: out is NULL");
    *out = NULL;
    if (!ctx || !opts || !sink)
        return sy__fail(err, SY_E_USAGE, "sy_video_encoder_create: ctx, options and sink are required");
    sy_status st = check_options(opts, err);
    if (st != SY_OK) return st;
    sy__ycbcr_matrix matrix;
    if (!sy__ycbcr_matrix_init(&matrix, opts->matrix, opts->full_range))
        return sy__fail(err, SY_E_UNSUPPORTED, "sy_video_encoder_create: matrix_coefficients %u (1, 5, 6 or 9)",
                        opts->matrix);

    sy_video_encoder *enc = sy__calloc(ctx, 1, sizeof *enc, "video encoder", err);
    if (!enc) return err ? err->code : SY_E_BUDGET;
    enc->ctx = ctx;
    enc->width = opts->width;
    enc->height = opts->height;
    enc->sink = sink;
    enc->user = user;
    enc->matrix = matrix;

    enc->api = x265_api_get(8);
    if (!enc->api) {
        st = sy__fail(err, SY_E_UNSUPPORTED, "x265_api_get: no 8-bit x265 library (build %d)", X265_BUILD);
        goto fail;
    }
    enc->param = enc->api->param_alloc();
    if (!enc->param) {
        st = sy__fail(err, SY_E_CODEC, "x265_param_alloc failed");
        goto fail;
    }
    uint32_t frame_threads = 1;
    if ((st = configure(enc, opts, &frame_threads, err)) != SY_OK) goto fail;
    size_t estimate = video_encoder_estimate(opts->width, opts->height, (uint32_t)enc->param->lookaheadDepth,
                                             (uint32_t)enc->param->bframes, frame_threads);
    if ((st = sy__charge(ctx, estimate, "x265 video encoder (estimate)", err)) != SY_OK) goto fail;
    enc->charged = estimate;

    /* The reused 4:2:0 frame (x265 copies it during encode). */
    size_t luma = (size_t)opts->width * opts->height, chroma = luma / 4;
    enc->frame = sy__alloc(ctx, luma + 2 * chroma, 1, "YCbCr 4:2:0 frame", err);
    if (!enc->frame) {
        st = err ? err->code : SY_E_BUDGET;
        goto fail;
    }
    enc->plane[0] = enc->frame;
    enc->plane[1] = enc->frame + luma;
    enc->plane[2] = enc->frame + luma + chroma;
    enc->stride[0] = opts->width;
    enc->stride[1] = enc->stride[2] = opts->width / 2;

    enc->x265 = enc->api->encoder_open(enc->param);
    if (!enc->x265) {
        st = sy__fail(err, SY_E_CODEC, "x265_encoder_open refused %ux%u at %u/%u fps, %d kbit/s (preset %s)",
                      opts->width, opts->height, opts->timescale, opts->frame_duration, enc->param->rc.bitrate,
                      opts->preset ? opts->preset : VE_DEFAULT_PRESET);
        goto fail;
    }
    /* x265 may adjust the parameters while opening (the B-pyramid needs 2+ B-frames). */
    x265_param *actual = enc->api->param_alloc();
    const x265_param *used = enc->param;
    if (actual) {
        enc->api->encoder_parameters(enc->x265, actual);
        used = actual;
    }
    enc->reorder = used->bframes > 0 ? (used->bBPyramid ? 2 : 1) : 0;
    if (actual) enc->api->param_free(actual);
    enc->frame_duration = opts->frame_duration;
    x265_nal *nals = NULL;
    uint32_t count = 0;
    if (enc->api->encoder_headers(enc->x265, &nals, &count) < 0) {
        st = sy__fail(err, SY_E_CODEC, "x265_encoder_headers failed");
        goto fail;
    }
    enum { MAX_HEADERS = 8 };
    const uint8_t *nal[MAX_HEADERS];
    size_t nal_len[MAX_HEADERS], n = 0;
    for (uint32_t i = 0; i < count && n < MAX_HEADERS; i++, n++)
        nal[n] = sy__nal_strip_start_code(nals[i].payload, nals[i].sizeBytes, &nal_len[n]);
    if ((st = sy__hvcc_build(ctx, nal, nal_len, n, &enc->hvcc, &enc->hvcc_len, err)) != SY_OK) goto fail;
    enc->picture = enc->api->picture_alloc();
    if (!enc->picture) {
        st = sy__fail(err, SY_E_CODEC, "x265_picture_alloc failed");
        goto fail;
    }
    enc->api->picture_init(enc->param, enc->picture);
    *out = enc;
    return SY_OK;
fail:
    sy_video_encoder_destroy(enc);
    return st;
}

const uint8_t *sy_video_encoder_hvcc(const sy_video_encoder *enc, size_t *len) {
    if (!enc) {
        if (len) *len = 0;
        return NULL;
    }
    if (len) *len = enc->hvcc_len;
    return enc->hvcc;
}

void sy_video_encoder_destroy(sy_video_encoder *enc) {
    if (!enc) return;
    sy_context *ctx = enc->ctx;
    if (enc->api) {
        if (enc->picture) enc->api->picture_free(enc->picture);
        if (enc->x265) enc->api->encoder_close(enc->x265);
        if (enc->param) enc->api->param_free(enc->param);
    }
    sy__free(ctx, enc->hvcc);
    sy__free(ctx, enc->packet);
    sy__free(ctx, enc->frame);
    if (enc->charged) sy__discharge(ctx, enc->charged);
    sy__free(ctx, enc);
}

/* ---- encoding ---- */

static sy_status check_usable(const sy_video_encoder *enc, const char *fn, sy_error *err) {
    if (!enc) return sy__fail(err, SY_E_USAGE, "%s: encoder is NULL", fn);
    if (enc->failed) return sy__fail(err, SY_E_USAGE, "%s: the encoder failed earlier", fn);
    if (enc->flushed) return sy__fail(err, SY_E_USAGE, "%s: the encoder is already flushed", fn);
    return SY_OK;
}

static sy_status fail_state(sy_video_encoder *enc, sy_status st) {
    if (st != SY_OK) enc->failed = 1;
    return st;
}

sy_status sy_video_encoder_push_rgb(sy_video_encoder *enc, const uint8_t *rgb, size_t stride, int64_t pts,
                                    sy_error *err) {
    const char *fn = "sy_video_encoder_push_rgb";
    sy_status st = check_usable(enc, fn, err);
    if (st != SY_OK) return st;
    if (!rgb || stride < (size_t)enc->width * 3)
        return sy__fail(err, SY_E_USAGE, "%s: rgb is NULL or stride %zu < %u", fn, stride, enc->width * 3);
    if (enc->pushed > 0 && pts <= enc->last_pts)
        return sy__fail(err, SY_E_USAGE, "%s: pts %lld after %lld (presentation order, strictly increasing)", fn,
                        (long long)pts, (long long)enc->last_pts);
    if ((st = sy__check_cancel(enc->ctx, err)) != SY_OK) return fail_state(enc, st);
    /* p[i] is needed until packet i + D is out; x265 holds far fewer frames than the ring. */
    uint64_t oldest = enc->delivered > enc->reorder ? enc->delivered - enc->reorder : 0;
    if (enc->pushed + 1 - oldest > VE_PTS_RING)
        return fail_state(enc, sy__fail(err, SY_E_CODEC, "%s: x265 holds %llu frames (at most %u expected)", fn,
                                        (unsigned long long)(enc->pushed - enc->delivered), VE_PTS_RING - 1));

    sy__rgb_to_ycbcr420(&enc->matrix, rgb, stride, enc->width, enc->height, enc->plane, enc->stride);
    x265_picture *pic = enc->picture;
    for (int i = 0; i < 3; i++) {
        pic->planes[i] = enc->plane[i];
        pic->stride[i] = (int)enc->stride[i];
    }
    pic->bitDepth = 8;
    pic->colorSpace = X265_CSP_I420;
    pic->pts = pts;
    pic->sliceType = X265_TYPE_AUTO;
    enc->pts_ring[enc->pushed % VE_PTS_RING] = pts;
    enc->last_pts = pts;
    enc->pushed++;
    x265_nal *nals = NULL;
    uint32_t count = 0;
    x265_picture done;
    memset(&done, 0, sizeof done);
    int r = enc->api->encoder_encode(enc->x265, &nals, &count, pic, &done);
    if (r < 0)
        return fail_state(enc, sy__fail_sub(err, SY_E_CODEC, r, "x265_encoder_encode failed on frame %llu (pts %lld)",
                                            (unsigned long long)(enc->pushed - 1), (long long)pts));
    if (r > 0 && count > 0) return fail_state(enc, deliver(enc, nals, count, &done, err));
    return SY_OK;
}

sy_status sy_video_encoder_flush(sy_video_encoder *enc, sy_error *err) {
    if (enc && enc->flushed && !enc->failed) return SY_OK; /* drained already */
    sy_status st = check_usable(enc, "sy_video_encoder_flush", err);
    if (st != SY_OK) return st;
    enc->flushed = 1;
    for (;;) {
        x265_nal *nals = NULL;
        uint32_t count = 0;
        x265_picture done;
        memset(&done, 0, sizeof done);
        int r = enc->api->encoder_encode(enc->x265, &nals, &count, NULL, &done);
        if (r < 0) return fail_state(enc, sy__fail_sub(err, SY_E_CODEC, r, "x265_encoder_encode failed while flushing"));
        if (r == 0) break;
        if (count > 0 && (st = deliver(enc, nals, count, &done, err)) != SY_OK) return fail_state(enc, st);
    }
    if (enc->delivered != enc->pushed)
        return fail_state(enc, sy__fail(err, SY_E_CODEC, "x265: %llu packets for %llu frames",
                                        (unsigned long long)enc->delivered, (unsigned long long)enc->pushed));
    return SY_OK;
}
