/* nal_framing.c — checks a movie sample's length-prefixed NAL units before a
 * codec library walks them (shared by the HEVC and H.264 stream decoders). */
#include "base/sy_nal.h"

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
        if (n) nals++;
        pos += n;
    }
    if (nals == 0) return sy__fail(err, SY_E_INVALID_INPUT, "sample %u: no NAL unit in %zu bytes", tag, len);
    *count = nals;
    return SY_OK;
}
