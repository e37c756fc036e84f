/* sy_live_movie.h — the movie side of a Live pair (engine-private): the two
 * QuickTime keys that make a movie Live (live-photo.md §4.2, §4.3) and the
 * metadata plan that tells sy_video_transcode to write them.
 *
 * Order of operations: sy__live_movie_plan_init fills a plan that points into
 * its own storage and at `content_identifier`, so both must outlive the
 * sy_video_transcode call that gets &plan->plan. No allocation. */
#ifndef SY_LIVE_MOVIE_H
#define SY_LIVE_MOVIE_H

#include "base/sy_internal.h"
#include "sy_video.h"

/* movie-level `mdta` item: the pair's identifier, UTF-8 */
#define SY__LIVE_CONTENT_ID_KEY "com.apple.quicktime.content.identifier"
/* key of the one-sample `mebx` track whose presentation time is the still's */
#define SY__LIVE_STILL_TIME_KEY "com.apple.quicktime.still-image-time"

typedef struct sy__live_movie_plan {
    sy_video_metadata_plan plan;  /* what sy_video_transcode reads */
    const char *drop[1];
    sy_video_mdta_item add[1];
    sy_video_frame_marker marker;
} sy__live_movie_plan;

/* A Live movie's metadata: the source's identifier (if any) replaced by
 * `content_identifier`, the source's other timed-metadata tracks copied,
 * and, when still_frame >= 0, the still-image-time track marking that output
 * frame (as Apple writes it: int8 value -1) in place of the source's. */
void sy__live_movie_plan_init(sy__live_movie_plan *p, const char *content_identifier, int32_t still_frame);

/* Whether a movie's video is what Photos plays in a Live photo (live-photo.md
 * pitfall 4): 'hvc1' or 'avc1' — parameter sets in the sample entry, not the
 * samples ('hev1', 'avc3') — in 4:2:0 (Apple's decoders take no H.264 4:4:4). */
int sy__live_movie_playable(const sy_video_reader_info *vi);

#endif
