/* sy_mov_writer.h — QuickTime (.mov) / MP4 muxer (issue 4).
 *
 * Writes `ftyp`, then `wide` + `mdat` streamed to a temporary file next to the
 * output (samples go straight to disk in the order they are added; consecutive
 * samples of one track form a chunk), then `moov` at finish, and renames the
 * temporary file into place: the output is complete or absent, and an existing
 * file at `path` is untouched until the rename. mdat grows past 4 GiB by
 * turning the `wide` placeholder into a 64-bit mdat header (QuickTime's way).
 *
 * Per track, memory is a few bytes per sample (sizes, run-length durations,
 * composition offsets, sync list, chunk offsets) — never sample data.
 *
 * What goes into moov:
 *  - mvhd (movie timescale: 600 for 'qt  ', 1000 for 'isom' unless given),
 *  - one trak per track: tkhd (matrix, size), edts/elst (see set_edit), mdia
 *    (mdhd, hdlr, minf with vmhd/smhd/gmhd, dinf, stbl: stsd stts ctts stss
 *    stsc stsz stco|co64),
 *  - movie-level metadata as QuickTime `moov/meta` (hdlr 'mdta', keys, ilst),
 *    the form iPhones write (see ../shared/specs/live-photo.md §4.2),
 *  - a timed-metadata track: `mebx` sample entry with its key table, `tref
 *    cdsc` to the track it describes, handler 'meta' (spec §4.3).
 */
#ifndef SY_MOV_WRITER_H
#define SY_MOV_WRITER_H

#include "sy_base.h"
#include "sy_mov.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sy_mov_writer sy_mov_writer;

typedef struct sy_mov_writer_options {
    uint32_t version;          /* 1 */
    uint32_t brand;            /* SY_FOURCC('q','t',' ',' ') for .mov, SY_FOURCC('i','s','o','m') for .mp4 */
    uint32_t movie_timescale;  /* 0 = 600 ('qt  ') or 1000 ('isom') */
    uint64_t creation_time;    /* seconds since 1904-01-01 UTC for mvhd/tkhd/mdhd creation and modification
                                  times (e.g. the source movie's, sy_mov_info); 0 = none, deterministic bytes */
} sy_mov_writer_options;

void sy_mov_writer_options_init(sy_mov_writer_options *opts);

/** Creates the temporary file beside `path` and writes ftyp + the mdat header. */
sy_status sy_mov_writer_open(sy_context *ctx, const char *path, const sy_mov_writer_options *opts,
                             sy_mov_writer **out, sy_error *err);

typedef struct sy_mov_video_track {
    uint32_t codec;            /* 'hvc1' (config = hvcC payload) or 'avc1' (avcC) */
    uint32_t width, height;    /* coded size */
    uint32_t timescale;        /* media timescale of the sample durations */
    const uint8_t *config;     /* decoder configuration record (copied) */
    size_t config_len;
    int32_t matrix[9];         /* tkhd matrix; all zero = identity */
    /* colour description for a `colr` box ('nclc' in .mov, which has no range
     * flag; 'nclx' with full_range in .mp4 — ffmpeg's choice); primaries = 0 writes none */
    uint16_t primaries, transfer, matrix_coefficients;
    uint8_t full_range;
    sy_hdr_static_metadata hdr; /* written as `mdcv` / `clli` after `colr` (has_* = 0: none) */
    uint32_t dovi_type;        /* a Dolby Vision configuration box after hvcC: 'dvcC' / 'dvvC' / 'dvwC' (0 = none) */
    uint8_t dovi[24];          /* ... its payload (sy_mov_track_info.dovi) */
} sy_mov_video_track;

/** Adds a video track; *track_id gets its tkhd track_ID (1-based, in order of adding). */
sy_status sy_mov_writer_add_video(sy_mov_writer *w, const sy_mov_video_track *track, uint32_t *track_id,
                                  sy_error *err);

/** Adds a track whose sample description is copied byte-for-byte from track
 *  `src_track` of `src` (audio: mp4a/esds, lpcm, sowt, ...; timed metadata:
 *  `mebx` with its key table): handler and its name, media timescale,
 *  language, sample entry, tkhd volume/size/matrix/alternate group (the
 *  entry's data reference index becomes 1, our only dref). Samples are then
 *  added with sy_mov_writer_add_sample (copied from the source); a `tref`
 *  is the caller's (sy_mov_writer_set_describes: track ids change). */
sy_status sy_mov_writer_add_copied_track(sy_mov_writer *w, sy_mov *src, uint32_t src_track, uint32_t *track_id,
                                         sy_error *err);

/** Adds a sound track of 16-bit little-endian PCM ('sowt'), `channels`
 *  interleaved, media timescale = `sample_rate` (1..65535 Hz); each sample is
 *  one PCM frame (2 x channels bytes, duration 1). Volume 1.0, alternate group 0. */
sy_status sy_mov_writer_add_pcm_audio(sy_mov_writer *w, uint32_t sample_rate, uint16_t channels, uint32_t *track_id,
                                      sy_error *err);

/** The track's `tref cdsc`: it describes track `describes_track_id` (an
 *  existing track of this writer; 0 removes the reference). */
sy_status sy_mov_writer_set_describes(sy_mov_writer *w, uint32_t track_id, uint32_t describes_track_id,
                                      sy_error *err);

/** A `meta` box for the track (trak/meta, e.g. the source video track's
 *  lens keys, sy_mov_track_meta), copied whole and written after its mdia.
 *  `box` must be one box of type 'meta' of `len` bytes (at most 1 MiB). */
sy_status sy_mov_writer_set_track_meta(sy_mov_writer *w, uint32_t track_id, const uint8_t *box, size_t len,
                                       sy_error *err);

/** Adds an AAC sound track ('mp4a' + esds, for .mp4): media timescale =
 *  `sample_rate` (1..65535 Hz), `channels` 1..8, `config` the
 *  AudioSpecificConfig (1..64 bytes, copied), `bitrate` the encoder's
 *  target (esds average and maximum). Each sample is one access unit
 *  (duration 1024). Volume 1.0, alternate group 0; set the edit (media
 *  time = the encoder's priming) and the presentation end yourself. */
sy_status sy_mov_writer_add_aac_audio(sy_mov_writer *w, uint32_t sample_rate, uint16_t channels, const uint8_t *config,
                                      size_t config_len, uint32_t bitrate, uint32_t *track_id, sy_error *err);

/** Takes a track out of any alternate group (tkhd alternate_group 0), so a
 *  player plays it together with the other enabled tracks instead of choosing one. */
sy_status sy_mov_writer_set_alternate_group(sy_mov_writer *w, uint32_t track_id, int16_t group, sy_error *err);

/** One key of a timed-metadata (`mebx`) track. */
typedef struct sy_mov_mebx_key_spec {
    const char *name;          /* e.g. "com.apple.quicktime.still-image-time" (namespace 'mdta') */
    uint32_t datatype;         /* well-known type (65 = int8, 23 = float32, 71 = 2 x float32, ...) */
} sy_mov_mebx_key_spec;

/** Adds a `mebx` track whose keys get local ids 1..count in order, describing
 *  (tref cdsc) track `describes_track_id`; media timescale `timescale`. */
sy_status sy_mov_writer_add_mebx(sy_mov_writer *w, const sy_mov_mebx_key_spec *keys, uint32_t count,
                                 uint32_t describes_track_id, uint32_t timescale, uint32_t *track_id,
                                 sy_error *err);

/** Appends one sample of `track_id` to mdat. `duration` in the track's media
 *  timescale; `composition_offset` = pts - dts (>= 0 written as ctts v0,
 *  negative values make ctts v1); `sync` marks a sync sample.
 *  SY_E_USAGE: unknown track, NULL data, duration 0 on a video or mebx track
 *  (copied audio may end on a 0-duration sample); SY_E_BUDGET: more than
 *  SY_MOV_MAX_SAMPLES samples or the context budget; SY_E_IO: the write
 *  failed (message names the path and errno text). After an I/O or memory
 *  failure the writer refuses further work (SY_E_USAGE): destroy it. */
sy_status sy_mov_writer_add_sample(sy_mov_writer *w, uint32_t track_id, const void *data, size_t len,
                                   uint32_t duration, int32_t composition_offset, int sync, sy_error *err);

/** The track's edit list: an optional empty edit of `empty_movie_ticks` (movie
 *  timescale; 0 = none) followed by one edit playing the whole media from
 *  `media_time` (media timescale; e.g. the first frame's composition offset
 *  when B-frames delay it). Without a call: one edit from media time 0 for
 *  video/audio, none for mebx. */
sy_status sy_mov_writer_set_edit(sy_mov_writer *w, uint32_t track_id, uint64_t empty_movie_ticks, int64_t media_time,
                                 sy_error *err);

/** One edit of an explicit edit list: `segment` in the movie timescale,
 *  `media_time` in the track's media timescale (-1 = an empty edit), `rate`
 *  16.16 (0x10000 = normal speed). */
typedef struct sy_mov_writer_edit {
    uint64_t segment;
    int64_t media_time;
    int32_t rate;
} sy_mov_writer_edit;

#define SY_MOV_WRITER_MAX_EDITS 1024u

/** The track's whole edit list, copied (1..SY_MOV_WRITER_MAX_EDITS edits): for
 *  a re-encode that keeps a source's cuts or slow motion as they were. It
 *  replaces what set_edit / set_presentation_end would write. */
sy_status sy_mov_writer_set_edit_list(sy_mov_writer *w, uint32_t track_id, const sy_mov_writer_edit *edits,
                                      uint32_t count, sy_error *err);

/** Where the track's edit stops: at `media_end` (media timescale, on the
 *  samples' decode timeline from 0) instead of the end of the sample shown
 *  last (max pts + its stts duration, which with variable frame intervals
 *  is the duration of a different frame). For a re-encoded variable-rate
 *  movie that must keep its source's length exactly. */
sy_status sy_mov_writer_set_presentation_end(sy_mov_writer *w, uint32_t track_id, int64_t media_end, sy_error *err);

/** A movie-level metadata item (`mdta` key, ilst data with type indicator:
 *  1 = UTF-8, 21 = signed BE int, 22 = unsigned BE int, 23 = float32 BE). Copied. */
sy_status sy_mov_writer_add_metadata(sy_mov_writer *w, const char *key, uint32_t type, const void *value, size_t len,
                                     sy_error *err);

/** Writes moov, patches the mdat size, fsyncs, and renames the temporary file
 *  to `path`. On failure the temporary file is removed at once. */
sy_status sy_mov_writer_finish(sy_mov_writer *w, sy_error *err);

/** Frees the writer; when finish did not succeed, deletes the temporary file. NULL does nothing. */
void sy_mov_writer_destroy(sy_mov_writer *w);

#ifdef __cplusplus
}
#endif
#endif
