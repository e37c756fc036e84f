/* nal_framing.c — checks a movie sample's length-prefixed NAL units before a
 * codec library walks them (shared by the HEVC and H.264 stream decoders). */
#include <string.h>

#include "base/sy_nal.h"

/* H.264 7.4.1 / HEVC 7.4.2.x: emulation prevention keeps 00 00 00, 00 00 01
 * and 00 00 02 out of every NAL unit, so one inside is damage (a run of
 * zeros, a stray start code) that a decoder may not notice itself. Returns
 * the offset of the first, or n when there is none. */
size_t sy__nal_forbidden_run(const uint8_t *nal, size_t n) {
    const uint8_t *p = nal, *end = nal + n;
    while (end - p >= 3 && (p = memchr(p, 0, (size_t)(end - p - 2))) != NULL) {
        if (p[1] == 0 && p[2] <= 2) return (size_t)(p - nal);
        p += 1;
    }
    return n;
}

sy_status sy__nal_framing(const uint8_t *data, size_t len, uint32_t length_size, uint32_t tag, uint32_t *count,
                          sy_error *err) {
    uint32_t nals = 0;
    if (len > (size_t)INT32_MAX) return sy__fail(err, SY_E_INVALID_INPUT, "sample %u: %zu bytes", tag, len);
    for (size_t pos = 0; pos < len;) {
        if (len - pos < length_size)
            return sy__fail(err, SY_E_INVALID_INPUT,
                            "sample %u: truncated NAL length prefix at byte %zu of %zu", tag, pos, len);
        uint32_t n = sy__nal_length(data + pos, length_size);
        pos += length_size;
        if (n > len - pos)
            return sy__fail(err, SY_E_INVALID_INPUT,
                            "sample %u: NAL unit of %u bytes at byte %zu overruns the sample (%zu left)", tag, n,
                            pos, len - pos);
        size_t run = sy__nal_forbidden_run(data + pos, n);
        if (run < n)
            return sy__fail(err, SY_E_INVALID_INPUT,
                            "sample %u: NAL unit %u holds %02x %02x %02x at byte %zu (damaged: emulation prevention "
                            "forbids it)",
                            tag, nals + 1, data[pos + run], data[pos + run + 1], data[pos + run + 2], run);
        if (n) nals++;
        pos += n;
    }
    if (nals == 0) return sy__fail(err, SY_E_INVALID_INPUT, "sample %u: no NAL unit in %zu bytes", tag, len);
    *count = nals;
    return SY_OK;
}
