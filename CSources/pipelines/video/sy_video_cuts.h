/* sy_video_cuts.h — a video track whose edit list shows several spans of its
 * media (a cut: 0-1 s, then 1.5-2.5 s), played as a viewer sees it
 * (engine-private; video_cuts.c, used by video_reader.c).
 *
 * A player shows span after span: the frames inside a span at the span's
 * place on the movie timeline, the frames between spans not at all, and the
 * frame still on screen when a span starts (cut between two frames) at that
 * start. A pause (an empty edit) between spans, or after the last, shows
 * nothing new for its length: the last frame shown stays on screen (it lasts
 * until the next span starts, as QuickTime keeps the picture), the next span
 * starts after it, and the sound is silent then (audio_source.c), so the
 * picture and the sound keep step. Frames before the first span keep the
 * meaning a single edit gives them (negative times), so a consumer that
 * honours a trim honours a cut alike; frames after the last span are not
 * shown. Only what one decoding pass can show is mapped: spans in media order
 * at rate 1; a pause before the first (a picture that starts after its sound)
 * puts the spans after it, as a player does. Anything else (a repeat, slow
 * motion) plays the media as it is, as before. */
#ifndef SY_VIDEO_CUTS_H
#define SY_VIDEO_CUTS_H

#include "base/sy_internal.h"
#include "sy_mov.h"
#include "sy_video.h"

typedef struct sy__video_cuts sy__video_cuts;

/* The cut map of `track` over its presentation-ordered times (`times`, n
 * frames, media `timescale`); *out stays NULL when the list shows fewer than
 * two spans or cannot be played in one pass. */
sy_status sy__video_cuts_build(sy_context *ctx, sy_mov *mov, uint32_t track, const int64_t *times, uint32_t n,
                               uint32_t timescale, sy__video_cuts **out, sy_error *err);
void sy__video_cuts_free(sy_context *ctx, sy__video_cuts *c);

/* How long the spans show the track, in seconds (their segments' sum with the pauses between and after them,
 * from the first span's start). */
double sy__video_cuts_presentation(const sy__video_cuts *c);

/* Frame `k` (presentation order): 1 and its place among the frames shown
 * (*shown) and its time on the movie timeline (*seconds) when it is shown;
 * 0 when a cut hides it. */
int sy__video_cuts_frame(const sy__video_cuts *c, uint32_t k, uint32_t *shown, double *seconds);

/* The last shown frame whose time is at most `seconds`: its place among the
 * shown frames, its time and its pts; the first shown frame when none is. */
void sy__video_cuts_at(const sy__video_cuts *c, double seconds, uint32_t *shown, double *frame_seconds,
                       int64_t *pts);

/* From the next frame on, `r` plays its track's cuts (video_reader.c): hidden
 * frames are decoded but not returned, frame.seconds and frame.index count
 * the shown frames, sy_video_reader_frame_at and the info's
 * presentation_seconds follow. Before the first frame only; a track without
 * cuts plays as it did. For consumers that show the movie as a viewer sees it
 * (a GIF, a collage cell, a fingerprint, a Live movie and its key photo, a
 * re-encode whose sound becomes AAC: transcode.c); a re-encode that writes
 * the list again reads the media whole. */
sy_status sy__video_reader_follow_cuts(sy_video_reader *r, sy_error *err);

/* 1 when `r` plays its track's cuts (sy__video_reader_follow_cuts found spans one pass can play). */
int sy__video_reader_follows_cuts(const sy_video_reader *r);

#endif
