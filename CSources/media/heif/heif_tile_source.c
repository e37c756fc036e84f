/* heif_tile_source.c — HEIF probe and row source on our own reader.
 *
 * A grid HEIC is decoded one tile row at a time: each HEVC tile's planes are
 * box-averaged by the largest power of two k that still covers what the
 * layout needs, into a ring of Y'CbCr plane rows (in the stream's own chroma
 * format and depth), and each row is converted to 8-bit YCbCr when handed out
 * (an HDR signal: to SDR Display P3 R'G'B', sy_heif_geometry.h) — so only
 * delivered pixels are converted. Averaged 4:2:0 chroma is treated
 * as co-sited like the stream's: its centre is (k-1)/2k of a delivered pixel
 * to the right of that, well under the renderer's resolution. When a box of
 * some plane would straddle two tiles (an odd clean-aperture offset, tiles
 * not a multiple of k), tiles are converted first and 16-bit sums of pixels
 * are kept instead. The
 * item decoded is the primary, or its thumbnail when that covers the need
 * (sy_heif_geometry.h). irot/imir become an EXIF-style orientation that the
 * cell builder applies; clap crops the delivered frame. Item types we do not
 * decode (AV1, AVC, iden, iovl...) fall back to libheif (an HDR AV1 picture
 * tone-mapped there too, libheif_fallback.c).
 *
 * Threads: the tiles of one tile row are decoded by up to
 * SY__HEIF_MAX_TILE_WORKERS workers at once (the reading thread and helpers
 * started for that row and joined before its rows are handed out), each with
 * its own HEVC decoder. When the ring for two tile rows fits the means too,
 * the helpers start on the next tile row while the reading thread hands out
 * (and its caller renders) the rows of this one; the reading thread joins in
 * when it needs the next rows. Every tile lands in the ring at its own place
 * and sums are integers, so the rows are the same bytes whatever the worker
 * count and timing.
 *
 * Turned photos (irot 90/270, EXIF 5-8: how iPhones store portraits) are
 * delivered transposed when that holds fewer samples in the ring: the grid
 * is read tile column by tile column, each decoded tile's boxes are written
 * to the ring across instead of along (a k x k box is the same either way),
 * and the orientation handed on is the photo's own with the transpose taken
 * out (5..8 -> 1..4). A portrait 24 MP iPhone HEIC (5712x4284 stored, 640x896
 * tiles) in a 1080-wide cell needs k = 2: its ring is 320 rows of 2142 in
 * place of 448 rows of 2856 (1.0 MB, not 1.9), and the cell is not turned.
 * Only for 4:2:0, 4:4:4 and 4:0:0 (the same subsampling across as along) on
 * the planar path; 4:2:0 chroma siting is then taken across instead of
 * along, a shift under half a delivered pixel, as for the box average.
 *
 * Memory: (tile_height/k + 2) output rows of planes (1.5 bytes a pixel at
 * 8-bit 4:2:0; 6 bytes of sums a pixel on the straddling path), plus per
 * worker one decoded tile and the decoder's state (charged by the decoder
 * while it decodes, and while it is kept warm between tiles), whatever the
 * photo's size. Workers beyond the first are
 * taken only while the whole stays within the caller's means. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "base/sy_internal.h"
#include "heif/sy_heif_geometry.h"
#include "heif/sy_heif_source.h"
#include "hevc/sy_hevc.h"
#include "bmff/sy_bmff.h"
#include "heif/sy_heif.h"

#define SY__HEIF_MAX_TILE_WORKERS 4u
#define SY__HEIF_WORKER_STACK (2u << 20) /* what the HEVC decoder needs, with room to spare */

/* The name of an image coding HEIF can carry, for messages. */
static const char *coding_name(uint32_t type) {
    switch (type) {
    case SY_FOURCC('j', 'p', 'e', 'g'): return "JPEG";
    case SY_FOURCC('a', 'v', 'c', '1'): return "H.264/AVC";
    case SY_FOURCC('j', '2', 'k', '1'): return "JPEG 2000";
    case SY_FOURCC('u', 'n', 'c', 'i'): return "uncompressed (ISO 23001-17)";
    case SY_FOURCC('a', 'v', '0', '1'): return "AV1";
    case SY_FOURCC('v', 'v', 'c', '1'): return "H.266/VVC";
    default: return "unknown";
    }
}

/* libheif decodes the codings our reader does not. When it cannot either, the
 * message says which coding it is (libheif 1.15 reports such files as "'pitm'
 * box references a non-existing image"), with libheif's words after it. */
static sy_status fallback_failed(const char *path, uint32_t coding, sy_status st, sy_error *err) {
    if (st == SY_OK || st == SY_E_BUDGET || st == SY_E_CANCELLED || !err) return st;
    char libheif[sizeof err->message];
    snprintf(libheif, sizeof libheif, "%s", err->message);
    const char *said = strstr(libheif, "libheif cannot open it: ");
    return sy__fail(err, SY_E_UNSUPPORTED, "%s: unsupported coding '%c%c%c%c' (%s): not HEVC, and libheif cannot decode it (%s)",
                    path, (char)(coding >> 24), (char)(coding >> 16), (char)(coding >> 8), (char)coding,
                    coding_name(coding), said ? said + strlen("libheif cannot open it: ") : libheif);
}

sy_status sy__heif_probe(sy_context *ctx, const char *path, sy_image_info *out, sy_error *err) {
    sy_heif_file *file = NULL;
    sy_status st = sy_heif_open(ctx, path, &file, err);
    if (st != SY_OK) return st;
    sy__heif_geometry g;
    st = sy__heif_geometry_read(file, path, sy_heif_primary_id(file), &g, err);
    if (st == SY_OK) sy__heif_geometry_info(&g, sy_heif_item(file, g.item), out);
    sy_heif_close(file);
    if (st == SY_E_UNSUPPORTED && g.coding)
        return fallback_failed(path, g.coding, sy__libheif_probe(ctx, path, out, err), err);
    if (st == SY_E_UNSUPPORTED) return sy__libheif_probe(ctx, path, out, err);
    return st;
}

sy_status sy__heif_complete(sy_context *ctx, const char *path, sy_error *err) {
    sy_heif_file *file = NULL;
    sy_status st = sy_heif_open(ctx, path, &file, err);
    if (st != SY_OK) return st;
    sy__heif_geometry g;
    st = sy__heif_geometry_read(file, path, sy_heif_primary_id(file), &g, err);
    for (uint32_t t = 0; st == SY_OK && t < g.rows * g.columns; t++) st = sy_heif_item_located(file, g.tiles[t], err);
    sy_heif_close(file);
    return st == SY_E_UNSUPPORTED ? SY_OK : st; /* a coding we hand to libheif: its own reader judges */
}

/* ---- the row source ---- */

/* What one tile worker owns. Worker 0 runs on the thread that reads rows. */
typedef struct tile_worker {
    sy__hevc_decoder *decoder;
    uint8_t *tile_row;          /* general path: one converted tile row, tile_width * 3 */
    uint32_t *box_row;          /* planar path: one row of box sums across a tile */
    sy_cicp vui;                /* colour of the last tile it decoded (has_vui) */
    int has_vui;
} tile_worker;

/* One plane of the planar ring: box-averaged samples, `rows` rows of `width`. */
typedef struct ring_plane {
    uint8_t *samples;
    uint32_t width, rows;       /* rows: the plane's ring rows */
    size_t stride;              /* bytes */
    uint32_t sub_x, sub_y;      /* subsampling against luma (1 or 2) */
} ring_plane;

/* One tile row shared by several workers: each claims the next column until
 * none is left or one has failed. Columns are claimed in order, so every
 * column left of a failure is still finished and the failure reported is the
 * leftmost, as a single worker would have met it. */
typedef struct row_job {
    struct tile_source *s;
    uint32_t row;
    atomic_uint next_column;
    atomic_int stop;
    uint32_t failed_column;     /* the failure, under the source's lock */
    sy_status status;
    sy_error err;
} row_job;

typedef struct row_worker {
    row_job *job;
    tile_worker *worker;
} row_worker;

typedef struct tile_source {
    sy__source base;
    sy_context *ctx;
    sy_heif_file *file;
    sy__heif_geometry g;        /* the geometry rows are read in: the stored one, or its transpose */
    sy__heif_geometry stored;   /* transposed: the item as stored (tiles are decoded in it) */
    int transposed;
    char path[200];
    uint32_t k;                 /* box factor */
    uint32_t k_shift;           /* log2 k: a whole box of k x k samples is averaged with a shift of 2 k_shift */
    uint32_t ring_rows;         /* output rows the sum ring holds */
    int planar;                 /* boxes never straddle tiles (in any plane): the ring holds averaged planes */
    uint16_t *sums;             /* general path: ring_rows x width x 3 sums of converted pixels */
    ring_plane planes[3];       /* planar path: Y', Cb, Cr (one plane for 4:0:0) */
    uint32_t plane_count;
    uint8_t chroma, bit_depth;  /* planar path: what the hvcC says and every tile must decode as */
    uint8_t *chroma_rows;       /* planar path: two chroma rows per chroma plane, for one output row */
    sy_cicp vui;                /* planar path: colour of the decoded tiles (used when the item has no nclx) */
    int to_rgb;                 /* an HDR signal: rows tone-mapped to SDR Display P3 R'G'B' (sy_heif_geometry.h) */
    uint8_t *row_weight;        /* input rows summed into each ring row */
    tile_worker *workers;
    uint32_t worker_count;      /* workers decoding a tile row at once (1 = the reading thread alone) */
    uint32_t workers_made;      /* workers with a decoder (more than worker_count after a budget refusal) */
    uint8_t *column_done;       /* tiles of the current tile row already in the ring */
    pthread_mutex_t lock;       /* several workers: the row's failure, and sums (general path: a box may
                                   take sums from two tiles) */
    int lock_ready;
    row_job job;                /* the tile row being decoded */
    row_worker helpers[SY__HEIF_MAX_TILE_WORKERS];
    pthread_t threads[SY__HEIF_MAX_TILE_WORKERS];
    int started[SY__HEIF_MAX_TILE_WORKERS];
    int overlap;                /* the ring holds two tile rows: helpers decode the next while rows are read */
    int warm;                   /* workers keep their libavcodec context from tile to tile */
    int ahead;                  /* job is a tile row started ahead, not finished yet */
    uint32_t next_tile_row;     /* next grid row of tiles to decode */
    uint32_t done_rows;         /* output rows complete (all their input rows summed) */
    uint32_t next_out;          /* next output row to hand out */
} tile_source;

/* The part [x_from, x_to) x [y_from, y_to) of the tile at (tx, ty) inside the
 * clean aperture; 0 when none of it is. */
static int tile_window(const sy__heif_geometry *g, uint32_t tx, uint32_t ty, uint32_t *x_from, uint32_t *x_to,
                       uint32_t *y_from, uint32_t *y_to) {
    *x_from = tx < g->crop_x ? g->crop_x - tx : 0;
    *x_to = SY__MIN(g->tile_width, g->crop_x + g->width > tx ? g->crop_x + g->width - tx : 0);
    *y_from = ty < g->crop_y ? g->crop_y - ty : 0;
    *y_to = SY__MIN(g->tile_height, g->crop_y + g->height > ty ? g->crop_y + g->height - ty : 0);
    return *x_from < *x_to && *y_from < *y_to;
}

/* Sums one decoded tile into the ring. (tx, ty): the tile's top-left in grid
 * pixels. Boxes at the tile's edges may also take sums from a neighbour that
 * another worker is adding at the same moment, so with several workers each
 * row is added under the source's lock (integer sums: the order does not matter). */
static void accumulate_tile(tile_source *s, tile_worker *w, const sy__yuv *yuv, uint32_t tx, uint32_t ty) {
    const sy__heif_geometry *g = &s->g;
    const uint32_t k = s->k, out_w = s->base.width;
    uint32_t x_from, x_to, y_from, y_to;
    if (!tile_window(g, tx, ty, &x_from, &x_to, &y_from, &y_to)) return;
    for (uint32_t y = y_from; y < y_to; y++) {
        uint8_t *row = w->tile_row;
        sy__yuv_rows(yuv, &g->signal, s->to_rgb, y, 1, &row);
        uint32_t fy = ty + y - g->crop_y, oy = fy / k;
        uint16_t *sum = s->sums + (size_t)(oy % s->ring_rows) * out_w * 3;
        uint32_t fx = tx + x_from - g->crop_x;
        const uint8_t *p = row + (size_t)x_from * 3;
        if (s->worker_count > 1) pthread_mutex_lock(&s->lock);
        if (k == 1) {
            for (uint32_t x = x_from; x < x_to; x++, fx++, p += 3) {
                uint16_t *q = sum + (size_t)fx * 3;
                q[0] += p[0], q[1] += p[1], q[2] += p[2];
            }
        } else {
            for (uint32_t x = x_from; x < x_to; x++, fx++, p += 3) {
                uint16_t *q = sum + (size_t)(fx / k) * 3;
                q[0] += p[0], q[1] += p[1], q[2] += p[2];
            }
        }
        if (s->worker_count > 1) pthread_mutex_unlock(&s->lock);
    }
}

/* Adds samples [0, count) of one plane row into box sums of k samples each
 * (the last box may be partial). No division per sample: this loop runs over
 * every decoded pixel of a photo, and the k = 2 form (a 12 MP photo in a
 * 1080-wide cell) vectorizes. */
#define SY__ADD_BOX_ROW(name, type)                                                                  \
    static void name(uint32_t *box, const type *row, uint32_t count, uint32_t k) {                   \
        uint32_t full = count / k, b = 0;                                                            \
        if (k == 1) {                                                                                \
            for (; b < full; b++) box[b] += row[b];                                                  \
        } else if (k == 2) {                                                                         \
            for (; b < full; b++) box[b] += (uint32_t)row[2 * b] + row[2 * b + 1];                   \
        } else {                                                                                     \
            for (; b < full; b++) {                                                                  \
                const type *p = row + (size_t)b * k;                                                 \
                uint32_t sum = 0;                                                                    \
                for (uint32_t j = 0; j < k; j++) sum += p[j];                                        \
                box[b] += sum;                                                                       \
            }                                                                                        \
        }                                                                                            \
        for (uint32_t x = full * k; x < count; x++) box[full] += row[x];                             \
    }
SY__ADD_BOX_ROW(add_box_row_u8, uint8_t)
SY__ADD_BOX_ROW(add_box_row_u16, uint16_t)
#undef SY__ADD_BOX_ROW

/* box[b] = the sum of samples [px0 + b k, px0 + (b + 1) k) of plane p over
 * rows [y, y + rows_in) of the decoded tile. */
static void sum_boxes(uint32_t *box, const sy__yuv *yuv, uint32_t p, uint32_t y, uint32_t rows_in, uint32_t px0,
                      uint32_t count, uint32_t k) {
    memset(box, 0, (size_t)((count + k - 1) / k) * sizeof *box);
    for (uint32_t r = 0; r < rows_in; r++) {
        const uint8_t *row = yuv->plane[p] + (size_t)(y + r) * yuv->stride[p];
        if (yuv->bit_depth > 8) add_box_row_u16(box, (const uint16_t *)(const void *)row + px0, count, k);
        else add_box_row_u8(box, row + px0, count, k);
    }
}

/* The mean of box b of a row of box sums (n samples in it): whole boxes of
 * k x k samples round with a shift, boxes cut by the tile's edge divide. */
static inline uint32_t box_mean(const tile_source *s, const uint32_t *box_row, uint32_t b, uint32_t count,
                                uint32_t rows_in) {
    if (rows_in == s->k && (b + 1) * s->k <= count) return (box_row[b] + (s->k * s->k) / 2) >> (2 * s->k_shift);
    uint32_t n = SY__MIN(s->k, count - b * s->k) * rows_in;
    return (box_row[b] + n / 2) / n;
}

/* Planar path: every plane of the tile holds whole k x k boxes (offsets and
 * tile sides are multiples of k times the plane's subsampling), so each box
 * is averaged here into the plane's ring; tiles own disjoint columns of it,
 * so workers need no lock. Rows are converted to 8-bit YCbCr only when handed
 * out, at the delivered size. A whole box (k x k samples, k a power of two)
 * is rounded with a shift; boxes cut by the tile's edge divide by their count. */
static void average_tile(tile_source *s, tile_worker *w, const sy__yuv *yuv, uint32_t tx, uint32_t ty) {
    const sy__heif_geometry *g = &s->g;
    const uint32_t k = s->k;
    const int wide = s->bit_depth > 8;
    uint32_t x_from, x_to, y_from, y_to;
    if (!tile_window(g, tx, ty, &x_from, &x_to, &y_from, &y_to)) return;
    for (uint32_t p = 0; p < s->plane_count; p++) {
        const ring_plane *rp = &s->planes[p];
        const uint32_t sx = rp->sub_x, sy = rp->sub_y;
        uint32_t px0 = x_from / sx, px1 = (x_to + sx - 1) / sx, py0 = y_from / sy, py1 = (y_to + sy - 1) / sy;
        uint32_t count = px1 - px0, boxes = (count + k - 1) / k, full = count / k;
        uint32_t ox0 = (tx + x_from - g->crop_x) / (sx * k);
        for (uint32_t y = py0; y < py1; y += k) {
            uint32_t rows_in = SY__MIN(k, py1 - y);
            sum_boxes(w->box_row, yuv, p, y, rows_in, px0, count, k);
            uint32_t oy = (ty / sy + y - g->crop_y / sy) / k;
            uint8_t *out = rp->samples + (size_t)(oy % rp->rows) * rp->stride;
            uint32_t b = 0;
            if (rows_in == k) { /* whole boxes in a loop of their own: it vectorizes */
                const uint32_t half = (k * k) / 2, sh = 2 * s->k_shift;
                if (wide) {
                    uint16_t *o = (uint16_t *)(void *)out + ox0;
                    for (; b < full; b++) o[b] = (uint16_t)((w->box_row[b] + half) >> sh);
                } else {
                    uint8_t *o = out + ox0;
                    for (; b < full; b++) o[b] = (uint8_t)((w->box_row[b] + half) >> sh);
                }
            }
            for (; b < boxes; b++) {
                uint32_t v = box_mean(s, w->box_row, b, count, rows_in);
                if (wide) ((uint16_t *)(void *)out)[ox0 + b] = (uint16_t)v;
                else out[ox0 + b] = (uint8_t)v;
            }
        }
    }
}

/* Transposed planar path: the stored tile at (tx, ty) of s->stored, boxed as
 * average_tile does, each box written to the ring at the transposed place
 * (stored box column -> ring row, stored box row -> column). */
static void average_tile_across(tile_source *s, tile_worker *w, const sy__yuv *yuv, uint32_t tx, uint32_t ty) {
    const sy__heif_geometry *g = &s->stored;
    const uint32_t k = s->k;
    const int wide = s->bit_depth > 8;
    uint32_t x_from, x_to, y_from, y_to;
    if (!tile_window(g, tx, ty, &x_from, &x_to, &y_from, &y_to)) return;
    for (uint32_t p = 0; p < s->plane_count; p++) {
        const ring_plane *rp = &s->planes[p];
        const uint32_t sub = rp->sub_x; /* = sub_y: transposed only for symmetric subsampling */
        uint32_t px0 = x_from / sub, px1 = (x_to + sub - 1) / sub, py0 = y_from / sub, py1 = (y_to + sub - 1) / sub;
        uint32_t count = px1 - px0, boxes = (count + k - 1) / k;
        uint32_t ring_row0 = (tx + x_from - g->crop_x) / (sub * k);
        for (uint32_t y = py0; y < py1; y += k) {
            uint32_t rows_in = SY__MIN(k, py1 - y);
            sum_boxes(w->box_row, yuv, p, y, rows_in, px0, count, k);
            uint32_t column = (ty / sub + y - g->crop_y / sub) / k, ring_row = ring_row0 % rp->rows;
            for (uint32_t b = 0; b < boxes; b++) { /* box b goes to ring row ring_row0 + b (wrapping) */
                uint32_t v = box_mean(s, w->box_row, b, count, rows_in);
                uint8_t *out = rp->samples + (size_t)ring_row * rp->stride;
                if (wide) ((uint16_t *)(void *)out)[column] = (uint16_t)v;
                else out[column] = (uint8_t)v;
                if (++ring_row == rp->rows) ring_row = 0;
            }
        }
    }
}

/* Whether tile column c of the grid lies (partly) inside the clean aperture. */
static int column_needed(const sy__heif_geometry *g, uint32_t c) {
    uint64_t tx = (uint64_t)c * g->tile_width;
    return tx < (uint64_t)g->crop_x + g->width && tx + g->tile_width > g->crop_x;
}

/* Reads, decodes and sums tile (r, c) into the ring with worker w's decoder. */
static sy_status decode_tile(tile_source *s, tile_worker *w, uint32_t r, uint32_t c, sy_error *err) {
    const sy__heif_geometry *g = &s->g;
    sy_status st = sy__check_cancel(s->ctx, err);
    if (st != SY_OK) return st;
    uint8_t *data = NULL;
    size_t len = 0;
    uint32_t id = s->transposed ? s->stored.tiles[c * s->stored.columns + r] : g->tiles[r * g->columns + c];
    const uint32_t tile_w = s->transposed ? g->tile_height : g->tile_width;
    const uint32_t tile_h = s->transposed ? g->tile_width : g->tile_height;
    if ((st = sy_heif_read_item(s->file, id, &data, &len, err)) != SY_OK) return st;
    sy__yuv yuv = {0};
    st = sy__hevc_decode(w->decoder, data, len, &yuv, err);
    sy_heif_free_data(s->file, data);
    if (st != SY_OK) {
        char why[200];
        snprintf(why, sizeof why, "%s", err ? err->message : "decode failed");
        return sy__fail(err, st, "%s: tile %u (row %u, column %u): %s", s->path, id, r, c, why);
    }
    if (yuv.width != tile_w || yuv.height < tile_h) { /* tile_row holds tile_width pixels */
        sy__hevc_recycle(w->decoder, &yuv);
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: tile %u decoded as %ux%u, expected %ux%u", s->path, id,
                        yuv.width, yuv.height, tile_w, tile_h);
    }
    if (s->planar && (yuv.chroma != s->chroma || yuv.bit_depth != s->bit_depth)) {
        sy__hevc_recycle(w->decoder, &yuv);
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: tile %u decoded as chroma format %u, %u-bit; its hvcC says %u, %u-bit",
                        s->path, id, yuv.chroma, yuv.bit_depth, s->chroma, s->bit_depth);
    }
    w->vui = yuv.vui, w->has_vui = 1; /* the same for every tile: they share one hvcC */
    uint32_t tx = c * g->tile_width, ty = r * g->tile_height;
    if (s->transposed) average_tile_across(s, w, &yuv, ty, tx); /* the stored tile's origin */
    else if (s->planar) average_tile(s, w, &yuv, tx, ty);
    else accumulate_tile(s, w, &yuv, tx, ty);
    sy__hevc_recycle(w->decoder, &yuv);
    return SY_OK;
}

static void run_columns(row_job *job, tile_worker *w) {
    tile_source *s = job->s;
    while (!atomic_load(&job->stop)) {
        uint32_t c = atomic_fetch_add(&job->next_column, 1);
        if (c >= s->g.columns) return;
        if (s->column_done[c] || !column_needed(&s->g, c)) continue;
        sy_error e = {0};
        sy_status st = decode_tile(s, w, job->row, c, &e);
        if (st == SY_OK) {
            s->column_done[c] = 1;
            continue;
        }
        pthread_mutex_lock(&s->lock);
        if (c < job->failed_column) job->failed_column = c, job->status = st, job->err = e;
        pthread_mutex_unlock(&s->lock);
        atomic_store(&job->stop, 1);
    }
}

static void *row_worker_main(void *arg) {
    row_worker *rw = arg;
    run_columns(rw->job, rw->worker);
    return NULL;
}

/* Starts tile row r: its helpers (workers 1..) begin claiming columns. */
static void row_begin(tile_source *s, uint32_t r) {
    row_job *job = &s->job;
    memset(s->column_done, 0, s->g.columns);
    job->s = s, job->row = r, job->failed_column = UINT32_MAX, job->status = SY_OK;
    atomic_store(&job->next_column, 0);
    atomic_store(&job->stop, 0);
    if (s->worker_count < 2) return;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, SY__HEIF_WORKER_STACK);
    for (uint32_t i = 1; i < s->worker_count; i++) {
        s->helpers[i] = (row_worker){.job = job, .worker = &s->workers[i]};
        s->started[i] = pthread_create(&s->threads[i], &attr, row_worker_main, &s->helpers[i]) == 0;
    }
    pthread_attr_destroy(&attr);
}

static void row_join(tile_source *s) {
    for (uint32_t i = 1; i < s->worker_count; i++)
        if (s->started[i]) pthread_join(s->threads[i], NULL), s->started[i] = 0;
}

/* Finishes the started tile row on the reading thread (which claims columns
 * too, so a helper that did not start leaves its columns to the others). A
 * tile refused for the budget means the workers together held more than the
 * context allows: the row, and every later one, is finished one tile at a time. */
static sy_status row_finish(tile_source *s, sy_error *err) {
    row_job *job = &s->job;
    if (s->worker_count > 1) {
        run_columns(job, &s->workers[0]);
        row_join(s);
        if (job->status == SY_E_BUDGET) {
            s->worker_count = 1, s->overlap = 0;
            for (uint32_t i = 1; i < s->workers_made; i++) sy__hevc_decoder_keep_warm(s->workers[i].decoder, 0);
        } else if (job->status != SY_OK) {
            if (err) *err = job->err;
            return job->status;
        }
    }
    for (uint32_t c = 0; c < s->g.columns; c++) {
        if (s->column_done[c] || !column_needed(&s->g, c)) continue;
        sy_status st = decode_tile(s, &s->workers[0], job->row, c, err);
        if (st != SY_OK) return st;
        s->column_done[c] = 1;
    }
    for (uint32_t i = 0; i < s->worker_count; i++)
        if (s->workers[i].has_vui) s->vui = s->workers[i].vui;
    return SY_OK;
}

/* Tile row r is in the ring (or skipped): every output row whose k input rows
 * are now all in is complete. */
static void row_complete(tile_source *s, uint32_t r) {
    const sy__heif_geometry *g = &s->g;
    uint32_t ty = r * g->tile_height;
    uint32_t last_frame_row = (uint32_t)SY__MIN((uint64_t)ty + g->tile_height, (uint64_t)g->crop_y + g->height);
    if (last_frame_row <= g->crop_y) return;
    uint32_t frame_rows_in = last_frame_row - g->crop_y;
    uint32_t complete = frame_rows_in >= g->height ? s->base.height : frame_rows_in / s->k;
    for (uint32_t oy = s->done_rows; oy < complete; oy++) {
        uint32_t first = oy * s->k, rows_in = SY__MIN(s->k, g->height - first);
        s->row_weight[oy % s->ring_rows] = (uint8_t)rows_in;
    }
    if (complete > s->done_rows) s->done_rows = complete;
}

/* Whether tile row r holds rows of the delivered frame. */
static int row_in_frame(const tile_source *s, uint32_t r) {
    const sy__heif_geometry *g = &s->g;
    uint64_t ty = (uint64_t)r * g->tile_height;
    return ty + g->tile_height > g->crop_y && ty < (uint64_t)g->crop_y + g->height;
}

/* Decodes the next row of tiles into the ring, or skips it when `skip`. */
static sy_status decode_tile_row(tile_source *s, int skip, sy_error *err) {
    uint32_t r = s->next_tile_row++;
    if (!skip && row_in_frame(s, r)) {
        row_begin(s, r);
        sy_status st = row_finish(s, err);
        if (st != SY_OK) return st;
    }
    row_complete(s, r);
    return SY_OK;
}

static void clear_row(tile_source *s, uint32_t oy);

/* Turns ring row `oy` into 8-bit pixels and clears it for reuse. */
/* Planar path: output row `oy` as a 3-row picture whose middle rows are its
 * luma row (stride 0) and the chroma rows sy__yuv_rows interpolates it from,
 * copied in order; chroma does not reach past the row's tile row (as a tile
 * converted on its own), and crosses tile columns (one delivered row). */
static void emit_planar_row(tile_source *s, uint32_t oy, uint8_t *out) {
    const sy__heif_geometry *g = &s->g;
    const uint32_t k = s->k, out_w = s->base.width, out_h = s->base.height;
    const size_t bps = s->bit_depth > 8 ? 2 : 1;
    sy__yuv v = {.width = out_w, .height = 3, .bit_depth = s->bit_depth, .chroma = s->chroma, .vui = s->vui};
    v.plane[0] = s->planes[0].samples + (size_t)(oy % s->planes[0].rows) * s->planes[0].stride;
    v.stride[0] = 0;
    v.plane_width[0] = out_w, v.plane_height[0] = 3;
    uint32_t y = 0;
    if (s->plane_count == 3) {
        const uint32_t sy = s->planes[1].sub_y;
        uint32_t r = (oy * k + g->crop_y) / g->tile_height;
        uint64_t top = (uint64_t)r * g->tile_height, bottom = top + g->tile_height;
        uint32_t lo = top <= g->crop_y ? 0 : (uint32_t)((top - g->crop_y) / k);
        uint32_t hi = (uint32_t)SY__MIN((uint64_t)out_h, (bottom - g->crop_y) / k);
        uint32_t c_lo = lo / sy, c_hi = (hi + sy - 1) / sy - 1, j = oy / sy, rows[2] = {j, j};
        if (sy == 2 && (oy & 1)) rows[1] = SY__MIN(j + 1, c_hi), y = 1; /* j and the one below */
        else if (sy == 2) rows[0] = j > c_lo ? j - 1 : j, y = 2;           /* the one above and j */
        for (uint32_t p = 1; p < 3; p++) {
            const ring_plane *rp = &s->planes[p];
            size_t row_bytes = (size_t)rp->width * bps;
            uint8_t *dst = s->chroma_rows + (p - 1) * 2 * row_bytes;
            for (int i = 0; i < 2; i++)
                memcpy(dst + i * row_bytes, rp->samples + (size_t)(rows[i] % rp->rows) * rp->stride, row_bytes);
            v.plane[p] = dst;
            v.stride[p] = (uint32_t)row_bytes;
            v.plane_width[p] = rp->width;
            v.plane_height[p] = 2;
        }
        if (sy == 1) y = 0; /* 4:2:2 / 4:4:4: row 0 is the row's own chroma */
    }
    uint8_t *rows_out[1] = {out};
    sy__yuv_rows(&v, &g->signal, s->to_rgb, y, 1, rows_out);
}

static void emit_row(tile_source *s, uint32_t oy, uint8_t *out) {
    const uint32_t k = s->k, out_w = s->base.width, width = s->g.width;
    if (s->planar) {
        emit_planar_row(s, oy, out);
        return;
    }
    uint16_t *sum = s->sums + (size_t)(oy % s->ring_rows) * out_w * 3;
    uint32_t rows_in = s->row_weight[oy % s->ring_rows];
    for (uint32_t ox = 0; ox < out_w; ox++) {
        uint32_t cols_in = SY__MIN(k, width - ox * k), n = cols_in * rows_in;
        for (int c = 0; c < 3; c++) out[3 * ox + c] = (uint8_t)((sum[3 * ox + c] + n / 2) / n);
    }
    clear_row(s, oy);
}

/* Decodes tile rows until output row `through` is complete. A tile row whose
 * every output row lies before `skip_before` is not decoded at all. */
static sy_status ensure_rows(tile_source *s, uint32_t through, uint32_t skip_before, sy_error *err) {
    while (s->done_rows <= through) {
        if (s->ahead) { /* the row started ahead is the next one */
            s->ahead = 0;
            sy_status st = row_finish(s, err);
            if (st != SY_OK) return st;
            row_complete(s, s->job.row);
            continue;
        }
        if (s->next_tile_row >= s->g.rows)
            return sy__fail(err, SY_E_INVALID_INPUT, "%s: grid ended before row %u", s->path, through);
        uint64_t tile_end = (uint64_t)(s->next_tile_row + 1) * s->g.tile_height;
        int skip = tile_end <= s->g.crop_y + (uint64_t)skip_before * s->k;
        sy_status st = decode_tile_row(s, skip, err);
        if (st != SY_OK) return st;
    }
    /* Reading (not skipping): the helpers start on the next tile row while the
     * rows of this one are handed out; the ring holds both. */
    if (s->overlap && skip_before == 0 && !s->ahead && s->next_tile_row < s->g.rows &&
        row_in_frame(s, s->next_tile_row)) {
        row_begin(s, s->next_tile_row++);
        s->ahead = 1;
    }
    return SY_OK;
}

static void clear_row(tile_source *s, uint32_t oy) {
    if (s->planar) return; /* planar rows are overwritten, not summed into */
    uint16_t *sum = s->sums + (size_t)(oy % s->ring_rows) * s->base.width * 3;
    memset(sum, 0, (size_t)s->base.width * 3 * sizeof *sum);
}

static sy_status tile_read_rows(sy__source *self, uint8_t *const *rows, uint32_t count, sy_error *err) {
    tile_source *s = (tile_source *)self;
    for (uint32_t i = 0; i < count; i++) {
        if (s->next_out >= s->base.height) return sy__fail(err, SY_E_USAGE, "%s: read past the last row", s->path);
        sy_status st = ensure_rows(s, s->next_out, 0, err);
        if (st != SY_OK) return st;
        emit_row(s, s->next_out++, rows[i]);
    }
    return SY_OK;
}

/* Skipped rows are consumed tile row by tile row, so the ring never wraps onto
 * rows still summing; whole tile rows before the target are never decoded. */
static sy_status tile_skip_rows(sy__source *self, uint32_t count, sy_error *err) {
    tile_source *s = (tile_source *)self;
    if ((uint64_t)s->next_out + count > s->base.height) return sy__fail(err, SY_E_USAGE, "%s: skip past the end", s->path);
    uint32_t target = s->next_out + count;
    while (s->next_out < target) {
        sy_status st = ensure_rows(s, s->next_out, target, err);
        if (st != SY_OK) return st;
        for (uint32_t upto = SY__MIN(s->done_rows, target); s->next_out < upto; s->next_out++) clear_row(s, s->next_out);
    }
    return SY_OK;
}

static void tile_close(sy__source *self) {
    tile_source *s = (tile_source *)self;
    if (!s) return;
    sy_context *ctx = s->ctx;
    if (s->ahead) { /* a tile row nobody will read: stop it after the tiles in hand */
        atomic_store(&s->job.stop, 1);
        row_join(s);
    }
    for (uint32_t i = 0; s->workers && i < s->workers_made; i++) {
        sy__hevc_decoder_destroy(s->workers[i].decoder);
        sy__free(ctx, s->workers[i].tile_row);
        sy__free(ctx, s->workers[i].box_row);
    }
    sy__free(ctx, s->workers);
    if (s->lock_ready) pthread_mutex_destroy(&s->lock);
    sy_heif_close(s->file);
    sy__free(ctx, s->sums);
    for (uint32_t p = 0; p < 3; p++) sy__free(ctx, s->planes[p].samples);
    sy__free(ctx, s->chroma_rows);
    sy__free(ctx, s->row_weight);
    sy__free(ctx, s->column_done);
    sy__free(ctx, s);
}

/* What one more tile worker holds while it decodes: the decoder's own
 * figure for a tile (its codec estimate and the engine copy of the picture). */
static size_t tile_worker_bytes(const sy__heif_geometry *g, uint8_t chroma, uint8_t bits) {
    return sy__hevc_decode_peak_bytes(g->tile_width, g->tile_height, chroma, bits);
}

/* Workers for one tile row: as many as the caller's threads, the tile
 * columns and its memory allow, at least one. */
static uint32_t plan_workers(const sy__heif_geometry *g, const sy__source_means *means, size_t ring_bytes,
                             size_t worker_bytes) {
    uint32_t columns = 0;
    for (uint32_t c = 0; c < g->columns; c++) columns += column_needed(g, c);
    uint32_t n = 1;
    while (means && n < means->threads && n < columns && n < SY__HEIF_MAX_TILE_WORKERS &&
           ring_bytes + (n + 1) * worker_bytes <= means->working_bytes)
        n++;
    return n;
}

/* The hvcC's chroma format and bit depth (ISO/IEC 14496-15
 * HEVCDecoderConfigurationRecord bytes 16-18); 0 when it is too short. */
static int hvcc_format(const uint8_t *hvcc, size_t len, uint8_t *chroma, uint8_t *bits) {
    if (!hvcc || len < 23) return 0;
    *chroma = hvcc[16] & 3;
    *bits = (uint8_t)(8 + SY__MAX(hvcc[17] & 7, hvcc[18] & 7));
    return 1;
}

/* Chooses the ring: averaged planes when no box of any plane straddles a tile
 * (offsets and tile sides multiples of k times the chroma subsampling), else
 * 16-bit sums of converted pixels. */
static void plan_ring(tile_source *s, const uint8_t *hvcc, size_t hvcc_len) {
    const sy__heif_geometry *g = &s->g;
    const uint32_t k = s->k, span = s->overlap ? 2 : 1; /* tile rows the ring holds */
    s->ring_rows = span * (g->tile_height / k + 2);
    uint8_t chroma = 0, bits = 0;
    s->planar = 0;
    if (!hvcc_format(hvcc, hvcc_len, &chroma, &bits)) return;
    uint32_t sub_x = chroma == 1 || chroma == 2 ? 2 : 1, sub_y = chroma == 1 ? 2 : 1;
    if (g->crop_x % (k * sub_x) || g->tile_width % (k * sub_x) || g->crop_y % (k * sub_y) || g->tile_height % (k * sub_y))
        return;
    s->planar = 1;
    s->chroma = chroma, s->bit_depth = bits;
    s->plane_count = chroma == 0 ? 1 : 3;
    for (uint32_t p = 0; p < s->plane_count; p++) {
        ring_plane *rp = &s->planes[p];
        rp->sub_x = p ? sub_x : 1, rp->sub_y = p ? sub_y : 1;
        rp->width = (s->base.width + rp->sub_x - 1) / rp->sub_x;
        rp->rows = span * (g->tile_height / (k * rp->sub_y) + 2);
        rp->stride = (size_t)rp->width * (bits > 8 ? 2 : 1);
    }
}

static size_t ring_plan_bytes(const tile_source *s) {
    if (!s->planar) return (size_t)s->ring_rows * s->base.width * 3 * sizeof *s->sums;
    size_t bytes = 0;
    for (uint32_t p = 0; p < s->plane_count; p++) bytes += (size_t)s->planes[p].rows * s->planes[p].stride;
    return bytes + (s->plane_count == 3 ? 4 * s->planes[1].stride : 0);
}

/* The same grid read across: rows <-> columns, and the orientation with the
 * transpose taken out (EXIF 5..8 = 1..4 after a transpose). */
static void transpose_geometry(sy__heif_geometry *g) {
    uint32_t t;
#define SY__SWAP(a, b) (t = (a), (a) = (b), (b) = t)
    SY__SWAP(g->rows, g->columns);
    SY__SWAP(g->grid_width, g->grid_height);
    SY__SWAP(g->tile_width, g->tile_height);
    SY__SWAP(g->crop_x, g->crop_y);
    SY__SWAP(g->width, g->height);
#undef SY__SWAP
    g->orientation = (uint8_t)(g->orientation - 4);
}

/* Whether a turned grid is better read across (see the top): planar either
 * way, subsampled alike across and along, and fewer samples in the ring. */
static int transpose_pays(tile_source *s, const uint8_t *hvcc, size_t hvcc_len) {
    const sy__heif_geometry *g = &s->g;
    uint8_t chroma = 0, bits = 0;
    if (g->orientation < 5 || g->rows * g->columns < 2 || !hvcc_format(hvcc, hvcc_len, &chroma, &bits) || chroma == 2)
        return 0;
    plan_ring(s, hvcc, hvcc_len);
    if (!s->planar) return 0;
    uint64_t along = (uint64_t)(g->tile_height / s->k) * ((g->width + s->k - 1) / s->k);
    uint64_t across = (uint64_t)(g->tile_width / s->k) * ((g->height + s->k - 1) / s->k);
    return across < along;
}

/* A reader holding its whole frame leaves no room for kept contexts: measured
 * on the portrait 24 MP iPhone cell of MemoryTests (640x896 tiles, read
 * upside down, so not streamed), +0.6 MiB of peak RSS past its 12 MiB. */
static void tile_spend_less(sy__source *self) {
    tile_source *s = (tile_source *)self;
    for (uint32_t i = 0; i < s->workers_made; i++) sy__hevc_decoder_keep_warm(s->workers[i].decoder, 0);
}

static sy_status workers_create(tile_source *s, uint32_t count, const uint8_t *hvcc, size_t hvcc_len,
                                sy_error *err) {
    sy_context *ctx = s->ctx;
    const sy__heif_geometry *g = &s->g;
    s->workers = sy__calloc(ctx, count, sizeof *s->workers, "heif tile workers", err);
    if (!s->workers) return err ? err->code : SY_E_BUDGET;
    for (; s->workers_made < count; s->workers_made++) {
        tile_worker *w = &s->workers[s->workers_made];
        sy_status st = sy__hevc_decoder_create(ctx, hvcc, hvcc_len, &w->decoder, err);
        if (st != SY_OK) return st;
        /* Every worker decodes tile after tile: one libavcodec context each,
         * kept (its memory is within worker_bytes, planned for every worker)
         * when the budget allows it (s->warm), unless the reader asks the
         * source to spend less. */
        sy__hevc_decoder_keep_warm(w->decoder, s->warm);
        if (s->planar)
            w->box_row = sy__alloc(ctx, SY__MAX(g->tile_width, g->tile_height) / s->k + 1, sizeof *w->box_row,
                                   "heif box row", err);
        else
            w->tile_row = sy__alloc(ctx, g->tile_width, 3, "heif tile row", err);
        if (s->planar ? !w->box_row : !w->tile_row) {
            s->workers_made++; /* so close frees what this one got */
            return err ? err->code : SY_E_BUDGET;
        }
    }
    s->worker_count = s->workers_made;
    return SY_OK;
}

sy_status sy__heif_source_open(sy_context *ctx, const char *path, uint32_t min_width, uint32_t min_height,
                               const sy__source_means *means, sy__source **out, sy_error *err) {
    *out = NULL;
    tile_source *s = sy__calloc(ctx, 1, sizeof *s, "heif tile source", err);
    if (!s) return err ? err->code : SY_E_BUDGET;
    s->ctx = ctx;
    snprintf(s->path, sizeof s->path, "%s", path);
    s->base.read_rows = tile_read_rows;
    s->base.skip_rows = tile_skip_rows;
    s->base.close = tile_close;
    s->base.spend_less = tile_spend_less;
    s->base.pixels = SY__PIX_YCC;
    sy_status st = sy_heif_open(ctx, path, &s->file, err);
    if (st == SY_OK) st = sy__heif_geometry_read(s->file, path, sy_heif_primary_id(s->file), &s->g, err);
    if (st == SY_E_UNSUPPORTED) {
        uint32_t coding = s->g.coding;
        sy_cicp hdr; /* an HDR AV1 picture: tone-mapped as an HDR HEVC one */
        int is_hdr = s->file && sy__heif_av1_signal(s->file, sy_heif_primary_id(s->file), &hdr);
        tile_close(&s->base);
        st = sy__libheif_source_open(ctx, path, is_hdr ? &hdr : NULL, out, err);
        return coding ? fallback_failed(path, coding, st, err) : st;
    }
    if (st != SY_OK) goto fail;
    /* A thumbnail that covers the need is the cheaper correct source. */
    uint32_t item = sy__heif_pick_item(s->file, path, &s->g, min_width, min_height);
    if (item != s->g.item) {
        uint8_t primary_turned = s->g.orientation >= 5;
        if ((st = sy__heif_geometry_read(s->file, path, item, &s->g, err)) != SY_OK) goto fail;
        if (primary_turned != (s->g.orientation >= 5)) { /* the need, in the thumbnail's stored orientation */
            uint32_t t = min_width;
            min_width = min_height, min_height = t;
        }
    }
    const sy__heif_geometry *g = &s->g;
    s->to_rgb = sy__heif_geometry_is_hdr(g);
    if (s->to_rgb) s->base.pixels = SY__PIX_RGB;
    /* Largest power-of-two box (<= 16, so 16-bit sums cannot overflow) that still covers the need. */
    s->k = 1;
    while (s->k < 16 && (g->width + 2 * s->k - 1) / (2 * s->k) >= min_width &&
           (g->height + 2 * s->k - 1) / (2 * s->k) >= min_height)
        s->k *= 2, s->k_shift++;
    size_t hvcc_len = 0;
    const uint8_t *hvcc = sy_heif_hvcc(s->file, g->tiles[0], &hvcc_len);
    if (!hvcc) {
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: tile has no hvcC", path);
        goto fail;
    }
    if (transpose_pays(s, hvcc, hvcc_len)) {
        s->stored = s->g;
        transpose_geometry(&s->g);
        s->transposed = 1;
    }
    s->base.width = (g->width + s->k - 1) / s->k;
    s->base.height = (g->height + s->k - 1) / s->k;
    s->base.orientation = g->orientation;
    plan_ring(s, hvcc, hvcc_len);
    size_t ring_bytes = ring_plan_bytes(s);
    uint8_t chroma = 1, bits = 8;
    if (!hvcc_format(hvcc, hvcc_len, &chroma, &bits)) chroma = 1, bits = 8;
    size_t worker_bytes = tile_worker_bytes(g, chroma, bits);
    uint32_t workers = plan_workers(g, means, ring_bytes, worker_bytes);
    /* Helpers decode the next tile row while this one is read when the ring
     * for two tile rows fits too. */
    if (workers > 1 && g->rows > 1 && 2 * ring_bytes + workers * worker_bytes <= means->working_bytes) {
        s->overlap = 1;
        plan_ring(s, hvcc, hvcc_len);
        ring_bytes = ring_plan_bytes(s);
    }
    if (workers > 1) {
        if (pthread_mutex_init(&s->lock, NULL) != 0) workers = 1;
        else s->lock_ready = 1;
    }
    /* Warm only when the context's budget holds the means the plan assumed:
     * under a tighter budget a kept context's charge makes refusals land on
     * the reader's own rows (the renderer's), where the fallback to one
     * worker cannot help, instead of on a tile decode, where it does — a long
     * image at a budget between the one- and two-worker peaks went grey whole. */
    s->warm = means ? sy__headroom(ctx) >= means->working_bytes : sy__headroom(ctx) == SIZE_MAX;
    if ((st = workers_create(s, workers, hvcc, hvcc_len, err)) != SY_OK) goto fail;
    int ring_ok = 1;
    if (s->planar) {
        for (uint32_t p = 0; p < s->plane_count; p++) {
            ring_plane *rp = &s->planes[p];
            ring_ok = ring_ok && (rp->samples = sy__alloc(ctx, rp->rows, rp->stride, "heif plane rows", err)) != NULL;
        }
        if (s->plane_count == 3)
            ring_ok = ring_ok && (s->chroma_rows = sy__alloc(ctx, 4, s->planes[1].stride, "heif chroma rows", err)) != NULL;
    } else {
        ring_ok = (s->sums = sy__calloc(ctx, (size_t)s->ring_rows * s->base.width * 3, sizeof *s->sums,
                                        "heif row sums", err)) != NULL;
    }
    s->row_weight = sy__calloc(ctx, s->ring_rows, 1, "heif row weights", err);
    s->column_done = sy__calloc(ctx, g->columns, 1, "heif tile columns", err);
    if (!ring_ok || !s->row_weight || !s->column_done) {
        st = err ? err->code : SY_E_BUDGET;
        goto fail;
    }
    /* What the source needs: its ring and one tile in decode (more workers are
     * taken only within means->working_bytes). The decoder charges its own
     * state and picture to the context while it decodes. */
    s->base.working_bytes = ring_bytes + worker_bytes;
    *out = &s->base;
    return SY_OK;
fail:
    tile_close(&s->base);
    return st;
}
