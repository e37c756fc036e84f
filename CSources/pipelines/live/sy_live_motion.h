/* sy_live_motion.h — the still of a Live pair made from a Motion Photo
 * (engine-private). */
#ifndef SY_LIVE_MOTION_H
#define SY_LIVE_MOTION_H

#include "base/sy_internal.h"

/* Writes `output` = the first `still_length` bytes of the JPEG `input` (the
 * photo and whatever items precede the movie: a gain map, padding) with only
 * header segments changed: the Exif carries content identifier `id` in an
 * Apple MakerNote (a minimal Exif is made when there is none), the XMP loses
 * its Motion Photo claims. Every byte from the first scan on is copied, so
 * the decoded pixels are the Motion Photo's. MPF offsets (APP2) count from
 * the MPF segment, so segments before it may change length; an XMP after it
 * keeps its length (padded inside the packet) and an Exif after it is
 * refused (SY_E_UNSUPPORTED).
 * Memory: the still's bytes (at most 256 MB) plus the rewritten segments. */
sy_status sy__live_motion_still_jpeg(sy_context *ctx, const char *input, uint64_t still_length, const char *id,
                                     const char *output, sy_error *err);

#endif
