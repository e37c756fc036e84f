/* hvcc_record.c — hvcC (HEVCDecoderConfigurationRecord) from VPS/SPS/PPS.
 *
 * Only the SPS fields the record repeats are parsed, with the shared RBSP
 * reader (base/sy_rbsp.h): the general profile_tier_level bytes (copied
 * verbatim), sps_max_sub_layers_minus1, sps_temporal_id_nesting_flag,
 * chroma_format_idc and the bit depths.
 * min_spatial_segmentation, parallelismType and avgFrameRate are written as
 * "unknown" (0), which every reader accepts.
 */
#include <string.h>

#include "base/sy_rbsp.h"
#include "hevc/sy_hvcc.h"

const uint8_t *sy__nal_strip_start_code(const uint8_t *p, size_t size, size_t *out_size) {
    size_t i = 0;
    while (i < size && p[i] == 0) i++;
    if (i >= 2 && i < size && p[i] == 1) {
        *out_size = size - i - 1;
        return p + i + 1;
    }
    *out_size = size; /* no start code: already bare */
    return p;
}

typedef struct sps_info {
    uint8_t ptl[12]; /* general profile_space..level_idc */
    uint32_t max_sub_layers_minus1, temporal_id_nesting;
    uint32_t chroma_format_idc, bit_depth_luma_minus8, bit_depth_chroma_minus8;
} sps_info;

/* Parses the SPS NAL unit (2-byte header included, emulation bytes present). */
static sy_status parse_sps(const uint8_t *nal, size_t len, sps_info *out, sy_error *err) {
    if (len < 15) return sy__fail(err, SY_E_CODEC, "hvcC: SPS of %zu bytes is too short", len);
    sy__rbsp r;
    sy__rbsp_init(&r, nal, len, 2);
    sy__rbsp_skip(&r, 4); /* sps_video_parameter_set_id */
    out->max_sub_layers_minus1 = sy__rbsp_bits(&r, 3);
    out->temporal_id_nesting = sy__rbsp_bits(&r, 1);
    for (int i = 0; i < 12; i++) out->ptl[i] = (uint8_t)sy__rbsp_bits(&r, 8);
    uint32_t subs = out->max_sub_layers_minus1, profile_present[8] = {0}, level_present[8] = {0};
    for (uint32_t i = 0; i < subs; i++) {
        profile_present[i] = sy__rbsp_bit(&r);
        level_present[i] = sy__rbsp_bit(&r);
    }
    if (subs > 0)
        for (uint32_t i = subs; i < 8; i++) sy__rbsp_skip(&r, 2);
    for (uint32_t i = 0; i < subs; i++) {
        if (profile_present[i]) sy__rbsp_skip(&r, 88);
        if (level_present[i]) sy__rbsp_skip(&r, 8);
    }
    (void)sy__rbsp_ue(&r); /* sps_seq_parameter_set_id */
    out->chroma_format_idc = sy__rbsp_ue(&r);
    if (out->chroma_format_idc == 3) sy__rbsp_skip(&r, 1);
    (void)sy__rbsp_ue(&r); /* pic_width_in_luma_samples */
    (void)sy__rbsp_ue(&r); /* pic_height_in_luma_samples */
    if (sy__rbsp_bit(&r)) /* conformance_window_flag */
        for (int i = 0; i < 4; i++) (void)sy__rbsp_ue(&r);
    out->bit_depth_luma_minus8 = sy__rbsp_ue(&r);
    out->bit_depth_chroma_minus8 = sy__rbsp_ue(&r);
    if (r.bad || out->chroma_format_idc > 3 || out->bit_depth_luma_minus8 > 8 || out->bit_depth_chroma_minus8 > 8)
        return sy__fail(err, SY_E_CODEC, "hvcC: cannot parse the SPS (%zu bytes)", len);
    return SY_OK;
}

sy_status sy__hvcc_build(sy_context *ctx, const uint8_t *const nal[], const size_t nal_len[], size_t count,
                         uint8_t **out, size_t *out_len, sy_error *err) {
    *out = NULL;
    *out_len = 0;
    const uint8_t *ps[3] = {NULL, NULL, NULL};
    size_t ps_len[3] = {0, 0, 0};
    for (size_t i = 0; i < count; i++) {
        if (!nal[i] || nal_len[i] < 3) continue;
        uint32_t type = sy__hevc_nal_type(nal[i]);
        if (type >= 32 && type <= 34 && !ps[type - 32]) {
            ps[type - 32] = nal[i];
            ps_len[type - 32] = nal_len[i];
        }
    }
    if (!ps[0] || !ps[1] || !ps[2])
        return sy__fail(err, SY_E_CODEC, "hvcC: VPS/SPS/PPS missing among %zu NAL units", count);
    for (int i = 0; i < 3; i++) /* nalUnitLength is 16 bits */
        if (ps_len[i] > 65535)
            return sy__fail(err, SY_E_CODEC, "hvcC: parameter set of %zu bytes (at most 65535)", ps_len[i]);
    sps_info sps;
    memset(&sps, 0, sizeof sps);
    sy_status st = parse_sps(ps[1], ps_len[1], &sps, err);
    if (st != SY_OK) return st;

    size_t len = 23 + 3 * 5 + ps_len[0] + ps_len[1] + ps_len[2];
    uint8_t *h = sy__alloc(ctx, len, 1, "hvcC", err);
    if (!h) return err ? err->code : SY_E_BUDGET;
    size_t o = 0;
    h[o++] = 1; /* configurationVersion */
    memcpy(h + o, sps.ptl, 12);
    o += 12;
    h[o++] = 0xF0; /* reserved + min_spatial_segmentation_idc 0 */
    h[o++] = 0x00;
    h[o++] = 0xFC; /* parallelismType unknown */
    h[o++] = (uint8_t)(0xFC | sps.chroma_format_idc);
    h[o++] = (uint8_t)(0xF8 | sps.bit_depth_luma_minus8);
    h[o++] = (uint8_t)(0xF8 | sps.bit_depth_chroma_minus8);
    h[o++] = 0; /* avgFrameRate */
    h[o++] = 0;
    /* constantFrameRate 0, numTemporalLayers, temporalIdNested, lengthSizeMinusOne 3 */
    h[o++] = (uint8_t)(((sps.max_sub_layers_minus1 + 1) & 7) << 3 | (sps.temporal_id_nesting & 1) << 2 | 3);
    h[o++] = 3; /* numOfArrays */
    for (int i = 0; i < 3; i++) {
        h[o++] = (uint8_t)(0x80 | (32 + i)); /* array_completeness, NAL type */
        h[o++] = 0;
        h[o++] = 1; /* numNalus */
        h[o++] = (uint8_t)(ps_len[i] >> 8);
        h[o++] = (uint8_t)ps_len[i];
        memcpy(h + o, ps[i], ps_len[i]);
        o += ps_len[i];
    }
    *out = h;
    *out_len = o;
    return SY_OK;
}
