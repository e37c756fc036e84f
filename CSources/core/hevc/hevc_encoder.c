/* hevc_encoder.c — the engine's x265 encoder (sy_hevc_encoder.h), for HEIF
 * stills and for movie tracks.
 *
 * Common to both uses: 8-bit input, CTU 64 always (x265 requires every
 * encoder in a process to share one maxCUSize while they are open), closed
 * GOPs, parameter sets taken once from x265_encoder_headers into the hvcC and
 * never repeated in picture data, nothing in the stream that varies between
 * runs or builds (no info SEI with x265's version string, no AUD, no picture
 * hash, no HRD SEI), and the VUI colour description as given. x265 emits
 * Annex-B NAL units; they are rewritten with 4-byte length prefixes.
 *
 * Stills: intra only (keyint 1, no B-frames, no look-ahead, no scene cuts, no
 * cuTree) so every picture is an IDR that decodes on its own with the hvcC's
 * parameter sets; constant quality (CRF); the smallest CU as asked (the HEIF
 * writer's default asks 32: docs/heic-quality.md); Main Still Picture for 4:2:0 (one
 * picture per bitstream), 4:0:0 in the RExt profile x265 picks itself. Only
 * VCL NAL units are kept: HEIF item data needs no SEI.
 *
 * Video: the preset with no tune, Main profile (Main 10 through x265's 10-bit
 * library for an HDR movie's samples), level chosen by x265;
 * average bitrate (ABR) without a VBV; keyframes as asked (x265 picks
 * min(keyint / 10, fps) as the minimum for scene cuts); B-frames as asked
 * (x265's B-pyramid stays on); a bounded rate-control look-ahead. VPS, SPS,
 * PPS, AUD, EOS, EOB and filler are dropped from packets; SEI, if any, kept.
 *
 * Threads and determinism: x265's pool (one thread per core unless asked)
 * runs wavefront rows and the look-ahead, one frame thread for every use
 * (frame_threads: with two, x265 3.5 can hang in its flush). Video keeps one
 * frame thread also because two are not deterministic. With two,
 * VideoEncoderTests' sameInputSameBytes saw 59 packets of a 640x480 clip
 * differ between two encodes while the other
 * suites loaded the machine (issue 15, 2026-12-04 evening; 24 libx265 encodes
 * and 5 Live edits run side by side that morning had matched, so quiet runs
 * prove nothing). They would otherwise pay: on the real iPhone Live movie
 * cropped to 1536x1152 at the C14 rate, one frame thread overshoots the ABR
 * target (2.88 MB for 2.39 MB asked) where two land on it (2.43 MB) at the
 * same quality for the size (37.80 dB; 37.73 interpolated for one), and a
 * Live edit ran 7.6 %, the 2x2 moving collage 9 % faster. Bisected later
 * that night: the difference is intermittent (one batch of 15 parallel
 * encodes identical, another 3 streams in 9); with CRF instead of ABR, or
 * without wavefront rows, 24 encodes each were identical, but ABR is what
 * gives SPEC C14's average and two frame threads without wavefront rows were
 * no faster than one with them.
 * With one frame thread and no VBV (its row-level re-planning under
 * wavefront parallelism reads bits of rows still being encoded) the same
 * pictures and options give the same bytes for any pool size. With a
 * VBV, const-vbv would fix the timing dependence but starves B-frames on
 * short clips (measured: 35 dB on B vs 48 dB on P frames of a 480x640 clip
 * at 12 Mbps); Live clips are 1.5-3 s, so the average is what matters.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <x265.h>

#include "base/sy_hdr_static.h"
#include "hevc/sy_hevc_encoder.h"
#include "hevc/sy_hevc_params.h"
#include "hevc/sy_hevc_attached.h"
#include "hevc/sy_hvcc.h"

/* Under AddressSanitizer: x265 3.5's x265_encoder_open leaks one x265_param
 * (1168 bytes) per encoder, inside libx265 (nothing of ours is reachable from
 * it), which would fail every LeakSanitizer run that encodes. libx265 is
 * built without frame pointers, so LSan's fast unwinder stops inside it and
 * the entry has to name the library, not x265_encoder_open. Our own buffers
 * stay covered (and are also counted by the accounting allocator). The hook is
 * only consulted by LSan; normal builds do not define it. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SY__X265_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(SY__X265_ASAN)
#define SY__X265_ASAN 1
#endif
#ifdef SY__X265_ASAN
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libx265.so\n"; }
#endif

#define ENC_MIN_SIDE 64u /* x265: "Picture size must be at least one CTU" */
#define ENC_MAX_HEADERS 8

struct sy__hevc_encoder {
    sy_context *ctx;
    sy__hevc_use use;
    int monochrome;
    int bit_depth;   /* 8, or 10 for a Main 10 video encoder */
    const x265_api *api;
    x265_param *param;
    x265_encoder *x265;
    x265_picture *picture;
    uint32_t reorder;
    uint32_t keyframe_at; /* video: this picture (push order) is coded as an IDR too */
    uint64_t pushed;
    int flushed;
    size_t charged;
    sy__hevc_sink sink;
    void *user;
    uint8_t *hvcc;
    size_t hvcc_len;
    uint8_t *packet; /* one picture's length-prefixed NAL units */
    size_t packet_cap;
    sy__hevc_attached_queue t35; /* video: HDR10+ messages waiting for their pictures */
    sy__hevc_attached_queue last; /* video: NAL units that end their pictures' access units (RPUs) */
    float *offsets;  /* video: QP offsets per block for every picture pushed, NULL = none */
    uint32_t offset_cols, offset_rows, offset_block; /* x265's grid (read_settled); cols 0: no AQ */
};

/* ---- memory estimates ---- */

/* Stills. Calibrated with peak RSS on 2 cores (512x512 tiles: ~10-15 MB
 * measured): fixed tables, pools and thread stacks, plus ~32 bytes per luma
 * sample for each picture in flight (source, reconstruction, lowres copies,
 * CU analysis; a second frame thread measured +4.4 MB peak RSS on a grid
 * save, estimated +8 MB). Deliberately on the high side. */
static size_t still_estimate(uint32_t width, uint32_t height, int monochrome, uint32_t frame_threads) {
    size_t w = (width + 63) & ~(size_t)63, h = (height + 63) & ~(size_t)63;
    size_t per_sample = (monochrome ? 24 : 32) * (size_t)frame_threads;
    return ((size_t)12 << 20) + w * h * per_sample;
}

/* Video. Calibrated from peak RSS growth on this 2-core machine, preset
 * fast, 640x480 to 1920x1440, look-ahead 1..60, 0 or 3 B-frames, 1 or 2
 * frame threads. Per luma sample: ~4 bytes for each look-ahead frame (source
 * copy, quarter-size half-pel planes), ~13 for each B-frame of the run
 * (look-ahead motion data, frames held for reordering), ~22 per frame thread
 * (the frame being encoded, its reconstruction, per-CTU analysis), ~30 for
 * references and the rest; plus ~40 MiB of tables, the thread pool and
 * stacks. E.g. 1920x1440 with look-ahead 10, 3 B-frames, 1 frame thread:
 * 348-365 MiB measured, 393 MiB estimated; 1280x960 look-ahead 60: 411-416
 * measured, 428 estimated; 1280x960, look-ahead 1, no B-frames: 103-104
 * measured, 106 estimated. */
/* Main 10: x265's 10-bit library keeps 16-bit pixels. A 1920x1080 HLG
 * transcode (preset fast, look-ahead 10, 3 B-frames, one frame thread):
 * 568 MB peak RSS in 10 bits where the same picture takes 375 MB in 8; with
 * 170 % the engine's estimate is 586 MB (365 MB in 8 bits). */
#define TEN_BIT_PERCENT 170

static size_t video_estimate(uint32_t width, uint32_t height, uint32_t lookahead, uint32_t bframes,
                             uint32_t frame_threads, int ten_bit) {
    size_t w = ((size_t)width + 63) & ~(size_t)63, h = ((size_t)height + 63) & ~(size_t)63;
    size_t per_sample = 30 + 22 * (size_t)frame_threads + 4 * (size_t)lookahead + 13 * (size_t)bframes;
    if (ten_bit) per_sample = per_sample * TEN_BIT_PERCENT / 100; /* 16-bit pixels in every picture */
    return ((size_t)40 << 20) + w * h * per_sample;
}

/* ---- configuration ---- */

/* quality 1..100 -> CRF for stills, piecewise linear through four anchors:
 *   q100 -> CRF 12, q90 -> 22, q50 -> 34, q1 -> 51 (x265's worst).
 * q90, every save's default, was chosen by measurement (docs/heic-quality.md,
 * scripts/heic_sweep.py): an 80 % crop of the real iPhone HEICs saved at CRF
 * 22 with preset ultrafast is 1.19-1.24x the source's bits per pixel at
 * 42.4-42.7 dB PSNR against the lossless render of the same edit (targets:
 * <= 1.5x, >= 40 dB); CRF 20 came to 1.40-1.46x, CRF 24 to 41.2-41.5 dB.
 * libheif's table (q90 -> CRF 5) made files 4x the source's at 48-50 dB. Above
 * q90 a point is one CRF step (q95 -> 17, the Live key photo's default);
 * below, q80 -> 25 and q70 -> 28 stay usable for "smaller" exports. */
static double quality_to_crf(int quality) {
    if (quality < 1) quality = 1;
    if (quality > 100) quality = 100;
    if (quality >= 90) return 22.0 - (quality - 90);
    if (quality >= 50) return 22.0 + (90 - quality) * 0.3;
    return 34.0 + (50 - quality) * (17.0 / 49.0);
}

static void configure_still(x265_param *p, const sy__hevc_encoder_options *o) {
    p->fpsNum = 1;
    p->fpsDenom = 1;
    p->totalFrames = o->monochrome ? 0 : 1; /* 1: one picture per bitstream -> Main Still Picture */
    p->keyframeMax = 1;
    p->keyframeMin = 1;
    p->bOpenGOP = 0;
    p->bframes = 0;
    p->lookaheadDepth = 0;
    p->scenecutThreshold = 0;
    p->rc.cuTree = 0;
    p->rc.rateControlMode = X265_RC_CRF;
    p->rc.rfConstant = quality_to_crf(o->still.quality);
    if (o->still.min_cu_size) p->minCUSize = o->still.min_cu_size;
    if (o->still.rd_level) p->rdLevel = (int)o->still.rd_level;
}

static void configure_video(x265_param *p, const sy__hevc_encoder_options *o) {
    p->fpsNum = o->video.fps_num;
    p->fpsDenom = o->video.fps_den;
    p->totalFrames = 0;
    p->keyframeMax = (int)o->video.keyint;
    p->keyframeMin = 0; /* x265 picks (min(keyint / 10, fps)) for scene cuts */
    p->bOpenGOP = 0;    /* every keyframe an IDR a player can start from */
    p->bframes = (int)o->video.bframes;
    p->lookaheadDepth = (int)o->video.lookahead;
    p->rc.rateControlMode = X265_RC_ABR;
    p->rc.bitrate = (int)o->video.kbps;
    p->rc.vbvMaxBitrate = 0;
    p->rc.vbvBufferSize = 0;
}

/* HDR10 static metadata: x265 writes the mastering display colour volume
 * and content light level SEI with every keyframe once they are set (its
 * "hdr10" switch turns on with them). Set through x265's own option parser,
 * which owns the strings it keeps. */
static sy_status configure_hdr10(const x265_api *api, x265_param *p, const sy_hdr_static_metadata *m, sy_error *err) {
    char value[128];
    if (m->has_mastering) {
        sy__hdr_static_master_display(m, value, sizeof value);
        if (api->param_parse(p, "master-display", value) < 0)
            return sy__fail(err, SY_E_CODEC, "x265_param_parse(master-display=%s) failed", value);
    }
    if (m->has_light_level) {
        snprintf(value, sizeof value, "%u,%u", m->max_cll, m->max_fall);
        if (api->param_parse(p, "max-cll", value) < 0)
            return sy__fail(err, SY_E_CODEC, "x265_param_parse(max-cll=%s) failed", value);
    }
    if ((m->has_mastering || m->has_light_level) && api->param_parse(p, "hdr10", "1") < 0)
        return sy__fail(err, SY_E_CODEC, "x265_param_parse(hdr10) failed");
    return SY_OK;
}

/* One frame thread, always. Video: two are not deterministic (see the file
 * comment). Stills ran two with two or more pool threads (tiles are
 * independent IDR pictures; a HEIC save of the real iPhone 15 Plus crop 1.05-1.12
 * vs 1.10-1.14 s with one, the same bytes) until a make sanitize run hung
 * for good in x265 3.5's flush: with two frame threads the last picture's
 * rateControlEnd waits for a later picture to start, or for the final frame
 * count the flush sets and announces by a wake-up; that wake-up can land
 * between the thread's check of the count and its wait (a lost wake-up), and
 * the encode never returns. One frame thread never waits for a later picture. */
static uint32_t frame_threads(const sy__hevc_encoder_options *o) {
    (void)o;
    return 1;
}

static sy_status configure(sy__hevc_encoder *enc, const sy__hevc_encoder_options *o, sy_error *err) {
    const x265_api *api = enc->api;
    x265_param *p = enc->param;
    if (api->param_default_preset(p, o->preset, NULL) < 0)
        return sy__fail(err, SY_E_USAGE, "x265: unknown preset \"%s\"", o->preset);
    /* Stills: Main Still Picture for 4:2:0; 4:0:0 needs the RExt profile,
     * which x265 selects itself (apply_profile would refuse
     * "mainstillpicture" + i400). */
    int ten = o->use == SY__HEVC_VIDEO && o->video.bit_depth == 10;
    const char *profile = o->use == SY__HEVC_VIDEO ? (ten ? "main10" : "main") : o->monochrome ? NULL : "mainstillpicture";
    if (profile && api->param_apply_profile(p, profile) < 0)
        return sy__fail(err, SY_E_CODEC, "x265_param_apply_profile(%s) failed", profile);
    p->internalCsp = o->monochrome ? X265_CSP_I400 : X265_CSP_I420;
    p->internalBitDepth = ten ? 10 : 8;
    p->sourceWidth = (int)o->width;
    p->sourceHeight = (int)o->height;
    if (o->use == SY__HEVC_VIDEO)
        configure_video(p, o);
    else
        configure_still(p, o);
    sy_status st = o->use == SY__HEVC_VIDEO ? configure_hdr10(api, p, &o->video.hdr, err) : SY_OK;
    if (st != SY_OK) return st;
    p->bRepeatHeaders = 0;
    p->bEmitInfoSEI = 0;
    p->bEnableAccessUnitDelimiters = 0;
    p->decodedPictureHashSEI = 0;
    p->bEmitHRDSEI = 0;
    p->bAnnexB = 1;
    p->maxCUSize = 64;
    p->logLevel = X265_LOG_ERROR;
    p->vui.bEnableVideoSignalTypePresentFlag = 1;
    p->vui.videoFormat = 5; /* unspecified */
    p->vui.bEnableVideoFullRangeFlag = o->colour.full_range ? 1 : 0;
    p->vui.bEnableColorDescriptionPresentFlag = 1;
    p->vui.colorPrimaries = o->colour.primaries;
    p->vui.transferCharacteristics = o->colour.transfer;
    p->vui.matrixCoeffs = o->monochrome ? (int)SY_CICP_UNSPECIFIED : o->colour.matrix; /* luma only: no matrix */
    if (o->threads) {
        char pools[16];
        snprintf(pools, sizeof pools, "%u", o->threads);
        if (api->param_parse(p, "pools", pools) < 0)
            return sy__fail(err, SY_E_CODEC, "x265_param_parse(pools=%s) failed", pools);
    }
    p->frameNumThreads = (int)frame_threads(o);
    return SY_OK;
}

static sy_status open_failure(const sy__hevc_encoder_options *o, sy_error *err) {
    if (o->use == SY__HEVC_VIDEO)
        return sy__fail(err, SY_E_CODEC, "x265_encoder_open refused %ux%u at %u/%u fps, %u kbit/s (preset %s)",
                        o->width, o->height, o->video.fps_num, o->video.fps_den, o->video.kbps, o->preset);
    return sy__fail(err, SY_E_CODEC, "x265_encoder_open refused %ux%u %s (preset %s)", o->width, o->height,
                    o->monochrome ? "i400" : "i420", o->preset);
}

/* What x265 settled on while opening (it may adjust the parameters: the
 * B-pyramid needs 2+ B-frames; padding and the quantization group size
 * decide the QP offset grid), read once: the reorder delay, and the grid of
 * block offsets (x265's lowres blocks, Lowres::create; cols 0 = no
 * adaptive quantization, so no offsets). */
static void read_settled(sy__hevc_encoder *enc) {
    x265_param *actual = enc->api->param_alloc();
    const x265_param *used = enc->param;
    if (actual) {
        enc->api->encoder_parameters(enc->x265, actual);
        used = actual;
    }
    enc->reorder = used->bframes > 0 ? (used->bBPyramid ? 2 : 1) : 0;
    int fine = used->rc.qgSize == 8;
    uint32_t cu = (uint32_t)used->minCUSize;
    uint32_t w = ((uint32_t)used->sourceWidth + cu - 1) / cu * cu;
    uint32_t h = ((uint32_t)used->sourceHeight + cu - 1) / cu * cu;
    uint32_t c = (w / 2 + 7) / 8, r = (h / 2 + 7) / 8;
    enc->offset_cols = used->rc.aqMode ? (fine ? 2 * c : c) : 0;
    enc->offset_rows = fine ? 2 * r : r;
    enc->offset_block = fine ? 8 : 16;
    if (actual) enc->api->param_free(actual);
}

static sy_status build_hvcc(sy__hevc_encoder *enc, sy_error *err) {
    x265_nal *nals = NULL;
    uint32_t count = 0;
    if (enc->api->encoder_headers(enc->x265, &nals, &count) < 0)
        return sy__fail(err, SY_E_CODEC, "x265_encoder_headers failed");
    const uint8_t *nal[ENC_MAX_HEADERS];
    size_t len[ENC_MAX_HEADERS], n = 0;
    for (uint32_t i = 0; i < count && n < ENC_MAX_HEADERS; i++, n++)
        nal[n] = sy__nal_strip_start_code(nals[i].payload, nals[i].sizeBytes, &len[n]);
    return sy__hvcc_build(enc->ctx, nal, len, n, &enc->hvcc, &enc->hvcc_len, err);
}

sy_status sy__hevc_encoder_open(sy_context *ctx, const sy__hevc_encoder_options *opts, sy__hevc_sink sink,
                                void *user, sy__hevc_encoder **out, sy_error *err) {
    *out = NULL;
    const sy__hevc_encoder_options *o = opts;
    int monochrome = o->use == SY__HEVC_STILLS && o->monochrome;
    if (o->width < ENC_MIN_SIDE || o->height < ENC_MIN_SIDE || o->width > SY__HEVC_MAX_SIDE ||
        o->height > SY__HEVC_MAX_SIDE || (!monochrome && ((o->width | o->height) & 1)))
        return sy__fail(err, SY_E_USAGE, "x265 encoder: picture %ux%u not encodable (%u..%u, even for 4:2:0)",
                        o->width, o->height, ENC_MIN_SIDE, SY__HEVC_MAX_SIDE);
    if (!o->preset) return sy__fail(err, SY_E_USAGE, "x265 encoder: no preset");
    uint32_t cu = o->still.min_cu_size;
    if (cu && cu != 8 && cu != 16 && cu != 32)
        return sy__fail(err, SY_E_USAGE, "x265 encoder: smallest CU %u (8, 16 or 32)", cu);
    if (o->still.rd_level > 6) return sy__fail(err, SY_E_USAGE, "x265 encoder: RD level %u (1..6)", o->still.rd_level);
    sy__hevc_encoder *enc = sy__calloc(ctx, 1, sizeof *enc, "x265 encoder", err);
    if (!enc) return err ? err->code : SY_E_BUDGET;
    enc->ctx = ctx;
    enc->use = o->use;
    enc->keyframe_at = o->use == SY__HEVC_VIDEO ? o->video.keyframe_at : 0;
    enc->monochrome = monochrome;
    enc->sink = sink;
    enc->user = user;
    int video = o->use == SY__HEVC_VIDEO;
    uint32_t threads = frame_threads(o);
    size_t estimate = video ? video_estimate(o->width, o->height, o->video.lookahead, o->video.bframes, threads,
                                             o->video.bit_depth == 10)
                            : still_estimate(o->width, o->height, monochrome, threads);
    sy_status st = sy__charge(ctx, estimate, video ? "x265 video encoder (estimate)" : "x265 encoder (estimate)", err);
    if (st != SY_OK) goto fail;
    enc->charged = estimate;

    enc->bit_depth = video && o->video.bit_depth == 10 ? 10 : 8;
    enc->api = x265_api_get(enc->bit_depth); /* Debian's libx265 holds the 8-, 10- and 12-bit encoders */
    if (!enc->api) {
        st = sy__fail(err, SY_E_UNSUPPORTED, "x265_api_get: no %d-bit x265 library (build %d)", enc->bit_depth,
                      X265_BUILD);
        goto fail;
    }
    enc->param = enc->api->param_alloc();
    if (!enc->param) {
        st = sy__fail(err, SY_E_CODEC, "x265_param_alloc failed");
        goto fail;
    }
    sy__hevc_encoder_options effective = *o;
    effective.monochrome = monochrome;
    if ((st = configure(enc, &effective, err)) != SY_OK) goto fail;
    enc->x265 = enc->api->encoder_open(enc->param);
    if (!enc->x265) {
        st = open_failure(&effective, err);
        goto fail;
    }
    read_settled(enc);
    if ((st = build_hvcc(enc, err)) != SY_OK) goto fail;
    enc->picture = enc->api->picture_alloc();
    if (!enc->picture) {
        st = sy__fail(err, SY_E_CODEC, "x265_picture_alloc failed");
        goto fail;
    }
    enc->api->picture_init(enc->param, enc->picture);
    *out = enc;
    return SY_OK;
fail:
    sy__hevc_encoder_destroy(enc);
    return st;
}

const uint8_t *sy__hevc_encoder_hvcc(const sy__hevc_encoder *enc, size_t *len) {
    *len = enc->hvcc_len;
    return enc->hvcc;
}

uint32_t sy__hevc_encoder_reorder_delay(const sy__hevc_encoder *enc) { return enc->reorder; }

sy_status sy__hevc_encoder_attach_t35(sy__hevc_encoder *enc, int64_t pts, const uint8_t *payload, size_t len,
                                      sy_error *err) {
    if (enc->use != SY__HEVC_VIDEO || enc->flushed)
        return sy__fail(err, SY_E_USAGE, "x265 encoder: a T.35 message for a %s", enc->flushed ? "flushed encoder" : "still");
    return sy__hevc_attached_add(enc->ctx, &enc->t35, pts, payload, len, err);
}

sy_status sy__hevc_encoder_attach_last_nal(sy__hevc_encoder *enc, int64_t pts, const uint8_t *nal, size_t len,
                                           sy_error *err) {
    if (enc->use != SY__HEVC_VIDEO || enc->flushed || len < 2)
        return sy__fail(err, SY_E_USAGE, "x265 encoder: a NAL unit for a %s",
                        enc->flushed ? "flushed encoder" : len < 2 ? "picture, without its header" : "still");
    return sy__hevc_attached_add(enc->ctx, &enc->last, pts, nal, len, err);
}

/* x265 reads one offset per block of its look-ahead's grid: 16x16 luma
 * samples of the picture padded to its smallest CU (8x8 with qg-size 8).
 * It copies them only into pictures allocated while offsets were given
 * (Frame::create), so they are given with every picture or with none. */
float *sy__hevc_encoder_block_offsets(sy__hevc_encoder *enc, uint32_t *cols, uint32_t *rows, uint32_t *block,
                                      sy_error *err) {
    if (!enc->offsets) {
        if (enc->use != SY__HEVC_VIDEO || enc->pushed) {
            sy__fail(err, SY_E_USAGE, "x265 encoder: block offsets %s",
                     enc->use != SY__HEVC_VIDEO ? "for a still" : "after the first picture");
            return NULL;
        }
        if (!enc->offset_cols) {
            sy__fail(err, SY_E_USAGE, "x265 encoder: block offsets without adaptive quantization");
            return NULL;
        }
        enc->offsets = sy__calloc(enc->ctx, (size_t)enc->offset_cols * enc->offset_rows, sizeof(float),
                                  "x265 block offsets", err);
        if (!enc->offsets) return NULL;
    }
    *cols = enc->offset_cols, *rows = enc->offset_rows, *block = enc->offset_block;
    return enc->offsets;
}

void sy__hevc_encoder_destroy(sy__hevc_encoder *enc) {
    if (!enc) return;
    sy_context *ctx = enc->ctx;
    sy__hevc_attached_free(ctx, &enc->t35);
    sy__hevc_attached_free(ctx, &enc->last);
    if (enc->api) {
        if (enc->picture) enc->api->picture_free(enc->picture);
        if (enc->x265) enc->api->encoder_close(enc->x265);
        if (enc->param) enc->api->param_free(enc->param);
    }
    sy__free(ctx, enc->hvcc);
    sy__free(ctx, enc->packet);
    sy__free(ctx, enc->offsets);
    if (enc->charged) sy__discharge(ctx, enc->charged);
    sy__free(ctx, enc);
}

/* ---- packets ---- */

static sy_status grow_packet(sy__hevc_encoder *enc, size_t need, sy_error *err) {
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

/* NAL units a packet leaves out: parameter sets (in hvcC) always; for video
 * also AUD, EOS, EOB and filler (SEI kept); for stills everything but slices. */
static int dropped(const sy__hevc_encoder *enc, uint32_t type) {
    if (type < SY__HEVC_NAL_VPS) return 0;
    return enc->use == SY__HEVC_STILLS || type <= 38;
}

/* Rewrites one output picture as length-prefixed NAL units and sinks it. */
static sy_status deliver(sy__hevc_encoder *enc, const x265_nal *nals, uint32_t count, int64_t pts, sy_error *err) {
    size_t need = sy__hevc_attached_sei_bound(&enc->t35, pts) + sy__hevc_attached_nal_bound(&enc->last, pts);
    for (uint32_t i = 0; i < count; i++) need += (size_t)nals[i].sizeBytes + 4;
    sy_status st = grow_packet(enc, need, err);
    if (st != SY_OK) return st;
    size_t o = sy__hevc_attached_take_sei(enc->ctx, &enc->t35, pts, enc->packet); /* a prefix SEI may come first */
    int keyframe = 0, slices = 0;
    for (uint32_t i = 0; i < count; i++) {
        size_t len;
        const uint8_t *p = sy__nal_strip_start_code(nals[i].payload, nals[i].sizeBytes, &len);
        if (len < 2) continue;
        uint32_t type = sy__hevc_nal_type(p);
        if (dropped(enc, type)) continue;
        if (type < SY__HEVC_NAL_VPS) slices++;
        if (sy__hevc_nal_is_irap(type)) keyframe = 1;
        enc->packet[o++] = (uint8_t)(len >> 24);
        enc->packet[o++] = (uint8_t)(len >> 16);
        enc->packet[o++] = (uint8_t)(len >> 8);
        enc->packet[o++] = (uint8_t)len;
        memcpy(enc->packet + o, p, len);
        o += len;
    }
    if (slices == 0)
        return sy__fail(err, SY_E_CODEC, "x265: picture at pts %lld came out without slice data", (long long)pts);
    o += sy__hevc_attached_take_nal(enc->ctx, &enc->last, pts, enc->packet + o); /* an RPU ends the unit */
    sy__hevc_packet packet = {enc->packet, o, pts, keyframe};
    return enc->sink(enc->user, &packet, err);
}

/* One x265_encoder_encode call (`pic` NULL drains); *more = x265 returned a picture. */
static sy_status encode(sy__hevc_encoder *enc, x265_picture *pic, int *more, sy_error *err) {
    x265_nal *nals = NULL;
    uint32_t count = 0;
    x265_picture done;
    memset(&done, 0, sizeof done);
    int r = enc->api->encoder_encode(enc->x265, &nals, &count, pic, &done);
    *more = r > 0;
    if (r < 0) {
        if (pic)
            return sy__fail_sub(err, SY_E_CODEC, r, "x265_encoder_encode failed on the picture at pts %lld",
                                (long long)pic->pts);
        return sy__fail_sub(err, SY_E_CODEC, r, "x265_encoder_encode failed while flushing");
    }
    if (r > 0 && count > 0) return deliver(enc, nals, count, done.pts, err);
    return SY_OK;
}

sy_status sy__hevc_encoder_push(sy__hevc_encoder *enc, uint8_t *const plane[3], const size_t stride[3], int64_t pts,
                                sy_error *err) {
    if (enc->flushed) return sy__fail(err, SY_E_USAGE, "x265 encoder: push after flush");
    x265_picture *pic = enc->picture;
    int planes = enc->monochrome ? 1 : 3;
    for (int i = 0; i < 3; i++) {
        pic->planes[i] = i < planes ? plane[i] : NULL;
        pic->stride[i] = i < planes ? (int)stride[i] : 0;
    }
    pic->bitDepth = enc->bit_depth;
    pic->colorSpace = enc->monochrome ? X265_CSP_I400 : X265_CSP_I420;
    pic->pts = pts;
    int forced = enc->keyframe_at && enc->pushed == enc->keyframe_at;
    pic->sliceType = enc->use == SY__HEVC_STILLS || forced ? X265_TYPE_IDR : X265_TYPE_AUTO;
    pic->quantOffsets = enc->offsets; /* x265 copies them with the picture */
    enc->pushed++;
    int more = 0;
    return encode(enc, pic, &more, err);
}

sy_status sy__hevc_encoder_flush(sy__hevc_encoder *enc, sy_error *err) {
    if (enc->flushed) return SY_OK;
    enc->flushed = 1;
    for (int more = 1; more;) {
        sy_status st = encode(enc, NULL, &more, err);
        if (st != SY_OK) return st;
    }
    return SY_OK;
}
