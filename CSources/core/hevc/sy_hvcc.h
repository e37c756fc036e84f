/* sy_hvcc.h — HEVCDecoderConfigurationRecord (`hvcC`, ISO/IEC 14496-15 §8.3.3)
 * built from an encoder's parameter-set NAL units, and Annex-B start-code
 * handling (engine-private), for the HEVC encoder (hevc_encoder.c), which
 * gets its VPS/SPS/PPS from x265_encoder_headers. */
#ifndef SY_HVCC_H
#define SY_HVCC_H

#include "base/sy_internal.h"
#include "hevc/sy_hevc_params.h" /* sy__hevc_nal_type */

/* IRAP pictures (BLA, IDR, CRA and the reserved IRAP types 22..23): sync samples. */
static inline int sy__hevc_nal_is_irap(uint32_t type) { return type >= 16 && type <= 23; }

/* Skips a leading Annex-B start code (00 00 01 or 00 00 00 01); returns the
 * bare NAL unit and its size. Input without a start code comes back as is. */
const uint8_t *sy__nal_strip_start_code(const uint8_t *p, size_t size, size_t *out_size);

/* Builds an hvcC with lengthSizeMinusOne 3 and one array each of VPS, SPS and
 * PPS (the first of each type among `nal`; other types are ignored). The
 * profile/tier/level, chroma format, bit depths and temporal-layer fields
 * come from the SPS. NAL units are bare (no start code, emulation-prevention
 * bytes kept). `*out` is allocated from ctx (free with sy__free). */
sy_status sy__hvcc_build(sy_context *ctx, const uint8_t *const nal[], const size_t nal_len[], size_t count,
                         uint8_t **out, size_t *out_len, sy_error *err);

#endif
