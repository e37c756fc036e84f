/* sy_video.h — decoded video frames and HEVC encoding (issue 4).
 *
 * Reader: the frames of one video track of a QuickTime / MP4 movie, decoded
 * (HEVC and H.264 with libavcodec) and handed out one at a time in
 * presentation order as upright 8-bit RGB: the stream's colour description
 * (matrix, range, bit depth) is honoured and the track's tkhd matrix
 * (rotation/mirror) applied, so a portrait phone movie stored landscape comes
 * out portrait. Memory is bounded by the decoder's picture buffer plus one
 * RGB frame — never the whole movie.
 *
 * Encoder: upright RGB frames in, HEVC packets out (x265): length-prefixed NAL
 * units with pts/dts, an hvcC record for the `hvc1` sample entry, keyframe at
 * 0, B-frames allowed (dts <= pts), average bitrate (SPEC C14 by default).
 * The encoder holds a bounded look-ahead (see sy_video_encoder_options).
 *
 * Transcode: reader -> (the shared frame path) -> encoder -> sy_mov_writer,
 * audio copied sample-for-sample, movie metadata copied and changed as the
 * caller's metadata plan says, written to a temporary file and renamed.
 */
#ifndef SY_VIDEO_H
#define SY_VIDEO_H

#include "sy_base.h"
#include "sy_image.h"
#include "sy_render.h"

#ifdef __cplusplus
extern "C" {
#endif

/** SPEC C14: 12 Mbps x (W x H) / (1080 x 1440), clamped to [12, 64] Mbps,
 *  rounded to the nearest bit per second; 0 or negative sizes give 12 Mbps. */
uint64_t sy_video_bitrate_c14(int64_t width, int64_t height);

/* ---- reading ---- */

typedef struct sy_video_reader sy_video_reader;

typedef struct sy_video_reader_info {
    uint32_t track;            /* track index in the movie (sy_mov numbering) */
    uint32_t codec;            /* 'hvc1', 'hev1', 'avc1', 'avc3' */
    uint32_t coded_width, coded_height; /* as stored (after the SPS conformance window) */
    uint32_t width, height;    /* upright and as shown: swapped for 90/270, and for samples that are not square
                                  (sar_num != sar_den) the side they are long on grown to the displayed shape,
                                  to the nearest pixel (1440x1080 at 4:3 -> 1920x1080; 1440x1080 at 3:4 ->
                                  1440x1440): the frames' size */
    uint32_t rotation;         /* clockwise degrees applied: 0, 90, 180, 270 */
    uint32_t mirrored;         /* a horizontal flip was applied (after rotation) */
    uint32_t timescale;        /* media timescale of the pts values */
    uint32_t frame_count;      /* samples in the track */
    double frame_rate;         /* sy_mov_frame_rate: frames over the time the first edit shows them (when it
                                  shows them all), else over the media duration (0 when unknown) */
    double duration_seconds;   /* media duration */
    double presentation_seconds; /* how long the movie shows the track from start_seconds: its first non-empty
                                    edit's length, else the media duration. What a viewer sees: a trimmed file
                                    hides media by its edit; a B-frame track's media may run two frames past
                                    its presentation (ours) */
    uint64_t duration;         /* the media duration in timescale units, exactly as the track's mdhd says */
    int64_t start_pts;         /* edit-list media time of the first edit (0 without edits) */
    double delay_seconds;      /* the edit list's leading empty edits: presentation time on the movie timeline
                                  = delay_seconds + (pts - start_pts) / timescale (sy_mov_timeline), what
                                  ffprobe prints as pts_time */
    double start_seconds;      /* when the movie starts to show the track: delay_seconds, or its first frame's
                                  time when later. 0 for a camera's movie; later for a picture that starts
                                  after its sound (an empty edit, or first samples presented late). The
                                  track is shown from here to start_seconds + presentation_seconds */
    uint8_t bit_depth;         /* luma bit depth of the stream (8, 10, ...) as far as known at open */
    uint8_t full_range;        /* colour description (ISO/IEC 23091-2 codes; 2 = unspecified) */
    uint16_t primaries, transfer, matrix;
    uint16_t frame_primaries;  /* the RGB frames' primaries (sRGB's transfer curve, SDR): `primaries`, or
                                  12 (Display P3) when the stream is HDR (transfer 16 PQ, 18 HLG): its
                                  frames come tone-mapped */
    uint8_t chroma_format;     /* as the stream says: 0 = 4:0:0, 1 = 4:2:0, 2 = 4:2:2, 3 = 4:4:4 */
    sy_hdr_static_metadata hdr; /* mastering display and light levels: the sample entry's boxes, else the
                                   SEI of the configuration record and the first sample */
    uint8_t hdr10plus;         /* 1: the first sample carries HDR10+ dynamic metadata (SMPTE ST 2094-40, one
                                  message a picture, as Samsung's HDR10+ recordings): a re-encode that keeps
                                  the HDR keeps each picture's (sy_video_transcode_report.kept) */
    uint8_t dolby_vision_profile;       /* Dolby Vision: its profile (8: a base layer every HEVC player shows,
                                           each picture's RPU beside it), 0 = none */
    uint8_t dolby_vision_compatibility; /* ... the base layer's signal: 1 HDR10, 2 SDR, 4 HLG (an iPhone's 8.4) */
    uint32_t sar_num, sar_den; /* the stored samples' aspect (width:height of one, before rotation), reduced, as
                                  the frames are shown: the sample entry's `pasp` when it has one worth believing
                                  (the container wins, as in QuickTime and ffmpeg), else the stream's VUI; 1:1 when
                                  neither says or what they say is set aside (aspect_note) */
    uint32_t aspect_from;      /* where sar_* came from: 'pasp', 'vui ', 0 = square samples */
    const char *aspect_note;   /* NULL, or why a stated aspect was not applied: a zero term, a ratio past 4:1
                                  either way, a VUI the pasp overrides. Borrowed until close */
} sy_video_reader_info;

typedef struct sy_video_frame {
    const uint8_t *rgb;        /* width*height*3, upright; borrowed until the next call or close */
    size_t stride;             /* bytes per row */
    uint32_t width, height;
    uint32_t index;            /* 0-based, presentation order */
    int64_t pts;               /* media timescale, exactly as in the track (stts + ctts) */
    double seconds;            /* movie-timeline presentation time: delay_seconds + (pts - start_pts) / timescale */
} sy_video_frame;

/** Opens `path` and prepares a decoder for `track` (-1 = sy_mov_main_video_track).
 *  Codecs other than HEVC and H.264 give SY_E_UNSUPPORTED "unsupported codec XXXX". */
sy_status sy_video_reader_open(sy_context *ctx, const char *path, int32_t track, sy_video_reader **out,
                               sy_error *err);
const sy_video_reader_info *sy_video_reader_info_get(const sy_video_reader *r);
/** Next frame in presentation order. At the end: SY_OK with *end = 1 and
 *  frame->rgb NULL. Corrupt samples give SY_E_INVALID_INPUT / SY_E_CODEC
 *  naming the file and the sample index. Honours sy_context_cancel. */
sy_status sy_video_reader_next(sy_video_reader *r, sy_video_frame *frame, int *end, sy_error *err);
void sy_video_reader_close(sy_video_reader *r);

/** Tolerance of "the frame shown at T": a time typed to the millisecond
 *  (1.433 for a frame at 860/600 s) still names that frame. */
#define SY_VIDEO_FRAME_TIME_TOLERANCE 0.001

/** The frame shown at `seconds` on the movie timeline (frame.seconds' scale):
 *  the last frame, in presentation order, whose time is at most `seconds`
 *  (+ SY_VIDEO_FRAME_TIME_TOLERANCE); the first frame for earlier times.
 *  Exact for variable frame rates: read from the track's timestamps, nothing
 *  decoded. *index is the frame.index sy_video_reader_next gives it;
 *  *frame_seconds (may be NULL) its frame.seconds. Independent of how far the
 *  reader has read. */
sy_status sy_video_reader_frame_at(sy_video_reader *r, double seconds, uint32_t *index, double *frame_seconds,
                                   sy_error *err);

/* ---- encoding ---- */

typedef struct sy_video_encoder sy_video_encoder;

typedef struct sy_video_encoder_options {
    uint32_t version;          /* 1 */
    uint32_t width, height;    /* frame size; must be even, >= 64 (one x265 CTU) */
    uint32_t timescale;        /* units of pts/dts handed in and out (e.g. 600, 30000) */
    uint32_t frame_duration;   /* constant frame duration in timescale units (> 0) */
    uint64_t bitrate;          /* average bits per second; 0 = sy_video_bitrate_c14(width, height) */
    const char *preset;        /* x265 preset; NULL = "veryfast" */
    uint32_t bframes;          /* consecutive B-frames, 0..8 (default 3) */
    uint32_t lookahead;        /* rate-control look-ahead in frames, bounded to 1..60 (default 10) */
    uint32_t keyint;           /* max frames between keyframes (default 2 s worth) */
    uint32_t threads;          /* x265 pool threads; 0 = one per core */
    uint16_t primaries, transfer, matrix; /* VUI colour description written into the stream */
    uint8_t full_range;        /* also selects the RGB -> YCbCr range */
    uint8_t bit_depth;         /* 8 (0 = 8) or 10: Main 10, for HDR (HLG, PQ) movies kept as they are; a
                                  10-bit encoder takes the decoder's 10-bit samples only (no RGB frames) */
    sy_hdr_static_metadata hdr; /* HDR10 static metadata (a PQ movie's mastering display and light levels)
                                   written as SEI with every keyframe; zeroed = none */
    uint32_t keyframe_at;      /* frame N (0-based, push order) is coded as an IDR as well (a Live movie's key
                                  photo: its check decodes from there, a player seeks to it at once); 0 = none */
} sy_video_encoder_options;

/** Defaults: version 1, BT.709 limited range, preset "veryfast", 3 B-frames,
 *  look-ahead 10, timescale 600 and 20 (30 fps), bitrate 0 (SPEC C14). */
void sy_video_encoder_options_init(sy_video_encoder_options *opts);

/** One encoded access unit: NAL units each prefixed by a 4-byte big-endian length
 *  (parameter sets live in hvcC, not in packets). Borrowed for the sink call. */
typedef struct sy_video_packet {
    const uint8_t *data;
    size_t size;
    int64_t pts, dts;          /* timescale units; dts <= pts; dts strictly increasing. pts is the
                                  pushed value; dts of packet n is the pts of the (n - D)-th frame
                                  pushed, D = the reorder delay (x265: 2 frames with B-frames, 0 without),
                                  so the first packet's dts is the first pts minus D frame durations
                                  and may be negative */
    uint32_t keyframe;         /* IRAP picture: a sync sample */
} sy_video_packet;

typedef sy_status (*sy_video_packet_sink)(void *user, const sy_video_packet *packet, sy_error *err);

sy_status sy_video_encoder_create(sy_context *ctx, const sy_video_encoder_options *opts, sy_video_packet_sink sink,
                                  void *user, sy_video_encoder **out, sy_error *err);
/** HEVCDecoderConfigurationRecord (the `hvcC` payload), borrowed until destroy. */
const uint8_t *sy_video_encoder_hvcc(const sy_video_encoder *enc, size_t *len);
/** Encodes one upright RGB frame (width*3 bytes per row at `stride`) shown at
 *  `pts` (strictly increasing: frames are pushed in presentation order);
 *  packets that complete go to the sink during the call. A sink error, a
 *  codec error or cancellation is returned and leaves the encoder failed
 *  (only destroy remains). Honours sy_context_cancel. */
sy_status sy_video_encoder_push_rgb(sy_video_encoder *enc, const uint8_t *rgb, size_t stride, int64_t pts,
                                    sy_error *err);
/** Drains every frame still in flight (one packet per pushed frame in all).
 *  No push after flush; a second flush does nothing. */
sy_status sy_video_encoder_flush(sy_video_encoder *enc, sy_error *err);
void sy_video_encoder_destroy(sy_video_encoder *enc);

/* ---- transcoding ---- */

/** Sees every frame as it goes to the encoder (after the renderer): the exact
 *  pixels that get encoded. Borrowed for the call; a non-OK status stops the job. */
typedef sy_status (*sy_video_frame_observer)(void *user, uint32_t index, const uint8_t *rgb, size_t stride,
                                             uint32_t width, uint32_t height, sy_error *err);

/* What a pipeline above adds to or removes from the movie's metadata: the
 * transcoder knows QuickTime's forms (movie-level `mdta` items, one-sample
 * `mebx` marker tracks), never what a key means. Everything is borrowed for
 * the sy_video_transcode call. */

/** A movie-level `mdta` item: ilst type indicator (1 = UTF-8, 21 = signed BE
 *  int, 22 = unsigned BE int, 23 = float32 BE) and value bytes. */
typedef struct sy_video_mdta_item {
    const char *key;
    uint32_t type;
    const void *value;
    size_t len;
} sy_video_mdta_item;

/** A timed-metadata (`mebx`) track describing the video track, with one key
 *  and one sample holding `value` (key local id 1) that marks one output
 *  frame: the sample lasts one tick of the movie timescale and an empty edit
 *  places it at that frame's presentation time. */
typedef struct sy_video_frame_marker {
    const char *key;           /* key name, namespace 'mdta' */
    uint32_t datatype;         /* well-known type of `value` (65 = int8, 23 = float32, ...) */
    const void *value;
    size_t len;                /* 1..256 bytes */
    uint32_t frame;            /* output frame index, clamped to the last frame */
} sy_video_frame_marker;

typedef struct sy_video_metadata_plan {
    const char *const *drop;   /* source `mdta` keys not copied (a replaced key is dropped and added) */
    size_t drop_count;
    const sy_video_mdta_item *add; /* written after the copied items, in order (also without copy_metadata) */
    size_t add_count;
    const sy_video_frame_marker *marker; /* NULL = none; its track is added after every other track */
    int copy_timed_metadata;   /* 1 (a Live movie): the source's timed-metadata (`mebx`) tracks are copied —
                                  key table, samples byte for byte with their times, handler name, `tref
                                  cdsc` to the new track it describes — except one carrying the marker's key
                                  (re-made by `marker`) and one describing a track not written */
} sy_video_metadata_plan;

typedef struct sy_video_transcode_options {
    uint32_t version;          /* 1 */
    uint32_t container;        /* 'qt  ' (.mov) or 'isom' (.mp4); 0 = from the output extension */
    uint64_t bitrate;          /* 0 = SPEC C14 for the output size */
    const char *preset;        /* NULL = encoder default */
    uint32_t threads;          /* 0 = one per core */
    int copy_audio;            /* 1 (default): the first audio track copied sample-for-sample */
    int copy_metadata;         /* 1 (default): movie-level mdta items, the creation time and the video
                                  track's own `meta` copied (timed-metadata tracks only as the plan says) */
    const sy_recipe *recipe;   /* NULL = none; else every upright frame goes through sy_render with it
                                  (one renderer for the whole movie), output at native size */
    sy_video_frame_observer observer; /* may be NULL */
    void *observer_user;
    const sy_video_metadata_plan *metadata; /* NULL = none: metadata as copy_metadata says */
    int copy_video;            /* 1: remux — the main video track's samples are copied byte for byte with
                                  their timing, sample entry, edit list and track matrix (nothing decoded;
                                  recipe, observer, bitrate, preset and threads are not used), the marker
                                  frame counts in presentation order; audio and metadata as above */
    int aac_audio;             /* 1: LPCM sound is encoded as AAC-LC (96 kb/s a channel, priming hidden by
                                  the edit list) instead of copied, for an .mp4 Android plays; AAC and
                                  sound we cannot decode are still copied. Default 0; always 1 for an
                                  ISO MP4 output (no LPCM sample entry players take) */
    int allow_sdr;             /* SPEC E6 for movies: 1 = an HDR (HLG, PQ) movie that cannot keep its HDR may
                                  be re-encoded as SDR (8 bits: frames tone-mapped to SDR Display P3, the
                                  report lists SY_DROPPED_HDR_VIDEO); 0 (default) = such a movie is refused
                                  with SY_E_UNSUPPORTED before anything is written. A re-encode of the
                                  decoder's samples keeps the HDR in 10 bits and needs none
                                  (sy_video_transcode_hdr_outcome), nor does a remux (copy_video) */
} sy_video_transcode_options;

void sy_video_transcode_options_init(sy_video_transcode_options *opts);

typedef struct sy_video_transcode_report {
    uint32_t width, height;    /* output (upright) */
    uint32_t decoded_width, decoded_height; /* the source's frames as read (upright, before the recipe's
                                  geometry): the full-size evidence of SPEC E7 */
    uint32_t frames;           /* video frames encoded */
    uint32_t audio_samples;    /* audio samples copied or AAC access units encoded (0 when none) */
    uint32_t audio_codec;      /* output audio sample entry type ('mp4a' when encoded), 0 when none */
    uint64_t bitrate;          /* target bits per second */
    uint64_t bytes_written;    /* output file size */
    double duration_seconds;   /* output video duration */
    uint32_t source_codec;
    uint32_t source_rotation;  /* applied to the pixels (output matrix is identity), or, when a turned HDR
                                  track's samples are re-encoded as stored (no recipe), kept in its matrix */
    double marker_time;        /* with a frame marker: the marked frame's presentation time in seconds, else -1 */
    uint32_t dropped;          /* SY_DROPPED_* bits (sy_still.h): source tracks the output leaves out */
    uint32_t kept;             /* SY_MOVIE_KEPT_* bits: what the source had and the output carries */
    uint32_t timed_metadata_tracks; /* source timed-metadata tracks copied */
} sy_video_transcode_report;

/** What a new movie carried over from its source (sy_video_transcode_report.kept). */
typedef enum sy_movie_kept {
    SY_MOVIE_KEPT_AUDIO = 1u << 0,                /**< the first audio track, sample for sample */
    SY_MOVIE_KEPT_METADATA = 1u << 1,             /**< movie-level `mdta` items (make, model, place, date, ...) */
    SY_MOVIE_KEPT_CREATION_DATE = 1u << 2,        /**< the mvhd/tkhd/mdhd creation times */
    SY_MOVIE_KEPT_VIDEO_TRACK_METADATA = 1u << 3, /**< the video track's own `meta` (e.g. Apple's lens keys) */
    SY_MOVIE_KEPT_TIMED_METADATA = 1u << 4,       /**< timed-metadata tracks (e.g. Apple's live-photo-info) */
    SY_MOVIE_KEPT_HDR_VIDEO = 1u << 5,            /**< an HLG / PQ movie's HDR: re-encoded in 10 bits with its signal */
    SY_MOVIE_KEPT_HDR10_PLUS = 1u << 6,           /**< every picture's HDR10+ message (SMPTE ST 2094-40) with its picture */
    SY_MOVIE_KEPT_DOLBY_VISION = 1u << 7,         /**< Dolby Vision profile 8: each picture's RPU and the configuration */
} sy_movie_kept;

/** "audio", "movie-metadata", "creation-date", "video-track-metadata",
 *  "timed-metadata-tracks", "hdr-video", "hdr10plus-metadata", "dolby-vision-metadata" for one SY_MOVIE_KEPT_*
 *  bit; NULL for others. */
const char *sy_movie_kept_name(uint32_t bit);

/** Decodes `input`'s main video track, passes every frame upright through the
 *  shared frame path, encodes HEVC (`hvc1`) at the chosen bitrate and writes
 *  `output` (temp file + rename: complete or absent). Progress phase "frames". */
sy_status sy_video_transcode(sy_context *ctx, const char *input, const char *output,
                             const sy_video_transcode_options *opts, sy_video_transcode_report *report,
                             sy_error *err);

/** What sy_video_transcode with `opts` does to an HDR (HLG, PQ) movie, without
 *  writing anything: *outcome 0 = `input` is no HDR movie; 1 = its HDR is kept
 *  (the decoder's samples re-encoded in 10 bits with their colour
 *  description: no recipe or a crop alone, at even offsets, 4:2:0, 8 or 10
 *  bits, no observer); -1 = it would be re-encoded as SDR, which needs
 *  `allow_sdr` (SPEC E6). A caller asks the user only for -1. */
sy_status sy_video_transcode_hdr_outcome(sy_context *ctx, const char *input, const sy_video_transcode_options *opts,
                                         int *outcome, sy_error *err);

#ifdef __cplusplus
}
#endif
#endif
