/* heif_writer.c — HEIC writer: grid of x265 tiles, Exif/XMP items, ICC/nclx,
 * auxiliary images (see sy_heif_writer.h for the file layout).
 *
 * Flow: rows arrive top to bottom and are converted into one tile row of
 * YCbCr samples (4:2:0, edge columns/rows replicated up to the tile grid);
 * when that row of tiles is full its tiles are handed to x265 (intra only; one
 * encoder per core, tiles dealt in turn: sy_heif_tile_lanes.h), and finished
 * tile bitstreams are appended, in tile order, to an
 * unlinked spool file in the destination folder. Auxiliary images are encoded
 * whole when added, into the same spool. finish() checks the writer is
 * complete and hands it to heif_writer_container.c, which writes ftyp + meta
 * + mdat to a temporary file beside the target (sy__output), copying the spool
 * behind the metadata, and renames it. The state both share:
 * sy_heif_writer_state.h.
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
#include "heif/sy_heif_tile_lanes.h"
#include "heif/sy_heif_writer.h"
#include "heif/sy_heif_writer_state.h"

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
sy_cicp sy__heif_writer_colour(const sy_heif_writer *w) {
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
    o.colour = sy__heif_writer_colour(w);
    uint32_t lanes = o.still.pictures >= HW_MIN_TILES_FOR_LANES ? w->opts.encoders : 1;
    return sy__tile_lanes_open(w->ctx, &o, lanes, spool_tile, img, out, err);
}

static sy_status copy_hvcc(sy_heif_writer *w, hw_image *img, const sy__tile_lanes *enc, sy_error *err) {
    size_t len;
    const uint8_t *h = sy__tile_lanes_hvcc(enc, &len);
    img->hvcc = sy__alloc_copy(w->ctx, h, len, "hvcC", err);
    if (!img->hvcc) return err ? err->code : SY_E_BUDGET;
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
    uint8_t *p = sy__alloc_copy(w->ctx, src, len, fn, err);
    if (!p) return err ? err->code : SY_E_BUDGET;
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
    sy__progress(w->ctx, "heif tiles", total, total);
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
    return fail_state(w, sy__heif_writer_write_container(w, items_so_far(w) + 2 + w->aux_count, err));
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
