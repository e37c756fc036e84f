/* gif.c — video -> GIF (sy_convert.h): two passes, the first over the movie
 * to choose the palette, the second to map, diff and write each kept frame.
 * The first pass also spools its rendered frames into a scratch file beside
 * the output, so the second reads them back instead of decoding the movie
 * again: decoding is most of the work (a 1920x1440 iPhone movie: 3.3 -> 2.0 s
 * of CPU for a 640 px GIF). Memory stays one frame either way; past
 * 512 MB (long movies) the spool is dropped and the movie decoded twice. */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <math.h>

#include "base/sy_cicp.h"
#include "base/sy_output.h"
#include "convert/sy_gif_internal.h"
#include "convert/sy_gif_palette.h"
#include "convert/sy_gif_writer.h"
#include "sy_convert.h"
#include "video/sy_frame_path.h"
#include "video/sy_video_cuts.h"

void sy_gif_options_init(sy_gif_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
    opts->colors = 255;
    opts->dither = 2; /* measured on a pan (240x180): dither 0/2/6/12 -> SSIM 0.938/0.930/0.899/0.815, bytes
                       * 454/502/534/562 KB; 2 breaks up banding in skies for little of either. The iPhone 15
                       * Plus movie (a blue sky, 640 px): 0 -> SSIM 0.802, 3.84 MB, contour bands across the
                       * sky; 2 -> 0.798, 3.94 MB, smooth. SSIM scores the pattern, the eye the bands. */
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

/* The first pass's kept frames (time, then rows), for the second pass. */
static _Atomic uint64_t spool_max = (uint64_t)512 << 20;

uint64_t sy__gif_set_spool_limit(uint64_t bytes) { return atomic_exchange(&spool_max, bytes); }

typedef struct frame_spool {
    FILE *file;       /* NULL: not spooled (no room or too long): decode again */
    uint32_t frames, next;
    uint64_t bytes;
} frame_spool;

static void spool_drop(frame_spool *s) {
    if (s->file) fclose(s->file);
    s->file = NULL;
}

/* Appends a rendered frame; a spool that would pass spool_max, or cannot be
 * written, is dropped (the second pass then decodes). */
static void spool_add(frame_spool *s, double seconds, const uint8_t *rgb, size_t bytes) {
    if (!s->file) return;
    if (s->bytes + bytes + sizeof seconds > atomic_load(&spool_max) || fwrite(&seconds, sizeof seconds, 1, s->file) != 1 ||
        fwrite(rgb, 1, bytes, s->file) != bytes) {
        spool_drop(s);
        return;
    }
    s->bytes += bytes + sizeof seconds;
    s->frames++;
}

static sy_status pass_open(sy_context *ctx, const char *input, const sy_gif_options *o, pass *p, sy_error *err) {
    memset(p, 0, sizeof *p);
    p->ctx = ctx, p->input = input, p->fps = o->fps, p->last_slot = -1;
    sy_status st = sy_video_reader_open(ctx, input, -1, &p->reader, err);
    if (st == SY_OK) st = sy__video_reader_follow_cuts(p->reader, err); /* a cut movie's GIF shows what it shows */
    if (st != SY_OK) return st;
    p->vi = *sy_video_reader_info_get(p->reader);
    sy_recipe identity;
    sy_recipe_init(&identity);
    /* A GIF has no colour profile: viewers show it as sRGB, so a movie in
     * other primaries (an iPhone's Display P3) is converted into sRGB's. */
    float gamut[9];
    int converts = sy__cicp_frame_gamut(sy__video_frame_primaries(&p->vi), SY_CICP_PRIMARIES_BT709, gamut);
    st = sy__frame_path_open_fitted(ctx, &identity, &p->vi, o->max_width, o->max_height, converts ? gamut : NULL,
                                    &p->path, err);
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
        /* the GIF starts with the picture: times from when the movie starts to show it */
        double t = f.seconds - p->vi.start_seconds;
        /* past the end of an edit that shows less than the media (a trim) */
        if (p->vi.presentation_seconds < p->vi.duration_seconds - 1e-6 && t >= p->vi.presentation_seconds)
            continue;
        if (p->fps > 0) { /* one frame per 1/fps slot: the first that reaches it */
            int64_t slot = (int64_t)floor(t * p->fps + 1e-6);
            if (slot <= p->last_slot) continue;
            p->last_slot = slot;
        }
        *seconds = t;
        return sy__frame_path_render(&p->path, &f, p->rgb, p->stride, err);
    }
}

/* What the second pass needs of the first when it reads the spool. */
typedef struct movie_facts {
    uint32_t width, height, decoded, frame_count;
    double duration_seconds;
} movie_facts;

static sy_status choose_palette(sy_context *ctx, const char *input, const char *output, const sy_gif_options *o,
                                uint8_t *palette, uint32_t *count, frame_spool *spool, movie_facts *facts,
                                sy_error *err) {
    pass p;
    sy__gif_histogram *h = NULL;
    sy_status st = pass_open(ctx, input, o, &p, err);
    if (st == SY_OK) st = sy__gif_histogram_create(ctx, &h, err);
    if (st == SY_OK) {
        sy_error ignored = {0}; /* no scratch file (a read-only folder, no space): decode twice instead */
        if (sy__output_scratch(output, "GIF frame spool", &spool->file, &ignored) != SY_OK) spool->file = NULL;
    }
    for (int end = 0; st == SY_OK;) {
        double t;
        st = pass_next(&p, "gif palette", p.vi.frame_count, &t, &end, err);
        if (st != SY_OK || end) break;
        sy__gif_histogram_add(h, p.rgb, p.stride, p.path.frame_width, p.path.frame_height);
        spool_add(spool, t, p.rgb, p.stride * p.path.frame_height);
    }
    if (st == SY_OK) st = sy__gif_palette_build(h, o->colors, palette, count, err);
    if (spool->file && (fflush(spool->file) != 0 || fseek(spool->file, 0, SEEK_SET) != 0)) spool_drop(spool);
    *facts = (movie_facts){p.path.frame_width, p.path.frame_height, p.decoded, p.vi.frame_count,
                           p.vi.presentation_seconds};
    sy__gif_histogram_destroy(h);
    pass_close(&p);
    return st;
}

/* The second pass's frames: read back from the spool, or decoded again. */
typedef struct frame_source {
    frame_spool *spool; /* used when its file is open */
    pass decode;        /* opened only without a spool */
    uint8_t *rgb;
    size_t stride;
    const char *input;
} frame_source;

static sy_status source_next(frame_source *s, const movie_facts *facts, double *seconds, int *end, sy_error *err) {
    frame_spool *sp = s->spool;
    if (!sp->file) return pass_next(&s->decode, "gif frames", facts->frame_count, seconds, end, err);
    *end = sp->next == sp->frames;
    if (*end) return SY_OK;
    size_t bytes = s->stride * facts->height;
    if (fread(seconds, sizeof *seconds, 1, sp->file) != 1 || fread(s->rgb, 1, bytes, sp->file) != bytes) {
        int e = errno;
        return sy__fail_sub(err, SY_E_IO, e, "%s: reading back the GIF frame spool failed: %s", s->input,
                            e ? strerror(e) : "short read");
    }
    sy__progress(s->decode.ctx, "gif frames", ++sp->next, sp->frames);
    return SY_OK;
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
                              uint32_t count, frame_spool *spool, const movie_facts *facts, FILE *file,
                              const char *output, sy_gif_report *rep, sy_error *err) {
    frame_source src = {.spool = spool, .input = input};
    src.decode.ctx = ctx;
    sy__gif_writer *g = NULL;
    sy__gif_mapper *m = NULL;
    pending q = {0};
    uint32_t w = facts->width, h = facts->height;
    sy_status st = SY_OK;
    if (!spool->file) {
        st = pass_open(ctx, input, o, &src.decode, err);
        src.rgb = src.decode.rgb, src.stride = src.decode.stride;
        if (st == SY_OK && (src.decode.path.frame_width != w || src.decode.path.frame_height != h))
            st = sy__fail(err, SY_E_INVALID_INPUT, "%s: the movie changed between the two passes", input);
    } else {
        src.stride = (size_t)w * 3;
        if (!(src.rgb = sy__alloc(ctx, src.stride, h, "gif frame", err))) st = err ? err->code : SY_E_BUDGET;
    }
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
        st = source_next(&src, facts, &t, &end, err);
        if (st != SY_OK) break;
        if (q.held) st = flush_frame(g, &q, w, h, count, end ? facts->duration_seconds : t, rep, err);
        if (st != SY_OK || end) break;
        for (uint32_t y = 0; y < h; y++) sy__gif_mapper_row(m, src.rgb + (size_t)y * src.stride, w, y, q.next + (size_t)y * w);
        q.held = 1;
        q.seconds = t;
    }
    if (st == SY_OK && rep->frames == 0)
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: the movie has no frames to animate", input);
    if (st == SY_OK) st = sy__gif_writer_finish(g, err);
    rep->source_frames = facts->decoded;
    rep->duration_seconds = q.written_cs / 100;
    sy__free(ctx, q.shown);
    sy__free(ctx, q.next);
    sy__gif_mapper_destroy(m);
    sy__gif_writer_destroy(g);
    if (spool->file) sy__free(ctx, src.rgb);
    else pass_close(&src.decode);
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
    frame_spool spool = {0};
    movie_facts facts;
    st = choose_palette(ctx, input, output, opts, palette, &count, &spool, &facts, err);
    sy__output out = {0};
    if (st == SY_OK) st = sy__output_open(ctx, output, &out, err);
    if (st != SY_OK) {
        spool_drop(&spool);
        return st;
    }
    st = write_frames(ctx, input, opts, palette, count, &spool, &facts, out.file, output, report, err);
    spool_drop(&spool);
    if (st == SY_OK) {
        long size = ftell(out.file);
        report->bytes = size > 0 ? (uint64_t)size : 0;
        st = sy__output_commit(&out, err);
    } else {
        sy__output_abort(&out);
    }
    return st;
}
