/* av1_params.c — the av1C record and the AV1 sequence header, read before
 * libavcodec sees anything (sy_av1.h). Every read is bounded by the bytes
 * given: a plain MSB-first bit reader (AV1 has no emulation prevention),
 * whose reads past the end return 0 and set a sticky flag checked once. */
#include <string.h>

#include "base/sy_bits.h"
#include "hevc/sy_av1.h"

/* f(n) of the AV1 specification. */
static uint32_t f(sy__bits *b, unsigned n) { return sy__bits_read(b, n); }

/* uvlc(): only skipped here; 32 leading zeros or more mean "too large" (§4.10.3). */
static void skip_uvlc(sy__bits *b) {
    unsigned zeros = 0;
    while (!f(b, 1)) {
        if (b->bad || ++zeros >= 32) return;
    }
    (void)f(b, zeros);
}

int sy__av1_sequence_parse(const uint8_t *payload, size_t n, sy__av1_sequence *out) {
    sy__bits b = {payload, n, 0, 0};
    memset(out, 0, sizeof *out);
    out->profile = (uint8_t)f(&b, 3);
    (void)f(&b, 1); /* still_picture */
    uint32_t reduced = f(&b, 1);
    if (out->profile > 2) return 0;
    if (reduced) {
        (void)f(&b, 5); /* seq_level_idx[0] */
    } else {
        uint32_t decoder_model = 0, delay_bits = 0;
        if (f(&b, 1)) { /* timing_info_present_flag */
            (void)f(&b, 32), (void)f(&b, 32); /* num_units_in_display_tick, time_scale */
            if (f(&b, 1)) skip_uvlc(&b);      /* equal_picture_interval */
            decoder_model = f(&b, 1);
            if (decoder_model) {
                delay_bits = f(&b, 5) + 1; /* buffer_delay_length_minus_1 */
                (void)f(&b, 32), (void)f(&b, 5), (void)f(&b, 5);
            }
        }
        uint32_t initial_delay = f(&b, 1), points = f(&b, 5) + 1;
        for (uint32_t i = 0; i < points && !b.bad; i++) {
            (void)f(&b, 12); /* operating_point_idc */
            if (f(&b, 5) > 7) (void)f(&b, 1); /* seq_level_idx, seq_tier */
            if (decoder_model && f(&b, 1)) (void)f(&b, delay_bits), (void)f(&b, delay_bits), (void)f(&b, 1);
            if (initial_delay && f(&b, 1)) (void)f(&b, 4);
        }
    }
    uint32_t wbits = f(&b, 4) + 1, hbits = f(&b, 4) + 1;
    out->max_width = f(&b, wbits) + 1;
    out->max_height = f(&b, hbits) + 1;
    if (!reduced && f(&b, 1)) (void)f(&b, 4), (void)f(&b, 3); /* frame_id_numbers_present_flag */
    (void)f(&b, 3); /* use_128x128_superblock, enable_filter_intra, enable_intra_edge_filter */
    if (!reduced) {
        (void)f(&b, 4); /* interintra, masked compound, warped motion, dual filter */
        uint32_t order_hint = f(&b, 1);
        if (order_hint) (void)f(&b, 2); /* enable_jnt_comp, enable_ref_frame_mvs */
        uint32_t force_sct = f(&b, 1) ? 2 : f(&b, 1); /* seq_choose_screen_content_tools: SELECT */
        if (force_sct > 0 && !f(&b, 1)) (void)f(&b, 1); /* seq_choose_integer_mv, seq_force_integer_mv */
        if (order_hint) (void)f(&b, 3);
    }
    (void)f(&b, 3); /* enable_superres, enable_cdef, enable_restoration */
    /* color_config (§5.5.2) */
    uint32_t high = f(&b, 1);
    out->bit_depth = out->profile == 2 && high ? (f(&b, 1) ? 12 : 10) : high ? 10 : 8;
    uint32_t mono = out->profile == 1 ? 0 : f(&b, 1);
    uint32_t cp = 2, tc = 2, mc = 2;
    if (f(&b, 1)) {
        cp = f(&b, 8), tc = f(&b, 8), mc = f(&b, 8);
        out->colour.present = 1;
    }
    out->colour.primaries = (uint16_t)cp, out->colour.transfer = (uint16_t)tc, out->colour.matrix = (uint16_t)mc;
    uint32_t sx = 1, sy = 1;
    if (mono) {
        out->full_range = (uint8_t)f(&b, 1);
    } else if (cp == 1 && tc == 13 && mc == 0) { /* sRGB: 4:4:4, full range */
        out->full_range = 1, sx = sy = 0;
    } else {
        out->full_range = (uint8_t)f(&b, 1);
        if (out->profile == 1) sx = sy = 0;
        else if (out->profile == 2) sx = out->bit_depth == 12 ? f(&b, 1) : 1, sy = sx && out->bit_depth == 12 ? f(&b, 1) : 0;
        if (sx && sy) (void)f(&b, 2); /* chroma_sample_position */
        (void)f(&b, 1);               /* separate_uv_delta_q */
    }
    out->colour.full_range = out->full_range;
    out->chroma = mono ? 0 : sx && sy ? 1 : sx ? 2 : 3;
    (void)f(&b, 1); /* film_grain_params_present */
    return !b.bad;
}

/* One OBU header at data[pos]: its type, payload offset and size. 0 on
 * success, else a message. `last_may_span`: an OBU without obu_size runs to
 * the end (allowed for the last OBU of a sample, never in av1C). */
static const char *obu_at(const uint8_t *data, size_t len, size_t pos, int last_may_span, uint32_t *type,
                          size_t *payload, size_t *size) {
    uint8_t h = data[pos];
    if (h & 0x80) return "forbidden bit set in an OBU header";
    *type = (h >> 3) & 15u;
    size_t at = pos + 1 + ((h >> 2) & 1u); /* obu_extension_flag: one more byte */
    if (at > len) return "OBU header cut short";
    if (!(h & 2)) { /* obu_has_size_field = 0 */
        if (!last_may_span) return "OBU without a size";
        *payload = at, *size = len - at;
        return NULL;
    }
    uint64_t v = 0;
    for (unsigned i = 0;; i++) { /* leb128(), at most 8 bytes (§4.10.5) */
        if (i == 8 || at >= len) return "OBU size cut short";
        uint8_t byte = data[at++];
        v |= (uint64_t)(byte & 127u) << (7 * i);
        if (!(byte & 128)) break;
    }
    if (v > len - at) return "OBU larger than the data holding it";
    *payload = at, *size = (size_t)v;
    return NULL;
}

/* Walks OBUs; parses the first sequence header into *seq (has = 1). 0 on success, else a message. */
static const char *walk(const uint8_t *data, size_t len, int last_may_span, sy__av1_sequence *seq, uint8_t *has,
                        size_t *bad_at) {
    for (size_t pos = 0; pos < len;) {
        uint32_t type;
        size_t payload, size;
        const char *why = obu_at(data, len, pos, last_may_span, &type, &payload, &size);
        *bad_at = pos;
        if (why) return why;
        if (type == 1 && !*has) {
            if (!sy__av1_sequence_parse(data + payload, size, seq)) return "sequence header does not parse";
            *has = 1;
        }
        pos = payload + size;
    }
    return NULL;
}

sy_status sy__av1c_parse(const uint8_t *rec, size_t len, sy__av1c *out, sy_error *err) {
    memset(out, 0, sizeof *out);
    if (!rec || len < 4) return sy__fail(err, SY_E_INVALID_INPUT, "av1C: record of %zu bytes (at least 4)", len);
    if (rec[0] != 0x81) return sy__fail(err, SY_E_INVALID_INPUT, "av1C: marker/version byte %02x (81 expected)", rec[0]);
    out->profile = rec[1] >> 5;
    uint32_t high = rec[2] >> 6 & 1, twelve = rec[2] >> 5 & 1, mono = rec[2] >> 4 & 1, sx = rec[2] >> 3 & 1,
             sy = rec[2] >> 2 & 1;
    out->bit_depth = twelve ? 12 : high ? 10 : 8;
    out->chroma = mono ? 0 : sx && sy ? 1 : sx ? 2 : 3;
    if (out->profile > 2 || (twelve && !high) || (twelve && out->profile != 2) || (!sx && sy) || (mono && !(sx && sy)))
        return sy__fail(err, SY_E_INVALID_INPUT, "av1C: profile %u with depth/chroma bits %02x is not a valid AV1 configuration",
                        out->profile, rec[2]);
    size_t at = 0;
    const char *why = walk(rec + 4, len - 4, 0, &out->sequence, &out->has_sequence, &at);
    if (why) return sy__fail(err, SY_E_INVALID_INPUT, "av1C: %s (configOBUs byte %zu)", why, at);
    if (out->has_sequence && (out->sequence.profile != out->profile || out->sequence.bit_depth != out->bit_depth ||
                              out->sequence.chroma != out->chroma))
        return sy__fail(err, SY_E_INVALID_INPUT, "av1C: its sequence header contradicts the record");
    return SY_OK;
}

const char *sy__av1_walk_item(const uint8_t *data, size_t len, sy__av1_sequence *seq, uint8_t *has, size_t *bad_at) {
    return walk(data, len, 1, seq, has, bad_at);
}
