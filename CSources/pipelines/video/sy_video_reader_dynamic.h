/* sy_video_reader_dynamic.h — each frame's dynamic HDR metadata (engine-private;
 * video_reader.c): HDR10+ messages and Dolby Vision RPUs.
 *
 * A PQ movie recorded in HDR10+ (sy_video_reader_info.hdr10plus) has one
 * SMPTE ST 2094-40 message a picture, in the picture's own sample
 * (base/sy_hdr10plus.h). A Dolby Vision movie (an iPhone's HDR video:
 * profile 8.4, an HLG base any player shows) ends each picture's access unit
 * with an RPU NAL unit (type 62) that a Dolby Vision display maps the base
 * with. A re-encode that keeps the pixels hands each on to the new picture
 * shown at the same time: the reader finds what the frame it returns
 * carries in that frame's sample, read again by its index (the decoder saw
 * it long before the picture came out, in decode order). */
#ifndef SY_VIDEO_READER_DYNAMIC_H
#define SY_VIDEO_READER_DYNAMIC_H

#include <stddef.h>
#include <stdint.h>

#include "sy_video.h"

/* The largest RPU NAL unit handed on (real ones are well under 1 KB). */
#define SY__DOVI_RPU_MAX 65536u

/* From the next frame on, each frame's HDR10+ message is looked up. Returns 0
 * (nothing changes) for a track whose first sample carries none. */
int sy__video_reader_keep_hdr10plus(sy_video_reader *r);

/* The message of the frame sy_video_reader_next just returned, lent until
 * the next call or close (*len its bytes, the T.35 country code first); NULL
 * and *len 0 when that picture's sample has none or none was asked for. */
const uint8_t *sy__video_reader_hdr10plus(const sy_video_reader *r, size_t *len);

/* From the next frame on, each frame's Dolby Vision RPU is looked up.
 * Returns 0 (nothing changes) for an HEVC track whose sample entry has no
 * Dolby Vision configuration with RPUs present. */
int sy__video_reader_keep_dovi_rpu(sy_video_reader *r);

/* The RPU NAL unit of the frame just returned (header included, emulation
 * prevention in place, as stored), lent until the next call or close; NULL
 * and *len 0 when its sample has none or none was asked for. */
const uint8_t *sy__video_reader_dovi_rpu(const sy_video_reader *r, size_t *len);

#endif
