/* motion_compose.c — the moving collage's canvases: the layout (the still
 * collage's, with even cell edges for 4:2:0 video) and the key-photo
 * composition, each still decoded at about its cell's size, centre-cropped
 * to cover the cell by the one frame renderer, in the collage's colour space
 * (motion_colour.c). */
#include <string.h>
#include <unistd.h>

#include "collage/sy_cell.h"
#include "motion/sy_motion_internal.h"
#include "video/sy_video_encoder_stage.h"
#include "sy_edit.h"

#define GREY 128 /* SPEC C12: a missing photo's neutral cell */

sy_status sy__motion_layout(sy__motion_job *job, sy_error *err) {
    const sy_image_info *infos[SY_MOTION_MAX_CELLS];
    for (uint32_t i = 0; i < job->count; i++) infos[i] = job->cells[i].readable ? &job->cells[i].info : NULL;
    /* The movie is HEVC: a long image taller than its largest picture is scaled to fit, as a still one is
     * for JPEG (12 portrait photos at 1080 px wide are 17,280 px tall) */
    uint32_t width = job->o->layout.width ? job->o->layout.width : 1;
    uint32_t limit = (uint32_t)SY__MIN((uint64_t)SY__VIDEO_MAX_SIDE, SY__VIDEO_MAX_LUMA_PICTURE / width) & ~1u;
    sy_status st = sy__layout_compute_within(job->ctx, &job->o->layout, infos, job->count, 1, limit, "movie (HEVC)",
                                             &job->layout, err);
    if (st != SY_OK) return st;
    for (uint32_t i = 0; i < job->count; i++) {
        const sy__rect *r = &job->layout.cells[i];
        sy_motion_cell *rc = &job->report->cell[i];
        rc->x = r->x, rc->y = r->y, rc->width = r->width, rc->height = r->height;
    }
    job->width = job->layout.width & ~1u; /* the movie's 4:2:0 frame; the still is the same picture */
    job->height = job->layout.height & ~1u;
    if (job->width < 64 || job->height < 64)
        return sy__fail(err, SY_E_USAGE, "moving collage: a %ux%u canvas is too small for a movie (64x64 at least)",
                        job->width, job->height);
    job->stride = (size_t)job->layout.width * 3;
    job->live = sy__alloc(job->ctx, job->stride, job->layout.height, "moving collage canvas", err);
    job->key = job->live ? sy__alloc(job->ctx, job->stride, job->layout.height, "key-photo canvas", err) : NULL;
    if (job->key && job->o->mode == SY_MOTION_FOCUS) {
        job->zoom = sy__alloc(job->ctx, job->stride, job->layout.height, "focus zoom canvas", err);
        job->hero_full = job->zoom ? sy__alloc(job->ctx, job->stride, job->layout.height, "focus hero canvas", err)
                                   : NULL;
        if (!job->hero_full) return err ? err->code : SY_E_BUDGET;
    }
    return job->key ? SY_OK : (err ? err->code : SY_E_BUDGET);
}

/* The centred crop of a w x h picture with the aspect of a cw x ch cell. */
static sy_recipe_rect cover_crop(uint32_t w, uint32_t h, uint32_t cw, uint32_t ch) {
    double picture = (double)w / h, cell = (double)cw / ch;
    if (picture > cell) return (sy_recipe_rect){(1 - cell / picture) / 2, 0, cell / picture, 1};
    return (sy_recipe_rect){0, (1 - picture / cell) / 2, 1, picture / cell};
}

static sy_status draw_still(sy__motion_job *job, uint32_t i, sy_error *err) {
    const sy__motion_cell *c = &job->cells[i];
    const sy__rect *r = &job->layout.cells[i];
    sy_recipe crop;
    sy_recipe_init(&crop);
    crop.crop = cover_crop(c->info.width, c->info.height, r->width, r->height);
    sy_edit_image img = {0};
    sy_status st = sy_edit_render(job->ctx, c->still, &crop, r->width, r->height, 0, &img, NULL, err);
    sy_recipe identity;
    sy_recipe_init(&identity);
    sy_renderer *to_cell = NULL;
    /* the cropped picture is the cell's aspect to a pixel; this pass fits it exactly */
    if (st == SY_OK) st = sy_renderer_create(job->ctx, &identity, img.width, img.height, r->width, r->height, &to_cell,
                                             err);
    uint8_t *cell = job->key + r->y * job->stride + (size_t)r->x * 3;
    if (st == SY_OK) {
        sy_pixels src = {img.pixels, img.stride, img.width, img.height};
        st = sy_renderer_render_rows(to_cell, &src, 0, r->height, cell, job->stride, err);
    }
    sy__color_transform *colour = NULL; /* from the photo's own space into the canvas's */
    if (st == SY_OK) st = sy__cell_colour_open(job->ctx, c->still, &c->info, job->space, &colour, err);
    sy__color_transform_rows(colour, cell, job->stride, r->width, r->height);
    sy__color_transform_destroy(colour);
    sy_renderer_destroy(to_cell);
    sy_edit_image_free(job->ctx, &img);
    return st;
}

static void fill_rect(uint8_t *canvas, size_t stride, const sy__rect *r, const uint8_t rgb[3]) {
    for (uint32_t y = 0; y < r->height; y++) {
        uint8_t *row = canvas + (r->y + y) * stride + (size_t)r->x * 3;
        for (uint32_t x = 0; x < r->width; x++) memcpy(row + (size_t)x * 3, rgb, 3);
    }
}

sy_status sy__motion_compose_stills(sy__motion_job *job, sy_error *err) {
    sy__motion_choose_space(job);
    uint8_t paper[3]; /* the (sRGB) background in the canvas's space */
    memcpy(paper, job->o->layout.background, 3);
    sy_status bst = sy__color_from_srgb(job->ctx, job->space, paper, err);
    if (bst != SY_OK) return bst;
    const sy__rect whole = {0, 0, job->layout.width, job->layout.height};
    fill_rect(job->key, job->stride, &whole, paper);
    static const uint8_t grey[3] = {GREY, GREY, GREY};
    uint32_t drawn = 0;
    sy_error first = {0};
    for (uint32_t i = 0; i < job->count; i++) {
        sy_status st = sy__check_cancel(job->ctx, err);
        if (st != SY_OK) return st;
        sy_motion_cell *rc = &job->report->cell[i];
        sy_error e = {0};
        sy__motion_note_peak(job);
        if (job->cells[i].readable) st = draw_still(job, i, &e);
        if (st == SY_E_CANCELLED || st == SY_E_BUDGET) {
            if (err) *err = e;
            return st;
        }
        if (!job->cells[i].readable || st != SY_OK) {
            if (job->cells[i].readable) {
                job->cells[i].readable = 0;
                job->cells[i].live = rc->live = 0;
                rc->grey = 1;
                snprintf(rc->reason, sizeof rc->reason, "%s", e.message);
                if (!first.code) first = e;
            }
            fill_rect(job->key, job->stride, &job->layout.cells[i], grey);
        } else {
            drawn++;
        }
        sy__progress(job->ctx, "cells", i + 1, job->count);
    }
    if (drawn == 0)
        return sy__fail(err, SY_E_INVALID_INPUT, "moving collage: none of the %u photos could be decoded (%s)",
                        job->count, first.code ? first.message : job->report->cell[0].reason);
    memcpy(job->live, job->key, job->stride * job->layout.height);
    return SY_OK;
}

uint32_t sy__motion_cores(const sy__motion_job *job) {
    long n = job->o->threads ? (long)job->o->threads : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (uint32_t)n;
}

void sy__motion_note_peak(sy__motion_job *job) {
    sy_memory_stats stats;
    sy_context_memory_stats(job->ctx, &stats);
    if (stats.peak_bytes > job->peak) job->peak = stats.peak_bytes;
}

void sy__motion_job_free(sy__motion_job *job) {
    sy__collage_hdr_free(job->ctx, &job->hdr);
    sy__layout_free(job->ctx, &job->layout);
    sy__free(job->ctx, job->live);
    sy__free(job->ctx, job->key);
    sy__free(job->ctx, job->zoom);
    sy__free(job->ctx, job->hero_full);
    job->live = job->key = job->zoom = job->hero_full = NULL;
}
