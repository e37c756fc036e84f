/* sy_video_reader_hdr10plus.h — each frame's HDR10+ message (engine-private;
 * video_reader.c).
 *
 * A PQ movie recorded in HDR10+ (sy_video_reader_info.hdr10plus) has one
 * SMPTE ST 2094-40 message a picture, in the picture's own sample
 * (base/sy_hdr10plus.h). A re-encode that keeps the pixels hands each on to
 * the new picture shown at the same time: the reader finds the message of
 * the frame it returns in that frame's sample, read again by its index (the
 * decoder saw it long before the picture came out, in decode order). */
#ifndef SY_VIDEO_READER_HDR10PLUS_H
#define SY_VIDEO_READER_HDR10PLUS_H

#include <stddef.h>
#include <stdint.h>

#include "sy_video.h"

/* From the next frame on, each frame's message is looked up. Returns 0
 * (nothing changes) for a track whose first sample carries none. */
int sy__video_reader_keep_hdr10plus(sy_video_reader *r);

/* The message of the frame sy_video_reader_next just returned, lent until
 * the next call or close (*len its bytes, the T.35 country code first); NULL
 * and *len 0 when that picture's sample has none or none was asked for. */
const uint8_t *sy__video_reader_hdr10plus(const sy_video_reader *r, size_t *len);

#endif
