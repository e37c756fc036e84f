/* sy_motion.h — moving collages: a collage of Live photos exported as a real
 * Live photo, a video or a still (issue 17; SPEC C1–C7, C9, C12, C14).
 *
 * Inputs are stills; a still is a Live cell when its movie is named
 * (explicit pair) or sits beside it with the same stem (IMG_1.HEIC +
 * IMG_1.MOV) and carries the same content identifier. Cells are placed by the
 * still collage's layout (sy_collage_options: grid or long).
 *
 * Per output frame every cell is composed through the one frame renderer
 * (sy_render, centre-cropped to cover its cell): Live cells show the movie
 * frame whose real presentation time (variable frame rate kept) is the
 * newest at or before the cell's clock, other cells show their still. The
 * still of the collage is the same composition of the key photos.
 * Motion modes (SPEC C1):
 *  - together: every Live cell plays at once, aligned on its key-photo
 *    moment, so the movie frame at the still-image time is the still; silent.
 *  - relay: the Live cells play one after another in layout order (top to
 *    bottom, then left to right), each with its own sound; the others show
 *    their stills; the duration is the sum of the Live cells' durations.
 *  - focus: the collage holds, zooms into the hero cell until it fills the
 *    frame, the hero plays full frame with its sound, and zooms back out.
 *
 * Export tiers: LIVE writes the movie (QuickTime, HEVC `hvc1`, SPEC C14
 * bitrate) with a new content identifier and still-image-time track, then
 * the still with the same identifier, and verifies the pair (sy_live_verify,
 * SPEC C3) before reporting it delivered; a pair that fails becomes a plain
 * still: identifier removed, movie deleted (C4), and if the identifier cannot
 * be removed both files are removed and the call fails. VIDEO writes an MP4
 * (no identifier, C7) and its poster still. STILL writes the still only.
 * No Live cell (C5), or no readable movie (C6), delivers a still; a cell whose
 * movie cannot be read stays static (C6); an unreadable still is a neutral
 * grey cell (C12) and none readable fails. Stills carry no metadata from the
 * inputs: no location (C9).
 *
 * Memory is bounded and independent of duration: two canvases (the live
 * composition and the key-photo composition; focus adds a third), one
 * decoder with one RGB frame per Live cell playing (relay and focus: one at a
 * time), the encoder's look-ahead — never a movie's worth of frames. Decoder
 * and encoder memory is charged to the context as their estimates.
 * Progress: phase "cells" while stills are placed, "frames" per output frame.
 * Cancellation (sy_context_cancel) is checked per frame and inside the
 * decoders and encoder; a cancelled export leaves no output file.
 * Thread safety: one export per context at a time.
 */
#ifndef SY_MOTION_H
#define SY_MOTION_H

#include "sy_base.h"
#include "sy_collage.h"
#include "sy_still.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most photos a moving collage takes (the collage page's 2–30; 1 is allowed). */
#define SY_MOTION_MAX_CELLS 30u

typedef enum sy_motion_mode {
    SY_MOTION_TOGETHER = 0,
    SY_MOTION_RELAY = 1,
    SY_MOTION_FOCUS = 2,
} sy_motion_mode;

typedef enum sy_motion_tier {
    SY_MOTION_TIER_LIVE = 0,   /* still + QuickTime movie sharing one new content identifier */
    SY_MOTION_TIER_VIDEO = 1,  /* MP4 + poster still, no identifier */
    SY_MOTION_TIER_STILL = 2,  /* the still only */
} sy_motion_tier;

typedef struct sy_motion_input {
    const char *still;         /* the photo (required) */
    const char *movie;         /* its Live movie (explicit pair: no identifier check);
                                  NULL = a same-stem .MOV/.mov beside the still sharing its identifier */
} sy_motion_input;

/** Sees a written Live pair just before it is verified (may change or break
 *  it: a test's way to make verification fail). Non-OK stops the export. */
typedef sy_status (*sy_motion_pair_hook)(void *user, const char *still, const char *movie, sy_error *err);

typedef struct sy_motion_options {
    uint32_t version;          /* 1 */
    sy_collage_options layout; /* layout, width, columns, spacing, margin, background (format, quality,
                                  naive, threads and too_tall are the still collage's and not used) */
    sy_motion_mode mode;
    int32_t hero;              /* focus: input index of the hero; -1 (default) = the first Live cell */
    sy_motion_tier tier;       /* what was asked for */
    sy_still_format still_format; /* SY_STILL_JPEG (default) or SY_STILL_HEIC */
    int quality;               /* still quality 1..100 (default 92) */
    uint32_t fps;              /* output frames per second, 1..60 (default 30) */
    uint64_t bitrate;          /* 0 = SPEC C14 for the canvas */
    const char *preset;        /* x265 preset; NULL = the encoder's default */
    uint32_t threads;          /* x265 threads; 0 = one per core */
    double zoom_seconds;       /* focus: each zoom's length (default 0.5) */
    sy_motion_pair_hook before_verify; /* NULL = none */
    void *hook_user;
} sy_motion_options;

/** Defaults as documented above; `layout` gets sy_collage_options_init(GRID). */
void sy_motion_options_init(sy_motion_options *opts);

typedef struct sy_motion_cell {
    int live;                  /* 1 = its movie plays */
    int grey;                  /* 1 = the still was unreadable (SPEC C12) */
    uint32_t x, y, width, height; /* the cell on the canvas */
    char movie[1024];          /* the movie used or rejected ("" = none found) */
    char reason[256];          /* why a cell with a movie stays static, or why it is grey */
    double start_seconds;      /* a cell whose clip plays in the movie: when it starts on the movie's timeline
                                  (SPEC C1 mode rules, motion_timeline.c); -1 = it does not play */
} sy_motion_cell;

typedef struct sy_motion_report {
    sy_motion_tier delivered;  /* what the files are */
    char fallback_reason[512]; /* "" when delivered as asked; else why not (C4, C5, C6) */
    uint32_t width, height;    /* still and movie frame */
    uint32_t cells, live_cells, static_cells, grey_cells; /* static = has no motion (grey included) */
    sy_motion_cell cell[SY_MOTION_MAX_CELLS];
    int32_t hero;              /* focus: the hero's input index, else -1 */
    uint32_t frames;           /* movie frames written (0 without a movie) */
    double duration_seconds;   /* movie duration */
    uint32_t still_frame;      /* the movie frame that equals the still */
    double still_time;         /* its presentation time (the still-image time), seconds */
    uint32_t audio_tracks;     /* sound tracks in the movie (.mov: one per cell that plays with sound; .mp4: 0 or 1) */
    uint32_t audio_codec;      /* 'mp4a' (the .mp4's AAC, encoded), the first copied track's ('lpcm', ...), 0 = none */
    uint32_t audio_bitrate;    /* encoded AAC: the encoder's bits per second, else 0 */
    uint32_t audio_rate, audio_channels; /* encoded AAC: its sampling rate and channels, else 0 */
    uint64_t bitrate;          /* target bits per second */
    char content_identifier[37]; /* LIVE delivered: the pair's identifier, else "" */
    int movie_written;         /* 1 = a movie file is at movie_path */
    uint64_t engine_peak_bytes; /* accounting allocator peak during the export */
    int display_p3;            /* 1: still and movie in Display P3 (a photo or movie was wider than sRGB),
                                  the still tagged with its profile, the movie with primaries 12; 0: sRGB */
    sy_hdr_outcome hdr;        /* SPEC E6: KEPT (the still carries a gain map composed from the key photos'),
                                  DROPPED_WITH_CONSENT, REFUSED (nothing written) or NOT_HDR */
    sy_hdr_outcome movie_hdr;  /* SPEC E6 for the movie: an HDR (HLG, PQ) cell movie shown in the SDR movie —
                                  DROPPED_WITH_CONSENT, REFUSED (nothing written); NOT_HDR otherwise */
} sy_motion_report;

/** Exports inputs[0..count) (1..SY_MOTION_MAX_CELLS). `still_path` gets the
 *  still (.jpg/.heic as still_format says); `movie_path` the movie (LIVE:
 *  .mov, VIDEO: .mp4; may be NULL for the STILL tier). Both are written
 *  through temporary files: after a failure neither is left behind.
 *  Errors: SY_E_USAGE (options, paths), SY_E_INVALID_INPUT (no still
 *  readable), SY_E_UNSUPPORTED (C4: identifier not removable), SY_E_CANCELLED,
 *  SY_E_IO / SY_E_CODEC / SY_E_BUDGET. */
sy_status sy_motion_export(sy_context *ctx, const sy_motion_input *inputs, uint32_t count,
                           const sy_motion_options *opts, const char *still_path, const char *movie_path,
                           sy_motion_report *report, sy_error *err);

#ifdef __cplusplus
}
#endif
#endif
