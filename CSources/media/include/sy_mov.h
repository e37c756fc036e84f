/* sy_mov.h — QuickTime / MP4 demuxer (parse only, no decoding). Issue 4.
 *
 * sy_mov_open walks the top-level boxes by their headers only (mdat is never
 * loaded), loads `moov` whole (≤ 64 MiB, else SY_E_BUDGET) and indexes it
 * with the bounded BMFF cursor (sy_bmff.h): mvhd, every trak (tkhd, edts/elst,
 * mdia/mdhd/hdlr, the first stsd sample entry, the sample tables) and the
 * movie-level `mdta` metadata (moov/meta, QuickTime form, and moov/udta/meta,
 * ISO form as ffmpeg writes it). Sample payloads are read on demand with pread.
 *
 * Tracks are addressed by index (0 .. track_count-1), in file order.
 * Pointers returned (info records, codec configuration, metadata values, key
 * names) are borrowed: valid until sy_mov_close. A handle may be used from one
 * thread at a time (sample lookups build a per-track index lazily); different
 * handles are independent.
 *
 * Sample tables: the per-track index costs 12 bytes per stts entry, 4 per ctts
 * entry, 4 per chunk and 4 per stss entry — never per sample — so it is bounded
 * by the size of `moov`. A track may hold at most SY_MOV_MAX_SAMPLES samples.
 * Fragmented files (moof) are not indexed: only samples in `stbl` are seen.
 *
 * Errors read "path: reason ('box', offset N)" with absolute file offsets.
 */
#ifndef SY_MOV_H
#define SY_MOV_H

#include "sy_base.h"
#include "sy_image.h" /* sy_hdr_static_metadata */

#ifdef __cplusplus
extern "C" {
#endif

/** Most samples one track may declare (hostile-input guard). */
#define SY_MOV_MAX_SAMPLES 10000000u
/** Largest `moov` box sy_mov_open loads. */
#define SY_MOV_MOOV_CAP (64u << 20)

typedef struct sy_mov sy_mov;

typedef struct sy_mov_info {
    uint32_t major_brand;     /* ftyp major brand ('qt  ', 'isom', ...); 0 when there is no ftyp */
    uint32_t minor_version;
    uint32_t timescale;       /* mvhd */
    uint64_t duration;        /* mvhd, in movie timescale units */
    double duration_seconds;  /* duration / timescale (0 when timescale is 0) */
    uint64_t creation_time;   /* mvhd, seconds since 1904-01-01 UTC (0 = not recorded) */
    uint32_t track_count;
    uint32_t fragmented;      /* 1 when an mvex or moof box was seen (fragments are not indexed) */
    uint64_t file_size;
    uint64_t moov_offset, moov_size;
    /* A Motion Photo (sy_motion_photo_probe) opens as the movie embedded in
     * it: file_size and every offset above and in sy_mov_sample_info are then
     * within that movie, which starts at byte embedded_offset of the file. */
    uint32_t embedded_in;     /* 0 = a plain movie; 'jpeg' or 'heic' = the movie of that Motion Photo */
    uint64_t embedded_offset;
} sy_mov_info;

typedef struct sy_mov_track_info {
    uint32_t id;              /* tkhd track_ID */
    uint32_t handler;         /* mdia/hdlr handler: 'vide', 'soun', 'meta', 'tmcd', ... */
    uint32_t codec;           /* first stsd sample entry type: 'hvc1', 'avc1', 'mp4a', 'lpcm', 'mebx', ...; 0 if none */
    uint32_t sample_entry_count;
    uint32_t enabled;         /* tkhd flags bit 0 */
    /* video: coded size from the visual sample entry (tkhd size when the entry has none) */
    uint32_t width, height;
    /* tkhd matrix {a b u, c d v, x y w}: a,b,c,d,x,y 16.16, u,v,w 2.30 */
    int32_t matrix[9];
    uint32_t rotation;        /* clockwise degrees to display: 0, 90, 180 or 270 (0 for other matrices) */
    uint32_t mirrored;        /* after the rotation, flip horizontally (a pure vertical flip is 180 + mirrored) */
    uint32_t display_width, display_height; /* tkhd size (coded size if 0), swapped for 90/270 */
    double tkhd_width, tkhd_height;         /* tkhd 16.16 values */
    uint64_t tkhd_duration;   /* movie timescale */
    /* media */
    uint32_t timescale;       /* mdhd */
    uint64_t duration;        /* mdhd, media timescale units */
    double duration_seconds;
    char language[4];         /* ISO 639-2/T, "und" when unset; Macintosh code 0 -> "eng" */
    /* samples */
    uint32_t sample_count;    /* min(stsz count, stts total, chunk total) */
    uint32_t keyframe_count;  /* stss entries; all_sync = 1 when there is no stss */
    uint32_t all_sync;
    /* audio (sound sample entry v0/v1/v2) */
    uint32_t channels;
    uint32_t bits_per_sample;
    double sample_rate;
    /* edit list (edts/elst v0/v1) */
    uint32_t edit_count;
    int64_t edit_media_time;           /* first edit, media timescale; -1 = empty edit */
    uint64_t edit_segment_duration;    /* first edit, movie timescale */
    /* mebx sample entry: number of keys in its `keys` box */
    uint32_t mebx_key_count;
    /* tkhd fields a muxer copying the track needs (added for sy_mov_writer) */
    uint32_t tkhd_flags;      /* 24-bit flags: 1 enabled, 2 in movie, 4 in preview, 8 in poster (QuickTime) */
    int16_t layer;
    int16_t alternate_group;
    uint16_t volume;          /* 8.8 fixed point: 0x0100 = full volume (audio) */
    uint16_t language_code;   /* mdhd packed language as stored (ISO 5-bit triplet or Macintosh code) */
    /* what a muxer copying a timed-metadata track keeps (added for Live edits) */
    uint32_t describes_id;    /* tref 'cdsc': the track ID this track describes, 0 = none */
    char handler_name[64];    /* mdia/hdlr name (QuickTime Pascal or ISO C string), "" when none; truncated */
    /* video: HDR10 static metadata of the sample entry's mdcv / clli (or QuickTime SmDm / CoLL) boxes */
    sy_hdr_static_metadata hdr;
    /* video: the Dolby Vision configuration of the sample entry (dvcC, dvvC or dvwC: the type here, its 24
     * bytes of payload in dovi; 0 = none). Profile dovi[2] >> 1; base-layer compatibility dovi[4] >> 4 */
    uint32_t dovi_type;
    uint8_t dovi[24];
    /* video: the sample entry's `pasp` (pixel aspect: hSpacing, vSpacing = width:height of one sample) as
     * written, unjudged (a zero or absurd one included); has_pasp 0 when the entry has none */
    uint32_t has_pasp;
    uint32_t pasp[2];
} sy_mov_track_info;

/** One sample, from stts/ctts/stsc/stsz|stz2/stco|co64/stss. */
typedef struct sy_mov_sample_info {
    uint64_t offset;    /* absolute file offset */
    uint32_t size;
    uint32_t duration;  /* stts delta, media timescale */
    int64_t dts;        /* media timescale; first sample 0 */
    int64_t pts;        /* dts + ctts offset (v0 and v1 read as signed) */
    uint32_t sync;      /* 1 when in stss, or no stss */
} sy_mov_sample_info;

/** One key of a `mebx` (timed metadata) sample entry. */
typedef struct sy_mov_mebx_key {
    uint32_t local_id;        /* the key atom's type: the id used inside samples */
    uint32_t key_namespace;   /* keyd namespace, e.g. 'mdta' */
    const char *name;         /* keyd value, NUL-terminated, e.g. "com.apple.quicktime.still-image-time" */
    uint32_t datatype_namespace; /* dtyp: 0 = well-known types */
    uint32_t datatype;        /* dtyp well-known type (65 = int8, 23 = float32, ...); 0 if absent */
} sy_mov_mebx_key;

/* ---- Motion Photos ----
 * A Samsung / Google / Xiaomi Motion Photo is a still with an MP4 inside:
 * a JPEG with the movie appended, located by its XMP (Camera:MotionPhoto and
 * the Container:Directory item lengths, or the older Camera:MicroVideoOffset)
 * or by Samsung's own SEF trailer (its MotionPhoto_Data block; older Galaxy
 * phones wrote no Motion Photo XMP),
 * or a HEIC with the movie as the payload of a top-level `mpvd` box. The
 * lengths are checked against the file and the movie must start with a
 * movie's first box (`ftyp`, or QuickTime's `wide`/`mdat`/...) before
 * anything is believed. sy_mov_open opens such a file as
 * its movie, so every movie reader (video info, frames, Live) sees it. */

typedef struct sy_motion_photo_info {
    uint32_t container;       /* 0 = not a Motion Photo; 'jpeg' or 'heic' */
    uint32_t located_by;      /* 'cdir' Container:Directory, 'mvof' MicroVideoOffset, 'seft' Samsung trailer,
                                 'mpvd' box */
    uint64_t movie_offset;    /* the embedded movie: bytes [movie_offset, movie_offset + movie_length) */
    uint64_t movie_length;
    uint64_t still_length;    /* bytes before the movie: the photo (and any other items, padding) */
    int64_t presentation_us;  /* the still's frame on the movie timeline, microseconds; -1 = unspecified */
    int64_t version;          /* MotionPhotoVersion (or MicroVideoVersion); -1 when not written */
} sy_motion_photo_info;

/** Is `path` a Motion Photo, and where is its movie? SY_OK with
 *  out->container = 0 for any file that does not claim to be one (an
 *  ordinary JPEG, HEIC or movie, or an unreadable still); SY_E_INVALID_INPUT
 *  naming the reason when it claims one whose lengths do not fit the file
 *  (hostile or truncated); SY_E_IO when it cannot be read. Reads headers only. */
sy_status sy_motion_photo_probe(sy_context *ctx, const char *path, sy_motion_photo_info *out, sy_error *err);

/** Opens `path` and indexes its `moov`. On failure *out is NULL and err says why. */
sy_status sy_mov_open(sy_context *ctx, const char *path, sy_mov **out, sy_error *err);
/** Closes; NULL does nothing. Everything borrowed from the handle becomes invalid. */
void sy_mov_close(sy_mov *mov);

const sy_mov_info *sy_mov_info_get(const sy_mov *mov);
uint32_t sy_mov_track_count(const sy_mov *mov);
/** Track by index; NULL when out of range. */
const sy_mov_track_info *sy_mov_track(const sy_mov *mov, uint32_t index);

/** Main video track index, or -1 when there is no 'vide' track. Real iPhone
 *  movies may carry auxiliary video tracks beside the main one: the choice is
 *  the enabled 'vide' track with the largest width x height (ties: lowest
 *  track id); when no 'vide' track is enabled, the same rule over all of them. */
int32_t sy_mov_main_video_track(const sy_mov *mov);

/** Codec configuration of the first sample entry, borrowed: the payload of
 *  hvcC / avcC / av1C, or of esds after its version/flags (found directly in
 *  the entry or inside a QuickTime `wave` box). *type gets the box type.
 *  NULL with *len = 0 when the entry has none. */
const uint8_t *sy_mov_codec_config(const sy_mov *mov, uint32_t track, uint32_t *type, size_t *len);

/** Raw bytes of the track's first stsd sample entry, box header included
 *  (e.g. a whole `mp4a` box with its `esds` or `wave`), borrowed; NULL with
 *  *len = 0 when the track has none. For muxers copying a track unchanged. */
const uint8_t *sy_mov_sample_entry(const sy_mov *mov, uint32_t track, size_t *len);

/** The track's own `meta` box (trak/meta: e.g. an iPhone video track's
 *  `mdta` keys for its lens), header included, borrowed; NULL with *len = 0
 *  when the track has none. For muxers copying it unchanged. */
const uint8_t *sy_mov_track_meta(const sy_mov *mov, uint32_t track, size_t *len);

/** Edit `k` of the track's elst: segment duration (movie timescale), media time
 *  (media timescale, -1 empty) and rate (16.16). SY_E_USAGE when out of range. */
sy_status sy_mov_edit(const sy_mov *mov, uint32_t track, uint32_t k, uint64_t *segment_duration, int64_t *media_time,
                      int32_t *rate, sy_error *err);

/** A track's edit list read as a delay and one shown span: *delay = the
 *  leading empty edits (movie timescale), *segment / *media_time = the first
 *  non-empty edit's (movie / media timescale). Returns 1 when that edit is the
 *  only non-empty one — a trim, a B-frame track's start — and 0 when there is
 *  none, or several (cuts, slow motion: not honoured; the media is shown as
 *  it is); the outputs are filled either way (*media_time the first non-empty
 *  edit's even when more follow; 0 / 0 / 0 without edits). */
int sy_mov_edit_span(const sy_mov *mov, uint32_t track, uint64_t *delay, uint64_t *segment, int64_t *media_time);

/** Where a track lies on the movie timeline: the times a player shows it at
 *  and ffprobe prints as pts_time, its edit list honoured. A sample presented
 *  at media time `pts` is shown at  delay + (pts - media_time) / timescale
 *  seconds (sy_mov_timeline_seconds): `delay` the leading empty edits (a
 *  picture or sound that starts after the movie does), `media_time` the first
 *  non-empty edit's (sy_mov_edit_span; 0 without edits). The track is shown
 *  from `start` for `shown` seconds: from its delay (0 without edits) or,
 *  when later, its earliest sample's time — a picture that starts after its
 *  sound by an empty edit or by its samples' own times, as some phones and
 *  editors write it; nothing is shown before — until its one shown span
 *  ends (an edit of no length: with its media), else for the media
 *  duration. Every reader of a movie's times (frames, key photos, sound,
 *  copies) counts on this one timeline. */
typedef struct sy_mov_timeline {
    double delay;        /* seconds */
    int64_t media_time;  /* media timescale: the time shown at `delay` */
    uint32_t timescale;  /* media */
    double start;        /* seconds: when the track starts to be shown */
    double shown;        /* seconds: how long it is shown from `start` */
} sy_mov_timeline;

/** Fills *out for `track` from its edits and its sample times (read from
 *  the sample table: nothing decoded). Zeroed on failure. */
sy_status sy_mov_track_timeline(sy_mov *mov, uint32_t track, sy_mov_timeline *out, sy_error *err);
/** Movie-timeline seconds of media time `pts` of a track with timeline `t`. */
double sy_mov_timeline_seconds(const sy_mov_timeline *t, int64_t pts);

/** Frames per second of a track: its samples over the time its first
 *  non-empty edit shows them, when that edit (the only one) shows them all, else over the
 *  media duration; 0 when neither is known. The two differ for B-frame
 *  tracks written with a lengthened last sample (ours: the media runs two
 *  frames past the presentation); a trimming edit shows only some samples. */
double sy_mov_frame_rate(const sy_mov *mov, uint32_t track);

/** Sample `index` (0-based) of `track`. Builds the track's index on first use
 *  (may fail with SY_E_BUDGET / SY_E_INVALID_INPUT). */
sy_status sy_mov_sample(sy_mov *mov, uint32_t track, uint32_t index, sy_mov_sample_info *out, sy_error *err);

/** The presentation times (pts, media timescale) of every sample of `track`,
 *  sorted: entry k is the k-th frame in presentation order, the order
 *  sy_video_reader delivers frames. *out is allocated on `ctx` (count
 *  entries, 8 bytes each; NULL for an empty track); free it with
 *  sy_mov_presentation_times_free on the same context. */
sy_status sy_mov_presentation_times(sy_context *ctx, sy_mov *mov, uint32_t track, int64_t **out, uint32_t *count,
                                    sy_error *err);
void sy_mov_presentation_times_free(sy_context *ctx, int64_t *times);

/** Keyframes as sorted 0-based sample indices, borrowed (NULL, 0 when every
 *  sample is a sync sample: info.all_sync). Entries past sample_count are dropped. */
sy_status sy_mov_keyframes(sy_mov *mov, uint32_t track, const uint32_t **list, uint32_t *count, sy_error *err);

/** Reads sample `index` into buffer[cap] with pread; *len = its size. A buffer
 *  that is too small gives SY_E_USAGE with *len = the size needed; a sample
 *  outside the file gives SY_E_INVALID_INPUT. */
sy_status sy_mov_read_sample(sy_mov *mov, uint32_t track, uint32_t index, void *buffer, size_t cap, size_t *len,
                             sy_error *err);

/** Reads samples `first`, `first`+1, ... of `track` that lie back to back
 *  in the file (one chunk, as PCM frames are stored) into buffer[cap] with
 *  one pread, as many as fit and at most `max_count`: *count samples, *len
 *  bytes. At least one sample is read; SY_E_USAGE when that one does not fit. */
sy_status sy_mov_read_run(sy_mov *mov, uint32_t track, uint32_t first, uint32_t max_count, void *buffer, size_t cap,
                          uint32_t *count, size_t *len, sy_error *err);

/** Movie-level metadata items (`mdta` keys + ilst), moov/meta first, then
 *  moov/udta/meta; items whose key index is out of range are skipped. Last,
 *  what an MP4 states in moov/udta outside `mdta` (Android, ffmpeg, exiftool),
 *  as UTF-8 items under Apple's names when no `mdta` item has that name:
 *  ©xyz and 3GPP `loci` as "com.apple.quicktime.location.ISO6709" (ISO 6709
 *  text), ©day (when it starts "YYYY-MM-DD"; its zone, or none, as written) as
 *  "com.apple.quicktime.creationdate", ©mak / ©mod as "com.apple.quicktime.make" / ".model". */
uint32_t sy_mov_metadata_count(const sy_mov *mov);
/** Item `index`: key (NUL-terminated UTF-8, e.g. "com.apple.quicktime.content.identifier"),
 *  data type indicator (1 = UTF-8, 21 = signed BE int, 22 = unsigned, 23 = float32, ...)
 *  and value bytes (borrowed, not NUL-terminated). Any out-pointer may be NULL. */
sy_status sy_mov_metadata_at(const sy_mov *mov, uint32_t index, const char **key, uint32_t *type,
                             const uint8_t **value, size_t *len);
/** Index of the first item whose key equals `key`, or -1. */
int32_t sy_mov_metadata_find(const sy_mov *mov, const char *key);

/** Keys of a track's `mebx` sample entry (0 / NULL for other tracks). */
uint32_t sy_mov_mebx_key_count(const sy_mov *mov, uint32_t track);
const sy_mov_mebx_key *sy_mov_mebx_key_at(const sy_mov *mov, uint32_t track, uint32_t index);

#ifdef __cplusplus
}
#endif
#endif
