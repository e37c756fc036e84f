/* video_encoder.c — sy_video_encoder (sy_video.h): upright RGB frames in,
 * HEVC access units with MP4 timestamps out, issue 4. The x265 side (setup,
 * parameter sets, packets) is the engine's one HEVC encoder
 * (hevc/sy_hevc_encoder.h, video use); this file checks the public options
 * and resolves their defaults, converts RGB to YCbCr 4:2:0, and gives each
 * packet its decode timestamp.
 *
 * Options: the preset ("veryfast" by default: on the real iPhone Live movie
 * cropped to 1536x1152 at the C14 rate it spends 23 % less CPU than "fast"
 * for 0.15 dB less PSNR, 37.35 vs 37.50 dB, and a Live save is bound by the
 * encoder); average bitrate from SPEC C14
 * unless given; frame rate timescale/frame_duration as a reduced fraction;
 * an IDR at most keyint frames apart (2 s by default); the look-ahead bounded
 * to 1..60 frames and longer than the B-frame run.
 *
 * Timestamps: pts is the caller's value for that frame. dts is computed here
 * (x265 3.5's own dts came out as garbage, e.g. 7089336938131513955, for
 * clips shorter than its reorder delay). With D the reorder delay (x265
 * outputs a frame at most D positions after its presentation position:
 * sy__hevc_encoder_reorder_delay) and p[i] the i-th pushed pts, packet n gets
 * dts = p[n - D], and the first D packets p[n] - (p[D] - p[0]) (D x
 * frame_duration when fewer frames exist). So dts is strictly increasing,
 * <= pts, and the first packet's dts = first pts - the delay (it may be
 * negative). Both rules are checked before a packet leaves.
 *
 * Bit depth: 8, or 10 (Main 10) for an HDR movie re-encoded from the
 * decoder's 10-bit samples (sy__video_encoder_stage_samples); a 10-bit
 * encoder takes no RGB.
 *
 * Memory: one YCbCr 4:2:0 frame (reused for every push; x265 copies it, and
 * a frame staged by rectangles converts only those into it), a row of scratch, and
 * the HEVC encoder's (its packet buffer and the estimate of x265's own
 * allocations charged to the context).
 */
#include <string.h>

#include "base/sy_internal.h"
#include "base/sy_rgb_to_ycbcr.h"
#include "hevc/sy_hevc_encoder.h"
#include "sy_video.h"
#include "video/sy_video_encoder_stage.h"

#define VE_DEFAULT_PRESET "veryfast"
#define VE_MIN_SIDE 64u /* x265: "Picture size must be at least one CTU" (the HEVC encoder uses CTU 64) */
#define VE_MAX_SIDE SY__VIDEO_MAX_SIDE
#define VE_MAX_LUMA_PICTURE SY__VIDEO_MAX_LUMA_PICTURE
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
    sy__hevc_encoder *hevc;
    sy__ycbcr_matrix matrix;
    uint8_t *frame; /* Y, Cb, Cr planes in one block, reused (16-bit samples for a 10-bit encoder) */
    uint32_t bit_depth;
    uint8_t *scratch; /* width + 4 bytes: chroma of a changed rectangle */
    uint8_t *plane[3];
    size_t stride[3];
    int64_t last_pts, last_dts;
    uint64_t pushed, delivered;
    uint32_t reorder;                /* D above */
    uint32_t frame_duration;
    int64_t delay;                   /* p[D] - p[0], fixed at the first packet */
    int64_t pts_ring[VE_PTS_RING];   /* p[i] at i % VE_PTS_RING, for i >= delivered - D */
    int flushed, failed;
    int staged;                      /* a converted frame waits for sy__video_encoder_encode_staged */
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
    if (o->bit_depth != 0 && o->bit_depth != 8 && o->bit_depth != 10)
        return sy__fail(err, SY_E_USAGE, "%s: bit depth %u (8 or 10)", fn, o->bit_depth);
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

/* The HEVC encoder's options for checked public options. */
static void hevc_options(const sy_video_encoder_options *o, sy__hevc_encoder_options *h) {
    memset(h, 0, sizeof *h);
    h->use = SY__HEVC_VIDEO;
    h->width = o->width;
    h->height = o->height;
    h->preset = o->preset ? o->preset : VE_DEFAULT_PRESET;
    h->threads = o->threads;
    h->colour = (sy_cicp){.present = 1, .primaries = o->primaries, .transfer = o->transfer, .matrix = o->matrix,
                          .full_range = o->full_range};
    uint32_t g = sy__gcd32(o->timescale, o->frame_duration);
    h->video.fps_num = o->timescale / g;
    h->video.fps_den = o->frame_duration / g;
    /* Keyframes: IDR (closed GOP) at most keyint frames apart, 2 s by default. */
    uint64_t keyint = o->keyint;
    if (keyint == 0) keyint = ((uint64_t)2 * o->timescale + o->frame_duration / 2) / o->frame_duration;
    if (keyint < 1) keyint = 1;
    if (keyint > VE_MAX_KEYINT) keyint = VE_MAX_KEYINT;
    h->video.keyint = (uint32_t)keyint;
    h->video.bframes = o->bframes;
    h->video.lookahead = effective_lookahead(o);
    uint64_t rate = o->bitrate ? o->bitrate : sy_video_bitrate_c14(o->width, o->height);
    h->video.kbps = (uint32_t)((rate + 500) / 1000);
    h->video.bit_depth = o->bit_depth == 10 ? 10 : 8;
    h->video.hdr = o->hdr;
    h->video.keyframe_at = o->keyframe_at;
}

/* ---- packets ---- */

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

/* HEVC encoder sink: timestamps the access unit and hands it on. */
static sy_status deliver(void *user, const sy__hevc_packet *au, sy_error *err) {
    sy_video_encoder *enc = user;
    int64_t dts = 0;
    sy_status st = packet_dts(enc, &dts, err);
    if (st != SY_OK) return st;
    if (dts > au->pts || (enc->delivered > 0 && dts <= enc->last_dts))
        return sy__fail(err, SY_E_CODEC,
                        "x265: packet %llu (pts %lld) would get dts %lld: after its pts or not after dts %lld "
                        "(reordered deeper than %u frames)",
                        (unsigned long long)enc->delivered, (long long)au->pts, (long long)dts,
                        (long long)enc->last_dts, enc->reorder);
    enc->last_dts = dts;
    enc->delivered++;
    sy_video_packet packet = {au->data, au->len, au->pts, dts, (uint32_t)au->keyframe};
    return enc->sink(enc->user, &packet, err);
}

/* ---- create / destroy ---- */

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
    enc->frame_duration = opts->frame_duration;

    sy__hevc_encoder_options h;
    hevc_options(opts, &h);
    if ((st = sy__hevc_encoder_open(ctx, &h, deliver, enc, &enc->hevc, err)) != SY_OK) goto fail;
    enc->reorder = sy__hevc_encoder_reorder_delay(enc->hevc);

    /* The reused 4:2:0 frame (x265 copies it during encode). */
    enc->bit_depth = opts->bit_depth == 10 ? 10 : 8;
    size_t bps = enc->bit_depth > 8 ? 2 : 1;
    size_t luma = (size_t)opts->width * opts->height * bps, chroma = luma / 4;
    enc->frame = sy__alloc(ctx, luma + 2 * chroma, 1, "YCbCr 4:2:0 frame", err);
    if (!enc->frame) {
        st = err ? err->code : SY_E_BUDGET;
        goto fail;
    }
    enc->scratch = sy__alloc(ctx, (size_t)opts->width + 4, 1, "YCbCr rectangle scratch", err);
    if (!enc->scratch) {
        st = err ? err->code : SY_E_BUDGET;
        goto fail;
    }
    enc->plane[0] = enc->frame;
    enc->plane[1] = enc->frame + luma;
    enc->plane[2] = enc->frame + luma + chroma;
    enc->stride[0] = opts->width * bps;
    enc->stride[1] = enc->stride[2] = opts->width / 2 * bps;
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
    size_t n = 0;
    const uint8_t *hvcc = sy__hevc_encoder_hvcc(enc->hevc, &n);
    if (len) *len = n;
    return hvcc;
}

void sy_video_encoder_destroy(sy_video_encoder *enc) {
    if (!enc) return;
    sy_context *ctx = enc->ctx;
    sy__hevc_encoder_destroy(enc->hevc);
    sy__free(ctx, enc->frame);
    sy__free(ctx, enc->scratch);
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

/* What staging any frame checks, and the frame's pts taken (the copy or conversion follows). */
static sy_status stage_begin(sy_video_encoder *enc, const char *fn, int64_t pts, sy_error *err) {
    sy_status st;
    if (enc->pushed > 0 && pts <= enc->last_pts)
        return sy__fail(err, SY_E_USAGE, "%s: pts %lld after %lld (presentation order, strictly increasing)", fn,
                        (long long)pts, (long long)enc->last_pts);
    if ((st = sy__check_cancel(enc->ctx, err)) != SY_OK) return fail_state(enc, st);
    /* p[i] is needed until packet i + D is out; x265 holds far fewer frames than the ring. */
    uint64_t oldest = enc->delivered > enc->reorder ? enc->delivered - enc->reorder : 0;
    if (enc->pushed + 1 - oldest > VE_PTS_RING)
        return fail_state(enc, sy__fail(err, SY_E_CODEC, "%s: x265 holds %llu frames (at most %u expected)", fn,
                                        (unsigned long long)(enc->pushed - enc->delivered), VE_PTS_RING - 1));

    enc->pts_ring[enc->pushed % VE_PTS_RING] = pts;
    enc->last_pts = pts;
    return SY_OK;
}

/* The same for an RGB frame. */
static sy_status stage_checks(sy_video_encoder *enc, const uint8_t *rgb, size_t stride, int64_t pts, sy_error *err) {
    const char *fn = "sy_video_encoder_push_rgb";
    sy_status st = check_usable(enc, fn, err);
    if (st != SY_OK) return st;
    if (enc->staged) return sy__fail(err, SY_E_USAGE, "%s: a staged frame is not encoded yet", fn);
    if (enc->bit_depth != 8)
        return sy__fail(err, SY_E_USAGE, "%s: a 10-bit encoder takes the decoder's samples, not RGB frames", fn);
    if (!rgb || stride < (size_t)enc->width * 3)
        return sy__fail(err, SY_E_USAGE, "%s: rgb is NULL or stride %zu < %u", fn, stride, enc->width * 3);
    return stage_begin(enc, fn, pts, err);
}

static sy_status staged(sy_video_encoder *enc) {
    enc->pushed++;
    enc->staged = 1;
    return SY_OK;
}

sy_status sy__video_encoder_stage_rgb(sy_video_encoder *enc, const uint8_t *rgb, size_t stride, int64_t pts,
                                      sy_error *err) {
    sy_status st = stage_checks(enc, rgb, stride, pts, err);
    if (st != SY_OK) return st;
    sy__rgb_to_ycbcr420(&enc->matrix, rgb, stride, enc->width, enc->height, enc->plane, enc->stride);
    return staged(enc);
}

sy_status sy__video_encoder_stage_rgb_rects(sy_video_encoder *enc, const uint8_t *rgb, size_t stride, int64_t pts,
                                            const sy__video_rect *rects, uint32_t count, sy_error *err) {
    if (!enc || enc->pushed == 0) return sy__video_encoder_stage_rgb(enc, rgb, stride, pts, err); /* no planes yet */
    if (count && !rects) return sy__fail(err, SY_E_USAGE, "sy_video_encoder_push_rgb: %u rectangles, none given", count);
    sy_status st = stage_checks(enc, rgb, stride, pts, err);
    if (st != SY_OK) return st;
    for (uint32_t i = 0; i < count; i++) {
        const sy__video_rect *r = &rects[i];
        uint64_t x1 = (uint64_t)r->x + r->width, y1 = (uint64_t)r->y + r->height; /* clipped to the frame there */
        sy__rgb_to_ycbcr420_rect(&enc->matrix, rgb, stride, enc->width, enc->height, r->x, r->y,
                                 (uint32_t)SY__MIN(x1, enc->width), (uint32_t)SY__MIN(y1, enc->height), enc->plane,
                                 enc->stride, enc->scratch);
    }
    return staged(enc);
}

sy_status sy__video_encoder_stage_samples(sy_video_encoder *enc, const sy__yuv *src, uint32_t x0, uint32_t y0,
                                          int64_t pts, sy_error *err) {
    const char *fn = "sy__video_encoder_stage_samples";
    sy_status st = check_usable(enc, fn, err);
    if (st != SY_OK) return st;
    if (enc->staged) return sy__fail(err, SY_E_USAGE, "%s: a staged frame is not encoded yet", fn);
    if (!src || src->chroma != 1 || src->bit_depth != enc->bit_depth || (x0 | y0) & 1 ||
        (uint64_t)x0 + enc->width > src->width || (uint64_t)y0 + enc->height > src->height)
        return sy__fail(err, SY_E_USAGE, "%s: not %u-bit 4:2:0 samples holding %ux%u at even (%u, %u)", fn,
                        enc->bit_depth, enc->width, enc->height, x0, y0);
    if ((st = stage_begin(enc, fn, pts, err)) != SY_OK) return st;
    /* The encoder's sides are even, so its chroma is exactly the rectangle's. */
    size_t bps = enc->bit_depth > 8 ? 2 : 1;
    for (int c = 0; c < 3; c++) {
        uint32_t sub = c ? 1 : 0, w = enc->width >> sub, h = enc->height >> sub;
        const uint8_t *from = src->plane[c] + (size_t)(y0 >> sub) * src->stride[c] + (x0 >> sub) * bps;
        for (uint32_t y = 0; y < h; y++)
            memcpy(enc->plane[c] + (size_t)y * enc->stride[c], from + (size_t)y * src->stride[c], w * bps);
    }
    return staged(enc);
}

/* What goes with the staged frame (its pts) into x265's encoder: a usable encoder with a frame staged. */
static sy_status check_staged(const sy_video_encoder *enc, const char *fn, sy_error *err) {
    sy_status st = check_usable(enc, fn, err);
    if (st == SY_OK && !enc->staged) st = sy__fail(err, SY_E_USAGE, "%s: no staged frame", fn);
    return st;
}

sy_status sy__video_encoder_stage_t35(sy_video_encoder *enc, const uint8_t *payload, size_t len, sy_error *err) {
    sy_status st = check_staged(enc, "sy__video_encoder_stage_t35", err);
    if (st != SY_OK) return st;
    return fail_state(enc, sy__hevc_encoder_attach_t35(enc->hevc, enc->last_pts, payload, len, err));
}

sy_status sy__video_encoder_stage_rpu(sy_video_encoder *enc, const uint8_t *nal, size_t len, sy_error *err) {
    sy_status st = check_staged(enc, "sy__video_encoder_stage_rpu", err);
    if (st != SY_OK) return st;
    return fail_state(enc, sy__hevc_encoder_attach_last_nal(enc->hevc, enc->last_pts, nal, len, err));
}

float *sy__video_encoder_block_offsets(sy_video_encoder *enc, uint32_t *cols, uint32_t *rows, uint32_t *block,
                                       sy_error *err) {
    if (check_usable(enc, "sy__video_encoder_block_offsets", err) != SY_OK) return NULL;
    return sy__hevc_encoder_block_offsets(enc->hevc, cols, rows, block, err);
}

sy_status sy__video_encoder_encode_staged(sy_video_encoder *enc, sy_error *err) {
    sy_status st = check_usable(enc, "sy_video_encoder_push_rgb", err);
    if (st != SY_OK) return st;
    if (!enc->staged) return sy__fail(err, SY_E_USAGE, "sy_video_encoder_push_rgb: no staged frame");
    enc->staged = 0;
    return fail_state(enc, sy__hevc_encoder_push(enc->hevc, enc->plane, enc->stride, enc->last_pts, err));
}

sy_status sy_video_encoder_push_rgb(sy_video_encoder *enc, const uint8_t *rgb, size_t stride, int64_t pts,
                                    sy_error *err) {
    sy_status st = sy__video_encoder_stage_rgb(enc, rgb, stride, pts, err);
    return st == SY_OK ? sy__video_encoder_encode_staged(enc, err) : st;
}

sy_status sy_video_encoder_flush(sy_video_encoder *enc, sy_error *err) {
    if (enc && enc->flushed && !enc->failed) return SY_OK; /* drained already */
    sy_status st = check_usable(enc, "sy_video_encoder_flush", err);
    if (st != SY_OK) return st;
    if (enc->staged && (st = sy__video_encoder_encode_staged(enc, err)) != SY_OK) return st;
    enc->flushed = 1;
    if ((st = sy__hevc_encoder_flush(enc->hevc, err)) != SY_OK) return fail_state(enc, st);
    if (enc->delivered != enc->pushed)
        return fail_state(enc, sy__fail(err, SY_E_CODEC, "x265: %llu packets for %llu frames",
                                        (unsigned long long)enc->delivered, (unsigned long long)enc->pushed));
    return SY_OK;
}
