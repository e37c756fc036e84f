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

/* The other way: writes `output` = the JPEG `still` (its identifier already
 * removed) with an XMP saying a Motion Photo video follows (the old XMP's
 * properties kept, sy__xmp_with_motion_photo; an MPF gain map listed as the
 * directory item after the primary image) and the MP4 `movie` appended.
 * Every other header segment and every byte from the first scan on is
 * copied. *movie_offset = where the movie starts. Refused (SY_E_UNSUPPORTED)
 * when the XMP would have to grow after the MPF index.
 * Memory: the still's bytes; the movie is streamed. */
sy_status sy__motion_photo_jpeg_write(sy_context *ctx, const char *still, const char *movie, int64_t presentation_us,
                                      const char *output, uint64_t *movie_offset, sy_error *err);

#endif
