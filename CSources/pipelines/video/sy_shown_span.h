/* sy_shown_span.h — what a source video track's edit list shows of it
 * (engine-private; shown_span.c), for a re-encode that must show the same.
 *
 * A movie says through its first edits when its video starts (leading empty
 * edits: a delay against its sound; or, when later, its first frame's own
 * presentation time) and which media it shows (the first non-empty edit's
 * media time and length). A trimmed file (`ffmpeg -ss T -c
 * copy`, editors' non-destructive trims) keeps the frames before T — later
 * ones are predicted from them — and hides them by the edit; a B-frame file
 * starts its edit two frames in. A re-encode decodes every frame but encodes
 * only those shown, after the same delay, so its picture stays in step with
 * its sound. An edit list with several shown spans (cuts, slow motion) is
 * not cut into frames: a re-encode that keeps every frame at its source time
 * encodes the media whole and writes the source's list again, mapped to its
 * own media times (sy__shown_spans_mapped), so players show what they
 * showed before. */
#ifndef SY_SHOWN_SPAN_H
#define SY_SHOWN_SPAN_H

#include "base/sy_internal.h"
#include "sy_mov.h"
#include "sy_video.h"
#include "mov/sy_mov_writer.h" /* sy_mov_writer_edit */

typedef struct sy__shown_span {
    uint64_t delay;       /* when the video starts (sy_video_reader_info.start_seconds), in the output's
                             movie timescale */
    uint32_t first_frame; /* presentation-order index (sy_video_frame.index) of the first frame shown */
    int64_t end;          /* media ticks where the first edit stops showing the track; without one, the
                             media duration */
    int bounded;          /* `end` is an edit's: a frame presented at or after it is not shown */
} sy__shown_span;

/* Reads `track`'s edits in `mov` and the reader's presentation times (built once, nothing decoded). */
sy_status sy__shown_span_read(sy_mov *mov, sy_video_reader *reader, uint32_t out_movie_timescale,
                              sy__shown_span *out, sy_error *err);

/* 1 when `track`'s edit list shows two or more spans of its media. */
int sy__shown_spans_several(sy_mov *mov, uint32_t track);

/* `track`'s whole edit list for an output track whose media time t shows the
 * source's media time t + media_shift, in the output's movie timescale:
 * segments rescaled, empty edits kept, media times moved (never below 0),
 * rates as they are. *out (count entries) is the caller's to sy__free. */
sy_status sy__shown_spans_mapped(sy_context *ctx, sy_mov *mov, uint32_t track, uint32_t out_movie_timescale,
                                 int64_t media_shift, sy_mov_writer_edit **out, uint32_t *count, sy_error *err);

#endif
