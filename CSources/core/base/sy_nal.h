/* sy_nal.h — length-prefixed NAL units (ISO/IEC 14496-15 samples and HEIF
 * item data: each NAL unit preceded by a big-endian length of the
 * configuration record's size), for the HEVC and H.264 decoders
 * (engine-private). */
#ifndef SY_NAL_H
#define SY_NAL_H

#include "base/sy_internal.h"

/* Reads a big-endian NAL length prefix of `size` (1..4) bytes. */
static inline uint32_t sy__nal_length(const uint8_t *p, uint32_t size) {
    uint32_t v = 0;
    for (uint32_t i = 0; i < size; i++) v = (v << 8) | p[i];
    return v;
}

/* Walks a sample's length-prefixed NAL units: from *pos (0 to start), the
 * next unit in *nal / *n and 1; 0 at the end or at a unit that does not fit
 * (a malformed sample ends the walk). */
static inline int sy__nal_next(const uint8_t *data, size_t len, uint32_t length_size, size_t *pos,
                               const uint8_t **nal, uint32_t *n) {
    if (*pos >= len || len - *pos < length_size) return 0;
    uint32_t m = sy__nal_length(data + *pos, length_size);
    if (m > len - *pos - length_size) return 0;
    *nal = data + *pos + length_size;
    *n = m;
    *pos += length_size + m;
    return 1;
}

/* The NAL header's size (HEVC 2, H.264 1) when `nal` is an SEI NAL unit (an
 * HEVC prefix SEI, type 39; an H.264 SEI, type 6) with room for a message, else 0. */
static inline size_t sy__nal_sei_header(const uint8_t *nal, uint32_t n, int hevc) {
    if (hevc) return n >= 3 && ((nal[0] >> 1) & 0x3F) == 39 ? 2 : 0;
    return n >= 2 && (nal[0] & 0x1F) == 6 ? 1 : 0;
}

/* Offset of the first 00 00 00 / 00 00 01 / 00 00 02 inside a NAL unit's n
 * bytes (emulation prevention forbids them: damaged data), n when none. */
size_t sy__nal_forbidden_run(const uint8_t *nal, size_t n);

/* Checks the length-prefixed framing of a movie sample (`tag` = its index,
 * for messages "sample N: ..."): every NAL unit inside it, none empty-headed,
 * none holding a sequence emulation prevention forbids. Returns the NAL
 * count in *count. */
sy_status sy__nal_framing(const uint8_t *data, size_t len, uint32_t length_size, uint32_t tag, uint32_t *count,
                          sy_error *err);

#endif
