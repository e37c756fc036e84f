/* sy_live.h — Live photo pairs: a still and a QuickTime movie tied by one
 * content identifier (issue 6; SPEC C2–C4, E1, E2, S3; ../shared/specs/live-photo.md).
 *
 * Still side: the identifier lives in the Apple MakerNote (Exif tag 0x927C,
 * entry 0x0011) of a JPEG APP1 or a HEIC Exif item. Movie side: the `mdta`
 * item com.apple.quicktime.content.identifier in moov/meta and a `mebx`
 * track whose one sample marks the still-image time.
 *
 * Every function takes its context, honours sy_context_cancel (per frame) and
 * writes outputs through temporary files renamed into place: an output is
 * complete or absent, and an existing file survives a failed write.
 * Thread safety: independent calls on different contexts run in parallel.
 */
#ifndef SY_LIVE_H
#define SY_LIVE_H

#include "sy_base.h"
#include "sy_edit.h"
#include "sy_gainmap_edit.h"
#include "sy_render.h"
#include "sy_video.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Characters of a content identifier (canonical UUID, uppercase when we make one). */
#define SY_LIVE_ID_LEN 36

/** A fresh uppercase random (version 4) UUID from /dev/urandom into id[37]. */
sy_status sy_live_new_identifier(char id[SY_LIVE_ID_LEN + 1], sy_error *err);

/* ---- still side ---- */

/** The still's content identifier (JPEG or HEIC). *found = 0 and id = "" when
 *  it has none. Errors: the file cannot be read or is not JPEG/HEIC. */
sy_status sy_live_still_read_id(sy_context *ctx, const char *path, char id[SY_LIVE_ID_LEN + 1], int *found,
                                sy_error *err);

/** SPEC C4 fallback: writes `output` = `input` without the content identifier.
 *  Only the MakerNote entry is rewritten (same length, in place): every other
 *  byte, the compressed image data included, is copied unchanged. Refuses
 *  (SY_E_UNSUPPORTED, nothing written) when the identifier cannot be removed:
 *  the Exif is not stored in one piece, or the identifier also appears
 *  elsewhere in the file. The output is read back to prove the identifier is
 *  gone. *removed (may be NULL) = 1 when there was one. */
sy_status sy_live_still_strip(sy_context *ctx, const char *input, const char *output, int *removed, sy_error *err);

/* ---- movie side ---- */

typedef struct sy_live_movie_info {
    int has_identifier;
    char content_identifier[64];  /* UTF-8 as stored (truncated to 63 bytes), NUL-terminated */
    int has_still_time;           /* a mebx track with the still-image-time key and one sample */
    double still_time;            /* seconds on the movie timeline (empty edit + sample time) */
    double duration;              /* main video track: where it ends on the movie timeline at the latest, seconds
                                     (its media duration after the time it starts: sy_mov_timeline.start) */
    int32_t video_track;          /* sy_mov index, -1 = none */
    int32_t still_track;          /* sy_mov index of the still-image-time track, -1 = none */
} sy_live_movie_info;

/** Reads the movie's Live metadata (container only, no decoding). */
sy_status sy_live_movie_read(sy_context *ctx, const char *path, sy_live_movie_info *out, sy_error *err);

/* ---- verification (SPEC C3) ---- */

typedef struct sy_live_verdict {
    int ok;                       /* 1 = a real Live pair */
    char reason[256];             /* when not ok: what is wrong, naming the file */
    char content_identifier[SY_LIVE_ID_LEN + 1]; /* the still's identifier ("" when none) */
    double still_time;            /* seconds, -1 when unknown */
    double duration;              /* movie seconds, 0 when unknown */
} sy_live_verdict;

/** Re-assembles the pair: both parse, identifiers equal, the movie has the
 *  still-image-time track, that time lies inside the movie, the movie's first
 *  frame and the frame at the still-image time decode, the still decodes.
 *  Returns SY_OK with the verdict for every broken input (a mismatch is an
 *  answer, not an error); SY_E_CANCELLED when cancelled. */
sy_status sy_live_verify(sy_context *ctx, const char *still, const char *movie, sy_live_verdict *out, sy_error *err);

/* ---- saving a Live photo (SPEC S3 video -> Live, Live edit, E1) ---- */

typedef struct sy_live_save_options {
    uint32_t version;             /* 1 */
    const sy_recipe *recipe;      /* NULL = identity; every frame and the still go through sy_render with it */
    double still_time;            /* seconds on the source movie; < 0 = the middle (live-photo.md §4.4) */
    sy_still_format still_format; /* JPEG or HEIC */
    int quality;                  /* still quality (default 95) */
    uint64_t bitrate;             /* 0 = SPEC C14 */
    const char *preset;           /* x265 preset, NULL = default */
    uint32_t threads;             /* 0 = one per core */
    const char *content_identifier; /* NULL = a fresh one */
    sy_video_frame_observer observer; /* sees every rendered frame before encoding (may be NULL) */
    void *observer_user;
    const char *metadata_source;  /* no source still ("set as key photo"): Exif/XMP/ICC copied from this
                                     still, its identifier replaced; NULL = a minimal Exif */
    int allow_sdr;                /* SPEC E6: a Live edit keeps the source still's HDR gain map through the same
                                     geometry (as sy_gainmap_edit does); where it cannot (PNG-like targets, an
                                     undecodable or uninterpretable map, a key photo taken from the SDR movie
                                     with metadata_source's gain map) the save is refused (SY_E_UNSUPPORTED,
                                     nothing written) unless 1 records the user's consent to an SDR still */
} sy_live_save_options;

void sy_live_save_options_init(sy_live_save_options *opts);

typedef struct sy_live_save_report {
    int live;                     /* 1 = a pair was written; 0 = still only (SPEC E1: border) */
    char content_identifier[SY_LIVE_ID_LEN + 1];
    uint32_t still_frame;         /* output frame shown by the still */
    double still_time;            /* its presentation time, seconds */
    uint32_t still_width, still_height;
    sy_video_transcode_report movie;
    sy_hdr_outcome hdr;           /* the still's gain map: NOT_HDR, KEPT, or DROPPED_WITH_CONSENT */
    uint32_t still_dropped;       /* SY_DROPPED_* bits (sy_still.h): metadata the still did not carry over */
    sy_edit_report still_source;  /* Live edit: the source still as its decode read it — full and decoded size,
                                     bytes, SHA-256 (SPEC E7 evidence); zero when there is no source still */
} sy_live_save_report;

/** Writes a Live pair. `source_still` NULL (video -> Live): the still is the
 *  rendered movie frame at the still time, so it equals the movie's frame
 *  before encoding. `source_still` given (Live edit): the still is that file
 *  re-rendered with the same recipe, keeping its metadata (new identifier).
 *  A recipe with a border (SPEC E1) writes the still only, without an
 *  identifier, and no movie. With the identity recipe, no observer, bitrate
 *  or preset the movie's samples are copied, not re-encoded (a remux: the
 *  packets stay the source's; only identifier and still-image time change).
 *  The movie is written first; if the still fails
 *  the movie is removed: both files or neither. */
sy_status sy_live_save(sy_context *ctx, const char *source_movie, const char *source_still, const char *still_out,
                       const char *movie_out, const sy_live_save_options *opts, sy_live_save_report *report,
                       sy_error *err);

/* ---- Motion Photo -> Live (SPEC S3) ---- */

typedef struct sy_live_motion_options {
    uint32_t version;             /* 1 */
    const char *content_identifier; /* NULL = a fresh one */
    int quality;                  /* HEIC still, when it must be re-encoded (default 98: >= 50 dB PSNR) */
    int allow_sdr;                /* SPEC E6: the user agreed to lose a HEIC still's gain map that cannot be kept */
} sy_live_motion_options;

void sy_live_motion_options_init(sy_live_motion_options *opts);

typedef struct sy_live_motion_report {
    char content_identifier[SY_LIVE_ID_LEN + 1];
    uint32_t container;           /* 'jpeg' or 'heic': the Motion Photo's (and the still's) format */
    uint32_t still_frame;         /* movie frame the still shows */
    double still_time;            /* its presentation time, seconds */
    int still_time_from_photo;    /* 1 = the Motion Photo's presentation timestamp; 2 = it had none (or one
                                     outside the movie) and the frame that shows what the photo shows is used;
                                     0 = neither: the middle frame */
    int still_reencoded;          /* 0 = the photo's image data copied byte for byte (JPEG; HEIC whose Exif/XMP
                                     items could be repointed); 1 = decoded and re-encoded (a HEIC that cannot) */
    uint32_t still_width, still_height;
    sy_hdr_outcome still_hdr;     /* a HEIC still's gain map: NOT_HDR, KEPT (copied or re-encoded) or
                                     DROPPED_WITH_CONSENT (a JPEG still is the photo's own bytes: its map is
                                     copied, NOT_HDR here) */
    sy_video_transcode_report movie; /* a remux: the embedded movie's packets, copied */
} sy_live_motion_report;

/** Writes a Live pair from a Motion Photo (sy_motion_photo_probe): the movie
 *  is the embedded one remuxed into a QuickTime file (no re-encode: every
 *  sample copied with its timing, audio kept) with the identifier and the
 *  still-image-time track at the Motion Photo's presentation timestamp
 *  (the middle frame when it has none); the still is the photo — a JPEG with
 *  only its Exif (identifier) and XMP (Motion Photo claims removed) segments
 *  rewritten, a HEIC its own boxes with the Exif (identifier) and XMP items
 *  repointed at rewritten copies — or, where the file cannot be patched so,
 *  re-encoded as a still edit is, with its metadata, the identifier and its
 *  HDR gain map (SPEC E6: a map that cannot be kept is refused,
 *  SY_E_UNSUPPORTED, unless allow_sdr).
 *  `still_out` must name the still's format (.jpg for a JPEG Motion Photo,
 *  .heic for a HEIC one). SY_E_UNSUPPORTED for a file that is not a Motion
 *  Photo; SY_E_INVALID_INPUT for one whose lengths do not fit. Both files or
 *  neither. Progress phase "frames" (the remux). */
sy_status sy_live_from_motion_photo(sy_context *ctx, const char *input, const char *still_out, const char *movie_out,
                                    const sy_live_motion_options *opts, sy_live_motion_report *report,
                                    sy_error *err);

/* ---- Live -> Motion Photo (SPEC S3) ---- */

typedef struct sy_motion_photo_options {
    uint32_t version;             /* 1 */
    int reencode_still;           /* 1: a still in the other format (a HEIC still for a .jpg) is re-encoded;
                                     0: refused (SY_E_UNSUPPORTED) so the still's own bytes are never lost unasked */
    int quality;                  /* the re-encoded still's quality (default 98) */
    int allow_sdr;                /* SPEC E6: consent to a re-encoded still losing a gain map it cannot keep */
} sy_motion_photo_options;

void sy_motion_photo_options_init(sy_motion_photo_options *opts);

typedef struct sy_motion_photo_report {
    uint32_t container;           /* 'jpeg' or 'heic': the output's form */
    int64_t presentation_us;      /* MotionPhotoPresentationTimestampUs: the Live still-image time (in the file
                                     when xmp_written); -1 when the movie has none */
    uint64_t movie_offset, movie_length; /* the embedded MP4 inside the output */
    int still_reencoded;          /* 0 = the still's bytes kept (only its identifier entry blanked) */
    int identifier_removed;       /* 1 = the still carried an Apple content identifier, left out */
    int xmp_written;              /* 1 = the Motion Photo XMP (timestamp, directory) is in the file: always for
                                     JPEG; HEIC when its still has an XMP item (an iPhone's does) */
    uint32_t still_width, still_height;
    sy_hdr_outcome still_hdr;     /* the still's gain map: KEPT (in the bytes kept, or re-encoded with the
                                     still), DROPPED_WITH_CONSENT, or NOT_HDR (none) */
    sy_video_transcode_report movie; /* the remux into MP4 */
} sy_motion_photo_report;

/** Writes `output` (.jpg or .heic) as an Android Motion Photo from a Live
 *  pair: the movie remuxed into an MP4 (every sample copied with its timing,
 *  audio kept, no Apple identifier or still-image-time track), embedded per
 *  Google's Motion Photo format 1.0 — JPEG: XMP Camera:MotionPhoto = 1,
 *  MotionPhotoVersion = 1, MotionPhotoPresentationTimestampUs = the Live
 *  still-image time, Container:Directory (Primary, an MPF gain map's item,
 *  MotionPhoto video/mp4 with its Length) and the MP4 appended; HEIC: the MP4
 *  as a top-level `mpvd` box after the still (Samsung's form), the still's XMP
 *  item (when it has one) repointed at a copy with the same Motion Photo XMP.
 *  The still keeps its bytes, its content identifier removed; a still in the
 *  other format only with reencode_still. Read back with
 *  sy_motion_photo_probe before it is reported. SY_E_INVALID_INPUT when the
 *  two files carry different identifiers. Progress phase "frames" (the remux). */
sy_status sy_motion_photo_from_live(sy_context *ctx, const char *still, const char *movie, const char *output,
                                    const sy_motion_photo_options *opts, sy_motion_photo_report *report,
                                    sy_error *err);

/** SPEC E2: the frame of `movie` a Live save shows at `seconds`, rendered with
 *  `recipe` (NULL = identity) by the same renderer the save uses for every
 *  frame, cropped to the encoded (even) size: byte-identical to what the save
 *  hands to the encoder. Free with sy_edit_image_free. *frame (may be NULL)
 *  gets the frame index. */
sy_status sy_live_render_frame(sy_context *ctx, const char *movie, double seconds, const sy_recipe *recipe,
                               sy_edit_image *out, uint32_t *frame, sy_error *err);

/** Writes sRGB pixels as a still (JPEG/HEIC) with `exif_source`'s Exif and XMP
 *  (NULL = none; its colour profile is not the pixels', nor its Exif
 *  thumbnail: that shows the source's own picture) and, when
 *  `content_identifier` is non-NULL, that identifier; without one, any
 *  identifier the source carried is left out. */
sy_status sy_live_write_still(sy_context *ctx, const sy_edit_image *image, const char *exif_source,
                              const char *content_identifier, const char *path, sy_still_format format, int quality,
                              sy_error *err);

/** The same for a frame of `movie` (sy_live_render_frame's): the still says
 *  the movie's colour space (Display P3 for an iPhone's, with its profile).
 *  The pixels alone carry no HDR: for an HDR movie's frame use
 *  sy_live_save_frame, which keeps it as a gain map. */
sy_status sy_live_write_frame(sy_context *ctx, const sy_edit_image *image, const char *movie, const char *exif_source,
                              const char *content_identifier, const char *path, sy_still_format format, int quality,
                              sy_error *err);

/** SPEC E2 in one call: the frame at `seconds` rendered as sy_live_render_frame
 *  renders it, saved as sy_live_write_frame saves it (no identifier); the frame
 *  of an HDR movie (HLG, PQ: its pixels are the SDR rendition) keeps its HDR
 *  as a gain map (Ultra HDR + ISO 21496-1 on JPEG, 'tmap' on HEIC). `out` (may
 *  be NULL) receives the rendered frame (free with sy_edit_image_free),
 *  *frame (may be NULL) its index. */
sy_status sy_live_save_frame(sy_context *ctx, const char *movie, double seconds, const sy_recipe *recipe,
                             const char *exif_source, const char *path, sy_still_format format, int quality,
                             sy_edit_image *out, uint32_t *frame, sy_error *err);

#ifdef __cplusplus
}
#endif
#endif
