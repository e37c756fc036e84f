/* h264_sps.c — reads an H.264 SPS with the bounded RBSP reader (see
 * sy_h264_sps.h). Counts that drive loops are range-checked first. */
#include <string.h>

#include "h264/sy_h264_sps.h"
#include "base/sy_rbsp.h"
#include "hevc/sy_vui.h"

static void skip_scaling_list(sy__rbsp *r, unsigned size) {
    int32_t last = 8, next = 8;
    for (unsigned j = 0; j < size && !r->bad; j++) {
        if (next != 0) {
            int32_t delta = sy__rbsp_se(r);
            if (delta < -128 || delta > 127) {
                r->bad = 1;
                return;
            }
            next = (last + delta + 256) % 256;
        }
        last = next == 0 ? last : next;
    }
}

static void skip_hrd(sy__rbsp *r) {
    uint32_t cpb = sy__rbsp_ue(r) + 1;
    if (r->bad || cpb > 32) {
        r->bad = 1;
        return;
    }
    sy__rbsp_skip(r, 8); /* bit_rate_scale, cpb_size_scale */
    for (uint32_t i = 0; i < cpb && !r->bad; i++) {
        (void)sy__rbsp_ue(r);
        (void)sy__rbsp_ue(r);
        sy__rbsp_skip(r, 1);
    }
    sy__rbsp_skip(r, 20); /* four 5-bit lengths */
}

static void parse_vui(sy__rbsp *r, sy__h264_sps *s) {
    sy__vui_read_signal(r, s->sar, &s->colour);
    if (r->bad) return;
    if (sy__rbsp_bit(r)) { /* chroma_loc_info_present */
        (void)sy__rbsp_ue(r);
        (void)sy__rbsp_ue(r);
    }
    if (sy__rbsp_bit(r)) sy__rbsp_skip(r, 65); /* timing info */
    unsigned nal_hrd = sy__rbsp_bit(r);
    if (nal_hrd) skip_hrd(r);
    unsigned vcl_hrd = sy__rbsp_bit(r);
    if (vcl_hrd) skip_hrd(r);
    if (nal_hrd || vcl_hrd) sy__rbsp_skip(r, 1); /* low_delay_hrd_flag */
    sy__rbsp_skip(r, 1);                         /* pic_struct_present_flag */
    if (r->bad) return;
    if (sy__rbsp_bit(r)) { /* bitstream_restriction_flag */
        sy__rbsp_skip(r, 1);
        for (int i = 0; i < 4; i++) (void)sy__rbsp_ue(r);
        uint32_t reorder = sy__rbsp_ue(r), dpb = sy__rbsp_ue(r);
        if (r->bad) return;
        if (reorder <= 16 && dpb <= 16) {
            s->has_reorder = 1;
            s->max_num_reorder_frames = reorder;
            s->max_dec_frame_buffering = dpb;
        }
    }
    s->has_vui = !r->bad;
}

static int high_profile(unsigned p) {
    switch (p) {
    case 100: case 110: case 122: case 244: case 44: case 83: case 86: case 118: case 128: case 138: case 139:
    case 134: case 135: return 1;
    default: return 0;
    }
}

int sy__h264_sps_parse(const uint8_t *nal, size_t n, sy__h264_sps *s) {
    memset(s, 0, sizeof *s);
    s->colour.primaries = s->colour.transfer = s->colour.matrix = 2;
    if (n < 4 || (nal[0] & 0x1F) != 7) return 0;
    sy__rbsp r;
    sy__rbsp_init(&r, nal, n, 1);
    s->profile_idc = (uint8_t)sy__rbsp_bits(&r, 8);
    sy__rbsp_skip(&r, 16); /* constraint flags, level_idc */
    if (sy__rbsp_ue(&r) > 31) return 0; /* seq_parameter_set_id */
    uint32_t chroma = 1, bd_y = 0, bd_c = 0, separate = 0;
    if (high_profile(s->profile_idc)) {
        chroma = sy__rbsp_ue(&r);
        if (chroma > 3) return 0;
        if (chroma == 3) separate = sy__rbsp_bit(&r);
        bd_y = sy__rbsp_ue(&r);
        bd_c = sy__rbsp_ue(&r);
        if (bd_y > 6 || bd_c > 6) return 0;
        sy__rbsp_skip(&r, 1); /* qpprime_y_zero_transform_bypass_flag */
        if (sy__rbsp_bit(&r))  /* seq_scaling_matrix_present_flag */
            for (unsigned i = 0; i < (chroma != 3 ? 8u : 12u) && !r.bad; i++)
                if (sy__rbsp_bit(&r)) skip_scaling_list(&r, i < 6 ? 16 : 64);
    }
    if (sy__rbsp_ue(&r) > 12) return 0; /* log2_max_frame_num_minus4 */
    uint32_t poc_type = sy__rbsp_ue(&r);
    if (poc_type == 0) {
        if (sy__rbsp_ue(&r) > 12) return 0;
    } else if (poc_type == 1) {
        sy__rbsp_skip(&r, 1);
        (void)sy__rbsp_se(&r);
        (void)sy__rbsp_se(&r);
        uint32_t cycle = sy__rbsp_ue(&r);
        if (cycle > 255) return 0;
        for (uint32_t i = 0; i < cycle && !r.bad; i++) (void)sy__rbsp_se(&r);
    } else if (poc_type != 2) {
        return 0;
    }
    s->max_num_ref_frames = sy__rbsp_ue(&r);
    sy__rbsp_skip(&r, 1); /* gaps_in_frame_num_value_allowed_flag */
    uint32_t w_mbs = sy__rbsp_ue(&r) + 1, h_units = sy__rbsp_ue(&r) + 1;
    s->frame_mbs_only = (uint8_t)sy__rbsp_bit(&r);
    if (!s->frame_mbs_only) sy__rbsp_skip(&r, 1); /* mb_adaptive_frame_field_flag */
    sy__rbsp_skip(&r, 1);                          /* direct_8x8_inference_flag */
    uint32_t crop[4] = {0, 0, 0, 0};
    if (sy__rbsp_bit(&r))
        for (int i = 0; i < 4; i++) crop[i] = sy__rbsp_ue(&r);
    if (r.bad || s->max_num_ref_frames > 16 || w_mbs > 1024 || h_units > 1024) return 0;
    s->chroma = (uint8_t)chroma;
    s->bit_depth_luma = (uint8_t)(8 + bd_y);
    s->bit_depth_chroma = (uint8_t)(8 + bd_c);
    s->width = w_mbs * 16;
    s->height = h_units * 16 * (s->frame_mbs_only ? 1u : 2u);
    uint64_t unit_x = (chroma == 1 || chroma == 2) && !separate ? 2 : 1;
    uint64_t unit_y = ((chroma == 1 && !separate) ? 2u : 1u) * (s->frame_mbs_only ? 1u : 2u);
    uint64_t cw = unit_x * ((uint64_t)crop[0] + crop[1]), ch = unit_y * ((uint64_t)crop[2] + crop[3]);
    s->out_width = cw < s->width ? (uint32_t)(s->width - cw) : 0;
    s->out_height = ch < s->height ? (uint32_t)(s->height - ch) : 0;
    if (sy__rbsp_bit(&r) && !r.bad) parse_vui(&r, s);
    else s->has_vui = !r.bad;
    return 1;
}
