/* color_transform.c — sy_color_transform.h over lcms2 (LittleCMS 2.14).
 *
 * One lcms2 context per transform carries the engine context as user data;
 * its memory plugin charges every lcms2 allocation to that context's budget
 * (a 16-byte header keeps each block's size for the discharge). Transforms
 * are 8-bit RGB -> RGB, relative colorimetric (what a viewer converting to
 * its display does for matrix/shaper profiles), no cache (thread-safe). */
#include <lcms2.h>
#include <lcms2_plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sy_cicp.h"
#include "base/sy_icc.h"
#include "color/sy_color_transform.h"

#define HEADER 16u

struct sy__color_transform {
    sy_context *ctx;
    cmsContext lcms;
    cmsHTRANSFORM transform;
};

/* ---- lcms2 memory, charged to the engine context ---- */

static void *charged_malloc(cmsContext lcms, cmsUInt32Number size) {
    sy_context *ctx = cmsGetContextUserData(lcms);
    if (ctx && sy__charge(ctx, (size_t)size + HEADER, "lcms2", NULL) != SY_OK) return NULL;
    uint8_t *p = malloc((size_t)size + HEADER);
    if (!p) {
        if (ctx) sy__discharge(ctx, (size_t)size + HEADER);
        return NULL;
    }
    memcpy(p, &(size_t){size}, sizeof(size_t));
    return p + HEADER;
}

static void charged_free(cmsContext lcms, void *ptr) {
    if (!ptr) return;
    uint8_t *p = (uint8_t *)ptr - HEADER;
    size_t size;
    memcpy(&size, p, sizeof size);
    sy_context *ctx = cmsGetContextUserData(lcms);
    if (ctx) sy__discharge(ctx, size + HEADER);
    free(p);
}

static void *charged_realloc(cmsContext lcms, void *ptr, cmsUInt32Number size) {
    void *fresh = charged_malloc(lcms, size);
    if (fresh && ptr) {
        size_t old;
        memcpy(&old, (uint8_t *)ptr - HEADER, sizeof old);
        memcpy(fresh, ptr, old < size ? old : size);
        charged_free(lcms, ptr);
    }
    return fresh;
}

static cmsPluginMemHandler memory_plugin = {
    .base = {.Magic = cmsPluginMagicNumber, .ExpectedVersion = 2000, .Type = cmsPluginMemHandlerSig, .Next = NULL},
    .MallocPtr = charged_malloc,
    .FreePtr = charged_free,
    .ReallocPtr = charged_realloc,
};

/* ---- spaces ---- */

/* A matrix/shaper profile: the chromaticities of CICP `primaries` (white
 * included), `transfer`'s curve (see sy__color_cicp_icc), named `name`. */
static cmsHPROFILE cicp_profile(cmsContext lcms, uint16_t primaries, uint16_t transfer, const char *name) {
    double xy[8];
    if (!sy__cicp_chromaticities(primaries, xy)) return NULL;
    const cmsCIExyYTRIPLE rgb = {{xy[0], xy[1], 1}, {xy[2], xy[3], 1}, {xy[4], xy[5], 1}};
    const cmsCIExyY white = {xy[6], xy[7], 1};
    static const cmsFloat64Number srgb_curve[5] = {2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045};
    cmsFloat64Number gamma = transfer == 4 ? 2.2 : transfer == 5 ? 2.8 : 1.0;
    cmsToneCurve *curve = transfer == 4 || transfer == 5 || transfer == 8 ? cmsBuildGamma(lcms, gamma)
                                                                          : cmsBuildParametricToneCurve(lcms, 4, srgb_curve);
    if (!curve) return NULL;
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE p = cmsCreateRGBProfileTHR(lcms, &white, &rgb, curves);
    cmsFreeToneCurve(curve);
    if (p) {
        cmsMLU *desc = cmsMLUalloc(lcms, 1);
        if (desc && cmsMLUsetASCII(desc, "en", "US", name)) cmsWriteTag(p, cmsSigProfileDescriptionTag, desc);
        if (desc) cmsMLUfree(desc);
        cmsMLU *cprt = cmsMLUalloc(lcms, 1);
        if (cprt && cmsMLUsetASCII(cprt, "en", "US", "No copyright, use freely")) cmsWriteTag(p, cmsSigCopyrightTag, cprt);
        if (cprt) cmsMLUfree(cprt);
    }
    return p;
}

/* A profile of `space`: sRGB curve, D65 white, the space's primaries. */
static cmsHPROFILE space_profile(cmsContext lcms, sy__rgb_space space) {
    return space == SY__RGB_DISPLAY_P3 ? cicp_profile(lcms, SY_CICP_PRIMARIES_DISPLAY_P3, 13, "Display P3")
                                       : cicp_profile(lcms, SY_CICP_PRIMARIES_BT709, 13, "sRGB");
}

/* The space a source is already in, or -1 when it names another one. */
static int source_space(const sy__color_source *src) {
    if (src->icc && src->icc_len) {
        uint16_t primaries = sy__icc_primaries(src->icc, src->icc_len);
        if (sy__icc_transfer(src->icc, src->icc_len) != 13) return -1;
        return primaries == 1 ? SY__RGB_SRGB : primaries == 12 ? SY__RGB_DISPLAY_P3 : -1;
    }
    switch (src->cicp_primaries) {
    case 0: case 1: case 2: return SY__RGB_SRGB; /* unsaid: sRGB, as viewers assume */
    case 12: return SY__RGB_DISPLAY_P3;
    default: return -1;
    }
}

int sy__color_is_wide(const sy__color_source *src) { return source_space(src) != SY__RGB_SRGB; }

sy__rgb_space sy__color_output_space(const sy__color_source *sources, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (sy__color_is_wide(&sources[i])) return SY__RGB_DISPLAY_P3;
    return SY__RGB_SRGB;
}

sy__rgb_space sy__color_space_of_primaries(uint16_t primaries) {
    return primaries == 12 ? SY__RGB_DISPLAY_P3 : SY__RGB_SRGB;
}

static const char *lcms_context_error = "lcms2 could not make a context";

/* An empty transform with its lcms2 context (memory charged to `ctx`). */
static sy_status new_transform(sy_context *ctx, sy__color_transform **out, sy_error *err) {
    sy__color_transform *t = sy__calloc(ctx, 1, sizeof *t, "colour transform", err);
    if (!t) return err ? err->code : SY_E_BUDGET;
    t->ctx = ctx;
    t->lcms = cmsCreateContext(&memory_plugin, ctx);
    if (!t->lcms) {
        sy__free(ctx, t);
        return sy__fail(err, SY_E_BUDGET, "colour: %s", lcms_context_error);
    }
    *out = t;
    return SY_OK;
}

sy_status sy__color_transform_create(sy_context *ctx, const sy__color_source *src, sy__rgb_space dest,
                                     sy__color_transform **out, sy_error *err) {
    *out = NULL;
    if (source_space(src) == (int)dest) return SY_OK;
    sy__color_transform *t = NULL;
    sy_status st = new_transform(ctx, &t, err);
    if (st != SY_OK) return st;
    cmsHPROFILE in = NULL;
    if (src->icc && src->icc_len) {
        if (src->icc_len > UINT32_MAX) {
            sy__color_transform_destroy(t);
            return sy__fail(err, SY_E_UNSUPPORTED, "colour: ICC profile of %zu bytes", src->icc_len);
        }
        in = cmsOpenProfileFromMemTHR(t->lcms, src->icc, (cmsUInt32Number)src->icc_len);
        if (in && cmsGetColorSpace(in) != cmsSigRgbData) {
            cmsCloseProfile(in);
            sy__color_transform_destroy(t);
            return sy__fail(err, SY_E_UNSUPPORTED, "colour: the ICC profile is not an RGB profile");
        }
    } else {
        int known = sy__cicp_chromaticities(src->cicp_primaries, (double[8]){0});
        in = known ? cicp_profile(t->lcms, src->cicp_primaries, 13, "source") : space_profile(t->lcms, SY__RGB_SRGB);
    }
    cmsHPROFILE to = space_profile(t->lcms, dest);
    if (in && to)
        t->transform = cmsCreateTransformTHR(t->lcms, in, TYPE_RGB_8, to, TYPE_RGB_8, INTENT_RELATIVE_COLORIMETRIC,
                                             cmsFLAGS_NOCACHE | cmsFLAGS_BLACKPOINTCOMPENSATION);
    if (in) cmsCloseProfile(in);
    if (to) cmsCloseProfile(to);
    if (!t->transform) {
        sy__color_transform_destroy(t);
        return sy__fail(err, SY_E_UNSUPPORTED, "colour: lcms2 cannot convert from this %s",
                        src->icc ? "ICC profile" : "colour description");
    }
    *out = t;
    return SY_OK;
}

sy_status sy__color_cmyk_create(sy_context *ctx, const uint8_t *icc, size_t icc_len, int inverted,
                                sy__color_transform **out, sy_error *err) {
    *out = NULL;
    if (!icc || icc_len < 128 || icc_len > UINT32_MAX)
        return sy__fail(err, SY_E_UNSUPPORTED, "colour: no usable CMYK profile");
    sy__color_transform *t = NULL;
    sy_status st = new_transform(ctx, &t, err);
    if (st != SY_OK) return st;
    cmsHPROFILE in = cmsOpenProfileFromMemTHR(t->lcms, icc, (cmsUInt32Number)icc_len);
    cmsHPROFILE to = space_profile(t->lcms, SY__RGB_SRGB);
    if (in && to && cmsGetColorSpace(in) == cmsSigCmykData)
        t->transform = cmsCreateTransformTHR(t->lcms, in, inverted ? TYPE_CMYK_8_REV : TYPE_CMYK_8, to, TYPE_RGB_8,
                                             INTENT_RELATIVE_COLORIMETRIC,
                                             cmsFLAGS_NOCACHE | cmsFLAGS_BLACKPOINTCOMPENSATION);
    if (in) cmsCloseProfile(in);
    if (to) cmsCloseProfile(to);
    if (!t->transform) {
        sy__color_transform_destroy(t);
        return sy__fail(err, SY_E_UNSUPPORTED, "colour: lcms2 cannot convert from this CMYK profile");
    }
    *out = t;
    return SY_OK;
}

void sy__color_cmyk_rows(const sy__color_transform *t, const uint8_t *cmyk, uint8_t *rgb, uint32_t width) {
    if (t && width) cmsDoTransform(t->transform, cmyk, rgb, width);
}

void sy__color_transform_rows(const sy__color_transform *t, uint8_t *rgb, size_t stride, uint32_t width,
                              uint32_t rows) {
    if (!t || !width) return;
    cmsDoTransformLineStride(t->transform, rgb, rgb, width, rows, (cmsUInt32Number)stride, (cmsUInt32Number)stride, 0,
                             0);
}

sy_status sy__color_from_srgb(sy_context *ctx, sy__rgb_space space, uint8_t rgb[3], sy_error *err) {
    sy__color_source srgb = {.cicp_primaries = 1};
    sy__color_transform *t = NULL;
    sy_status st = sy__color_transform_create(ctx, &srgb, space, &t, err);
    sy__color_transform_rows(t, rgb, 3, 1, 1);
    sy__color_transform_destroy(t);
    return st;
}

void sy__color_transform_destroy(sy__color_transform *t) {
    if (!t) return;
    if (t->transform) cmsDeleteTransform(t->transform);
    if (t->lcms) cmsDeleteContext(t->lcms);
    sy__free(t->ctx, t);
}

/* The profile `make` builds, serialized into an engine block. */
/* Writes `p` (built in `lcms`) into an engine allocation. */
static sy_status save_built(sy_context *ctx, cmsHPROFILE p, uint8_t **icc, size_t *len, sy_error *err) {
    cmsUInt32Number size = 0;
    sy_status st = SY_OK;
    if (!p || !cmsSaveProfileToMem(p, NULL, &size) || size == 0) {
        st = sy__fail(err, SY_E_CODEC, "colour: lcms2 could not build the output profile");
    } else if ((*icc = sy__alloc(ctx, size, 1, "output ICC profile", err)) == NULL) {
        st = err ? err->code : SY_E_BUDGET;
    } else if (!cmsSaveProfileToMem(p, *icc, &size)) {
        sy__free(ctx, *icc);
        *icc = NULL;
        st = sy__fail(err, SY_E_CODEC, "colour: lcms2 could not write the output profile");
    } else {
        *len = size;
        /* lcms2 stamps the header with the time of day: a fixed date instead,
         * so the same save gives the same bytes (ICC header bytes 24..35,
         * dateTimeNumber; no profile ID is written to invalidate). */
        static const uint8_t fixed[12] = {0x07, 0xEA, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0}; /* 2026-01-01 00:00:00 */
        if (size >= 36) memcpy(*icc + 24, fixed, sizeof fixed);
    }
    return st;
}

static sy_status save_profile(sy_context *ctx, uint16_t primaries, uint16_t transfer, const char *name, uint8_t **icc,
                              size_t *len, sy_error *err) {
    *icc = NULL;
    *len = 0;
    cmsContext lcms = cmsCreateContext(&memory_plugin, ctx);
    if (!lcms) return sy__fail(err, SY_E_BUDGET, "colour: %s", lcms_context_error);
    cmsHPROFILE p = cicp_profile(lcms, primaries, transfer, name);
    sy_status st = save_built(ctx, p, icc, len, err);
    if (p) cmsCloseProfile(p);
    cmsDeleteContext(lcms);
    return st;
}

sy_status sy__color_gray_as_rgb_icc(sy_context *ctx, const uint8_t *gray, size_t gray_len, uint8_t **icc, size_t *len,
                                    sy_error *err) {
    *icc = NULL;
    *len = 0;
    if (!gray || gray_len < 128 || gray_len > UINT32_MAX)
        return sy__fail(err, SY_E_UNSUPPORTED, "colour: no usable grey profile");
    cmsContext lcms = cmsCreateContext(&memory_plugin, ctx);
    if (!lcms) return sy__fail(err, SY_E_BUDGET, "colour: %s", lcms_context_error);
    cmsHPROFILE in = cmsOpenProfileFromMemTHR(lcms, gray, (cmsUInt32Number)gray_len);
    const cmsToneCurve *curve = in && cmsGetColorSpace(in) == cmsSigGrayData ? cmsReadTag(in, cmsSigGrayTRCTag) : NULL;
    cmsHPROFILE p = NULL;
    double xy[8];
    if (curve && sy__cicp_chromaticities(SY_CICP_PRIMARIES_BT709, xy)) {
        /* Neutral R = G = B sums the colorants to the white point, so each
         * grey level shows the luminance the grey curve gives it. */
        const cmsCIExyYTRIPLE rgb = {{xy[0], xy[1], 1}, {xy[2], xy[3], 1}, {xy[4], xy[5], 1}};
        const cmsCIExyY white = {xy[6], xy[7], 1};
        cmsToneCurve *curves[3] = {(cmsToneCurve *)curve, (cmsToneCurve *)curve, (cmsToneCurve *)curve};
        p = cmsCreateRGBProfileTHR(lcms, &white, &rgb, curves);
        cmsMLU *desc = p ? cmsMLUalloc(lcms, 1) : NULL;
        if (desc && cmsMLUsetASCII(desc, "en", "US", "Grey curve (sRGB primaries)"))
            cmsWriteTag(p, cmsSigProfileDescriptionTag, desc);
        if (desc) cmsMLUfree(desc);
    }
    sy_status st = p ? save_built(ctx, p, icc, len, err)
                     : sy__fail(err, SY_E_UNSUPPORTED, "colour: lcms2 cannot read this grey profile's curve");
    if (p) cmsCloseProfile(p);
    if (in) cmsCloseProfile(in);
    cmsDeleteContext(lcms);
    return st;
}

sy_status sy__color_space_icc(sy_context *ctx, sy__rgb_space space, uint8_t **icc, size_t *len, sy_error *err) {
    return space == SY__RGB_DISPLAY_P3 ? save_profile(ctx, SY_CICP_PRIMARIES_DISPLAY_P3, 13, "Display P3", icc, len, err)
                                       : save_profile(ctx, SY_CICP_PRIMARIES_BT709, 13, "sRGB", icc, len, err);
}

sy_status sy__color_cicp_icc(sy_context *ctx, uint16_t primaries, uint16_t transfer, uint8_t **icc, size_t *len,
                             sy_error *err) {
    *icc = NULL;
    *len = 0;
    double xy[8];
    if (transfer == 16 || transfer == 18 || !sy__cicp_chromaticities(primaries, xy))
        return sy__fail(err, SY_E_UNSUPPORTED, "colour: no profile for primaries %u, transfer %u", primaries, transfer);
    if (primaries == SY_CICP_PRIMARIES_DISPLAY_P3 && transfer != 4 && transfer != 5 && transfer != 8)
        return sy__color_space_icc(ctx, SY__RGB_DISPLAY_P3, icc, len, err);
    char name[48];
    snprintf(name, sizeof name, "CICP %u/%u (nclx)", primaries, transfer);
    return save_profile(ctx, primaries, transfer, name, icc, len, err);
}
