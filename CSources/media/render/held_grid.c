/* held_grid.c — a renderer's whole downscale grid, kept by the caller across
 * renderers of one source (see sy_render_held.h). */
#include <pthread.h>
#include <string.h>

#include "render/sy_render_held.h"
#include "render/sy_render_internal.h"

#define HOLD_THREADS 8

struct sy__held_grid {
    const uint8_t *data;        /* the source it was resampled from */
    uint32_t src_w, src_h;
    size_t src_stride;
    double origin_x, scale_x, origin_y, scale_y; /* the axes: their weights follow from these */
    sy__grid_region region;
};

void sy__held_grid_free(sy_context *ctx, sy__held_grid *g) {
    if (!g) return;
    sy__free(ctx, g->region.px);
    sy__free(ctx, g);
}

static int serves(const sy__held_grid *g, const sy_renderer *r, const sy_pixels *src, const int32_t box[4]) {
    const sy__grid_region *h = &g->region;
    return g->data == src->data && g->src_w == src->width && g->src_h == src->height &&
           g->src_stride == src->stride && g->origin_x == r->ax.origin && g->scale_x == r->ax.scale &&
           g->origin_y == r->ay.origin && g->scale_y == r->ay.scale && h->x0 <= box[0] && h->y0 <= box[1] &&
           h->x1 >= box[2] && h->y1 >= box[3];
}

typedef struct rows_job {
    sy_context *ctx;
    const sy_renderer *r;
    const sy_pixels *src;
    sy__grid_region part;       /* rows of the held region, its memory */
    sy_status status;
    sy_error err;
} rows_job;

static void *rows_main(void *arg) {
    rows_job *j = arg;
    j->status = sy__resize_region(j->ctx, &j->r->ax, &j->r->ay, &j->r->tf, j->r->gamut, j->src, &j->part, &j->err);
    return NULL;
}

/* Resamples `box` of r's grid into one region, its rows split over threads. */
static sy_status build(sy_context *ctx, const sy_renderer *r, const sy_pixels *src, const int32_t box[4],
                       uint32_t threads, sy__held_grid **out, sy_error *err) {
    sy__held_grid *g = sy__calloc(ctx, 1, sizeof *g, "held render grid", err);
    if (!g) return err ? err->code : SY_E_BUDGET;
    *g = (sy__held_grid){src->data, src->width, src->height, src->stride, r->ax.origin, r->ax.scale,
                         r->ay.origin, r->ay.scale, {box[0], box[1], box[2], box[3], 0, NULL}};
    sy__grid_region *h = &g->region;
    size_t rows = (size_t)(box[3] - box[1] + 1);
    h->stride = sy__grid_region_stride(h);
    h->px = sy__alloc(ctx, rows, h->stride * sizeof(uint16_t), "held render grid", err);
    if (!h->px) {
        sy__free(ctx, g);
        return err ? err->code : SY_E_BUDGET;
    }
    if (threads < 1) threads = 1;
    if (threads > HOLD_THREADS) threads = HOLD_THREADS;
    if (threads > rows) threads = (uint32_t)rows;
    rows_job jobs[HOLD_THREADS];
    pthread_t tids[HOLD_THREADS];
    int started[HOLD_THREADS] = {0};
    for (uint32_t i = 0; i < threads; i++) {
        int32_t a = box[1] + (int32_t)(rows * i / threads), b = box[1] + (int32_t)(rows * (i + 1) / threads) - 1;
        sy__grid_region part = {box[0], a, box[2], b, h->stride, h->px + (size_t)(a - box[1]) * h->stride};
        jobs[i] = (rows_job){ctx, r, src, part, SY_OK, {0}};
    }
    for (uint32_t i = 1; i < threads; i++) started[i] = pthread_create(&tids[i], NULL, rows_main, &jobs[i]) == 0;
    rows_main(&jobs[0]);
    for (uint32_t i = 1; i < threads; i++) {
        if (started[i]) pthread_join(tids[i], NULL);
        else rows_main(&jobs[i]); /* no thread available: resample it here */
    }
    sy_status st = SY_OK;
    for (uint32_t i = 0; i < threads && st == SY_OK; i++)
        if (jobs[i].status != SY_OK) {
            st = jobs[i].status;
            if (err) *err = jobs[i].err;
        }
    if (st != SY_OK) {
        sy__held_grid_free(ctx, g);
        return st;
    }
    *out = g;
    return SY_OK;
}

sy_status sy__renderer_hold_grid(sy_context *ctx, sy_renderer *r, const sy_pixels *src, uint32_t threads,
                                 sy__held_grid **held, sy_error *err) {
    if (!r || !src || !held) return sy__fail(err, SY_E_USAGE, "sy__renderer_hold_grid: NULL argument");
    r->held = NULL;
    if (!r->grid) return SY_OK;
    if (src->data == NULL || src->width != r->src_w || src->height != r->src_h)
        return sy__fail(err, SY_E_USAGE, "sy__renderer_hold_grid: source %ux%u does not match %ux%u", src->width,
                        src->height, r->src_w, r->src_h);
    int32_t box[4]; /* every inner row: the pieces' boxes, sharpening halo included, lie inside */
    sy__sampler_bbox(&r->sampler, r->inner_w, 0, r->inner_h, box);
    if ((size_t)(box[2] - box[0] + 1) * (size_t)(box[3] - box[1] + 1) * 6 > SY__REGION_CAP) return SY_OK;
    if (!*held || !serves(*held, r, src, box)) {
        sy__held_grid_free(ctx, *held); /* first, so the old and new grids never coexist */
        *held = NULL;
        sy_status st = build(ctx, r, src, box, threads, held, err);
        if (st != SY_OK) return st;
    }
    r->held = &(*held)->region;
    return SY_OK;
}
