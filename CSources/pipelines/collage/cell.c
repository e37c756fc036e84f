/* cell.c — build one collage cell: decode at scale, render through the one
 * frame renderer (centre-crop to cover, antialiased downscale) strip-wise,
 * turn upright (EXIF orientation) and store as planes. */
#include <math.h>
#include <string.h>

#include "base/sy_internal.h"
#include "base/sy_color.h"
#include "render/sy_render_window.h"
#include "still/sy_orient.h"
#include "still/sy_still_internal.h"
#include "collage/sy_cell.h"

/* The fused 4:2:0 store gets an AVX2 clone picked at load time. */
#if defined(__x86_64__) && defined(__has_attribute) && !defined(__SANITIZE_ADDRESS__)
#if __has_attribute(target_clones)
#define CELL_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef CELL_CLONES
#define CELL_CLONES
#endif

size_t sy__cell_plane_bytes(uint32_t width, uint32_t height, uint32_t chroma_shift) {
    size_t luma = (size_t)width * height;
    size_t chroma = (size_t)(width >> chroma_shift) * (height >> chroma_shift);
    return luma + 2 * chroma;
}

static sy_status cell_alloc(sy_context *ctx, uint32_t width, uint32_t height, uint32_t chroma_shift,
                            sy__cell *cell, sy_error *err) {
    memset(cell, 0, sizeof *cell);
    if (chroma_shift && ((width | height) & 1))
        return sy__fail(err, SY_E_USAGE, "cell: 4:2:0 cell %ux%u must have even sides", width, height);
    size_t bytes = sy__cell_plane_bytes(width, height, chroma_shift);
    uint8_t *mem = sy__alloc(ctx, bytes, 1, "collage cell", err);
    if (!mem) return err ? err->code : SY_E_BUDGET;
    cell->width = width;
    cell->height = height;
    cell->chroma_shift = chroma_shift;
    cell->bytes = bytes;
    cell->plane[0] = mem;
    cell->stride[0] = width;
    cell->stride[1] = cell->stride[2] = width >> chroma_shift;
    cell->plane[1] = mem + (size_t)width * height;
    cell->plane[2] = cell->plane[1] + (size_t)cell->stride[1] * (height >> chroma_shift);
    return SY_OK;
}

void sy__cell_release(sy_context *ctx, sy__cell *cell) {
    if (!cell) return;
    sy__free(ctx, cell->plane[0]);
    memset(cell, 0, sizeof *cell);
}

sy_status sy__cell_grey(sy_context *ctx, uint32_t width, uint32_t height, uint32_t chroma_shift, sy__cell *cell,
                        sy_error *err) {
    sy_status st = cell_alloc(ctx, width, height, chroma_shift, cell, err);
    if (st != SY_OK) return st;
    cell->pixels = SY__PIX_YCC;
    memset(cell->plane[0], 128, cell->bytes); /* Y=Cb=Cr=128 is RGB 128,128,128 */
    return SY_OK;
}

void sy__cell_grey_rows(sy__cell *cell, uint32_t from) {
    for (int c = 0; c < 3; c++) {
        uint32_t shift = c ? cell->chroma_shift : 0, first = from >> shift, rows = cell->height >> shift;
        if (first < rows) memset(cell->plane[c] + (size_t)first * cell->stride[c], 128,
                                 (size_t)(rows - first) * cell->stride[c]);
    }
}

void sy__cell_discard_rows(sy_context *ctx, sy__cell *cell, uint32_t rows) {
    for (int c = 0; c < 3; c++) {
        uint32_t shift = c ? cell->chroma_shift : 0;
        sy__discard_pages(ctx, cell->plane[0], cell->plane[c], (size_t)(rows >> shift) * cell->stride[c]);
    }
}

/* ---- row sink: stored-orientation rows -> upright planes ---- */

typedef struct sink_state {
    sy__cell *cell;
    sy__orient map;       /* stored-orientation target -> upright cell */
    uint32_t tw;          /* stored-orientation target width */
    uint8_t *pending;     /* even row waiting for its pair (4:2:0) */
    uint8_t *scratch;     /* turned 4:2:0 cells: the odd row as YCbCr */
    const sy__color_transform *colour; /* into the output space, or NULL */
    const sy__cell_stream *stream;     /* rows announced as they are stored, or NULL */
} sink_state;

static void store_full(sink_state *s, uint32_t y, const uint8_t *row) {
    sy__cell *c = s->cell;
    const sy__orient m = s->map;
    if (m.orientation == 1) { /* upright already: de-interleave */
        uint8_t *p0 = c->plane[0] + (size_t)y * c->stride[0], *p1 = c->plane[1] + (size_t)y * c->stride[1],
                *p2 = c->plane[2] + (size_t)y * c->stride[2];
        for (uint32_t x = 0; x < s->tw; x++) {
            p0[x] = row[3 * x];
            p1[x] = row[3 * x + 1];
            p2[x] = row[3 * x + 2];
        }
        return;
    }
    for (uint32_t x = 0; x < s->tw; x++) {
        size_t ux = (size_t)(m.x0 + m.xx * (int32_t)x + m.xy * (int32_t)y),
               uy = (size_t)(m.y0 + m.yx * (int32_t)x + m.yy * (int32_t)y);
        for (int ch = 0; ch < 3; ch++) c->plane[ch][uy * c->stride[ch] + ux] = row[3 * x + ch];
    }
}

/* Orientation 1: R'G'B' rows y-1 (a) and y (b) straight into cell rows y-1
 * and y: the JFIF conversion of sy__rgb_to_ycc per pixel (so the bytes are
 * those of converting the rows first), luma stored, chroma averaged per 2x2
 * block, in one pass with no write back into the rows. */
CELL_CLONES static void store_pair_420_upright(sy__cell *c, uint32_t y, const uint8_t *restrict a,
                                               const uint8_t *restrict b, uint32_t width) {
    uint8_t *restrict ya = c->plane[0] + (size_t)(y - 1) * c->stride[0];
    uint8_t *restrict yb = ya + c->stride[0];
    uint8_t *restrict cb = c->plane[1] + (size_t)(y >> 1) * c->stride[1];
    uint8_t *restrict cr = c->plane[2] + (size_t)(y >> 1) * c->stride[2];
    for (uint32_t h = 0; h < width / 2; h++) {
        const uint8_t *p = a + 6 * (size_t)h, *q = b + 6 * (size_t)h;
        int r0 = p[0], g0 = p[1], b0 = p[2], r1 = p[3], g1 = p[4], b1 = p[5];
        int r2 = q[0], g2 = q[1], b2 = q[2], r3 = q[3], g3 = q[4], b3 = q[5];
        /* Luma weights sum to 1 << 16: never outside 0..255. */
        ya[2 * h] = (uint8_t)((19595 * r0 + 38470 * g0 + 7471 * b0 + 32768) >> 16);
        ya[2 * h + 1] = (uint8_t)((19595 * r1 + 38470 * g1 + 7471 * b1 + 32768) >> 16);
        yb[2 * h] = (uint8_t)((19595 * r2 + 38470 * g2 + 7471 * b2 + 32768) >> 16);
        yb[2 * h + 1] = (uint8_t)((19595 * r3 + 38470 * g3 + 7471 * b3 + 32768) >> 16);
        /* Chroma reaches 256 for pure blue / red: clamped per pixel, as sy__rgb_to_ycc does. */
        const int bias = (128 << 16) + 32768;
#define CB(r, g, b) sy__clamp8((-11059 * (r) - 21709 * (g) + 32768 * (b) + bias) >> 16)
#define CR(r, g, b) sy__clamp8((32768 * (r) - 27439 * (g) - 5329 * (b) + bias) >> 16)
        cb[h] = (uint8_t)((CB(r0, g0, b0) + CB(r1, g1, b1) + CB(r2, g2, b2) + CB(r3, g3, b3) + 2) >> 2);
        cr[h] = (uint8_t)((CR(r0, g0, b0) + CR(r1, g1, b1) + CR(r2, g2, b2) + CR(r3, g3, b3) + 2) >> 2);
#undef CB
#undef CR
    }
}

/* sy__rgb_to_ycc over a row, out of place (so it vectorizes). */
CELL_CLONES static void rgb_row_to_ycc(const uint8_t *restrict in, uint8_t *restrict out, uint32_t width) {
    for (uint32_t x = 0; x < width; x++) sy__rgb_to_ycc(in + 3 * (size_t)x, out + 3 * (size_t)x);
}

/* Turned cells: YCbCr rows y-1 (a) and y (b), four luma samples and one
 * averaged chroma pair per 2x2 block. */
static void store_pair_420(sink_state *s, uint32_t y, const uint8_t *a, const uint8_t *b) {
    sy__cell *c = s->cell;
    const sy__orient m = s->map;
    int y0 = (int)y - 1;
    for (uint32_t x = 0; x < s->tw; x += 2) {
        const uint8_t *p[4] = {a + 3 * x, a + 3 * x + 3, b + 3 * x, b + 3 * x + 3};
        int xs[4] = {(int)x, (int)x + 1, (int)x, (int)x + 1}, ys[4] = {y0, y0, y0 + 1, y0 + 1};
        int minx = 1 << 30, miny = 1 << 30;
        for (int k = 0; k < 4; k++) {
            int ux = m.x0 + m.xx * xs[k] + m.xy * ys[k], uy = m.y0 + m.yx * xs[k] + m.yy * ys[k];
            c->plane[0][(size_t)uy * c->stride[0] + (size_t)ux] = p[k][0];
            if (ux < minx) minx = ux;
            if (uy < miny) miny = uy;
        }
        size_t at = (size_t)(miny >> 1) * c->stride[1] + (size_t)(minx >> 1);
        c->plane[1][at] = (uint8_t)((p[0][1] + p[1][1] + p[2][1] + p[3][1] + 2) >> 2);
        c->plane[2][at] = (uint8_t)((p[0][2] + p[1][2] + p[2][2] + p[3][2] + 2) >> 2);
    }
}

static sy_status cell_sink(void *user, uint32_t y, uint8_t *r, sy_error *err) {
    (void)err;
    sink_state *s = user;
    sy__color_transform_rows(s->colour, r, (size_t)s->tw * 3, s->tw, 1);
    if (!s->cell->chroma_shift) { /* 4:4:4 cells stay R'G'B' */
        store_full(s, y, r);
    } else if (s->map.orientation == 1) { /* converted while stored */
        if ((y & 1) == 0) memcpy(s->pending, r, (size_t)s->tw * 3);
        else store_pair_420_upright(s->cell, y, s->pending, r, s->tw);
    } else if ((y & 1) == 0) {
        rgb_row_to_ycc(r, s->pending, s->tw);
    } else {
        rgb_row_to_ycc(r, s->scratch, s->tw);
        store_pair_420(s, y, s->pending, s->scratch);
    }
    /* 4:2:0 rows are final in pairs, with their chroma row */
    if (s->stream && (!s->cell->chroma_shift || (y & 1))) s->stream->rows(s->stream->user, y + 1);
    return SY_OK;
}

sy_status sy__cell_from_source(sy_context *ctx, sy__source *src, uint32_t width, uint32_t height,
                               uint32_t chroma_shift, const sy__color_transform *colour,
                               const sy__cell_stream *stream, sy__cell *cell, sy_error *err) {
    /* Rendered in the stored orientation (so the decoder's rows stream
     * top to bottom), then placed upright by the sink. */
    const int turned = src->orientation >= 5 && src->orientation <= 8;
    const uint32_t tw = turned ? height : width, th = turned ? width : height;
    sy_recipe identity;
    sy_recipe_init(&identity);
    sy_renderer *r = NULL;
    sy_status st = sy_renderer_create(ctx, &identity, src->width, src->height, tw, th, &r, err);
    if (st != SY_OK) return st;
    if ((st = cell_alloc(ctx, width, height, chroma_shift, cell, err)) != SY_OK) {
        sy_renderer_destroy(r);
        return st;
    }
    cell->pixels = chroma_shift ? SY__PIX_YCC : SY__PIX_RGB;
    sink_state s = {.cell = cell,
                    .map = sy__orient_plan(src->orientation, tw, th),
                    .tw = tw,
                    .colour = colour};
    if (chroma_shift && (!(s.pending = sy__alloc(ctx, tw, 3, "cell pending row", err)) ||
                         !(s.scratch = sy__alloc(ctx, tw, 3, "cell pending row", err))))
        st = err ? err->code : SY_E_BUDGET;
    /* Rows land in order only upright or mirrored sideways (turned and
     * upside-down cells fill in another order): only those are streamed. */
    if (st == SY_OK && stream && (s.map.orientation == 1 || s.map.orientation == 2)) {
        s.stream = stream;
        stream->begin(stream->user, cell);
    } else if (st == SY_OK && src->spend_less) { /* the whole cell is held while it decodes */
        src->spend_less(src);
    }
    if (st == SY_OK) st = sy__render_source(ctx, src, r, cell_sink, &s, err);
    sy__free(ctx, s.pending);
    sy__free(ctx, s.scratch);
    sy_renderer_destroy(r);
    if (st != SY_OK && !s.stream) sy__cell_release(ctx, cell);
    return st;
}

/* Smallest full-frame size whose crop window still covers the target. */
static void needed_frame(const sy_image_info *info, uint32_t width, uint32_t height, uint32_t *min_w,
                         uint32_t *min_h) {
    int turned = info->orientation >= 5;
    double up_w = info->width, up_h = info->height;
    double cw = up_w, ch = up_h;
    double want = (double)width / height; /* the renderer centre-crops to cover the cell */
    if (up_w / up_h > want) cw = up_h * want;
    else ch = up_w / want;
    double k = fmax(width / cw, height / ch);
    double need_up_w = ceil(up_w * k - 1e-6), need_up_h = ceil(up_h * k - 1e-6);
    *min_w = (uint32_t)(turned ? need_up_h : need_up_w);
    *min_h = (uint32_t)(turned ? need_up_w : need_up_h);
}

sy_status sy__cell_colour_open(sy_context *ctx, const char *path, const sy_image_info *info, sy__rgb_space space,
                               sy__color_transform **out, sy_error *err) {
    *out = NULL;
    sy__metadata md;
    sy__color_source src;
    sy__colour_read(ctx, path, info, &md, &src);
    sy_error colour_err = {0};
    sy_status st = sy__color_transform_create(ctx, &src, space, out, &colour_err);
    sy__metadata_free(ctx, &md);
    if (st == SY_E_BUDGET || st == SY_E_CANCELLED) return sy__fail(err, st, "%s", colour_err.message);
    return SY_OK; /* an unusable profile: the pixels as they are */
}

sy_status sy__cell_build(sy_context *ctx, const char *path, const sy_image_info *info, uint32_t width,
                         uint32_t height, uint32_t chroma_shift, uint32_t threads, sy__rgb_space space,
                         const sy__cell_stream *stream, sy__cell *cell, size_t *working_bytes, sy_error *err) {
    uint32_t min_w, min_h;
    needed_frame(info, width, height, &min_w, &min_h);
    size_t held = sy__cell_plane_bytes(width, height, chroma_shift) + SY__COLLAGE_STRIP_RESERVE;
    sy__source_means means = {.threads = threads,
                              .working_bytes = held < SY__COLLAGE_JOB_BYTES ? SY__COLLAGE_JOB_BYTES - held : 0};
    sy__source *src = NULL;
    sy_status st = sy__source_open(ctx, path, info, min_w, min_h, &means, &src, err);
    if (st != SY_OK) return st;
    if (working_bytes) *working_bytes = src->working_bytes;
    sy__color_transform *colour = NULL;
    st = sy__cell_colour_open(ctx, path, info, space, &colour, err);
    if (st == SY_OK) st = sy__cell_from_source(ctx, src, width, height, chroma_shift, colour, stream, cell, err);
    sy__color_transform_destroy(colour);
    src->close(src);
    return st;
}
