/* naive.c — see sy_naive.h. What the app did before strip-wise compositing:
 * every photo fully decoded and held at once, then one canvas. */
#include <string.h>

#include "base/sy_internal.h"
#include "collage/sy_naive.h"
#include "still/sy_still_internal.h"

/* A fully decoded image served as a row source. */
typedef struct memory_source {
    sy__source base;
    sy_context *ctx;
    uint8_t *pixels;
    uint32_t next_row;
} memory_source;

static sy_status memory_read(sy__source *self, uint8_t *const *rows, uint32_t count, sy_error *err) {
    memory_source *m = (memory_source *)self;
    if (m->next_row + count > m->base.height) return sy__fail(err, SY_E_USAGE, "naive: read past the end");
    size_t row = (size_t)m->base.width * 3;
    for (uint32_t i = 0; i < count; i++, m->next_row++) memcpy(rows[i], m->pixels + m->next_row * row, row);
    return SY_OK;
}

static sy_status memory_skip(sy__source *self, uint32_t count, sy_error *err) {
    memory_source *m = (memory_source *)self;
    if (m->next_row + count > m->base.height) return sy__fail(err, SY_E_USAGE, "naive: skip past the end");
    m->next_row += count;
    return SY_OK;
}

static void memory_close(sy__source *self) {
    memory_source *m = (memory_source *)self;
    if (!m) return;
    sy__free(m->ctx, m->pixels);
    sy__free(m->ctx, m);
}

/* Decodes a whole input at full size into memory. */
static sy_status decode_full(sy_context *ctx, const sy__cell_job *job, memory_source **out, sy_error *err) {
    *out = NULL;
    sy__source *src = NULL;
    sy_status st = sy__source_open(ctx, job->path, job->info, job->info->stored_width, job->info->stored_height,
                                   NULL, &src, err);
    if (st != SY_OK) return st;
    memory_source *m = sy__calloc(ctx, 1, sizeof *m, "naive image", err);
    if (m) m->pixels = sy__alloc(ctx, (size_t)src->width * src->height, 3, "naive full decode", err);
    if (!m || !m->pixels) {
        if (m) sy__free(ctx, m);
        src->close(src);
        return err ? err->code : SY_E_BUDGET;
    }
    m->ctx = ctx;
    m->base = (sy__source){.width = src->width, .height = src->height, .orientation = src->orientation,
                           .pixels = src->pixels, .read_rows = memory_read, .skip_rows = memory_skip,
                           .close = memory_close};
    size_t row = (size_t)src->width * 3;
    for (uint32_t y = 0; y < src->height && st == SY_OK; y++) {
        uint8_t *dst = m->pixels + y * row;
        st = src->read_rows(src, &dst, 1, err);
    }
    src->close(src);
    if (st != SY_OK) {
        memory_close(&m->base);
        return st;
    }
    *out = m;
    return SY_OK;
}

sy_status sy__naive_render(sy_context *ctx, sy__cell_job *jobs, const sy__layout *layout,
                           uint32_t chroma_shift, sy__strip_sink *sink, sy_error *err) {
    uint32_t n = layout->count;
    sy_status st = SY_OK;
    memory_source **images = sy__calloc(ctx, n, sizeof *images, "naive images", err);
    sy__pixels *kinds = sy__calloc(ctx, n, sizeof *kinds, "naive pixel kinds", err);
    if (!images || !kinds) {
        sy__free(ctx, images);
        sy__free(ctx, kinds);
        return err ? err->code : SY_E_BUDGET;
    }
    sy__cell canvas = {0};
    /* 1. Every input decoded at full size, all held at once. */
    for (uint32_t i = 0; i < n && st == SY_OK; i++) {
        sy__progress(ctx, "decode", i, n);
        if (!jobs[i].info) continue;
        sy_error cell_err = {0};
        sy_status cs = decode_full(ctx, &jobs[i], &images[i], &cell_err);
        if (cs == SY_E_CANCELLED) st = sy__fail(err, cs, "cancelled");
        else if (cs != SY_OK) jobs[i].failure = cs, snprintf(jobs[i].reason, sizeof jobs[i].reason, "%s", cell_err.message);
    }
    /* 2. One canvas the size of the output. */
    if (st == SY_OK) {
        uint32_t cw = chroma_shift ? (layout->width + 1) & ~1u : layout->width;
        uint32_t chh = chroma_shift ? (layout->height + 1) & ~1u : layout->height;
        st = sy__cell_grey(ctx, cw, chh, chroma_shift, &canvas, err);
    }
    for (uint32_t i = 0; i < n && st == SY_OK; i++) {
        sy__cell cell = {0};
        const sy__rect *r = &layout->cells[i];
        sy__color_transform *colour = NULL;
        sy_status cs = images[i] ? sy__cell_colour_open(ctx, jobs[i].path, jobs[i].info, jobs[i].space, &colour, err)
                                 : SY_OK;
        if (cs == SY_OK)
            cs = images[i] ? sy__cell_from_source(ctx, &images[i]->base, r->width, r->height, chroma_shift, colour,
                                                  NULL, &cell, err)
                           : sy__cell_grey(ctx, r->width, r->height, chroma_shift, &cell, err);
        sy__color_transform_destroy(colour);
        if (cs != SY_OK) {
            st = cs;
            break;
        }
        kinds[i] = cell.pixels;
        for (int c = 0; c < 3; c++) {
            uint32_t sh = c ? chroma_shift : 0;
            for (uint32_t y = 0; y < (r->height >> sh); y++)
                memcpy(canvas.plane[c] + (size_t)((r->y >> sh) + y) * canvas.stride[c] + (r->x >> sh),
                       cell.plane[c] + (size_t)y * cell.stride[c], r->width >> sh);
        }
        sy__cell_release(ctx, &cell);
    }
    /* 3. Encode the canvas: each strip is background plus the canvas areas of the cells. */
    for (uint32_t y0 = 0; y0 < layout->height && st == SY_OK; y0 += SY__STRIP_ROWS) {
        if ((st = sy__check_cancel(ctx, err)) != SY_OK) break;
        sy__strip_begin(sink, y0);
        for (uint32_t i = 0; i < n; i++) {
            const sy__rect *r = &layout->cells[i];
            if (r->y >= y0 + SY__STRIP_ROWS || r->y + r->height <= y0) continue;
            /* the cell's pixels live in the canvas at r: view them as a cell */
            sy__cell view = canvas;
            view.pixels = kinds[i];
            for (int c = 0; c < 3; c++) {
                uint32_t sh = c ? chroma_shift : 0;
                view.plane[c] = canvas.plane[c] + (size_t)(r->y >> sh) * canvas.stride[c] + (r->x >> sh);
            }
            sy__strip_put(sink, &view, r);
        }
        st = sy__strip_flush(sink, err);
        sy__progress(ctx, "strips", y0 / SY__STRIP_ROWS + 1, (layout->height + SY__STRIP_ROWS - 1) / SY__STRIP_ROWS);
    }
    sy__cell_release(ctx, &canvas);
    for (uint32_t i = 0; i < n; i++)
        if (images[i]) memory_close(&images[i]->base);
    sy__free(ctx, images);
    sy__free(ctx, kinds);
    return st;
}
