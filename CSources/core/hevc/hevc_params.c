/* hevc_params.c — hvcC records and HEVC sequence parameter sets, read with
 * the bounded RBSP reader before anything reaches libavcodec (see
 * sy_hevc_params.h). Every count read from the stream is range-checked
 * against the limits of ITU-T H.265 before it drives a loop. */
#include <string.h>

#include "hevc/sy_hevc_params.h"
#include "base/sy_rbsp.h"
#include "hevc/sy_vui.h"

/* profile_tier_level(1, max_sub_layers_minus1) */
static void skip_profile_tier_level(sy__rbsp *r, unsigned sub_layers_minus1) {
    unsigned profile_present[8] = {0}, level_present[8] = {0};
    sy__rbsp_skip(r, 88 + 8); /* general profile + general_level_idc */
    for (unsigned i = 0; i < sub_layers_minus1; i++) {
        profile_present[i] = sy__rbsp_bit(r);
        level_present[i] = sy__rbsp_bit(r);
    }
    if (sub_layers_minus1 > 0) sy__rbsp_skip(r, 2 * (8 - sub_layers_minus1));
    for (unsigned i = 0; i < sub_layers_minus1; i++)
        sy__rbsp_skip(r, (profile_present[i] ? 88 : 0) + (level_present[i] ? 8 : 0));
}

static void skip_scaling_list_data(sy__rbsp *r) {
    for (unsigned size = 0; size < 4 && !r->bad; size++) {
        for (unsigned matrix = 0; matrix < 6 && !r->bad; matrix += size == 3 ? 3 : 1) {
            if (!sy__rbsp_bit(r)) {
                (void)sy__rbsp_ue(r); /* scaling_list_pred_matrix_id_delta */
                continue;
            }
            unsigned coefs = SY__MIN(64u, 1u << (4 + (size << 1)));
            if (size > 1) (void)sy__rbsp_se(r); /* dc coefficient */
            for (unsigned i = 0; i < coefs && !r->bad; i++) (void)sy__rbsp_se(r);
        }
    }
}

/* st_ref_pic_set(idx) as it appears in an SPS; counts[] holds NumDeltaPocs. */
static int skip_st_ref_pic_set(sy__rbsp *r, unsigned idx, uint8_t *counts) {
    if (idx != 0 && sy__rbsp_bit(r)) { /* inter_ref_pic_set_prediction_flag */
        sy__rbsp_skip(r, 1);              /* delta_rps_sign */
        (void)sy__rbsp_ue(r);             /* abs_delta_rps_minus1 */
        unsigned ref = counts[idx - 1], n = 0;
        for (unsigned j = 0; j <= ref && !r->bad; j++) {
            unsigned used = sy__rbsp_bit(r), use_delta = used ? 1 : sy__rbsp_bit(r);
            n += used || use_delta;
        }
        if (n > 32) return 0;
        counts[idx] = (uint8_t)n;
        return !r->bad;
    }
    uint32_t negative = sy__rbsp_ue(r), positive = sy__rbsp_ue(r);
    if (negative > 16 || positive > 16) return 0;
    for (uint32_t i = 0; i < negative + positive && !r->bad; i++) {
        (void)sy__rbsp_ue(r); /* delta_poc_minus1 */
        sy__rbsp_skip(r, 1);  /* used_by_curr_pic_flag */
    }
    counts[idx] = (uint8_t)(negative + positive);
    return !r->bad;
}

/* From log2_max_pic_order_cnt_lsb_minus4 to the VUI's colour description. */
static void parse_tail(sy__rbsp *r, unsigned sub_layers_minus1, sy__hevc_sps *s) {
    uint32_t poc_lsb_bits = sy__rbsp_ue(r) + 4;
    if (r->bad || poc_lsb_bits > 16) return;
    unsigned ordering_all = sy__rbsp_bit(r);
    uint32_t dpb = 0, reorder = 0;
    for (unsigned i = ordering_all ? 0 : sub_layers_minus1; i <= sub_layers_minus1 && !r->bad; i++) {
        dpb = sy__rbsp_ue(r) + 1;
        reorder = sy__rbsp_ue(r);
        (void)sy__rbsp_ue(r); /* max_latency_increase_plus1 */
    }
    if (r->bad || dpb > 16 || reorder >= dpb) return;
    s->has_dpb = 1;
    s->max_dec_pic_buffering = (uint8_t)dpb;
    s->max_num_reorder = (uint8_t)reorder;

    for (int i = 0; i < 6; i++) (void)sy__rbsp_ue(r); /* block sizes and transform depths */
    if (sy__rbsp_bit(r) && sy__rbsp_bit(r)) skip_scaling_list_data(r);
    sy__rbsp_skip(r, 2); /* amp, sample_adaptive_offset */
    if (sy__rbsp_bit(r)) { /* pcm_enabled_flag */
        sy__rbsp_skip(r, 8);
        (void)sy__rbsp_ue(r);
        (void)sy__rbsp_ue(r);
        sy__rbsp_skip(r, 1);
    }
    uint32_t sets = sy__rbsp_ue(r);
    if (r->bad || sets > 64) return;
    uint8_t counts[64] = {0};
    for (uint32_t i = 0; i < sets; i++)
        if (!skip_st_ref_pic_set(r, i, counts)) return;
    if (sy__rbsp_bit(r)) { /* long_term_ref_pics_present_flag */
        uint32_t lt = sy__rbsp_ue(r);
        if (r->bad || lt > 32) return;
        for (uint32_t i = 0; i < lt; i++) sy__rbsp_skip(r, poc_lsb_bits + 1);
    }
    sy__rbsp_skip(r, 2); /* temporal_mvp, strong_intra_smoothing */
    if (r->bad) return;
    if (!sy__rbsp_bit(r)) { /* no VUI: nothing more to learn */
        s->has_vui = !r->bad;
        return;
    }
    sy__vui_read_signal(r, s->sar, &s->colour);
    if (r->bad) return;
    s->has_vui = !r->bad;
}

int sy__hevc_sps_parse(const uint8_t *nal, size_t n, sy__hevc_sps *s) {
    memset(s, 0, sizeof *s);
    s->colour.primaries = s->colour.transfer = s->colour.matrix = 2;
    sy__rbsp r;
    sy__rbsp_init(&r, nal, n, 2);
    sy__rbsp_skip(&r, 4); /* sps_video_parameter_set_id */
    unsigned sub_layers_minus1 = sy__rbsp_bits(&r, 3);
    sy__rbsp_skip(&r, 1);
    if (r.bad || sub_layers_minus1 > 6) return 0;
    s->max_sub_layers = (uint8_t)(sub_layers_minus1 + 1);
    skip_profile_tier_level(&r, sub_layers_minus1);
    (void)sy__rbsp_ue(&r); /* sps_seq_parameter_set_id */
    uint32_t chroma = sy__rbsp_ue(&r);
    unsigned separate = chroma == 3 ? sy__rbsp_bit(&r) : 0; /* separate_colour_plane_flag */
    uint32_t w = sy__rbsp_ue(&r), h = sy__rbsp_ue(&r);
    uint32_t crop[4] = {0, 0, 0, 0};
    if (sy__rbsp_bit(&r))
        for (int i = 0; i < 4; i++) crop[i] = sy__rbsp_ue(&r);
    uint32_t bd_y = sy__rbsp_ue(&r), bd_c = sy__rbsp_ue(&r);
    if (r.bad || chroma > 3 || bd_y > 8 || bd_c > 8) return 0; /* deeper than 16 bits: no decoder has them */
    s->width = w;
    s->height = h;
    s->chroma = (uint8_t)chroma;
    s->bit_depth_luma = (uint8_t)(8 + bd_y);
    s->bit_depth_chroma = (uint8_t)(8 + bd_c);
    /* conformance window offsets are in chroma sample units */
    uint64_t sub_w = !separate && (chroma == 1 || chroma == 2) ? 2 : 1, sub_h = !separate && chroma == 1 ? 2 : 1;
    uint64_t cw = sub_w * ((uint64_t)crop[0] + crop[1]), ch = sub_h * ((uint64_t)crop[2] + crop[3]);
    s->out_width = cw < w ? (uint32_t)(w - cw) : 0;
    s->out_height = ch < h ? (uint32_t)(h - ch) : 0;
    s->crop_left = s->out_width ? (uint32_t)(sub_w * crop[0]) : 0;
    s->crop_top = s->out_height ? (uint32_t)(sub_h * crop[2]) : 0;
    parse_tail(&r, sub_layers_minus1, s);
    return 1;
}

sy_status sy__hevc_note_nal(const uint8_t *nal, size_t n, sy__hevc_bound *b, const char *where, sy_error *err) {
    if (n < 2) return sy__fail(err, SY_E_INVALID_INPUT, "%s: NAL unit of %zu bytes", where, n);
    if (sy__hevc_nal_type(nal) != SY__HEVC_NAL_SPS) return SY_OK;
    sy__hevc_sps s;
    if (!sy__hevc_sps_parse(nal, n, &s))
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: unreadable sequence parameter set", where);
    b->width = SY__MAX(b->width, s.width);
    b->height = SY__MAX(b->height, s.height);
    b->chroma = (uint8_t)SY__MAX(b->chroma, s.chroma);
    b->bit_depth = (uint8_t)SY__MAX(b->bit_depth, SY__MAX(s.bit_depth_luma, s.bit_depth_chroma));
    b->dpb = (uint8_t)SY__MAX(b->dpb, s.has_dpb ? s.max_dec_pic_buffering : 0);
    b->seen = 1;
    return SY_OK;
}

static uint32_t be16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }

sy_status sy__hvcc_parse(const uint8_t *rec, size_t len, sy__hvcc *out, sy_error *err) {
    memset(out, 0, sizeof *out);
    if (!rec || len < 23) return sy__fail(err, SY_E_INVALID_INPUT, "hvcC: record of %zu bytes, need at least 23", len);
    if (len > (64u << 20) || len > UINT32_MAX)
        return sy__fail(err, SY_E_INVALID_INPUT, "hvcC: record of %zu bytes is implausibly large", len);
    out->length_size = (rec[21] & 3u) + 1;
    size_t pos = 23;
    uint32_t arrays = rec[22];
    for (uint32_t a = 0; a < arrays; a++) {
        if (len - pos < 3)
            return sy__fail(err, SY_E_INVALID_INPUT, "hvcC: array %u of %u truncated at byte %zu", a, arrays, pos);
        uint32_t count = be16(rec + pos + 1);
        pos += 3;
        for (uint32_t i = 0; i < count; i++) {
            if (len - pos < 2)
                return sy__fail(err, SY_E_INVALID_INPUT, "hvcC: array %u NAL %u of %u truncated at byte %zu", a, i,
                                count, pos);
            uint32_t n = be16(rec + pos);
            pos += 2;
            if (n > len - pos)
                return sy__fail(err, SY_E_INVALID_INPUT, "hvcC: array %u NAL %u claims %u bytes, %zu left", a, i, n,
                                len - pos);
            if (n == 0) continue;
            if (out->ps_count == SY__HEVC_MAX_PS)
                return sy__fail(err, SY_E_INVALID_INPUT, "hvcC: more than %u parameter-set NAL units",
                                SY__HEVC_MAX_PS);
            sy_status st = sy__hevc_note_nal(rec + pos, n, &out->bound, "hvcC", err);
            if (st != SY_OK) return st;
            out->ps[out->ps_count].offset = (uint32_t)pos;
            out->ps[out->ps_count].length = n;
            out->ps_count++;
            pos += n;
        }
    }
    const sy__hevc_bound *b = &out->bound;
    if (b->seen && (b->width > SY__HEVC_MAX_SIDE || b->height > SY__HEVC_MAX_SIDE))
        return sy__fail(err, SY_E_BUDGET, "hvcC: coded picture %ux%u exceeds %ux%u", b->width, b->height,
                        SY__HEVC_MAX_SIDE, SY__HEVC_MAX_SIDE);
    return SY_OK;
}
