/* motion_player.c — one Live cell's movie streamed into the collage: frames
 * decoded in presentation order, each shown frame rendered (sy_render,
 * centre-cropped to cover) into its targets. Holds one decoder and the one
 * frame it has decoded ahead; never more, whatever the movie's length, and
 * no decoder once the movie has ended. A
 * movie shown at half its size or less is converted at half size
 * (sy_video_reader_scale.h): a quarter of the pixels to convert and resample.
 * A movie in other primaries than the canvas's is converted on the way
 * (sy_render_gamut.h). */
#include <string.h>

#include "motion/sy_motion_internal.h"
#include "render/sy_render_gamut.h"
#include "video/sy_video_reader_scale.h"
#include "video/sy_video_reader_threads.h"
#include "video/sy_video_cuts.h"

/* Whether every target shows the frame at half its size or less (each side
 * of the cover scale at most 1/2): then the reader converts quarter-size frames. */
static int halves(const sy_video_reader_info *vi, uint32_t cell_width, uint32_t cell_height, uint32_t canvas_width,
                  uint32_t canvas_height) {
    uint32_t w = SY__MAX(cell_width, canvas_width), h = SY__MAX(cell_height, canvas_height);
    return 2ull * w <= vi->width && 2ull * h <= vi->height;
}

sy_status sy__motion_player_open(sy_context *ctx, const char *movie, uint32_t cell_width, uint32_t cell_height,
                                 uint32_t canvas_width, uint32_t canvas_height, int threads, const float *gamut,
                                 sy__motion_player *p, sy_error *err) {
    memset(p, 0, sizeof *p);
    sy_status st = sy__video_reader_open_threads(ctx, movie, -1, threads, &p->reader, err);
    if (st == SY_OK) st = sy__video_reader_follow_cuts(p->reader, err); /* a cut movie plays as a viewer sees it */
    const sy_video_reader_info *vi = st == SY_OK ? sy_video_reader_info_get(p->reader) : NULL;
    uint32_t fw = vi ? vi->width : 0, fh = vi ? vi->height : 0;
    if (st == SY_OK && halves(vi, cell_width, cell_height, canvas_width, canvas_height))
        st = sy__video_reader_halve(p->reader, &fw, &fh, err);
    sy_recipe identity;
    sy_recipe_init(&identity);
    if (st == SY_OK)
        st = sy__renderer_create_gamut(ctx, &identity, fw, fh, cell_width, cell_height, gamut, &p->to_cell, err);
    if (st == SY_OK && canvas_width)
        st = sy__renderer_create_gamut(ctx, &identity, fw, fh, canvas_width, canvas_height, gamut, &p->to_canvas, err);
    int end = 0;
    if (st == SY_OK) p->origin = vi->start_seconds;
    if (st == SY_OK) st = sy_video_reader_next(p->reader, &p->next, &end, err);
    if (st == SY_OK && end) st = sy__fail(err, SY_E_INVALID_INPUT, "%s: the movie has no video frames", movie);
    if (st == SY_OK) p->have_next = 1;
    else sy__motion_player_close(p);
    return st;
}

static sy_status draw(const sy__motion_player *p, const sy__motion_target *targets, uint32_t count,
                      sy__render_scratch *scratch, sy_error *err) {
    sy_pixels src = {p->next.rgb, p->next.stride, p->next.width, p->next.height};
    for (uint32_t i = 0; i < count; i++) {
        sy_status st = sy__renderer_render_rows_reusing(targets[i].renderer, &src, 0, targets[i].rows, targets[i].dst,
                                                        targets[i].stride, scratch, err);
        if (st != SY_OK) return st;
    }
    return SY_OK;
}

/* A movie shown to its end (or frozen by a decode error) draws nothing more:
 * its last frame stays in the canvas. Its decoder goes at once, with the
 * pictures it holds (an iPhone movie's ~40 MB: 6 pictures of 1920x1440 and
 * their motion tables) instead of at the end of the collage's movie. */
static void release_reader(sy__motion_player *p) {
    sy_video_reader_close(p->reader);
    p->reader = NULL;
    memset(&p->next, 0, sizeof p->next); /* its pixels were the reader's */
}

sy_status sy__motion_player_show(sy__motion_player *p, double seconds, const sy__motion_target *targets,
                                 uint32_t target_count, sy__render_scratch *scratch, sy_error *err) {
    /* The frame ahead is shown once its time has come (the first one at once):
     * drawn while its pixels are still the reader's, then the next is decoded. */
    while (p->have_next && !p->failed && (p->draws == 0 || p->next.seconds - p->origin <= seconds + 1e-9)) {
        sy_status st = draw(p, targets, target_count, scratch, err);
        if (st != SY_OK) return st;
        p->draws++;
        int end = 0;
        sy_error decode_err = {0};
        st = sy_video_reader_next(p->reader, &p->next, &end, &decode_err);
        if (st == SY_E_CANCELLED) {
            if (err) *err = decode_err;
            return st;
        }
        if (st != SY_OK) p->failed = 1; /* SPEC C6 in spirit: the cell keeps its last good frame */
        if (end || st != SY_OK) p->have_next = 0;
    }
    if (!p->have_next) release_reader(p);
    return SY_OK;
}

void sy__motion_player_close(sy__motion_player *p) {
    sy_renderer_destroy(p->to_cell);
    sy_renderer_destroy(p->to_canvas);
    sy_video_reader_close(p->reader);
    memset(p, 0, sizeof *p);
}
