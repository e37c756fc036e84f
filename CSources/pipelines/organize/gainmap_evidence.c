/* gainmap_evidence.c — the gain map's share of a photo's exact-content
 * fingerprint (SPEC D7 evidence).
 *
 * Why: two photos whose primary pixels agree but whose gain maps (or the
 * numbers that apply them) differ look alike on an SDR screen and differently
 * on an HDR one; "keep one" of such a pair would throw an HDR rendition away.
 * So a photo with a gain map is an exact duplicate only of a photo with the
 * same primary, the same map and the same map metadata.
 *
 * The map is taken as the primary is: a HEIF map from its coded data (the
 * same digest as heif_digest.c, over the map item), a JPEG map from its
 * decoded rows. The metadata is what decides how the map is applied: Apple's
 * headroom, the ISO 21496-1 / Ultra HDR numbers (rounded to 1e-6, so a
 * rewritten but equal XMP agrees). A map that is there but cannot be read
 * leaves only the file's own bytes as evidence: byte copies still agree. */
#include <math.h>
#include <string.h>

#include "sy_gainmap.h"
#include "base/sy_internal.h"
#include "base/sy_sha256.h"
#include "heif/sy_heif_digest.h"
#include "organize/sy_analysis.h"

static void put_u32(sy__sha256 *sha, uint32_t v) {
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    sy__sha256_update(sha, b, sizeof b);
}

static void put_number(sy__sha256 *sha, double v) {
    long long micro = isfinite(v) ? llround(v * 1e6) : 0x7fffffffffffffffLL;
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)((unsigned long long)micro >> (8 * i));
    sy__sha256_update(sha, b, sizeof b);
}

static void put_params(sy__sha256 *sha, const sy_gainmap_params *p) {
    put_u32(sha, p->channels);
    for (uint32_t c = 0; c < 3; c++) {
        put_number(sha, p->min_log2[c]), put_number(sha, p->max_log2[c]), put_number(sha, p->gamma[c]);
        put_number(sha, p->offset_sdr[c]), put_number(sha, p->offset_hdr[c]);
    }
    put_number(sha, p->capacity_min), put_number(sha, p->capacity_max);
    put_u32(sha, p->base_is_hdr);
}

/* How the map is applied: the numbers each kind reads (gainmap_math.c). */
static void put_metadata(sy__sha256 *sha, const sy_gainmap_info *gi) {
    int apple = gi->kind == SY_GAINMAP_APPLE_HEIC || gi->kind == SY_GAINMAP_APPLE_JPEG;
    put_u32(sha, apple ? 1 : 2);
    if (apple) put_number(sha, gi->apple_headroom);
    else put_params(sha, &gi->params);
    put_u32(sha, gi->iso_valid);
    if (gi->iso_valid) put_params(sha, &gi->iso);
    put_u32(sha, gi->map_width), put_u32(sha, gi->map_height), put_u32(sha, gi->map_channels);
}

/* The map's pixels: coded data (HEIF) or decoded rows (JPEG). */
static sy_status put_map(sy_context *ctx, const char *path, const sy_gainmap_info *gi, sy__sha256 *sha,
                         sy_error *err) {
    if (gi->kind == SY_GAINMAP_APPLE_HEIC || gi->kind == SY_GAINMAP_ISO_HEIC) {
        char coded[65];
        sy_status st = sy__heif_item_coded_digest(ctx, path, (uint32_t)gi->map_offset, coded, err);
        if (st == SY_OK) sy__sha256_update(sha, (const uint8_t *)coded, 64);
        return st;
    }
    sy_gainmap_image map = {0};
    sy_status st = sy_gainmap_decode(ctx, path, gi, &map, err);
    if (st != SY_OK) return st;
    for (uint32_t y = 0; y < map.height; y++)
        sy__sha256_update(sha, map.pixels + (size_t)y * map.stride, (size_t)map.width * map.channels);
    sy_gainmap_image_free(ctx, &map);
    return SY_OK;
}

sy_status sy__fingerprint_mix_gain_map(sy_context *ctx, const char *path, const char *file_sha256,
                                       char pixel_sha256[65], sy_error *err) {
    sy_gainmap_info gi;
    sy_error probe_err = {0};
    sy_status st = sy_gainmap_probe(ctx, path, &gi, &probe_err);
    if (st == SY_E_CANCELLED || st == SY_E_BUDGET) return sy__fail(err, st, "%s", probe_err.message);
    int readable = st == SY_OK && gi.kind != SY_GAINMAP_UNINTERPRETABLE;
    if (st == SY_OK && (gi.kind == SY_GAINMAP_NONE || gi.kind == SY_GAINMAP_HDR_SIGNAL))
        return SY_OK; /* no stored map: the primary is the whole picture */
    sy__sha256 sha;
    sy__sha256_init(&sha);
    static const uint8_t tag[5] = {'S', 'Y', 'G', 'M', '1'};
    sy__sha256_update(&sha, tag, sizeof tag);
    sy__sha256_update(&sha, (const uint8_t *)pixel_sha256, 64);
    if (readable) {
        put_metadata(&sha, &gi);
        sy_error map_err = {0};
        st = put_map(ctx, path, &gi, &sha, &map_err);
        if (st == SY_E_CANCELLED) return sy__fail(err, st, "%s", map_err.message);
        readable = st == SY_OK;
    }
    if (!readable) { /* start again: the file's bytes only */
        sy__sha256_init(&sha);
        static const uint8_t bytes_tag[5] = {'S', 'Y', 'G', 'M', '0'};
        sy__sha256_update(&sha, bytes_tag, sizeof bytes_tag);
        sy__sha256_update(&sha, (const uint8_t *)file_sha256, 64);
    }
    sy__sha256_hex(&sha, pixel_sha256);
    return SY_OK;
}
