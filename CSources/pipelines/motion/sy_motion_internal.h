/* sy_motion_internal.h — the moving collage's parts (engine-private).
 *
 * Order of operations in sy_motion_export: sy__motion_cells_resolve (probe
 * stills, find and check movies), sy__motion_layout (cells placed, canvases
 * allocated), sy__motion_compose_stills (the key-photo canvas), then
 * sy__motion_timeline (who plays when), sy__motion_write_movie (frames
 * composed, encoded, muxed), the still, verification. The job owns the
 * canvases and the layout; sy__motion_job_free releases them. */
#ifndef SY_MOTION_INTERNAL_H
#define SY_MOTION_INTERNAL_H

#include "base/sy_internal.h"
#include "collage/sy_collage_hdr.h"
#include "collage/sy_layout.h"
#include "color/sy_color_transform.h"
#include "render/sy_render_scratch.h"
#include "sy_live.h"
#include "sy_motion.h"
#include "sy_render.h"
#include "sy_video.h"

typedef struct sy__motion_cell {
    const char *still;
    sy_image_info info;
    int readable;              /* the still probed fine (else a grey cell) */
    int live;                  /* its movie plays */
    char movie[1024];
    double picture_start;      /* when its movie starts to show the picture, on the movie timeline: 0, or
                                  later for a picture that starts after its sound (sy_video_reader_info) */
    double still_time;         /* the key photo's moment, seconds after picture_start */
    double duration;           /* how long the movie shows the picture from picture_start, seconds */
    uint16_t primaries;        /* the movie's colour primaries (CICP; 2 = not said) */
    uint16_t transfer;         /* ... and transfer (16 PQ, 18 HLG: an HDR movie the SDR collage movie tone-maps) */
    int has_audio;
} sy__motion_cell;

/* What one output frame shows (sy__motion_timeline decides). */
typedef enum sy__motion_view {
    SY__VIEW_LIVE = 0,         /* the live composition */
    SY__VIEW_STILL = 1,        /* the key-photo composition: the still itself */
    SY__VIEW_ZOOM = 2,         /* a crop of the live composition towards the hero */
    SY__VIEW_HERO = 3,         /* the hero's movie frame filling the canvas */
} sy__motion_view;

typedef struct sy__motion_job {
    sy_context *ctx;
    const sy_motion_options *o;
    uint32_t count;
    sy__motion_cell cells[SY_MOTION_MAX_CELLS];
    sy__layout layout;
    uint32_t width, height;    /* even canvas (movie frame and still) */
    size_t stride;             /* bytes per canvas row */
    sy__rgb_space space;       /* the canvases' colours (sRGB, or Display P3 when a photo or movie is wider) */
    uint8_t *live, *key;       /* canvases: the live composition, the key photos' (the still) */
    uint8_t *zoom, *hero_full; /* focus only: the zoomed view, the hero's frame at canvas size */
    /* the timeline */
    uint32_t order[SY_MOTION_MAX_CELLS]; /* Live cells in layout order */
    uint32_t live_count;
    double start[SY_MOTION_MAX_CELLS];   /* output time at which cell i's picture starts (its movie time
                                            picture_start: the sound before it is cut, nothing invented) */
    int32_t hero;
    double hold_seconds, zoom_seconds, total_seconds;
    uint32_t frames, key_frame;
    sy_motion_report *report;
    uint64_t peak;             /* the context's peak so far: the still decoder resets the context's own */
    sy__collage_hdr hdr;       /* the still's gain map, composed from the key photos' (motion_hdr.c) */
} sy__motion_job;

/* Threads the job may use: the options' count, else one per core. */
uint32_t sy__motion_cores(const sy__motion_job *job);

/* Folds the context's peak into job->peak; called before anything that resets it. */
void sy__motion_note_peak(sy__motion_job *job);

/* Probes every still, finds each movie (explicit or same stem), checks the
 * identifier and that the movie's first frame decodes. Fills job->cells and
 * the report's cell entries; *readable = number of readable stills. */
/* "dir/IMG_1.HEIC" -> "dir/IMG_1.MOV" (then ".mov") into `out` when such a
 * file exists: the movie an iPhone export puts beside its still. */
int sy__motion_same_stem_movie(const char *still, char *out, size_t cap);

sy_status sy__motion_cells_resolve(sy__motion_job *job, const sy_motion_input *inputs, uint32_t *readable,
                                   sy_error *err);

/* The canvases' space (job->space): Display P3 when any readable still or
 * Live cell's movie is wider than sRGB, sRGB otherwise, as still collages
 * choose (color/sy_color_transform.h). */
void sy__motion_choose_space(sy__motion_job *job);

/* The CICP primaries that tag the movie: BT.709 or Display P3. */
uint16_t sy__motion_primaries(const sy__motion_job *job);

/* The matrix taking cell i's movie (linear RGB) to the canvas's primaries;
 * 0 when its frames are in them already (nothing to convert). */
int sy__motion_movie_gamut(const sy__motion_job *job, uint32_t i, float gamut[9]);

/* Lays the cells out (the still collage's layout, even edges) and allocates the canvases. */
sy_status sy__motion_layout(sy__motion_job *job, sy_error *err);

/* Paints the background, each still centre-cropped into its cell through the
 * renderer (unreadable ones grey) into job->key, and copies it to job->live. */
sy_status sy__motion_compose_stills(sy__motion_job *job, sy_error *err);

/* SPEC E6: composes the key photos' gain maps into the still's (after the
 * key photos, before the movie); a map that cannot be kept asks first.
 * Sets report->hdr. */
sy_status sy__motion_hdr_prepare(sy__motion_job *job, const char *still_path, sy_error *err);

/* What the still writer adds for that map; NULL when the still has none. */
const sy__still_extra *sy__motion_hdr_extra(const sy__motion_job *job);

/* Start times, hero, length, frame count and key frame for the mode. */
sy_status sy__motion_timeline(sy__motion_job *job, sy_error *err);

/* Writes the movie: every frame composed, encoded (HEVC, C14), muxed with the
 * sound the mode has; a `content_identifier` (may be NULL) adds the Live
 * metadata and the still-image-time track at the key frame. */
sy_status sy__motion_write_movie(sy__motion_job *job, const char *movie_path, const char *content_identifier,
                                 sy_error *err);

void sy__motion_job_free(sy__motion_job *job);

/* ---- QP offsets from the timeline (motion_offsets.c) ---- */

typedef struct sy__motion_offsets {
    float *grid;               /* the encoder's, one per block (sy__video_encoder_block_offsets) */
    uint32_t cols, rows, block;
    uint32_t frames, key_frame; /* the movie's length and its IDR in the middle (the still's frame) */
    uint32_t lookahead;        /* x265's: what its cuTree sees ahead */
    double strength;           /* QP per doubling of a block's still run */
    uint32_t cells;
    sy__rect rect[SY_MOTION_MAX_CELLS];
    uint32_t first[SY_MOTION_MAX_CELLS], last[SY_MOTION_MAX_CELLS]; /* frames cell i changes in; UINT32_MAX: none */
    int still_before[SY_MOTION_MAX_CELLS], still_after[SY_MOTION_MAX_CELLS]; /* cell i shows its still before /
                                                                                  after first..last (relay) */
    uint32_t all_from;         /* focus: every block changes from this frame on; UINT32_MAX: never */
} sy__motion_offsets;

/* Asks the encoder for its offsets (before its first frame) and plans them from the job's timeline. */
sy_status sy__motion_offsets_open(sy__motion_offsets *mo, const sy__motion_job *job, sy_video_encoder *enc,
                                  uint32_t lookahead, sy_error *err);

/* The plan's parts (open uses them; tests build plans with them): no cells yet, nothing moves. */
void sy__motion_offsets_plan(sy__motion_offsets *mo, uint32_t frames, uint32_t key_frame, uint32_t lookahead);
/* A cell's rectangle; a Live one changes in frames first..last, and after the key frame unless it shows its
 * still there (relay: before its turn, `still_before`, and after it, `still_after`, but for the last turn). */
void sy__motion_offsets_add_cell(sy__motion_offsets *mo, sy__rect rect, int live, uint32_t first, uint32_t last,
                                 int still_before, int still_after);
/* The offset of a block that stays as it is for `still_frames` more frames (0 within the look-ahead). */
float sy__motion_still_offset(const sy__motion_offsets *mo, uint32_t still_frames);

/* Writes frame k's offsets into mo->grid. */
void sy__motion_offsets_fill(const sy__motion_offsets *mo, uint32_t k);

/* ---- one Live cell's movie, streamed (motion_player.c) ---- */

typedef struct sy__motion_target {
    const sy_renderer *renderer; /* source frame -> this target */
    uint8_t *dst;              /* first row of the target */
    size_t stride;
    uint32_t rows;
} sy__motion_target;

typedef struct sy__motion_player {
    sy_video_reader *reader;
    sy_renderer *to_cell;      /* frame -> its cell */
    sy_renderer *to_canvas;    /* frame -> the whole canvas (focus hero), NULL until asked */
    sy_video_frame next;       /* the first frame not yet shown, borrowed from the reader */
    int have_next;
    uint32_t draws;            /* frames drawn so far (the movie converts only cells that changed) */
    double origin;             /* the movie time its picture starts at (sy_video_reader_info.start_seconds) */
    int failed;                /* a decode error froze the cell at its last frame */
} sy__motion_player;

/* Opens the movie's main video track with `threads` decoding threads (0 =
 * automatic) and decodes its first frame, for its cell and, when
 * canvas_width > 0 (the focus hero), the whole canvas; `gamut` (NULL: none)
 * takes its primaries to the canvas's (sy_render_gamut.h). */
sy_status sy__motion_player_open(sy_context *ctx, const char *movie, uint32_t cell_width, uint32_t cell_height,
                                 uint32_t canvas_width, uint32_t canvas_height, int threads, const float *gamut,
                                 sy__motion_player *p, sy_error *err);
/* Draws into the targets the newest frame whose presentation time is <= `seconds`
 * after p->origin (the first frame before it starts; the last after it ends), decoding forward as
 * needed; a movie shown to its end (or frozen) closes its reader (p->reader NULL). Nothing is drawn when the frame shown is already the right one. A corrupt
 * frame freezes the cell (p->failed) instead of failing the export; cancellation fails.
 * The downscaled grid rows go through `scratch`, the calling thread's (render/
 * sy_render_scratch.h): kept per thread, not per cell, so the memory does not
 * grow with the cells. */
sy_status sy__motion_player_show(sy__motion_player *p, double seconds, const sy__motion_target *targets,
                                 uint32_t target_count, sy__render_scratch *scratch, sy_error *err);
void sy__motion_player_close(sy__motion_player *p);

#endif
