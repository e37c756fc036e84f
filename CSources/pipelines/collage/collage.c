/* collage.c — sy_collage_render: probe, lay out, then stream strips from
 * prefetched cells into the encoder (or the naive baseline). */
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sy_still.h"
#include "base/sy_internal.h"
#include "base/sy_output.h"
#include "still/sy_metadata.h"
#include "collage/sy_collage_hdr.h"
#include "collage/sy_naive.h"
#include "collage/sy_prefetch.h"
#include "collage/sy_strip.h"

#define SY__DEFAULT_CELL_CAP (6u * 1024u * 1024u) /* a decode in flight or two + the cell being drawn */

void sy_collage_options_init(sy_collage_options *opts, sy_layout_kind layout) {
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
    opts->layout = layout;
    opts->width = 1080;
    opts->spacing = layout == SY_LAYOUT_GRID ? 8 : 0;
    opts->margin = layout == SY_LAYOUT_GRID ? 8 : 0;
    memset(opts->background, 255, 3);
    opts->format = SY_STILL_JPEG;
    opts->quality = 90;
    opts->png_compression = 6;
}

void sy_collage_report_free(sy_collage_report *report) {
    if (!report) return;
    free(report->grey);
    free(report->over_budget);
    free(report->cell_hdr);
    report->grey = NULL;
    report->over_budget = NULL;
    report->cell_hdr = NULL;
    report->grey_count = report->over_budget_count = 0;
}

static sy_status check_options(const sy_collage_options *o, uint32_t count, sy_error *err) {
    if (o->version != 1) return sy__fail(err, SY_E_USAGE, "collage: options version %u, expected 1", o->version);
    if (count == 0) return sy__fail(err, SY_E_USAGE, "collage: no input photos");
    if (o->layout != SY_LAYOUT_LONG && o->layout != SY_LAYOUT_GRID)
        return sy__fail(err, SY_E_USAGE, "collage: unknown layout %d", (int)o->layout);
    if (o->format != SY_STILL_JPEG && o->format != SY_STILL_PNG && o->format != SY_STILL_HEIC)
        return sy__fail(err, SY_E_USAGE, "collage: output format %d is not JPEG, PNG or HEIC", (int)o->format);
    if (o->quality < 1 || o->quality > 100)
        return sy__fail(err, SY_E_USAGE, "collage: quality %d is outside 1..100", o->quality);
    if (o->png_compression < 0 || o->png_compression > 9)
        return sy__fail(err, SY_E_USAGE, "collage: PNG compression %d is outside 0..9", o->png_compression);
    return SY_OK;
}

static int default_threads(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 4 ? 4 : (int)n;
}

/* Whether no other cell reaches into cell i's rows (every cell of a long
 * image): then the strip loop can read it while it is decoded, since no strip
 * needs another cell's rows alongside it. */
static int alone_in_its_rows(const sy__layout *layout, uint32_t i) {
    const sy__rect *a = &layout->cells[i];
    for (uint32_t j = 0; j < layout->count; j++) {
        const sy__rect *b = &layout->cells[j];
        if (j != i && b->y < a->y + a->height && a->y < b->y + b->height) return 0;
    }
    return 1;
}

/* The strip loop: cells are sorted by top edge, so the open cells are a window [lo, hi]. */
static sy_status render_strips(sy_context *ctx, const sy_collage_options *opts, sy__cell_job *jobs,
                               const sy__layout *layout, uint32_t chroma_shift, sy__strip_sink *sink,
                               size_t *cell_peak, sy_error *err) {
    size_t cap = opts->cell_memory_cap ? opts->cell_memory_cap : SY__DEFAULT_CELL_CAP;
    sy__prefetch *pf = NULL;
    sy_status st = sy__prefetch_start(ctx, jobs, layout->count, chroma_shift,
                                      opts->threads > 0 ? opts->threads : default_threads(), cap, &pf, err);
    if (st != SY_OK) return st;
    uint32_t lo = 0, n = layout->count;
    uint32_t strips = (layout->height + SY__STRIP_ROWS - 1) / SY__STRIP_ROWS;
    for (uint32_t s = 0; s < strips && st == SY_OK; s++) {
        if ((st = sy__check_cancel(ctx, err)) != SY_OK) break;
        uint32_t y0 = s * SY__STRIP_ROWS, y1 = y0 + SY__STRIP_ROWS;
        sy__strip_begin(sink, y0);
        for (uint32_t i = lo; i < n && layout->cells[i].y < y1 && st == SY_OK; i++) {
            const sy__rect *r = &layout->cells[i];
            if (r->y + r->height <= y0) continue;
            const sy__cell *cell = sy__prefetch_get(pf, i, err);
            if (!cell) {
                st = err ? err->code : SY_E_CODEC;
                break;
            }
            uint32_t through = SY__MIN(r->height, y1 - r->y); /* its rows this strip reaches */
            if ((st = sy__prefetch_rows(pf, i, through, err)) != SY_OK) break;
            sy__strip_put(sink, cell, r);
            /* done with it: free it before the next cell decodes below it */
            if (r->y + r->height <= y1) sy__prefetch_release(pf, i);
            else sy__prefetch_done_rows(pf, i, through);
        }
        if (st != SY_OK) break;
        if ((st = sy__strip_flush(sink, err)) != SY_OK) break;
        /* Release every cell whose last row is behind us. */
        for (uint32_t i = lo; i < n && layout->cells[i].y < y1; i++)
            if (layout->cells[i].y + layout->cells[i].height <= y1) sy__prefetch_release(pf, i);
        while (lo < n && layout->cells[lo].y + layout->cells[lo].height <= y1) lo++;
        if ((s & 63) == 0 || s + 1 == strips) sy__progress(ctx, "strips", s + 1, strips);
    }
    *cell_peak = sy__prefetch_stop(pf);
    return st;
}

static sy_status fill_report(const sy__cell_job *jobs, uint32_t count, size_t cap, sy_collage_report *report,
                             sy_error *err) {
    uint32_t grey = 0, over = 0;
    for (uint32_t i = 0; i < count; i++) {
        grey += jobs[i].failure != SY_OK || !jobs[i].info;
        over += jobs[i].working_bytes > cap;
    }
    report->grey = grey ? calloc(grey, sizeof *report->grey) : NULL;
    report->over_budget = over ? calloc(over, sizeof *report->over_budget) : NULL;
    if ((grey && !report->grey) || (over && !report->over_budget)) {
        sy_collage_report_free(report);
        return sy__fail(err, SY_E_BUDGET, "collage: out of memory for the report");
    }
    for (uint32_t i = 0; i < count; i++) {
        if (jobs[i].failure != SY_OK || !jobs[i].info) {
            sy_cell_failure *f = &report->grey[report->grey_count++];
            f->index = i;
            f->code = jobs[i].failure ? jobs[i].failure : SY_E_INVALID_INPUT;
            snprintf(f->reason, sizeof f->reason, "%s", jobs[i].reason);
        }
        if (jobs[i].working_bytes > cap) report->over_budget[report->over_budget_count++] = i;
    }
    return SY_OK;
}

static void fill_hdr_report(const sy__collage_hdr *hdr, sy_collage_report *report) {
    report->hdr = hdr->active ? SY_HDR_KEPT : hdr->dropped_all ? SY_HDR_DROPPED_WITH_CONSENT : SY_HDR_NOT_HDR;
    report->hdr_hook_calls = hdr->hook_calls;
    snprintf(report->hdr_detail, sizeof report->hdr_detail, "%s", hdr->detail);
    if (hdr->cell_state && (report->cell_hdr = malloc(hdr->count))) memcpy(report->cell_hdr, hdr->cell_state, hdr->count);
    if (!hdr->active) return;
    report->gain_map_width = hdr->map_width, report->gain_map_height = hdr->map_height;
    report->gain_map_headroom = hdr->common.apple_headroom;
    report->gain_map_forms = hdr->save.forms;
}

/* glibc raises its mmap threshold to the size of each mapped block freed
 * (up to 32 MiB), so the 1-2 MB rows, rings and tile pictures of the next
 * cells come from the heap instead and fragment it: a strip-wise job peaked
 * 0.25-0.4 MiB higher on the real iPhone long image of MemoryTests (11.6-12.1
 * MiB against its 12 MiB budget). A fixed 1 MiB threshold hands every block
 * of 1 MiB or more back when freed, at ~1 % of the 7-HEIC long image's time
 * (256 KiB: 0.1 MiB less still, 6 % slower). Process-wide, as the per-tile
 * malloc_trim of the HEVC decoder is; set once. */
static pthread_once_t mmap_threshold_once = PTHREAD_ONCE_INIT;
static void fix_mmap_threshold(void) { mallopt(M_MMAP_THRESHOLD, 1 << 20); }

sy_status sy_collage_render(sy_context *ctx, const char *const *inputs, uint32_t count,
                            const sy_collage_options *opts, const char *output_path,
                            sy_collage_report *report, sy_error *err) {
    pthread_once(&mmap_threshold_once, fix_mmap_threshold);
    if (!ctx || !inputs || !opts || !output_path || !report)
        return sy__fail(err, SY_E_USAGE, "sy_collage_render: NULL argument");
    memset(report, 0, sizeof *report);
    sy_status st = check_options(opts, count, err);
    if (st == SY_OK) st = sy__output_check(output_path, inputs, count, err);
    if (st != SY_OK) return st;
    sy_context_reset_peak(ctx);

    sy__cell_job *jobs = sy__calloc(ctx, count, sizeof *jobs, "collage jobs", err);
    sy_image_info *infos = sy__calloc(ctx, count, sizeof *infos, "collage infos", err);
    const sy_image_info **info_ptrs = sy__calloc(ctx, count, sizeof *info_ptrs, "collage infos", err);
    sy__layout layout = {0};
    sy__output output = {0};
    sy__strip_sink *sink = NULL;
    sy__collage_hdr hdr;
    memset(&hdr, 0, sizeof hdr);
    if (!jobs || !infos || !info_ptrs) {
        st = err ? err->code : SY_E_BUDGET;
        goto done;
    }
    /* 1. Headers only: sizes and orientation for the layout; unreadable -> grey. */
    uint32_t readable = 0;
    sy_error first_failure = {0};
    for (uint32_t i = 0; i < count; i++) {
        sy_error probe_err = {0};
        jobs[i].path = inputs[i];
        if (sy_image_probe(ctx, inputs[i], &infos[i], &probe_err) == SY_OK) {
            jobs[i].info = info_ptrs[i] = &infos[i];
            readable++;
        } else {
            jobs[i].failure = probe_err.code;
            snprintf(jobs[i].reason, sizeof jobs[i].reason, "%s", probe_err.message);
            if (!first_failure.code) first_failure = probe_err;
        }
        if ((st = sy__check_cancel(ctx, err)) != SY_OK) goto done;
    }
    if (readable == 0) {
        st = sy__fail(err, SY_E_INVALID_INPUT, "collage: none of the %u inputs is readable (first: %s)", count,
                      first_failure.message);
        goto done;
    }
    /* Colour: Display P3 when any input is wider than sRGB, sRGB otherwise. */
    sy__rgb_space space = SY__RGB_SRGB;
    for (uint32_t i = 0; i < count && space == SY__RGB_SRGB; i++) {
        if (!jobs[i].info) continue;
        sy__metadata md;
        sy__color_source src;
        sy__colour_read(ctx, inputs[i], jobs[i].info, &md, &src);
        if (sy__color_is_wide(&src)) space = SY__RGB_DISPLAY_P3;
        sy__metadata_free(ctx, &md);
    }
    for (uint32_t i = 0; i < count; i++) jobs[i].space = space;
    /* 2. Layout, checked against the encoder's limits before anything is decoded. */
    uint32_t chroma_shift = opts->format == SY_STILL_JPEG ? 1 : 0;
    if ((st = sy__layout_compute(ctx, opts, info_ptrs, count, chroma_shift, &layout, err)) != SY_OK) goto done;
    for (uint32_t i = 0; i < count; i++) {
        jobs[i].rect = layout.cells[i];
        jobs[i].alone = alone_in_its_rows(&layout, i);
        /* a photo far narrower than the canvas (2 x 30000 px) gets a cell no renderer draws: named, before work */
        if (layout.cells[i].height > SY_RENDER_MAX_SIDE) {
            st = sy__fail(err, SY_E_USAGE, "%s: its cell would be %u px tall at width %u (a %ux%u photo; a cell is at "
                          "most %u px): leave it out, or use a grid", inputs[i], layout.cells[i].height,
                          layout.cells[i].width, infos[i].width, infos[i].height, SY_RENDER_MAX_SIDE);
            goto done;
        }
    }
    /* 3. HDR: the canvas gain map, composed and encoded before the base (or the SPEC E6 question). */
    if ((st = sy__collage_hdr_prepare(ctx, opts, jobs, count, &layout, output_path, &hdr, err)) != SY_OK) goto done;
    /* 4. Stream (a HEIC writer keeps its own temp file). */
    const int heic = opts->format == SY_STILL_HEIC;
    if (!heic && (st = sy__output_open(ctx, output_path, &output, err)) != SY_OK) goto done;
    if ((st = sy__strip_sink_create(ctx, output.file, output_path, opts, layout.width, layout.height, space,
                                    hdr.active ? &hdr.save.extra : NULL, &sink, err)) != SY_OK)
        goto done;
    size_t cell_peak = 0;
    st = opts->naive ? sy__naive_render(ctx, jobs, &layout, chroma_shift, sink, err)
                     : render_strips(ctx, opts, jobs, &layout, chroma_shift, sink, &cell_peak, err);
    if (st == SY_OK) { /* inputs whose header read fine may still all fail to decode: nothing is written */
        uint32_t decoded = 0;
        for (uint32_t i = 0; i < count; i++) decoded += jobs[i].info && jobs[i].failure == SY_OK;
        if (decoded == 0)
            st = sy__fail(err, SY_E_INVALID_INPUT, "collage: none of the %u inputs could be decoded (first: %s)",
                          count, jobs[0].reason);
    }
    if (st == SY_OK) st = sy__strip_sink_finish(sink, err);
    sy__strip_sink_destroy(sink);
    sink = NULL;
    if (st == SY_OK && hdr.active && !heic) st = hdr.save.extra.jpeg_finish(hdr.save.extra.user, output.file, err);
    if (st == SY_OK && !heic) st = sy__output_commit(&output, err);
    if (st != SY_OK) goto done;
    size_t cap = opts->cell_memory_cap ? opts->cell_memory_cap : SY__DEFAULT_CELL_CAP;
    if ((st = fill_report(jobs, count, cap, report, err)) != SY_OK) goto done;
    report->width = layout.width;
    report->height = layout.height;
    report->cells = count;
    report->scaled_to_fit = layout.scaled_to_fit;
    report->scale_factor = layout.scale;
    report->cell_peak_bytes = cell_peak;
    report->display_p3 = space == SY__RGB_DISPLAY_P3;
    fill_hdr_report(&hdr, report);
done:
    sy__collage_hdr_free(ctx, &hdr);
    sy__strip_sink_destroy(sink);
    sy__output_abort(&output);
    sy__layout_free(ctx, &layout);
    sy__free(ctx, jobs);
    sy__free(ctx, infos);
    sy__free(ctx, info_ptrs);
    sy_memory_stats stats;
    sy_context_memory_stats(ctx, &stats);
    report->engine_peak_bytes = stats.peak_bytes;
    return st;
}
