/* gif.c — video -> GIF (sy_convert.h): two passes over the movie, the first
 * to choose the palette, the second to map, diff and write each kept frame. */
#include <string.h>
#include <math.h>

#include "base/sy_output.h"
#include "convert/sy_gif_palette.h"
#include "convert/sy_gif_writer.h"
#include "sy_convert.h"
#include "video/sy_frame_path.h"

void sy_gif_options_init(sy_gif_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
    opts->colors = 255;
    opts->dither = 2; /* measured on a pan (240x180): dither 0/2/6/12 -> SSIM 0.938/0.930/0.899/0.815, bytes
                       * 454/502/534/562 KB; 2 breaks up banding in skies for little of either */
}

/* One pass over the movie: decode, pick frames by the fps limit, render. */
typedef struct pass {
    sy_context *ctx;
    const char *input;
    sy_video_reader *reader;
    sy_video_reader_info vi;
    sy__frame_path path;
    uint8_t *rgb;            /* one rendered frame */
    size_t stride;
    double fps;
    int64_t last_slot;
    uint32_t decoded;
} pass;

static sy_status pass_open(sy_context *ctx, const char *input, const sy_gif_options *o, pass *p, sy_error *err) {
    memset(p, 0, sizeof *p);
    p->ctx = ctx, p->input = input, p->fps = o->fps, p->last_slot = -1;
    sy_status st = sy_video_reader_open(ctx, input, -1, &p->reader, err);
    if (st != SY_OK) return st;
    p->vi = *sy_video_reader_info_get(p->reader);
    sy_recipe identity;
    sy_recipe_init(&identity);
    st = sy__frame_path_open_fitted(ctx, &identity, &p->vi, o->max_width, o->max_height, &p->path, err);
    p->stride = (size_t)p->path.frame_width * 3;
    if (st == SY_OK && !(p->rgb = sy__alloc(ctx, p->stride, p->path.frame_height, "gif frame", err)))
        st = err ? err->code : SY_E_BUDGET;
    return st;
}

static void pass_close(pass *p) {
    sy__free(p->ctx, p->rgb);
    sy__frame_path_close(&p->path);
    sy_video_reader_close(p->reader);
}

/* The next kept frame rendered into p->rgb; *end at the end of the movie. */
static sy_status pass_next(pass *p, const char *phase, uint32_t total, double *seconds, int *end, sy_error *err) {
    for (;;) {
        sy_video_frame f;
        sy_status st = sy_video_reader_next(p->reader, &f, end, err);
        if (st != SY_OK || *end) return st;
        sy__progress(p->ctx, phase, ++p->decoded, total);
        if (p->fps > 0) { /* one frame per 1/fps slot: the first that reaches it */
            int64_t slot = (int64_t)floor(f.seconds * p->fps + 1e-6);
            if (slot <= p->last_slot) continue;
            p->last_slot = slot;
        }
        *seconds = f.seconds;
        return sy__frame_path_render(&p->path, &f, p->rgb, p->stride, err);
    }
}

static sy_status choose_palette(sy_context *ctx, const char *input, const sy_gif_options *o, uint8_t *palette,
                                uint32_t *count, sy_error *err) {
    pass p;
    sy__gif_histogram *h = NULL;
    sy_status st = pass_open(ctx, input, o, &p, err);
    if (st == SY_OK) st = sy__gif_histogram_create(ctx, &h, err);
    for (int end = 0; st == SY_OK;) {
        double t;
        st = pass_next(&p, "gif palette", p.vi.frame_count, &t, &end, err);
        if (st != SY_OK || end) break;
        sy__gif_histogram_add(h, p.rgb, p.stride, p.path.frame_width, p.path.frame_height);
    }
    if (st == SY_OK) st = sy__gif_palette_build(h, o->colors, palette, count, err);
    sy__gif_histogram_destroy(h);
    pass_close(&p);
    return st;
}

/* The frame being held until the next one's time gives its delay. */
typedef struct pending {
    uint8_t *shown;    /* the screen as the viewer sees it after the previous frame */
    uint8_t *next;     /* the held frame's indices */
    double seconds;
    int held;
    double written_cs; /* running total of delays, 1/100 s */
} pending;

/* Writes the held frame, shown until `until` seconds: only the rectangle that
 * differs from the screen, unchanged pixels inside it transparent. */
static sy_status flush_frame(sy__gif_writer *g, pending *q, uint32_t w, uint32_t h, uint32_t transparent, double until,
                             sy_gif_report *rep, sy_error *err) {
    uint32_t x0 = w, y0 = h, x1 = 0, y1 = 0;
    int first = rep->frames == 0;
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *a = q->next + (size_t)y * w, *b = q->shown + (size_t)y * w;
        for (uint32_t x = 0; x < w; x++)
            if (first || a[x] != b[x]) {
                if (x < x0) x0 = x;
                if (x + 1 > x1) x1 = x + 1;
                if (y < y0) y0 = y;
                y1 = y + 1;
            }
    }
    if (x1 == 0) x0 = y0 = 0, x1 = y1 = 1; /* nothing changed: one transparent pixel carries the delay */
    for (uint32_t y = y0; y < y1; y++) {
        uint8_t *a = q->next + (size_t)y * w, *b = q->shown + (size_t)y * w;
        for (uint32_t x = x0; x < x1; x++) {
            uint8_t v = a[x];
            a[x] = !first && v == b[x] ? (uint8_t)transparent : v;
            b[x] = v;
        }
    }
    double end_cs = round(until * 100);
    uint32_t delay = end_cs > q->written_cs ? (uint32_t)(end_cs - q->written_cs) : 0;
    q->written_cs += delay;
    rep->frames++;
    return sy__gif_writer_frame(g, q->next + (size_t)y0 * w + x0, w, x0, y0, x1 - x0, y1 - y0, delay,
                                first ? -1 : (int)transparent, err);
}

static sy_status write_frames(sy_context *ctx, const char *input, const sy_gif_options *o, const uint8_t *palette,
                              uint32_t count, FILE *file, const char *output, sy_gif_report *rep, sy_error *err) {
    pass p;
    sy__gif_writer *g = NULL;
    sy__gif_mapper *m = NULL;
    pending q = {0};
    sy_status st = pass_open(ctx, input, o, &p, err);
    uint32_t w = p.path.frame_width, h = p.path.frame_height;
    rep->width = w, rep->height = h, rep->colors = count;
    uint8_t table[256 * 3] = {0};
    memcpy(table, palette, (size_t)count * 3);
    if (st == SY_OK) st = sy__gif_writer_open(ctx, file, output, w, h, table, count + 1, &g, err);
    if (st == SY_OK) st = sy__gif_mapper_create(ctx, palette, count, o->dither, &m, err);
    if (st == SY_OK && (!(q.shown = sy__alloc(ctx, w, h, "gif screen", err)) ||
                        !(q.next = sy__alloc(ctx, w, h, "gif frame indices", err))))
        st = err ? err->code : SY_E_BUDGET;
    for (int end = 0; st == SY_OK;) {
        double t = 0;
        st = pass_next(&p, "gif frames", p.vi.frame_count, &t, &end, err);
        if (st != SY_OK) break;
        if (q.held) st = flush_frame(g, &q, w, h, count, end ? p.vi.duration_seconds : t, rep, err);
        if (st != SY_OK || end) break;
        for (uint32_t y = 0; y < h; y++) sy__gif_mapper_row(m, p.rgb + (size_t)y * p.stride, w, y, q.next + (size_t)y * w);
        q.held = 1;
        q.seconds = t;
    }
    if (st == SY_OK && rep->frames == 0)
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: the movie has no frames to animate", input);
    if (st == SY_OK) st = sy__gif_writer_finish(g, err);
    rep->source_frames = p.decoded;
    rep->duration_seconds = q.written_cs / 100;
    sy__free(ctx, q.shown);
    sy__free(ctx, q.next);
    sy__gif_mapper_destroy(m);
    sy__gif_writer_destroy(g);
    pass_close(&p);
    return st;
}

sy_status sy_convert_video_to_gif(sy_context *ctx, const char *input, const char *output, const sy_gif_options *opts,
                                  sy_gif_report *report, sy_error *err) {
    if (!ctx || !input || !output || !report) return sy__fail(err, SY_E_USAGE, "sy_convert_video_to_gif: NULL argument");
    memset(report, 0, sizeof *report);
    sy_gif_options defaults;
    if (!opts) sy_gif_options_init(&defaults), opts = &defaults;
    if (opts->version != 1) return sy__fail(err, SY_E_USAGE, "sy_convert_video_to_gif: options version %u", opts->version);
    if (opts->colors < 2 || opts->colors > 255 || !(opts->fps >= 0) || !(opts->dither >= 0) || opts->dither > 128)
        return sy__fail(err, SY_E_USAGE, "sy_convert_video_to_gif: colors 2..255, fps >= 0, dither 0..128");
    sy_status st = sy__output_check(output, &input, 1, err);
    if (st != SY_OK) return st;
    uint8_t palette[256 * 3];
    uint32_t count = 0;
    st = choose_palette(ctx, input, opts, palette, &count, err);
    if (st != SY_OK) return st;
    sy__output out = {0};
    if ((st = sy__output_open(ctx, output, &out, err)) != SY_OK) return st;
    st = write_frames(ctx, input, opts, palette, count, out.file, output, report, err);
    if (st == SY_OK) {
        long size = ftell(out.file);
        report->bytes = size > 0 ? (uint64_t)size : 0;
        st = sy__output_commit(&out, err);
    } else {
        sy__output_abort(&out);
    }
    return st;
}
