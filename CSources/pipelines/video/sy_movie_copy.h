/* sy_movie_copy.h — what an output movie copies from its source rather than
 * encodes (engine-private), shared by the transcoder (transcode.c: frames
 * re-encoded, audio copied) and the remuxer (remux.c: video and audio copied):
 * a copied track (sample entry, edit list, samples pumped in decode order up
 * to a time), movie-level `mdta` items as the caller's plan changes them, the
 * plan's frame-marker track, the source's timed-metadata tracks and the video
 * track's own `meta` (movie_timed_copy.c), and the report of what was kept
 * and what left out.
 *
 * Order: sy__copied_track_add after the writer is open (and, for audio, after
 * the video track, whose id the marker refers to); pump as the video
 * advances; free after the writer is finished or destroyed. A copied track
 * borrows the sy_mov it reads from and owns one sample buffer (grown to the
 * largest sample, charged to the context). */
#ifndef SY_MOVIE_COPY_H
#define SY_MOVIE_COPY_H

#include "base/sy_internal.h"
#include "sy_mov.h"
#include "audio/sy_audio.h"
#include "mov/sy_mov_writer.h"
#include "sy_video.h"

/* Audio is written up to this far ahead of the last video sample (seconds),
 * which keeps chunks interleaved the way players read them. */
#define SY__AUDIO_LEAD_SECONDS 0.5

typedef struct sy__copied_track {
    sy_mov *mov;            /* borrowed */
    uint32_t track;         /* source track index */
    uint32_t out_id;        /* 0 until added */
    uint32_t timescale;     /* media timescale (kept) */
    uint32_t next, count;   /* next sample to copy */
    uint32_t codec;
    double empty_seconds;   /* the copied edit list: leading empty edit ... */
    int64_t media_time;     /* ... then the media from here (media timescale) */
    uint8_t *buffer;
    size_t cap;
    sy__audio_sequence *aac; /* LPCM sound encoded as AAC instead of copied (sy__copied_track_add_as_aac) */
} sy__copied_track;

/* The first audio track with samples, -1 when there is none. */
int32_t sy__movie_first_audio(const sy_mov *mov);

/* Adds track `track` of `mov` to `w` with its sample entry and the first
 * empty + real edit of its edit list (AAC priming, audio offset, B-frame
 * delay), converted to `movie_timescale`; a track whose first sample is
 * presented later than its edit starts (sy_mov_timeline.start) gets an empty
 * edit up to that sample instead, so it starts at the same movie time in
 * every player. */
sy_status sy__copied_track_add(sy_mov_writer *w, sy_mov *mov, uint32_t track, uint32_t movie_timescale,
                               sy__copied_track *out, sy_error *err);

/* Adds sound track `track` of `mov` to `w` encoded as AAC-LC (sy_audio.h:
 * the whole sound from movie time 0, its empty edit as silence, in sync with
 * a copied video track), for an .mp4 that must play where LPCM does not
 * (Android). Pump and end as a copied track; codec reads 'mp4a'. */
sy_status sy__copied_track_add_as_aac(sy_context *ctx, sy_mov_writer *w, sy_mov *mov, uint32_t track, const char *label,
                                      sy__copied_track *out, sy_error *err);

/* Does `o` want this sound encoded as AAC: aac_audio asked, the track not
 * AAC already, and a sound sy__audio_source reads. */
int sy__copied_track_should_encode(const sy_mov *mov, uint32_t track, int aac_audio);

/* After the last pump: an encoded track drains its encoder and sets its
 * edit (t->next = the access units written); a copied one has nothing to do. */
sy_status sy__copied_track_end(sy__copied_track *t, sy_error *err);

/* Copies the samples whose decode time (seconds from the track's first) is
 * at most `until_seconds`, byte for byte with their durations, composition
 * offsets and sync flags. A track never added copies nothing. */
sy_status sy__copied_track_pump(sy_context *ctx, sy_mov_writer *w, sy__copied_track *t, double until_seconds,
                                sy_error *err);

/* Presentation time on the movie timeline (seconds) of a media time of `t`. */
double sy__copied_track_seconds(const sy__copied_track *t, int64_t media_ticks);

void sy__copied_track_free(sy_context *ctx, sy__copied_track *t);

/* Which source tracks an output movie writes, and their output ids
 * (video_out is known once the video track is added; audio_out 0 = none). */
typedef struct sy__movie_written {
    int32_t video, audio;       /* source track indices, -1 = none */
    uint32_t video_out, audio_out;
} sy__movie_written;

/* The source's timed-metadata tracks copied into the output. */
typedef struct sy__copied_timed {
    sy__copied_track *tracks;   /* count entries, allocated on the context */
    uint32_t count;
} sy__copied_timed;

/* Adds, after video and audio, every timed-metadata track of `mov` the plan
 * copies (sy_video_metadata_plan.copy_timed_metadata): not the one the
 * plan's marker re-makes, not one describing a track not written. *out is
 * zeroed first; free it with sy__movie_timed_free even after a failure. */
sy_status sy__movie_timed_add(sy_context *ctx, sy_mov_writer *w, sy_mov *mov, const sy__movie_written *wr,
                              const sy_video_metadata_plan *plan, uint32_t movie_timescale, sy__copied_timed *out,
                              sy_error *err);
/* sy__copied_track_pump for each of them. */
sy_status sy__movie_timed_pump(sy_context *ctx, sy_mov_writer *w, sy__copied_timed *timed, double until_seconds,
                               sy_error *err);
void sy__movie_timed_free(sy_context *ctx, sy__copied_timed *timed);

/* The source track's own `meta` box onto output track `out_id` (none: nothing
 * happens); *copied = 1 when one was copied. */
sy_status sy__movie_copy_track_meta(sy_mov_writer *w, const sy_mov *mov, int32_t src_track, uint32_t out_id,
                                    int *copied, sy_error *err);

/* SY_DROPPED_* bits (sy_still.h) for the source's tracks the output leaves
 * out: timed metadata neither copied nor re-made by the plan's marker, other
 * video tracks, other audio tracks. */
uint32_t sy__movie_uncarried(const sy_mov *mov, const sy__movie_written *wr, const sy__copied_timed *timed,
                             const sy_video_metadata_plan *plan);

/* SY_MOVIE_KEPT_* bits (sy_video.h) for what the output carries of the
 * source: `items_copied` source `mdta` items, the creation time (with
 * copy_metadata), the video track's meta, copied timed tracks, audio. */
uint32_t sy__movie_kept(const sy_mov *mov, const sy__movie_written *wr, const sy__copied_timed *timed,
                        int copy_metadata, int track_meta_copied, uint32_t items_copied);

/* 'qt  ' for .mov/.qt, 'isom' for .mp4/.m4v, 0 otherwise. */
uint32_t sy__movie_container_from_path(const char *path);

/* SY_E_USAGE for a plan with counts but no lists, or a marker without key
 * and 1..SY__MARKER_VALUE_MAX value bytes. NULL is fine. */
#define SY__MARKER_VALUE_MAX 256
sy_status sy__movie_check_plan(const sy_video_metadata_plan *plan, const char *fn, sy_error *err);

/* Movie-level items: the source's (with `copy`, unless the plan drops them;
 * *copied counts them, may be NULL), then the plan's additions. */
sy_status sy__movie_write_metadata(sy_mov_writer *w, const sy_mov *src, int copy, const sy_video_metadata_plan *plan,
                                   uint32_t *copied, sy_error *err);

/* The frame marker's track: one sample (size, key local id 1, value) lasting
 * one movie tick, describing `video_id`, placed at `seconds` on the movie
 * timeline by an empty edit. */
sy_status sy__movie_add_marker(sy_mov_writer *w, uint32_t video_id, const sy_video_frame_marker *m,
                               uint32_t movie_timescale, double seconds, sy_error *err);

/* sy_video_transcode with copy_video (remux.c): the main video track's
 * samples copied unchanged, the rest as a transcode writes it. `opts` and
 * `container` are checked by the caller; `report` (may be NULL) zeroed. */
sy_status sy__movie_remux(sy_context *ctx, const char *input, const char *output,
                          const sy_video_transcode_options *opts, uint32_t container,
                          sy_video_transcode_report *report, sy_error *err);

#endif
