/* sy_audio.h — a movie's sound decoded, and sound written as AAC (engine-
 * private), for the outputs that cannot copy it: an MP4 that Android plays
 * (it does not play LPCM in MP4) and a moving collage's one sound track.
 *
 * sy__audio_source: one sound track of an open movie as float PCM, streamed
 * in blocks (one read buffer of up to 64 KiB of the source and, for AAC, one
 * decoded access unit). LPCM as QuickTime stores it — 'lpcm' (sound
 * description v2 and its format flags: integer 16/24/32 or float 32/64 bits,
 * either byte order), 'sowt' (little-endian) and 'twos' (big-endian) signed
 * 8/16/24/32 bits — and AAC ('mp4a', its AudioSpecificConfig from esds). The
 * track's edit list is honoured: a leading empty edit becomes leading
 * silence, the first real edit's media time is skipped (AAC priming) and its
 * length ends the sound.
 *
 * sy__audio_sequence: one AAC-LC track (sy_mov_writer_add_aac_audio)
 * assembled from segments of sources on the output timeline — a segment
 * plays its source's sound, movie time 0 at output time `start`, from `from`
 * (or `start`) until `end` (or the sound's end); silence elsewhere. Rate:
 * the first segment's (when AAC has it, else 48 kHz); channels: the most any
 * segment has, at most 2 (mono is duplicated, stereo averaged for a mono
 * track, more channels folded even/odd into left/right). A source at another rate is resampled by linear
 * interpolation. Sources are opened when their segment is reached and closed
 * after it, so memory is one source's buffers plus the encoder, whatever the
 * number of segments or their length. Priming: the edit starts at media time
 * = the encoder's delay and ends after exactly the frames produced, so
 * players start with the first real sample, in sync with the video. */
#ifndef SY_AUDIO_H
#define SY_AUDIO_H

#include "base/sy_internal.h"
#include "hevc/sy_aac.h"
#include "mov/sy_mov_writer.h"
#include "sy_mov.h"

typedef struct sy__audio_source sy__audio_source;

/* Can sy__audio_source read this track's sample entry? */
int sy__audio_source_supported(const sy_mov *mov, uint32_t track);

/* `label` (the movie's path) names it in errors. */
sy_status sy__audio_source_open(sy_context *ctx, sy_mov *mov, uint32_t track, const char *label,
                                sy__audio_source **out, sy_error *err);
uint32_t sy__audio_source_rate(const sy__audio_source *s);
uint32_t sy__audio_source_channels(const sy__audio_source *s);
/* Up to `max_frames` interleaved frames (source channels) into out[]; *got =
 * 0 at the end of the sound. */
sy_status sy__audio_source_read(sy__audio_source *s, float *out, uint32_t max_frames, uint32_t *got, sy_error *err);
void sy__audio_source_close(sy__audio_source *s);

typedef struct sy__audio_segment {
    const char *movie;         /* path, opened when the segment is reached (or `mov` below) */
    sy_mov *mov;               /* an open movie to read instead (borrowed), NULL = open `movie` */
    int32_t track;             /* its sound track; -1 = the first one sy__audio_source reads */
    double start;              /* output time of the source's movie time 0, seconds */
    double end;                /* output time at which it stops; <= start = at the end of its sound */
    double from;               /* output time from which it is heard (the sound before cut, as for a movie
                                  whose picture starts after its sound, played from its first frame);
                                  <= start: from start */
} sy__audio_segment;

typedef struct sy__audio_sequence sy__audio_sequence;

/* Adds the AAC track to `w` for `count` segments (sorted by the time they
 * are heard from, not overlapping; copied). `total_seconds` > 0: the track
 * lasts exactly that long (silence after the last segment, which is cut
 * there); 0: it ends with the last segment. Each segment's source is probed
 * here for its rate and channels (and closed again); a segment with track -1 whose movie
 * has no sound we decode is left out, and when none is left *out = NULL
 * with SY_OK (no track added). */
sy_status sy__audio_sequence_add(sy_context *ctx, sy_mov_writer *w, const sy__audio_segment *segments, uint32_t count,
                                 double total_seconds, sy__audio_sequence **out, sy_error *err);
/* Encodes and writes the sound up to output time `until_seconds` (call as the
 * video advances, as sy__copied_track_pump; 1e300 = all of it). */
sy_status sy__audio_sequence_pump(sy__audio_sequence *q, double until_seconds, sy_error *err);
/* After the last pump: drains the encoder and sets the track's edit. */
sy_status sy__audio_sequence_finish(sy__audio_sequence *q, sy_error *err);
uint32_t sy__audio_sequence_track_id(const sy__audio_sequence *q);
uint32_t sy__audio_sequence_rate(const sy__audio_sequence *q);
uint32_t sy__audio_sequence_channels(const sy__audio_sequence *q);
uint32_t sy__audio_sequence_bitrate(const sy__audio_sequence *q);
uint64_t sy__audio_sequence_frames(const sy__audio_sequence *q);     /* PCM frames written */
uint32_t sy__audio_sequence_packets(const sy__audio_sequence *q);    /* AAC access units written */
void sy__audio_sequence_free(sy__audio_sequence *q);

#endif
