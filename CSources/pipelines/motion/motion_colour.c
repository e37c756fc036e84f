/* motion_colour.c — one colour space for the whole moving collage, still and
 * movie alike (DESIGN: every output rendered into one declared space and
 * tagged once). iPhones shoot Display P3 photos and movies; a collage that
 * has one is made in Display P3 (the still tagged with its profile, the
 * movie with primaries 12), every other cell converted into it: its still
 * through its profile (lcms2), its movie's frames by a 3x3 in the renderer's
 * linear light. Without any, everything stays sRGB / BT.709 as before. */
#include "motion/sy_motion_internal.h"
#include "base/sy_cicp.h"
#include "still/sy_metadata.h"

/* What a movie says about its primaries: not said is sRGB's, as viewers take it. */
static uint16_t movie_primaries(const sy__motion_cell *c) {
    return c->primaries == 0 || c->primaries == SY_CICP_UNSPECIFIED ? SY_CICP_PRIMARIES_BT709 : c->primaries;
}

void sy__motion_choose_space(sy__motion_job *job) {
    job->space = SY__RGB_SRGB;
    for (uint32_t i = 0; i < job->count && job->space == SY__RGB_SRGB; i++) {
        const sy__motion_cell *c = &job->cells[i];
        if (c->live) {
            sy__color_source movie = {.cicp_primaries = movie_primaries(c)};
            if (sy__color_is_wide(&movie)) job->space = SY__RGB_DISPLAY_P3;
        }
        if (!c->readable || job->space != SY__RGB_SRGB) continue;
        sy__metadata md;
        sy__color_source still;
        sy__colour_read(job->ctx, c->still, &c->info, &md, &still);
        if (sy__color_is_wide(&still)) job->space = SY__RGB_DISPLAY_P3;
        sy__metadata_free(job->ctx, &md);
    }
    job->report->display_p3 = job->space == SY__RGB_DISPLAY_P3;
}

uint16_t sy__motion_primaries(const sy__motion_job *job) {
    return job->space == SY__RGB_DISPLAY_P3 ? SY_CICP_PRIMARIES_DISPLAY_P3 : SY_CICP_PRIMARIES_BT709;
}

int sy__motion_movie_gamut(const sy__motion_job *job, uint32_t i, float gamut[9]) {
    return sy__cicp_frame_gamut(job->cells[i].primaries, sy__motion_primaries(job), gamut);
}
