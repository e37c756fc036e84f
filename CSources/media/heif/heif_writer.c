/* heif_writer.c — HEIC writer: grid of x265 tiles, Exif/XMP items, ICC/nclx,
 * auxiliary images (see sy_heif_writer.h for the file layout).
 *
 * Flow: rows arrive top to bottom and are converted into one tile row of
 * YCbCr samples (4:2:0, edge columns/rows replicated up to the tile grid);
 * when that row of tiles is full its tiles are handed to x265 (intra only; one
 * encoder per core, tiles dealt in turn: sy_heif_tile_lanes.h), and finished
 * tile bitstreams are appended, in tile order, to an
 * unlinked spool file in the destination folder. Auxiliary images are encoded
 * whole when added, into the same spool. finish() writes ftyp + meta (built in
 * memory with sy_bmff_writer) + mdat to a temporary file beside the target
 * (sy__output), copying the spool behind the metadata, and renames it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sy_cicp.h"
#include "base/sy_icc.h"
#include "base/sy_internal.h"
#include "base/sy_rgb_to_ycbcr.h"
#include "base/sy_output.h"
#include "hevc/sy_hevc_encoder.h"
#include "bmff/sy_bmff.h"
#include "heif/sy_heif_tile_lanes.h"
#include "heif/sy_heif_writer.h"

/* The default encoder, measured (docs/heic-quality.md): preset ultrafast with
 * a 32x32 smallest CU — every other preset searches 8x8 CUs at 2.5-3x the
 * CPU; ultrafast's own 16x16 costs 1.4-1.6x the CPU of 32x32 for 2-6 %
 * fewer bytes at 0.1-0.2 dB more, which a re-save does not need; and RD
 * level 1 instead of ultrafast's 2 (three intra candidates measured in full,
 * not four): 5 % less CPU for the save, the same bytes per pixel and PSNR
 * to 0.01 dB on the real iPhone crops. A preset named by the caller is
 * x265's own. */
#define HW_DEFAULT_PRESET "ultrafast"
#define HW_DEFAULT_MIN_CU 32u
#define HW_DEFAULT_RD 1u
#define HW_SINGLE_MAX 4096u   /* a larger thumbnail becomes a grid (other images: past one tile) */
#define HW_MIN_PICTURE 64u    /* x265 cannot encode pictures smaller than one 64 px CTU */
#define HW_MAX_ITEMS 65000u   /* 16-bit item IDs (iinf/iloc/iref/ipma version 0/1) */
/* Fewer tiles than this go to one encoder: x265's rate control gives each
 * encoder's first picture less quality (measured at q95: 4 tiles on two
 * encoders 0.65 dB under one, 12 tiles 0.4 dB; 48 tiles level), which a
 * photo of a few tiles would show, and its encode is short anyway. */
#define HW_MIN_TILES_FOR_LANES 16u

/* ---- pieces ---- */

typedef struct hw_rows { /* one tile row of samples being filled */
    uint32_t width, padded_w, tile_h, channels;
    uint8_t *plane[3];
    size_t stride[3];
    uint8_t *even_rgb; /* the last even row, waiting for its odd partner (4:2:0 chroma) */
    uint32_t filled;
} hw_rows;

typedef struct sy_heif_writer sy_heif_writer;

typedef struct hw_image {
    sy_heif_writer *owner;
    uint32_t width, height, channels;
    uint32_t tile_w, tile_h, cols, rows;
    int grid;
    char *urn;                   /* auxiliary type, NULL for the primary, a thumbnail and a tmap-only map */
    int thumb;                   /* a 'thmb' thumbnail of the primary (kept in aux[], not hidden, no auxC) */
    int tmap_only;               /* a gain map only the 'tmap' item uses (hidden, no auxC, no auxl) */
    uint8_t *hvcc;
    size_t hvcc_len;
    uint64_t *tile_offset;       /* in the spool */
    uint32_t *tile_length;
    uint32_t tiles_done;
    uint8_t *xmp;                /* auxiliary images' own XMP */
    size_t xmp_len;
    uint32_t id, first_tile_id;  /* assigned by finish */
} hw_image;

struct sy_heif_writer {
    sy_context *ctx;
    sy_heif_writer_options opts;
    char *preset;
    uint32_t min_cu_size; /* HW_DEFAULT_MIN_CU with the default preset, else 0 (the preset's) */
    uint32_t rd_level;    /* HW_DEFAULT_RD with the default preset, else 0 (the preset's) */
    char *path;
    FILE *spool;
    uint64_t spool_len;
    sy__ycbcr_matrix matrix;
    hw_image primary;
    hw_image aux[SY_HEIF_WRITER_MAX_AUXILIARY];
    uint32_t aux_count;
    sy__tile_lanes *encoder;   /* primary tiles; NULL once all rows are encoded */
    hw_rows rows[2];           /* one filled while x265 encodes the other (one when a tile row is all) */
    uint32_t filling;
    uint32_t rows_in;
    uint8_t *exif, *xmp, *icc;
    size_t exif_len, xmp_len, icc_len;
    uint32_t exif_tiff_offset;
    uint8_t *tmap;             /* ISO 21496-1 payload of the 'tmap' item, or NULL */
    size_t tmap_len;
    uint32_t tmap_aux;         /* the auxiliary image it uses as gain map */
    uint32_t tmap_id;          /* assigned by finish */
    int failed, finished;
};

static sy_status fail_state(sy_heif_writer *w, sy_status st) {
    if (st != SY_OK) w->failed = 1;
    return st;
}

/* ---- tile-row sample buffer ---- */

static sy_status rows_init(sy_context *ctx, hw_rows *r, const hw_image *img, sy_error *err) {
    memset(r, 0, sizeof *r);
    r->width = img->width;
    r->padded_w = img->tile_w * img->cols;
    r->tile_h = img->tile_h;
    r->channels = img->channels;
    size_t luma = (size_t)r->padded_w * r->tile_h, chroma = r->channels == 3 ? luma / 4 : 0;
    size_t even = r->channels == 3 ? (size_t)r->width * 3 : 0;
    uint8_t *block = sy__alloc(ctx, luma + 2 * chroma + even, 1, "HEIF tile row samples", err);
    if (!block) return err ? err->code : SY_E_BUDGET;
    r->plane[0] = block;
    r->stride[0] = r->padded_w;
    if (r->channels == 3) {
        r->plane[1] = block + luma;
        r->plane[2] = block + luma + chroma;
        r->stride[1] = r->stride[2] = r->padded_w / 2;
        r->even_rgb = block + luma + 2 * chroma;
    }
    return SY_OK;
}

static void rows_free(sy_context *ctx, hw_rows *r) {
    sy__free(ctx, r->plane[0]);
    memset(r, 0, sizeof *r);
}

/* Chroma row `cy` from two RGB rows (a == b for a lone last row), edge
 * samples replicated to the padded width. */
static void chroma_row(hw_rows *r, const sy__ycbcr_matrix *m, const uint8_t *a, const uint8_t *b, uint32_t cy) {
    uint8_t *u = r->plane[1] + cy * r->stride[1], *v = r->plane[2] + cy * r->stride[2];
    uint32_t cw = (r->width + 1) / 2;
    sy__rgb_to_chroma420_row(m, a, b, r->width, u, v);
    uint32_t pw = r->padded_w / 2;
    if (pw > cw) {
        memset(u + cw, u[cw - 1], pw - cw);
        memset(v + cw, v[cw - 1], pw - cw);
    }
}

static void rows_put(hw_rows *r, const sy__ycbcr_matrix *m, const uint8_t *src) {
    uint32_t y = r->filled++;
    uint8_t *dst = r->plane[0] + y * r->stride[0];
    if (r->channels == 1) {
        memcpy(dst, src, r->width);
    } else {
        sy__rgb_to_luma_row(m, src, r->width, dst);
        if ((y & 1) == 0)
            memcpy(r->even_rgb, src, (size_t)r->width * 3);
        else
            chroma_row(r, m, r->even_rgb, src, y / 2);
    }
    if (r->padded_w > r->width) memset(dst + r->width, dst[r->width - 1], r->padded_w - r->width);
}

/* Completes a partly filled tile row: chroma of a lone last row, then the
 * last luma/chroma rows replicated down to the tile height. */
static void rows_close(hw_rows *r, const sy__ycbcr_matrix *m) {
    if (r->channels == 3 && (r->filled & 1)) chroma_row(r, m, r->even_rgb, r->even_rgb, r->filled / 2);
    for (uint32_t y = r->filled; y < r->tile_h; y++)
        memcpy(r->plane[0] + y * r->stride[0], r->plane[0] + (r->filled - 1) * r->stride[0], r->padded_w);
    if (r->channels == 3) {
        uint32_t have = (r->filled + 1) / 2;
        for (uint32_t cy = have; cy < r->tile_h / 2; cy++)
            for (int p = 1; p < 3; p++)
                memcpy(r->plane[p] + cy * r->stride[p], r->plane[p] + (have - 1) * r->stride[p], r->padded_w / 2);
    }
}

/* ---- images and the spool ---- */

static uint32_t round_up8(uint32_t v) { return (v + 7) & ~7u; }

/* Chooses single item vs grid and the tile size; allocates the tile table. */
static sy_status image_init(sy_heif_writer *w, hw_image *img, uint32_t width, uint32_t height, uint32_t channels,
                            int force_grid, uint32_t items_used, sy_error *err) {
    memset(img, 0, sizeof *img);
    img->owner = w;
    img->width = width;
    img->height = height;
    img->channels = channels;
    int single = !force_grid && width >= HW_MIN_PICTURE && height >= HW_MIN_PICTURE && width <= HW_SINGLE_MAX &&
                 height <= HW_SINGLE_MAX && (channels == 1 || ((width | height) & 1) == 0);
    if (single) {
        img->tile_w = width;
        img->tile_h = height;
        img->cols = img->rows = 1;
    } else {
        uint32_t tw = w->opts.tile_size, th = w->opts.tile_height ? w->opts.tile_height : tw;
        img->grid = 1;
        img->tile_w = SY__MIN(tw, SY__MAX(HW_MIN_PICTURE, round_up8(width)));
        img->tile_h = SY__MIN(th, SY__MAX(HW_MIN_PICTURE, round_up8(height)));
        img->cols = (width + img->tile_w - 1) / img->tile_w;
        img->rows = (height + img->tile_h - 1) / img->tile_h;
        if (img->cols > 256 || img->rows > 256)
            return sy__fail(err, SY_E_UNSUPPORTED,
                            "sy_heif_writer: %ux%u needs a %ux%u grid of %ux%u tiles (at most 256x256)", width, height,
                            img->cols, img->rows, img->tile_w, img->tile_h);
    }
    uint32_t tiles = img->cols * img->rows;
    if (items_used + tiles + (img->grid ? 1 : 0) + 4 > HW_MAX_ITEMS)
        return sy__fail(err, SY_E_UNSUPPORTED, "sy_heif_writer: more than %u items", HW_MAX_ITEMS);
    img->tile_offset = sy__calloc(w->ctx, tiles, sizeof *img->tile_offset, "HEIF tile offsets", err);
    img->tile_length = sy__calloc(w->ctx, tiles, sizeof *img->tile_length, "HEIF tile lengths", err);
    if (!img->tile_offset || !img->tile_length) return err ? err->code : SY_E_BUDGET;
    return SY_OK;
}

static void image_free(sy_context *ctx, hw_image *img) {
    sy__free(ctx, img->urn);
    sy__free(ctx, img->hvcc);
    sy__free(ctx, img->tile_offset);
    sy__free(ctx, img->tile_length);
    sy__free(ctx, img->xmp);
    memset(img, 0, sizeof *img);
}

static uint32_t image_items(const hw_image *img) { return img->cols * img->rows + (img->grid ? 1 : 0); }

/* Encoder sink: appends a finished tile (pts = its index) to the spool. */
static sy_status spool_tile(void *user, const sy__hevc_packet *tile, sy_error *err) {
    hw_image *img = user;
    sy_heif_writer *w = img->owner;
    if (tile->pts < 0 || tile->pts >= (int64_t)img->cols * img->rows || img->tile_length[tile->pts] != 0)
        return sy__fail(err, SY_E_CODEC, "sy_heif_writer: x265 returned tile %lld twice or out of range",
                        (long long)tile->pts);
    uint32_t index = (uint32_t)tile->pts;
    const uint8_t *data = tile->data;
    size_t len = tile->len;
    if (len > UINT32_MAX) return sy__fail(err, SY_E_UNSUPPORTED, "sy_heif_writer: tile of %zu bytes", len);
    if (fwrite(data, 1, len, w->spool) != len) {
        int e = errno;
        return sy__fail_sub(err, SY_E_IO, e, "%s: writing the tile spool failed: %s", w->path, strerror(e));
    }
    img->tile_offset[index] = w->spool_len;
    img->tile_length[index] = (uint32_t)len;
    w->spool_len += len;
    img->tiles_done++;
    return SY_OK;
}

/* An unlinked temporary file in the destination folder (keeps memory flat and
 * leaves nothing behind, whatever happens). */
static sy_status spool_open(sy_heif_writer *w, sy_error *err) {
    return sy__output_scratch(w->path, "tile spool", &w->spool, err);
}

/* One still-picture encoder for the tiles of `img`. */
/* The colour the file describes (nclx and the tiles' VUI). With a profile,
 * primaries and transfer are the profile's where it names known ones, else
 * "unspecified", so the two descriptions never contradict; matrix and range
 * stay the coding's. */
static sy_cicp described_colour(const sy_heif_writer *w) {
    sy_cicp c = {.present = 1, .primaries = w->opts.colour_primaries, .transfer = w->opts.transfer_characteristics,
                 .matrix = w->opts.matrix_coefficients, .full_range = w->opts.full_range};
    if (!w->icc) return c;
    uint16_t primaries = sy__icc_primaries(w->icc, w->icc_len), transfer = sy__icc_transfer(w->icc, w->icc_len);
    c.primaries = primaries ? primaries : SY_CICP_UNSPECIFIED;
    c.transfer = transfer ? transfer : SY_CICP_UNSPECIFIED;
    return c;
}

/* Lanes (encoders) for the tiles of `img`: as many as the options say when
 * the image has enough tiles, else one. */
static sy_status encoder_open(sy_heif_writer *w, hw_image *img, sy__tile_lanes **out, sy_error *err) {
    sy__hevc_encoder_options o;
    memset(&o, 0, sizeof o);
    o.use = SY__HEVC_STILLS;
    o.width = img->tile_w;
    o.height = img->tile_h;
    o.monochrome = img->channels == 1;
    o.still.quality = w->opts.quality;
    o.still.pictures = img->cols * img->rows;
    o.threads = w->opts.threads;
    o.preset = w->preset;
    o.still.min_cu_size = w->min_cu_size;
    o.still.rd_level = w->rd_level;
    o.colour = described_colour(w);
    uint32_t lanes = o.still.pictures >= HW_MIN_TILES_FOR_LANES ? w->opts.encoders : 1;
    return sy__tile_lanes_open(w->ctx, &o, lanes, spool_tile, img, out, err);
}

static sy_status copy_hvcc(sy_heif_writer *w, hw_image *img, const sy__tile_lanes *enc, sy_error *err) {
    size_t len;
    const uint8_t *h = sy__tile_lanes_hvcc(enc, &len);
    img->hvcc = sy__alloc(w->ctx, len, 1, "hvcC", err);
    if (!img->hvcc) return err ? err->code : SY_E_BUDGET;
    memcpy(img->hvcc, h, len);
    img->hvcc_len = len;
    return SY_OK;
}

/* Hands the (closed) tile row `tile_row` to the lanes and waits until the
 * other buffer's row is done (with one buffer, this row), so it can be
 * refilled while the lanes encode this one. */
static sy_status encode_tile_row(sy_heif_writer *w, hw_image *img, sy__tile_lanes *enc, hw_rows *r, uint32_t tile_row,
                                 int two_buffers, uint32_t *done, uint32_t total, sy_error *err) {
    uint8_t *planes[3] = {r->plane[0], img->channels == 3 ? r->plane[1] : NULL, img->channels == 3 ? r->plane[2] : NULL};
    sy__tile_lanes_start_row(enc, planes, r->stride, img->cols, img->tile_w, (int64_t)tile_row * img->cols);
    sy_status st = sy__tile_lanes_finish_rows(enc, two_buffers ? 1 : 0, err);
    if (st != SY_OK) return st;
    *done = (tile_row + (two_buffers ? 0 : 1)) * img->cols;
    sy__progress(w->ctx, "heif tiles", *done, total);
    return SY_OK;
}

static uint32_t items_so_far(const sy_heif_writer *w) {
    uint32_t n = image_items(&w->primary) + (w->tmap ? 1 : 0);
    for (uint32_t i = 0; i < w->aux_count; i++) n += image_items(&w->aux[i]) + 1;
    return n;
}

/* ---- public API: create, rows, metadata, auxiliary ---- */

void sy_heif_writer_options_init(sy_heif_writer_options *opts) {
    if (!opts) return;
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
    opts->quality = 90;
    opts->tile_size = 512;
    opts->chroma = 420;
    opts->write_nclx = 1;
    opts->colour_primaries = 1;
    opts->transfer_characteristics = 13;
    opts->matrix_coefficients = 6;
    opts->full_range = 1;
    opts->mirror = -1;
    opts->encoders = 2;
}

static char *copy_string(sy_context *ctx, const char *s, const char *reason, sy_error *err) {
    size_t n = strlen(s) + 1;
    char *p = sy__alloc(ctx, n, 1, reason, err);
    if (p) memcpy(p, s, n);
    return p;
}

sy_status sy_heif_writer_create(sy_context *ctx, const char *path, const sy_heif_writer_options *opts,
                                sy_heif_writer **out, sy_error *err) {
    if (!out) return sy__fail(err, SY_E_USAGE, "sy_heif_writer_create: out is NULL");
    *out = NULL;
    if (!ctx || !path || !*path || !opts)
        return sy__fail(err, SY_E_USAGE, "sy_heif_writer_create: ctx, path and options are required");
    const sy_heif_writer_options *o = opts;
    if (o->version != 1)
        return sy__fail(err, SY_E_USAGE, "sy_heif_writer_create: options version %u (expected 1)", o->version);
    if (o->width < 1 || o->height < 1 || o->width > 65535 || o->height > 65535)
        return sy__fail(err, SY_E_USAGE, "sy_heif_writer_create: size %ux%u outside 1..65535", o->width, o->height);
    if (o->quality < 1 || o->quality > 100)
        return sy__fail(err, SY_E_USAGE, "sy_heif_writer_create: quality %d outside 1..100", (int)o->quality);
    if (o->tile_size < 64 || o->tile_size > 4096 || (o->tile_size & 7))
        return sy__fail(err, SY_E_USAGE, "sy_heif_writer_create: tile_size %u (multiple of 8 in 64..4096)",
                        o->tile_size);
    if (o->tile_height && (o->tile_height < 64 || o->tile_height > 4096 || (o->tile_height & 7)))
        return sy__fail(err, SY_E_USAGE, "sy_heif_writer_create: tile_height %u (0, or a multiple of 8 in 64..4096)",
                        o->tile_height);
    if (o->encoders < 1 || o->encoders > SY__TILE_LANES_MAX)
        return sy__fail(err, SY_E_USAGE, "sy_heif_writer_create: %u encoders (1..%u)", o->encoders, SY__TILE_LANES_MAX);
    if (o->chroma != 420)
        return sy__fail(err, SY_E_UNSUPPORTED, "sy_heif_writer_create: chroma %u (only 420)", o->chroma);
    if (o->colour_primaries > 255 || o->transfer_characteristics > 255 || o->matrix_coefficients > 255 ||
        o->full_range > 1)
        return sy__fail(err, SY_E_USAGE, "sy_heif_writer_create: nclx %u/%u/%u/%u out of range", o->colour_primaries,
                        o->transfer_characteristics, o->matrix_coefficients, o->full_range);
    sy__ycbcr_matrix matrix;
    if (!sy__ycbcr_matrix_init(&matrix, o->matrix_coefficients, o->full_range))
        return sy__fail(err, SY_E_UNSUPPORTED, "sy_heif_writer_create: matrix_coefficients %u (1, 5, 6 or 9)",
                        o->matrix_coefficients);

    sy_heif_writer *w = sy__calloc(ctx, 1, sizeof *w, "HEIF writer", err);
    if (!w) return err ? err->code : SY_E_BUDGET;
    w->ctx = ctx;
    w->opts = *o;
    w->opts.x265_preset = NULL;
    w->matrix = matrix;
    sy_status st = SY_OK;
    w->path = copy_string(ctx, path, "HEIF output path", err);
    w->preset = copy_string(ctx, o->x265_preset ? o->x265_preset : HW_DEFAULT_PRESET, "x265 preset", err);
    w->min_cu_size = o->x265_preset ? 0 : HW_DEFAULT_MIN_CU;
    w->rd_level = o->x265_preset ? 0 : HW_DEFAULT_RD;
    if (!w->path || !w->preset) {
        st = err ? err->code : SY_E_BUDGET;
        goto fail;
    }
    if ((st = image_init(w, &w->primary, o->width, o->height, 3, 1, 0, err)) != SY_OK) goto fail;
    if ((st = spool_open(w, err)) != SY_OK) goto fail;
    if ((st = rows_init(ctx, &w->rows[0], &w->primary, err)) != SY_OK) goto fail;
    if (w->primary.rows > 1 && (st = rows_init(ctx, &w->rows[1], &w->primary, err)) != SY_OK) goto fail;
    if ((st = encoder_open(w, &w->primary, &w->encoder, err)) != SY_OK) goto fail;
    if ((st = copy_hvcc(w, &w->primary, w->encoder, err)) != SY_OK) goto fail;
    *out = w;
    return SY_OK;
fail:
    sy_heif_writer_destroy(w);
    return st;
}

static sy_status check_usable(const sy_heif_writer *w, const char *fn, sy_error *err) {
    if (!w) return sy__fail(err, SY_E_USAGE, "%s: writer is NULL", fn);
    if (w->failed) return sy__fail(err, SY_E_USAGE, "%s: the writer failed earlier", fn);
    if (w->finished) return sy__fail(err, SY_E_USAGE, "%s: the writer is already finished", fn);
    return SY_OK;
}

sy_status sy_heif_writer_write_rows(sy_heif_writer *w, const uint8_t *const *rgb_rows, uint32_t count, sy_error *err) {
    sy_status st = check_usable(w, "sy_heif_writer_write_rows", err);
    if (st != SY_OK) return st;
    if (count == 0) return SY_OK;
    if (!rgb_rows) return sy__fail(err, SY_E_USAGE, "sy_heif_writer_write_rows: rows is NULL");
    hw_image *img = &w->primary;
    if (count > img->height - w->rows_in)
        return sy__fail(err, SY_E_USAGE, "sy_heif_writer_write_rows: %u rows after %u of %u", count, w->rows_in,
                        img->height);
    uint32_t total = img->cols * img->rows;
    for (uint32_t i = 0; i < count; i++) {
        if (!rgb_rows[i]) return fail_state(w, sy__fail(err, SY_E_USAGE, "sy_heif_writer_write_rows: row %u is NULL", i));
        hw_rows *r = &w->rows[w->filling];
        rows_put(r, &w->matrix, rgb_rows[i]);
        w->rows_in++;
        int last = w->rows_in == img->height;
        if (r->filled == r->tile_h || last) {
            rows_close(r, &w->matrix);
            uint32_t tile_row = (w->rows_in - 1) / img->tile_h;
            uint8_t *planes[3] = {r->plane[0], r->plane[1], r->plane[2]};
            sy__tile_lanes_start_row(w->encoder, planes, r->stride, img->cols, img->tile_w,
                                     (int64_t)tile_row * img->cols);
            /* the buffer filled next must be done with: the row before (or this one, with one buffer) */
            int two = w->rows[1].plane[0] != NULL;
            if ((st = sy__tile_lanes_finish_rows(w->encoder, two ? 1 : 0, err)) != SY_OK) return fail_state(w, st);
            sy__progress(w->ctx, "heif tiles", tile_row * img->cols, total);
            r->filled = 0;
            w->filling = two ? 1 - w->filling : 0;
        }
        if (last) { /* drain x265 and give its memory back before finish */
            st = sy__tile_lanes_flush(w->encoder, err);
            sy__tile_lanes_destroy(w->encoder);
            w->encoder = NULL;
            rows_free(w->ctx, &w->rows[0]);
            rows_free(w->ctx, &w->rows[1]);
            if (st == SY_OK && img->tiles_done != total)
                st = sy__fail(err, SY_E_CODEC, "sy_heif_writer: x265 returned %u of %u tiles", img->tiles_done, total);
            if (st != SY_OK) return fail_state(w, st);
            sy__progress(w->ctx, "heif tiles", total, total);
        }
    }
    return SY_OK;
}

static sy_status copy_blob(sy_heif_writer *w, uint8_t **dst, size_t *dst_len, const uint8_t *src, size_t len,
                           const char *fn, sy_error *err) {
    if (!src || len == 0) return sy__fail(err, SY_E_USAGE, "%s: empty data", fn);
    if (len > UINT32_MAX - 16) return sy__fail(err, SY_E_UNSUPPORTED, "%s: %zu bytes is too large", fn, len);
    uint8_t *p = sy__alloc(w->ctx, len, 1, fn, err);
    if (!p) return err ? err->code : SY_E_BUDGET;
    memcpy(p, src, len);
    sy__free(w->ctx, *dst);
    *dst = p;
    *dst_len = len;
    return SY_OK;
}

sy_status sy_heif_writer_set_exif(sy_heif_writer *w, const uint8_t *tiff, size_t len, sy_error *err) {
    sy_status st = check_usable(w, "sy_heif_writer_set_exif", err);
    if (st != SY_OK) return st;
    uint32_t offset = 0;
    if (tiff && len >= 6 && memcmp(tiff, "Exif\0\0", 6) == 0) offset = 6;
    if (!tiff || len < offset + 8 ||
        (memcmp(tiff + offset, "II*\0", 4) != 0 && memcmp(tiff + offset, "MM\0*", 4) != 0))
        return sy__fail(err, SY_E_INVALID_INPUT, "sy_heif_writer_set_exif: %zu bytes without a TIFF header", len);
    st = copy_blob(w, &w->exif, &w->exif_len, tiff, len, "sy_heif_writer_set_exif", err);
    if (st == SY_OK) w->exif_tiff_offset = offset;
    return st;
}

sy_status sy_heif_writer_set_xmp(sy_heif_writer *w, const uint8_t *xml, size_t len, sy_error *err) {
    sy_status st = check_usable(w, "sy_heif_writer_set_xmp", err);
    if (st != SY_OK) return st;
    return copy_blob(w, &w->xmp, &w->xmp_len, xml, len, "sy_heif_writer_set_xmp", err);
}

sy_status sy_heif_writer_set_icc(sy_heif_writer *w, const uint8_t *icc, size_t len, sy_error *err) {
    sy_status st = check_usable(w, "sy_heif_writer_set_icc", err);
    if (st != SY_OK) return st;
    if (w->rows_in) /* the tiles' VUI already named the primaries */
        return sy__fail(err, SY_E_USAGE, "sy_heif_writer_set_icc: set the profile before the first row");
    if (icc && len < 128)
        return sy__fail(err, SY_E_INVALID_INPUT, "sy_heif_writer_set_icc: %zu bytes is shorter than an ICC header",
                        len);
    return copy_blob(w, &w->icc, &w->icc_len, icc, len, "sy_heif_writer_set_icc", err);
}

sy_status sy_heif_writer_set_auxiliary_xmp(sy_heif_writer *w, uint32_t index, const uint8_t *xml, size_t len,
                                           sy_error *err) {
    sy_status st = check_usable(w, "sy_heif_writer_set_auxiliary_xmp", err);
    if (st != SY_OK) return st;
    if (index >= w->aux_count)
        return sy__fail(err, SY_E_USAGE, "sy_heif_writer_set_auxiliary_xmp: no auxiliary image %u (%u added)", index,
                        w->aux_count);
    return copy_blob(w, &w->aux[index].xmp, &w->aux[index].xmp_len, xml, len, "sy_heif_writer_set_auxiliary_xmp",
                     err);
}

sy_status sy_heif_writer_set_tone_map(sy_heif_writer *w, uint32_t index, const uint8_t *iso, size_t len,
                                      sy_error *err) {
    sy_status st = check_usable(w, "sy_heif_writer_set_tone_map", err);
    if (st != SY_OK) return st;
    if (index >= w->aux_count)
        return sy__fail(err, SY_E_USAGE, "sy_heif_writer_set_tone_map: no auxiliary image %u (%u added)", index,
                        w->aux_count);
    if (w->aux[index].thumb)
        return sy__fail(err, SY_E_USAGE, "sy_heif_writer_set_tone_map: image %u is the thumbnail", index);
    if (!iso || len < 5 || len > 4096)
        return sy__fail(err, SY_E_USAGE, "sy_heif_writer_set_tone_map: ISO 21496-1 metadata of %zu bytes", len);
    w->tmap_aux = index;
    return copy_blob(w, &w->tmap, &w->tmap_len, iso, len, "sy_heif_writer_set_tone_map", err);
}

/* What an image beside the primary is. */
typedef enum { HW_AUXILIARY, HW_THUMBNAIL, HW_TMAP_ONLY } hw_role;

/* Encodes one more image beside the primary into aux[]: an auxiliary image
 * of type `urn`, the primary's thumbnail, or a gain map for the 'tmap' item alone. */
static sy_status add_image(sy_heif_writer *w, const char *fn, hw_role role, const char *urn, uint32_t width,
                           uint32_t height, uint32_t channels, const uint8_t *const *rows, uint32_t *index,
                           sy_error *err) {
    sy_status st = SY_OK;
    if (width < 1 || height < 1 || width > 65535 || height > 65535 || (channels != 1 && channels != 3))
        return sy__fail(err, SY_E_USAGE, "%s: %ux%u with %u channels (1..65535, 1 or 3 channels)", fn, width, height,
                        channels);
    if (w->aux_count >= SY_HEIF_WRITER_MAX_AUXILIARY)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: more than %u auxiliary images", fn, SY_HEIF_WRITER_MAX_AUXILIARY);
    for (uint32_t y = 0; y < height; y++)
        if (!rows[y]) return sy__fail(err, SY_E_USAGE, "%s: row %u is NULL", fn, y);

    hw_image *img = &w->aux[w->aux_count];
    hw_rows r[2]; /* one filled while the lanes encode the other (one for a single tile row) */
    memset(r, 0, sizeof r);
    sy__tile_lanes *enc = NULL;
    /* Past one tile an auxiliary image is a grid, as iPhones store their gain
     * maps: its tiles go to the encoders in turn (a 24 MP photo's map encodes
     * in half the time on two cores). A thumbnail stays one picture. */
    uint32_t tile_h = w->opts.tile_height ? w->opts.tile_height : w->opts.tile_size;
    int grid = role != HW_THUMBNAIL && (width > w->opts.tile_size || height > tile_h);
    if ((st = image_init(w, img, width, height, channels, grid, items_so_far(w), err)) != SY_OK) goto fail;
    img->thumb = role == HW_THUMBNAIL;
    img->tmap_only = role == HW_TMAP_ONLY;
    img->urn = urn ? copy_string(w->ctx, urn, "auxiliary type", err) : NULL;
    if (urn && !img->urn) {
        st = err ? err->code : SY_E_BUDGET;
        goto fail;
    }
    int two = img->rows > 1;
    if ((st = rows_init(w->ctx, &r[0], img, err)) != SY_OK) goto fail;
    if (two && (st = rows_init(w->ctx, &r[1], img, err)) != SY_OK) goto fail;
    if ((st = encoder_open(w, img, &enc, err)) != SY_OK) goto fail;
    if ((st = copy_hvcc(w, img, enc, err)) != SY_OK) goto fail;
    uint32_t total = img->cols * img->rows, done = 0;
    for (uint32_t tr = 0; tr < img->rows; tr++) {
        uint32_t y0 = tr * img->tile_h, n = SY__MIN(img->tile_h, height - y0);
        hw_rows *b = &r[two ? tr % 2 : 0];
        b->filled = 0;
        for (uint32_t y = 0; y < n; y++) rows_put(b, &w->matrix, rows[y0 + y]);
        rows_close(b, &w->matrix);
        if ((st = encode_tile_row(w, img, enc, b, tr, two, &done, total, err)) != SY_OK) goto fail;
    }
    if ((st = sy__tile_lanes_flush(enc, err)) != SY_OK) goto fail;
    if (img->tiles_done != total) {
        st = sy__fail(err, SY_E_CODEC, "%s: x265 returned %u of %u tiles", fn, img->tiles_done, total);
        goto fail;
    }
    sy__tile_lanes_destroy(enc);
    rows_free(w->ctx, &r[0]);
    rows_free(w->ctx, &r[1]);
    if (index) *index = w->aux_count;
    w->aux_count++;
    return SY_OK;
fail:
    sy__tile_lanes_destroy(enc); /* first: its lanes may still read a row */
    rows_free(w->ctx, &r[0]);
    rows_free(w->ctx, &r[1]);
    image_free(w->ctx, img);
    return fail_state(w, st);
}

sy_status sy_heif_writer_add_auxiliary(sy_heif_writer *w, const char *urn, uint32_t width, uint32_t height,
                                       uint32_t channels, const uint8_t *const *rows, uint32_t *index,
                                       sy_error *err) {
    const char *fn = "sy_heif_writer_add_auxiliary";
    sy_status st = check_usable(w, fn, err);
    if (st != SY_OK) return st;
    if (!urn || !*urn || strlen(urn) > 1000 || !rows)
        return sy__fail(err, SY_E_USAGE, "%s: a type URN (up to 1000 bytes) and rows are required", fn);
    return add_image(w, fn, HW_AUXILIARY, urn, width, height, channels, rows, index, err);
}

sy_status sy_heif_writer_add_tone_map_image(sy_heif_writer *w, uint32_t width, uint32_t height, uint32_t channels,
                                            const uint8_t *const *rows, uint32_t *index, sy_error *err) {
    const char *fn = "sy_heif_writer_add_tone_map_image";
    sy_status st = check_usable(w, fn, err);
    if (st != SY_OK) return st;
    if (!rows) return sy__fail(err, SY_E_USAGE, "%s: rows are required", fn);
    return add_image(w, fn, HW_TMAP_ONLY, NULL, width, height, channels, rows, index, err);
}

sy_status sy_heif_writer_add_thumbnail(sy_heif_writer *w, uint32_t width, uint32_t height,
                                       const uint8_t *const *rows, sy_error *err) {
    const char *fn = "sy_heif_writer_add_thumbnail";
    sy_status st = check_usable(w, fn, err);
    if (st != SY_OK) return st;
    if (!rows) return sy__fail(err, SY_E_USAGE, "%s: rows are required", fn);
    for (uint32_t i = 0; i < w->aux_count; i++)
        if (w->aux[i].thumb) return sy__fail(err, SY_E_USAGE, "%s: the primary has a thumbnail already", fn);
    return add_image(w, fn, HW_THUMBNAIL, NULL, width, height, 3, rows, NULL, err);
}

/* ---- finish: the container ---- */

enum { HW_MAX_PROPS_PER_ITEM = 8 };

typedef struct hw_item {
    uint32_t id, type;
    uint8_t hidden;
    uint8_t method;          /* iloc construction method: 0 mdat, 1 idat */
    uint64_t offset, length; /* method 0: offset inside the mdat payload; method 1: inside idat */
    const char *content_type;
    uint8_t nprops;
    uint8_t prop[HW_MAX_PROPS_PER_ITEM]; /* 1-based ipco index | 0x80 essential */
} hw_item;

typedef struct hw_props { /* ipco indices (1-based, 0 = absent) */
    uint8_t primary_hvcc, primary_tile_ispe, primary_ispe, pixi3, pixi1, nclx, prof, irot, imir;
    uint8_t aux_hvcc[SY_HEIF_WRITER_MAX_AUXILIARY], aux_ispe[SY_HEIF_WRITER_MAX_AUXILIARY],
        aux_tile_ispe[SY_HEIF_WRITER_MAX_AUXILIARY], aux_auxc[SY_HEIF_WRITER_MAX_AUXILIARY];
} hw_props;

typedef struct hw_layout {
    hw_item *items;
    uint32_t count;
    uint32_t exif_id, xmp_id, aux_xmp_id[SY_HEIF_WRITER_MAX_AUXILIARY];
    uint32_t items_total;  /* every planned item (image and metadata) */
    uint64_t mdat_payload; /* bytes of mdat after its header */
    uint64_t spool_base;   /* where the spool starts inside the mdat payload */
    uint8_t idat[SY_HEIF_WRITER_MAX_AUXILIARY * 12 + 12];
    size_t idat_len;
} hw_layout;

static void add_prop(hw_item *it, uint8_t index, int essential) {
    if (index && it->nprops < HW_MAX_PROPS_PER_ITEM) it->prop[it->nprops++] = (uint8_t)(index | (essential ? 0x80 : 0));
}

static uint32_t grid_descriptor(uint8_t *p, const hw_image *img) {
    int wide = img->width > 65535 || img->height > 65535;
    uint32_t n = 0;
    p[n++] = 0;                       /* version */
    p[n++] = (uint8_t)(wide ? 1 : 0); /* flags: 32-bit output size */
    p[n++] = (uint8_t)(img->rows - 1);
    p[n++] = (uint8_t)(img->cols - 1);
    for (int i = 0; i < 2; i++) {
        uint32_t v = i ? img->height : img->width;
        if (wide) {
            p[n++] = (uint8_t)(v >> 24);
            p[n++] = (uint8_t)(v >> 16);
        }
        p[n++] = (uint8_t)(v >> 8);
        p[n++] = (uint8_t)v;
    }
    return n;
}

/* Items of one image (grid + tiles, or the single item), IDs from *next_id. */
static void layout_image(hw_layout *L, hw_image *img, uint32_t *next_id, const hw_props *P, int aux_index) {
    const int thumb = aux_index >= 0 && img->thumb; /* shown like the primary: its colour and display transform */
    const int hidden = aux_index >= 0 && !thumb;     /* auxiliary images and a tmap-only gain map */
    const int aux = hidden && !img->tmap_only;       /* with auxC */
    uint8_t hvcc = aux_index >= 0 ? P->aux_hvcc[aux_index] : P->primary_hvcc;
    uint8_t pixi = img->channels == 1 ? P->pixi1 : P->pixi3;
    uint8_t nclx = img->channels == 3 ? P->nclx : 0;
    if (img->grid) {
        hw_item *g = &L->items[L->count++];
        memset(g, 0, sizeof *g);
        img->id = g->id = (*next_id)++;
        g->type = SY_FOURCC('g', 'r', 'i', 'd');
        g->hidden = hidden;
        g->method = 1;
        g->offset = L->idat_len;
        g->length = grid_descriptor(L->idat + L->idat_len, img);
        L->idat_len += g->length;
        add_prop(g, aux_index >= 0 ? P->aux_ispe[aux_index] : P->primary_ispe, 0);
        add_prop(g, pixi, 0);
        add_prop(g, nclx, 0);
        if (!hidden) add_prop(g, P->prof, 0);
        if (!hidden) add_prop(g, P->irot, 1), add_prop(g, P->imir, 1);
        if (aux) add_prop(g, P->aux_auxc[aux_index], 1);
    }
    img->first_tile_id = *next_id;
    uint32_t tiles = img->cols * img->rows;
    for (uint32_t t = 0; t < tiles; t++) {
        hw_item *it = &L->items[L->count++];
        memset(it, 0, sizeof *it);
        it->id = (*next_id)++;
        if (!img->grid) img->id = it->id;
        it->type = SY_FOURCC('h', 'v', 'c', '1');
        it->hidden = img->grid || hidden;
        it->method = 0;
        it->offset = L->spool_base + img->tile_offset[t];
        it->length = img->tile_length[t];
        add_prop(it, hvcc, 1);
        add_prop(it, img->grid ? (aux_index >= 0 ? P->aux_tile_ispe[aux_index] : P->primary_tile_ispe)
                               : P->aux_ispe[aux_index],
                 0);
        add_prop(it, pixi, 0);
        if (!img->grid) {
            add_prop(it, nclx, 0);
            if (aux) add_prop(it, P->aux_auxc[aux_index], 1);
            else if (!hidden) add_prop(it, P->prof, 0), add_prop(it, P->irot, 1), add_prop(it, P->imir, 1);
        }
    }
}

/* The 'tmap' item (an image item: it takes properties, so it follows the
 * image items): its data, u8 version 0 + the ISO payload, leads the mdat. */
static void layout_tmap(hw_layout *L, sy_heif_writer *w, uint32_t *next_id, const hw_props *P) {
    if (!w->tmap) return;
    hw_item *it = &L->items[L->count++];
    memset(it, 0, sizeof *it);
    w->tmap_id = it->id = (*next_id)++;
    it->type = SY_FOURCC('t', 'm', 'a', 'p');
    it->offset = 0;
    it->length = 1 + w->tmap_len;
    add_prop(it, P->primary_ispe, 0); /* the HDR rendition has the base's size and display transform */
    add_prop(it, P->pixi3, 0);
    add_prop(it, P->irot, 1), add_prop(it, P->imir, 1);
}

static sy_status put_ispe(sy_bmff_writer *b, uint32_t width, uint32_t height, uint8_t *index, uint8_t *count,
                          sy_error *err) {
    sy_status st = sy_bmff_writer_begin(b, SY_FOURCC('i', 's', 'p', 'e'), 0, 0, err);
    if (st == SY_OK) st = sy_bmff_writer_u32(b, width, err);
    if (st == SY_OK) st = sy_bmff_writer_u32(b, height, err);
    if (st == SY_OK) st = sy_bmff_writer_end(b, err);
    if (st == SY_OK) *index = ++*count;
    return st;
}

static sy_status put_pixi(sy_bmff_writer *b, uint8_t channels, uint8_t *index, uint8_t *count, sy_error *err) {
    sy_status st = sy_bmff_writer_begin(b, SY_FOURCC('p', 'i', 'x', 'i'), 0, 0, err);
    if (st == SY_OK) st = sy_bmff_writer_u8(b, channels, err);
    for (uint8_t c = 0; c < channels && st == SY_OK; c++) st = sy_bmff_writer_u8(b, 8, err);
    if (st == SY_OK) st = sy_bmff_writer_end(b, err);
    if (st == SY_OK) *index = ++*count;
    return st;
}

static sy_status put_blob_box(sy_bmff_writer *b, uint32_t type, const void *data, size_t len, uint8_t *index,
                              uint8_t *count, sy_error *err) {
    sy_status st = sy_bmff_writer_begin(b, type, -1, 0, err);
    if (st == SY_OK) st = sy_bmff_writer_bytes(b, data, len, err);
    if (st == SY_OK) st = sy_bmff_writer_end(b, err);
    if (st == SY_OK) *index = ++*count;
    return st;
}

#define TRY(x)                                                                                                         \
    do {                                                                                                               \
        if ((st = (x)) != SY_OK) return st;                                                                            \
    } while (0)

/* The ipco box; fills the property indices. */
static sy_status put_ipco(sy_heif_writer *w, sy_bmff_writer *b, hw_props *P, sy_error *err) {
    sy_status st;
    uint8_t n = 0;
    memset(P, 0, sizeof *P);
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'p', 'c', 'o'), -1, 0, err));
    TRY(put_blob_box(b, SY_FOURCC('h', 'v', 'c', 'C'), w->primary.hvcc, w->primary.hvcc_len, &P->primary_hvcc, &n, err));
    TRY(put_ispe(b, w->primary.tile_w, w->primary.tile_h, &P->primary_tile_ispe, &n, err));
    TRY(put_ispe(b, w->primary.width, w->primary.height, &P->primary_ispe, &n, err));
    TRY(put_pixi(b, 3, &P->pixi3, &n, err));
    if (w->opts.write_nclx) {
        sy_cicp colour = described_colour(w);
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('c', 'o', 'l', 'r'), -1, 0, err));
        TRY(sy_bmff_writer_u32(b, SY_FOURCC('n', 'c', 'l', 'x'), err));
        TRY(sy_bmff_writer_u16(b, colour.primaries, err));
        TRY(sy_bmff_writer_u16(b, colour.transfer, err));
        TRY(sy_bmff_writer_u16(b, colour.matrix, err));
        TRY(sy_bmff_writer_u8(b, (uint8_t)(w->opts.full_range ? 0x80 : 0), err));
        TRY(sy_bmff_writer_end(b, err));
        P->nclx = ++n;
    }
    if (w->icc) {
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('c', 'o', 'l', 'r'), -1, 0, err));
        TRY(sy_bmff_writer_u32(b, SY_FOURCC('p', 'r', 'o', 'f'), err));
        TRY(sy_bmff_writer_bytes(b, w->icc, w->icc_len, err));
        TRY(sy_bmff_writer_end(b, err));
        P->prof = ++n;
    }
    if (w->opts.rotation & 3) { /* irot: 6 reserved bits + 2-bit angle (a plain box) */
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'r', 'o', 't'), -1, 0, err));
        TRY(sy_bmff_writer_u8(b, (uint8_t)(w->opts.rotation & 3), err));
        TRY(sy_bmff_writer_end(b, err));
        P->irot = ++n;
    }
    if (w->opts.mirror == 0 || w->opts.mirror == 1) { /* imir: 7 reserved bits + axis */
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'm', 'i', 'r'), -1, 0, err));
        TRY(sy_bmff_writer_u8(b, (uint8_t)w->opts.mirror, err));
        TRY(sy_bmff_writer_end(b, err));
        P->imir = ++n;
    }
    for (uint32_t i = 0; i < w->aux_count; i++)
        if (w->aux[i].channels == 1) {
            TRY(put_pixi(b, 1, &P->pixi1, &n, err));
            break;
        }
    for (uint32_t i = 0; i < w->aux_count; i++) {
        const hw_image *a = &w->aux[i];
        TRY(put_blob_box(b, SY_FOURCC('h', 'v', 'c', 'C'), a->hvcc, a->hvcc_len, &P->aux_hvcc[i], &n, err));
        TRY(put_ispe(b, a->width, a->height, &P->aux_ispe[i], &n, err));
        if (a->grid) TRY(put_ispe(b, a->tile_w, a->tile_h, &P->aux_tile_ispe[i], &n, err));
        if (a->thumb || a->tmap_only) continue; /* no auxiliary images */
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('a', 'u', 'x', 'C'), 0, 0, err));
        TRY(sy_bmff_writer_bytes(b, a->urn, strlen(a->urn) + 1, err));
        TRY(sy_bmff_writer_end(b, err));
        P->aux_auxc[i] = ++n;
    }
    return sy_bmff_writer_end(b, err);
}

static sy_status put_ref(sy_bmff_writer *b, uint32_t type, uint32_t from, uint32_t first_to, uint32_t count,
                         const uint32_t *to_list, sy_error *err) {
    sy_status st;
    TRY(sy_bmff_writer_begin(b, type, -1, 0, err));
    TRY(sy_bmff_writer_u16(b, (uint16_t)from, err));
    TRY(sy_bmff_writer_u16(b, (uint16_t)count, err));
    for (uint32_t i = 0; i < count; i++)
        TRY(sy_bmff_writer_u16(b, (uint16_t)(to_list ? to_list[i] : first_to + i), err));
    return sy_bmff_writer_end(b, err);
}

/* ftyp + meta into `b`; iloc offsets of mdat items are written relative to
 * the mdat payload and their positions recorded in `patch` for the caller. */
static sy_status build_header(sy_heif_writer *w, hw_layout *L, sy_bmff_writer *b, unsigned offset_size,
                              size_t *patch, sy_error *err) {
    sy_status st;
    /* ftyp */
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('f', 't', 'y', 'p'), -1, 0, err));
    TRY(sy_bmff_writer_u32(b, SY_FOURCC('h', 'e', 'i', 'c'), err));
    TRY(sy_bmff_writer_u32(b, 0, err));
    TRY(sy_bmff_writer_u32(b, SY_FOURCC('m', 'i', 'f', '1'), err));
    TRY(sy_bmff_writer_u32(b, SY_FOURCC('h', 'e', 'i', 'c'), err));
    if (w->tmap) TRY(sy_bmff_writer_u32(b, SY_FOURCC('t', 'm', 'a', 'p'), err)); /* readers ignore tmap without it */
    TRY(sy_bmff_writer_end(b, err));

    TRY(sy_bmff_writer_begin(b, SY_FOURCC('m', 'e', 't', 'a'), 0, 0, err));
    /* hdlr */
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('h', 'd', 'l', 'r'), 0, 0, err));
    TRY(sy_bmff_writer_u32(b, 0, err));
    TRY(sy_bmff_writer_u32(b, SY_FOURCC('p', 'i', 'c', 't'), err));
    for (int i = 0; i < 3; i++) TRY(sy_bmff_writer_u32(b, 0, err));
    TRY(sy_bmff_writer_u8(b, 0, err));
    TRY(sy_bmff_writer_end(b, err));
    /* pitm */
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('p', 'i', 't', 'm'), 0, 0, err));
    TRY(sy_bmff_writer_u16(b, (uint16_t)w->primary.id, err));
    TRY(sy_bmff_writer_end(b, err));
    /* iloc v1: offset_size, length_size 4, no base offset, no index */
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'l', 'o', 'c'), 1, 0, err));
    TRY(sy_bmff_writer_u8(b, (uint8_t)(offset_size << 4 | 4), err));
    TRY(sy_bmff_writer_u8(b, 0, err));
    TRY(sy_bmff_writer_u16(b, (uint16_t)L->count, err));
    for (uint32_t i = 0; i < L->count; i++) {
        const hw_item *it = &L->items[i];
        TRY(sy_bmff_writer_u16(b, (uint16_t)it->id, err));
        TRY(sy_bmff_writer_u16(b, it->method, err));
        TRY(sy_bmff_writer_u16(b, 0, err)); /* data_reference_index: this file */
        TRY(sy_bmff_writer_u16(b, 1, err)); /* extent_count */
        patch[i] = sy_bmff_writer_length(b);
        if (offset_size == 8)
            TRY(sy_bmff_writer_u64(b, it->offset, err));
        else
            TRY(sy_bmff_writer_u32(b, (uint32_t)it->offset, err));
        TRY(sy_bmff_writer_u32(b, (uint32_t)it->length, err));
    }
    TRY(sy_bmff_writer_end(b, err));
    /* iinf */
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'i', 'n', 'f'), 0, 0, err));
    TRY(sy_bmff_writer_u16(b, (uint16_t)L->count, err));
    for (uint32_t i = 0; i < L->count; i++) {
        const hw_item *it = &L->items[i];
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'n', 'f', 'e'), 2, it->hidden ? 1 : 0, err));
        TRY(sy_bmff_writer_u16(b, (uint16_t)it->id, err));
        TRY(sy_bmff_writer_u16(b, 0, err)); /* item_protection_index */
        TRY(sy_bmff_writer_u32(b, it->type, err));
        TRY(sy_bmff_writer_u8(b, 0, err)); /* item_name "" */
        if (it->content_type) TRY(sy_bmff_writer_bytes(b, it->content_type, strlen(it->content_type) + 1, err));
        TRY(sy_bmff_writer_end(b, err));
    }
    TRY(sy_bmff_writer_end(b, err));
    /* iref */
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'r', 'e', 'f'), 0, 0, err));
    const hw_image *p = &w->primary;
    TRY(put_ref(b, SY_FOURCC('d', 'i', 'm', 'g'), p->id, p->first_tile_id, p->cols * p->rows, NULL, err));
    for (uint32_t i = 0; i < w->aux_count; i++) {
        const hw_image *a = &w->aux[i];
        if (a->grid)
            TRY(put_ref(b, SY_FOURCC('d', 'i', 'm', 'g'), a->id, a->first_tile_id, a->cols * a->rows, NULL, err));
        if (!a->tmap_only)
            TRY(put_ref(b, a->thumb ? SY_FOURCC('t', 'h', 'm', 'b') : SY_FOURCC('a', 'u', 'x', 'l'), a->id, p->id, 1,
                        NULL, err));
        if (L->aux_xmp_id[i]) TRY(put_ref(b, SY_FOURCC('c', 'd', 's', 'c'), L->aux_xmp_id[i], a->id, 1, NULL, err));
    }
    if (w->tmap) { /* dimg: [base, gain map], in that order */
        uint32_t inputs[2] = {p->id, w->aux[w->tmap_aux].id};
        TRY(put_ref(b, SY_FOURCC('d', 'i', 'm', 'g'), w->tmap_id, 0, 2, inputs, err));
    }
    if (L->exif_id) TRY(put_ref(b, SY_FOURCC('c', 'd', 's', 'c'), L->exif_id, p->id, 1, NULL, err));
    if (L->xmp_id) TRY(put_ref(b, SY_FOURCC('c', 'd', 's', 'c'), L->xmp_id, p->id, 1, NULL, err));
    TRY(sy_bmff_writer_end(b, err));
    /* iprp: ipco + ipma */
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'p', 'r', 'p'), -1, 0, err));
    hw_props P;
    TRY(put_ipco(w, b, &P, err));
    /* Property indices are only known now: fill in each item's list. */
    uint32_t next_id = 1;
    L->count = 0;
    L->idat_len = 0;
    layout_image(L, &w->primary, &next_id, &P, -1);
    for (uint32_t i = 0; i < w->aux_count; i++) layout_image(L, &w->aux[i], &next_id, &P, (int)i);
    layout_tmap(L, w, &next_id, &P);
    uint32_t with_props = L->count;
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'p', 'm', 'a'), 0, 0, err));
    TRY(sy_bmff_writer_u32(b, with_props, err));
    for (uint32_t i = 0; i < with_props; i++) {
        const hw_item *it = &L->items[i];
        TRY(sy_bmff_writer_u16(b, (uint16_t)it->id, err));
        TRY(sy_bmff_writer_u8(b, it->nprops, err));
        TRY(sy_bmff_writer_bytes(b, it->prop, it->nprops, err));
    }
    TRY(sy_bmff_writer_end(b, err)); /* ipma */
    TRY(sy_bmff_writer_end(b, err)); /* iprp */
    if (w->tmap) { /* grpl/altr: ISO readers show the tone-mapped rendition, others the primary */
        uint32_t group_id = 0;
        for (uint32_t i = 0; i < L->items_total; i++) group_id = L->items[i].id > group_id ? L->items[i].id : group_id;
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('g', 'r', 'p', 'l'), -1, 0, err));
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('a', 'l', 't', 'r'), 0, 0, err));
        TRY(sy_bmff_writer_u32(b, group_id + 1, err));
        TRY(sy_bmff_writer_u32(b, 2, err));
        TRY(sy_bmff_writer_u32(b, w->tmap_id, err));
        TRY(sy_bmff_writer_u32(b, p->id, err));
        TRY(sy_bmff_writer_end(b, err));
        TRY(sy_bmff_writer_end(b, err));
    }
    /* idat */
    if (L->idat_len) {
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'd', 'a', 't'), -1, 0, err));
        TRY(sy_bmff_writer_bytes(b, L->idat, L->idat_len, err));
        TRY(sy_bmff_writer_end(b, err));
    }
    return sy_bmff_writer_end(b, err); /* meta */
}

/* Assigns item IDs and mdat offsets (image items first, then metadata). */
static uint32_t plan_items(sy_heif_writer *w, hw_layout *L) {
    hw_props none;
    memset(&none, 0, sizeof none);
    uint64_t meta_bytes = w->tmap ? 1 + w->tmap_len : 0;
    if (w->exif) meta_bytes += 4 + w->exif_len;
    if (w->xmp) meta_bytes += w->xmp_len;
    for (uint32_t i = 0; i < w->aux_count; i++) meta_bytes += w->aux[i].xmp_len;
    L->spool_base = meta_bytes;
    L->mdat_payload = meta_bytes + w->spool_len;
    uint32_t next_id = 1;
    L->count = 0;
    L->idat_len = 0;
    layout_image(L, &w->primary, &next_id, &none, -1);
    for (uint32_t i = 0; i < w->aux_count; i++) layout_image(L, &w->aux[i], &next_id, &none, (int)i);
    layout_tmap(L, w, &next_id, &none);
    uint64_t at = w->tmap ? 1 + w->tmap_len : 0;
    if (w->exif) {
        hw_item *it = &L->items[L->count++];
        memset(it, 0, sizeof *it);
        L->exif_id = it->id = next_id++;
        it->type = SY_FOURCC('E', 'x', 'i', 'f');
        it->offset = at;
        it->length = 4 + w->exif_len;
        at += it->length;
    }
    if (w->xmp) {
        hw_item *it = &L->items[L->count++];
        memset(it, 0, sizeof *it);
        L->xmp_id = it->id = next_id++;
        it->type = SY_FOURCC('m', 'i', 'm', 'e');
        it->content_type = "application/rdf+xml";
        it->offset = at;
        it->length = w->xmp_len;
        at += it->length;
    }
    for (uint32_t i = 0; i < w->aux_count; i++) {
        if (!w->aux[i].xmp) continue;
        hw_item *it = &L->items[L->count++];
        memset(it, 0, sizeof *it);
        L->aux_xmp_id[i] = it->id = next_id++;
        it->type = SY_FOURCC('m', 'i', 'm', 'e');
        it->content_type = "application/rdf+xml";
        it->offset = at;
        it->length = w->aux[i].xmp_len;
        at += it->length;
    }
    return L->count;
}

static sy_status write_all(FILE *f, const void *data, size_t len, const char *path, sy_error *err) {
    if (len && fwrite(data, 1, len, f) != len) {
        int e = errno;
        return sy__fail_sub(err, SY_E_IO, e, "%s: write failed: %s", path, strerror(e));
    }
    return SY_OK;
}

static sy_status write_file(sy_heif_writer *w, hw_layout *L, const uint8_t *header, size_t header_len, sy_error *err) {
    sy__output out;
    sy_status st = sy__output_open(w->ctx, w->path, &out, err);
    if (st != SY_OK) return st;
    uint8_t *copy = NULL;
    uint8_t mdat[16];
    size_t mdat_len;
    if (L->mdat_payload + 8 <= UINT32_MAX) {
        uint32_t size = (uint32_t)(L->mdat_payload + 8);
        uint8_t h[8] = {(uint8_t)(size >> 24), (uint8_t)(size >> 16), (uint8_t)(size >> 8), (uint8_t)size,
                        'm', 'd', 'a', 't'};
        memcpy(mdat, h, 8);
        mdat_len = 8;
    } else {
        uint64_t size = L->mdat_payload + 16;
        uint8_t h[8] = {0, 0, 0, 1, 'm', 'd', 'a', 't'};
        memcpy(mdat, h, 8);
        for (int i = 0; i < 8; i++) mdat[8 + i] = (uint8_t)(size >> (56 - 8 * i));
        mdat_len = 16;
    }
    if ((st = write_all(out.file, header, header_len, w->path, err)) != SY_OK) goto fail;
    if ((st = write_all(out.file, mdat, mdat_len, w->path, err)) != SY_OK) goto fail;
    if (w->tmap) {
        uint8_t version = 0;
        if ((st = write_all(out.file, &version, 1, w->path, err)) != SY_OK) goto fail;
        if ((st = write_all(out.file, w->tmap, w->tmap_len, w->path, err)) != SY_OK) goto fail;
    }
    if (w->exif) {
        uint8_t off[4] = {0, 0, 0, (uint8_t)w->exif_tiff_offset};
        if ((st = write_all(out.file, off, 4, w->path, err)) != SY_OK) goto fail;
        if ((st = write_all(out.file, w->exif, w->exif_len, w->path, err)) != SY_OK) goto fail;
    }
    if (w->xmp && (st = write_all(out.file, w->xmp, w->xmp_len, w->path, err)) != SY_OK) goto fail;
    for (uint32_t i = 0; i < w->aux_count; i++)
        if (w->aux[i].xmp && (st = write_all(out.file, w->aux[i].xmp, w->aux[i].xmp_len, w->path, err)) != SY_OK)
            goto fail;
    /* the spool: tiles */
    const size_t chunk = 1 << 16;
    copy = sy__alloc(w->ctx, chunk, 1, "HEIF spool copy", err);
    if (!copy) {
        st = err ? err->code : SY_E_BUDGET;
        goto fail;
    }
    if (fflush(w->spool) != 0 || fseeko(w->spool, 0, SEEK_SET) != 0) {
        int e = errno;
        st = sy__fail_sub(err, SY_E_IO, e, "%s: rewinding the tile spool failed: %s", w->path, strerror(e));
        goto fail;
    }
    for (uint64_t left = w->spool_len; left > 0;) {
        size_t n = left < chunk ? (size_t)left : chunk;
        if (fread(copy, 1, n, w->spool) != n) {
            int e = errno;
            st = sy__fail_sub(err, SY_E_IO, e, "%s: reading the tile spool failed: %s", w->path,
                              ferror(w->spool) ? strerror(e) : "short file");
            goto fail;
        }
        if ((st = write_all(out.file, copy, n, w->path, err)) != SY_OK) goto fail;
        left -= n;
    }
    sy__free(w->ctx, copy);
    copy = NULL;
    if ((st = sy__check_cancel(w->ctx, err)) != SY_OK) goto fail;
    return sy__output_commit(&out, err);
fail:
    sy__free(w->ctx, copy);
    sy__output_abort(&out);
    return st;
}

sy_status sy_heif_writer_finish(sy_heif_writer *w, sy_error *err) {
    sy_status st = check_usable(w, "sy_heif_writer_finish", err);
    if (st != SY_OK) return st;
    if (w->rows_in != w->primary.height)
        return fail_state(w, sy__fail(err, SY_E_USAGE, "sy_heif_writer_finish: %u of %u rows written", w->rows_in,
                                      w->primary.height));
    for (uint32_t i = 0; i < w->aux_count; i++)
        if (w->aux[i].tmap_only && (!w->tmap || w->tmap_aux != i))
            return fail_state(w, sy__fail(err, SY_E_USAGE, "sy_heif_writer_finish: tone-map image %u has no 'tmap' "
                                          "item using it", i));
    w->finished = 1;
    hw_layout L;
    memset(&L, 0, sizeof L);
    uint32_t max_items = items_so_far(w) + 2 + w->aux_count;
    L.items = sy__calloc(w->ctx, max_items, sizeof *L.items, "HEIF item table", err);
    size_t *patch = sy__calloc(w->ctx, max_items, sizeof *patch, "HEIF iloc patch list", err);
    sy_bmff_writer *b = NULL;
    if (!L.items || !patch) {
        st = err ? err->code : SY_E_BUDGET;
        goto done;
    }
    uint32_t count = plan_items(w, &L);
    for (unsigned offset_size = 4;; offset_size = 8) {
        sy_bmff_writer_destroy(b);
        b = NULL;
        if ((st = sy_bmff_writer_create(w->ctx, &b, err)) != SY_OK) goto done;
        /* build_header re-derives the image items (with property indices); the
         * metadata items planned above stay at the end of the table. */
        L.count = count;
        L.items_total = count;
        if ((st = build_header(w, &L, b, offset_size, patch, err)) != SY_OK) goto done;
        L.count = count;
        size_t header_len = sy_bmff_writer_length(b);
        uint64_t base = header_len + (L.mdat_payload + 8 <= UINT32_MAX ? 8 : 16);
        int fits = 1;
        for (uint32_t i = 0; i < count; i++) {
            const hw_item *it = &L.items[i];
            if (it->method != 0) continue;
            uint64_t abs = base + it->offset;
            if (offset_size == 4 && abs + it->length > UINT32_MAX) {
                fits = 0;
                break;
            }
            uint8_t *p = sy_bmff_writer_at(b, patch[i]);
            for (unsigned k = 0; k < offset_size; k++) p[k] = (uint8_t)(abs >> (8 * (offset_size - 1 - k)));
        }
        if (fits) break;
        if (offset_size == 8) {
            st = sy__fail(err, SY_E_UNSUPPORTED, "sy_heif_writer_finish: file too large");
            goto done;
        }
    }
    st = write_file(w, &L, sy_bmff_writer_data(b), sy_bmff_writer_length(b), err);
done:
    sy_bmff_writer_destroy(b);
    sy__free(w->ctx, patch);
    sy__free(w->ctx, L.items);
    return fail_state(w, st);
}

void sy_heif_writer_destroy(sy_heif_writer *w) {
    if (!w) return;
    sy_context *ctx = w->ctx;
    sy__tile_lanes_destroy(w->encoder); /* first: its lanes may still read a row */
    rows_free(ctx, &w->rows[0]);
    rows_free(ctx, &w->rows[1]);
    if (w->spool) fclose(w->spool); /* unlinked: its blocks go with it */
    image_free(ctx, &w->primary);
    for (uint32_t i = 0; i < w->aux_count; i++) image_free(ctx, &w->aux[i]);
    sy__free(ctx, w->exif);
    sy__free(ctx, w->xmp);
    sy__free(ctx, w->icc);
    sy__free(ctx, w->tmap);
    sy__free(ctx, w->path);
    sy__free(ctx, w->preset);
    sy__free(ctx, w);
}
