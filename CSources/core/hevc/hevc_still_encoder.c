/* heif_writer_x265.c — x265 still-picture encoder for the HEIF writer.
 *
 * Configuration: intra only (keyint 1, no B frames, no lookahead, no cuTree,
 * closed GOP) so every picture is an IDR that decodes on its own with the
 * parameter sets of the hvcC; CTU 64 always (x265 requires every encoder in a
 * process to share one maxCUSize while they are open); headers are taken once
 * from x265_encoder_headers and never repeated in picture data; the info SEI
 * is off. x265 emits Annex-B NAL units; they are rewritten with 4-byte length
 * prefixes as HEIF item data requires, keeping only VCL NAL units.
 */
#include <string.h>
#include <x265.h>

#include "hevc/sy_hvcc.h"
#include "hevc/sy_hevc_still_encoder.h"

/* Under AddressSanitizer: x265 3.5's x265_encoder_open leaks one x265_param
 * (1168 bytes) per encoder, inside libx265 (nothing of ours is reachable from
 * it), which would fail every LeakSanitizer run that writes a HEIC. libx265 is
 * built without frame pointers, so LSan's fast unwinder stops inside it and
 * the entry has to name the library, not x265_encoder_open. Our own buffers
 * stay covered (and are also counted by the accounting allocator). The hook is
 * only consulted by LSan; normal builds do not define it. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SY__HW_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(SY__HW_ASAN)
#define SY__HW_ASAN 1
#endif
#ifdef SY__HW_ASAN
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libx265.so\n"; }
#endif

struct sy__hw_encoder {
    sy_context *ctx;
    const x265_api *api;
    x265_param *param;
    x265_encoder *encoder;
    x265_picture *picture;
    int monochrome;
    int flushed;
    size_t charged;
    sy__hw_sink sink;
    void *user;
    uint8_t *hvcc;
    size_t hvcc_len;
    uint8_t *scratch; /* one picture's length-prefixed NAL units */
    size_t scratch_cap;
};

double sy__hw_quality_to_crf(int quality) {
    if (quality < 1) quality = 1;
    if (quality > 100) quality = 100;
    /* libheif's x265 mapping, so heif-enc -q Q compares like for like:
     * q100 -> CRF 0, q90 -> CRF 5, q80 -> CRF 10, q50 -> CRF 25, q1 -> CRF 49.5. */
    return (100 - quality) / 2.0;
}

size_t sy__hw_encoder_estimate(uint32_t width, uint32_t height, int monochrome) {
    /* Calibrated with peak RSS on 2 cores (512x512 tiles: ~10-15 MB measured):
     * fixed tables, pools and thread stacks, plus ~32 bytes per luma sample
     * for the frames in flight (source, reconstruction, lowres copies, CU
     * analysis). Deliberately on the high side. */
    size_t w = (width + 63) & ~(size_t)63, h = (height + 63) & ~(size_t)63;
    size_t per_sample = monochrome ? 24 : 32;
    return ((size_t)12 << 20) + w * h * per_sample;
}

/* ---- hvcC from the parameter sets ---- */

static sy_status build_hvcc(sy__hw_encoder *enc, const x265_nal *nals, uint32_t count, sy_error *err) {
    enum { MAX_HEADERS = 8 };
    const uint8_t *nal[MAX_HEADERS];
    size_t len[MAX_HEADERS], n = 0;
    for (uint32_t i = 0; i < count && n < MAX_HEADERS; i++, n++)
        nal[n] = sy__nal_strip_start_code(nals[i].payload, nals[i].sizeBytes, &len[n]);
    return sy__hvcc_build(enc->ctx, nal, len, n, &enc->hvcc, &enc->hvcc_len, err);
}

/* ---- encoder ---- */

sy_status sy__hw_encoder_create(sy_context *ctx, const sy__hw_encoder_config *cfg, sy__hw_sink sink, void *user,
                                sy__hw_encoder **out, sy_error *err) {
    *out = NULL;
    if (cfg->width < 64 || cfg->height < 64 || cfg->width > 16384 || cfg->height > 16384 ||
        (!cfg->monochrome && ((cfg->width | cfg->height) & 1)))
        return sy__fail(err, SY_E_USAGE, "x265 encoder: picture %ux%u not encodable (64..16384, even for 4:2:0)",
                        cfg->width, cfg->height);
    sy__hw_encoder *enc = sy__calloc(ctx, 1, sizeof *enc, "x265 encoder", err);
    if (!enc) return err ? err->code : SY_E_BUDGET;
    enc->ctx = ctx;
    enc->sink = sink;
    enc->user = user;
    enc->monochrome = cfg->monochrome;
    sy_status st;
    size_t estimate = sy__hw_encoder_estimate(cfg->width, cfg->height, cfg->monochrome);
    if ((st = sy__charge(ctx, estimate, "x265 encoder (estimate)", err)) != SY_OK) goto fail;
    enc->charged = estimate;

    enc->api = x265_api_get(8);
    if (!enc->api) {
        st = sy__fail(err, SY_E_UNSUPPORTED, "x265_api_get: no 8-bit x265 library (build %d)", X265_BUILD);
        goto fail;
    }
    const x265_api *api = enc->api;
    x265_param *p = enc->param = api->param_alloc();
    if (!p) {
        st = sy__fail(err, SY_E_CODEC, "x265_param_alloc failed");
        goto fail;
    }
    if (api->param_default_preset(p, cfg->preset, NULL) < 0) {
        st = sy__fail(err, SY_E_USAGE, "x265: unknown preset \"%s\"", cfg->preset);
        goto fail;
    }
    /* Main Still Picture for 4:2:0; 4:0:0 needs the RExt profile, which x265
     * selects itself (apply_profile would refuse "mainstillpicture" + i400). */
    if (!cfg->monochrome && api->param_apply_profile(p, "mainstillpicture") < 0) {
        st = sy__fail(err, SY_E_CODEC, "x265_param_apply_profile(mainstillpicture) failed");
        goto fail;
    }
    p->internalCsp = cfg->monochrome ? X265_CSP_I400 : X265_CSP_I420;
    p->internalBitDepth = 8;
    p->sourceWidth = (int)cfg->width;
    p->sourceHeight = (int)cfg->height;
    p->fpsNum = 1;
    p->fpsDenom = 1;
    p->totalFrames = cfg->monochrome ? 0 : 1; /* 1: one picture per bitstream -> Main Still Picture */
    p->keyframeMax = 1;
    p->keyframeMin = 1;
    p->bOpenGOP = 0;
    p->bframes = 0;
    p->lookaheadDepth = 0;
    p->scenecutThreshold = 0;
    p->rc.cuTree = 0;
    p->bRepeatHeaders = 0;
    p->bEmitInfoSEI = 0;
    p->bAnnexB = 1;
    p->maxCUSize = 64;
    p->logLevel = X265_LOG_ERROR;
    p->rc.rateControlMode = X265_RC_CRF;
    p->rc.rfConstant = sy__hw_quality_to_crf(cfg->quality);
    p->vui.bEnableVideoSignalTypePresentFlag = 1;
    p->vui.videoFormat = 5; /* unspecified */
    p->vui.bEnableVideoFullRangeFlag = cfg->full_range ? 1 : 0;
    p->vui.bEnableColorDescriptionPresentFlag = 1;
    p->vui.colorPrimaries = cfg->primaries;
    p->vui.transferCharacteristics = cfg->transfer;
    p->vui.matrixCoeffs = cfg->monochrome ? 2 : cfg->matrix; /* 2 = unspecified for a luma-only picture */
    if (cfg->threads) {
        char pools[16];
        snprintf(pools, sizeof pools, "%u", cfg->threads);
        api->param_parse(p, "pools", pools);
        if (cfg->threads == 1) p->frameNumThreads = 1;
    }
    enc->encoder = api->encoder_open(p);
    if (!enc->encoder) {
        st = sy__fail(err, SY_E_CODEC, "x265_encoder_open refused %ux%u %s (preset %s)", cfg->width, cfg->height,
                      cfg->monochrome ? "i400" : "i420", cfg->preset);
        goto fail;
    }
    x265_nal *nals = NULL;
    uint32_t count = 0;
    if (api->encoder_headers(enc->encoder, &nals, &count) < 0) {
        st = sy__fail(err, SY_E_CODEC, "x265_encoder_headers failed");
        goto fail;
    }
    if ((st = build_hvcc(enc, nals, count, err)) != SY_OK) goto fail;
    enc->picture = api->picture_alloc();
    if (!enc->picture) {
        st = sy__fail(err, SY_E_CODEC, "x265_picture_alloc failed");
        goto fail;
    }
    api->picture_init(p, enc->picture);
    *out = enc;
    return SY_OK;
fail:
    sy__hw_encoder_destroy(enc);
    return st;
}

const uint8_t *sy__hw_encoder_hvcc(const sy__hw_encoder *enc, size_t *len) {
    *len = enc->hvcc_len;
    return enc->hvcc;
}

/* Rewrites one output picture as length-prefixed VCL NAL units and sinks it. */
static sy_status deliver(sy__hw_encoder *enc, const x265_nal *nals, uint32_t count, int64_t pts, sy_error *err) {
    size_t need = 0;
    for (uint32_t i = 0; i < count; i++) need += (size_t)nals[i].sizeBytes + 4;
    if (need > enc->scratch_cap) {
        size_t cap = enc->scratch_cap ? enc->scratch_cap : 65536;
        while (cap < need) cap *= 2;
        uint8_t *grown = sy__alloc(enc->ctx, cap, 1, "HEVC picture buffer", err);
        if (!grown) return err ? err->code : SY_E_BUDGET;
        sy__free(enc->ctx, enc->scratch);
        enc->scratch = grown;
        enc->scratch_cap = cap;
    }
    size_t o = 0;
    for (uint32_t i = 0; i < count; i++) {
        size_t len;
        const uint8_t *p = sy__nal_strip_start_code(nals[i].payload, nals[i].sizeBytes, &len);
        if (len < 2) continue;
        uint32_t type = sy__hevc_nal_type(p);
        if (type >= 32) continue; /* parameter sets live in hvcC; no SEI/AUD needed */
        enc->scratch[o++] = (uint8_t)(len >> 24);
        enc->scratch[o++] = (uint8_t)(len >> 16);
        enc->scratch[o++] = (uint8_t)(len >> 8);
        enc->scratch[o++] = (uint8_t)len;
        memcpy(enc->scratch + o, p, len);
        o += len;
    }
    if (o == 0 || pts < 0 || pts > UINT32_MAX)
        return sy__fail(err, SY_E_CODEC, "x265: picture %lld came out without slice data", (long long)pts);
    return enc->sink(enc->user, (uint32_t)pts, enc->scratch, o, err);
}

sy_status sy__hw_encoder_push(sy__hw_encoder *enc, uint8_t *const plane[3], const size_t stride[3], uint32_t index,
                              sy_error *err) {
    if (enc->flushed) return sy__fail(err, SY_E_USAGE, "x265 encoder: push after flush");
    const x265_api *api = enc->api;
    x265_picture *pic = enc->picture;
    int planes = enc->monochrome ? 1 : 3;
    for (int i = 0; i < 3; i++) {
        pic->planes[i] = i < planes ? plane[i] : NULL;
        pic->stride[i] = i < planes ? (int)stride[i] : 0;
    }
    pic->bitDepth = 8;
    pic->colorSpace = enc->monochrome ? X265_CSP_I400 : X265_CSP_I420;
    pic->pts = index;
    pic->sliceType = X265_TYPE_IDR;
    x265_nal *nals = NULL;
    uint32_t count = 0;
    x265_picture done;
    memset(&done, 0, sizeof done);
    int r = api->encoder_encode(enc->encoder, &nals, &count, pic, &done);
    if (r < 0) return sy__fail_sub(err, SY_E_CODEC, r, "x265_encoder_encode failed on picture %u", index);
    if (r > 0 && count > 0) return deliver(enc, nals, count, done.pts, err);
    return SY_OK;
}

sy_status sy__hw_encoder_flush(sy__hw_encoder *enc, sy_error *err) {
    if (enc->flushed) return SY_OK;
    enc->flushed = 1;
    for (;;) {
        x265_nal *nals = NULL;
        uint32_t count = 0;
        x265_picture done;
        memset(&done, 0, sizeof done);
        int r = enc->api->encoder_encode(enc->encoder, &nals, &count, NULL, &done);
        if (r < 0) return sy__fail_sub(err, SY_E_CODEC, r, "x265_encoder_encode failed while flushing");
        if (r == 0) return SY_OK;
        if (count > 0) {
            sy_status st = deliver(enc, nals, count, done.pts, err);
            if (st != SY_OK) return st;
        }
    }
}

void sy__hw_encoder_destroy(sy__hw_encoder *enc) {
    if (!enc) return;
    sy_context *ctx = enc->ctx;
    if (enc->api) {
        if (enc->picture) enc->api->picture_free(enc->picture);
        if (enc->encoder) enc->api->encoder_close(enc->encoder);
        if (enc->param) enc->api->param_free(enc->param);
    }
    sy__free(ctx, enc->hvcc);
    sy__free(ctx, enc->scratch);
    if (enc->charged) sy__discharge(ctx, enc->charged);
    sy__free(ctx, enc);
}
