/* sy_shown_span.h — what a source video track's edit list shows of it
 * (engine-private; shown_span.c), for a re-encode that must show the same.
 *
 * A movie says through its first edits when its video starts (leading empty
 * edits: a delay against its sound) and which media it shows (the first
 * non-empty edit's media time and length). A trimmed file (`ffmpeg -ss T -c
 * copy`, editors' non-destructive trims) keeps the frames before T — later
 * ones are predicted from them — and hides them by the edit; a B-frame file
 * starts its edit two frames in. A re-encode decodes every frame but encodes
 * only those shown, after the same delay, so its picture stays in step with
 * its sound. Only an edit list with one shown span (sy_mov_edit_span) is
 * honoured so: with several (cuts, an iPhone's slow motion) the media is
 * encoded whole, as it is stored. */
#ifndef SY_SHOWN_SPAN_H
#define SY_SHOWN_SPAN_H

#include "base/sy_internal.h"
#include "sy_mov.h"
#include "sy_video.h"

typedef struct sy__shown_span {
    uint64_t delay;       /* the leading empty edits, in the output's movie timescale */
    uint32_t first_frame; /* presentation-order index (sy_video_frame.index) of the first frame shown */
    int64_t end;          /* media ticks where the first edit stops showing the track; without one, the
                             media duration */
    int bounded;          /* `end` is an edit's: a frame presented at or after it is not shown */
} sy__shown_span;

/* Reads `track`'s edits in `mov` and the reader's presentation times (built once, nothing decoded). */
sy_status sy__shown_span_read(sy_mov *mov, sy_video_reader *reader, uint32_t out_movie_timescale,
                              sy__shown_span *out, sy_error *err);

#endif
