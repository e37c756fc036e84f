/* sy_frame_path.h — the shared frame path of a transcode (engine-private):
 * with a recipe, one renderer (sy_render) for the whole movie turns each
 * upright frame into the encoded picture; the encoded size has even sides
 * (4:2:0), an odd last column/row is dropped. Whoever must reproduce exactly
 * what a transcode encodes (Live frame -> photo, SPEC E2) opens the same path.
 *
 * Order: open (after the reader, for its info), render per frame, close. The
 * path owns its renderer; the caller owns the pixel buffers. */
#ifndef SY_FRAME_PATH_H
#define SY_FRAME_PATH_H

#include "base/sy_hdr_tone.h"
#include "base/sy_internal.h"
#include "render/sy_render_scratch.h"
#include "sy_render.h"
#include "sy_video.h"

typedef struct sy__frame_path {
    sy_renderer *renderer;            /* NULL without a recipe: frames pass as decoded */
    uint32_t frame_width, frame_height; /* rendered size (rows of frame_width * 3 bytes) */
    uint32_t width, height;           /* encoded size: the rendered size rounded down to even */
    sy__render_scratch scratch;       /* the downscaled grid rows, kept from frame to frame */
} sy__frame_path;

/* The primaries of the reader's RGB frames: the movie's own, or Display P3
 * when it is HDR (its frames come tone-mapped: base/sy_hdr_tone.h). From the
 * facts, not vi->frame_primaries: callers also pass infos they filled. */
static inline uint16_t sy__video_frame_primaries(const sy_video_reader_info *vi) {
    return sy__cicp_frame_primaries(vi->primaries, vi->transfer);
}

/* SPEC E6 for movies: re-encoding an HDR movie (the encoder writes 8 bits)
 * makes it SDR, which needs consent; SY_E_UNSUPPORTED naming the file and
 * `what` ("this Live edit") without it. */
sy_status sy__video_check_sdr_consent(const sy_video_reader_info *vi, const char *input, const char *what,
                                      int allow_sdr, sy_error *err);

/* sy_video_transcode_hdr_outcome for a movie whose facts are at hand
 * (transcode.c): a Live save asks it before it asks for consent. */
sy_status sy__video_transcode_hdr_outcome_of(sy_context *ctx, const sy_video_reader_info *vi,
                                            const sy_video_transcode_options *opts, int *outcome, sy_error *err);

/* Sizes the path for frames of `vi` and, with a recipe (may be NULL), creates its renderer. */
sy_status sy__frame_path_open(sy_context *ctx, const sy_recipe *recipe, const sy_video_reader_info *vi,
                              sy__frame_path *out, sy_error *err);

/* Renders `frame` into dst (frame_height rows at dst_stride). Only with a
 * renderer; one render at a time per path (its scratch). */
sy_status sy__frame_path_render(sy__frame_path *p, const sy_video_frame *frame, uint8_t *dst, size_t dst_stride,
                                sy_error *err);

/* Same, the rendered size fitted inside max_w x max_h (0 = no limit; never
 * above native), so a smaller output (a GIF) still has one renderer; `gamut`
 * (NULL: none) takes the frames to other primaries (sy_render_gamut.h). */
sy_status sy__frame_path_open_fitted(sy_context *ctx, const sy_recipe *recipe, const sy_video_reader_info *vi,
                                     uint32_t max_w, uint32_t max_h, const float *gamut, sy__frame_path *out,
                                     sy_error *err);

/* Frees the renderer and the scratch; a zeroed or failed path is fine. */
void sy__frame_path_close(sy__frame_path *p);

#endif
