/* heif_tile_source.c — HEIF probe and row source on our own reader.
 *
 * A grid HEIC is decoded one tile row at a time: each 512x512 HEVC tile is
 * decoded (libde265), converted to 8-bit YCbCr and box-averaged by the
 * largest power of two k that still covers what the layout needs, into a
 * ring of output rows. Memory: one decoded tile + (tile_height/k + 2) output
 * rows (8-bit when boxes never straddle tiles, the usual case; 16-bit sums
 * otherwise, e.g. an odd clean-aperture offset), whatever the photo's size. irot/imir become an EXIF-style
 * orientation that the cell builder applies; clap crops the delivered frame.
 * Item types we do not decode (AV1, AVC, iden, iovl...) fall back to libheif. */
#include <string.h>

#include "base/sy_internal.h"
#include "heif/sy_heif_source.h"
#include "hevc/sy_hevc.h"
#include "bmff/sy_bmff.h"
#include "heif/sy_heif.h"

/* ---- geometry ---- */

typedef struct heif_geometry {
    uint32_t primary;
    uint32_t rows, columns;          /* 1 x 1 for a plain hvc1 item */
    uint32_t grid_width, grid_height; /* output size of the grid before clap */
    uint32_t tile_width, tile_height;
    const uint32_t *tiles;           /* rows*columns item ids (borrowed) */
    uint32_t single_tile;            /* storage when not a grid */
    uint32_t crop_x, crop_y, width, height; /* clap window = delivered frame at k = 1 */
    uint8_t orientation;             /* EXIF code equivalent of irot/imir */
    sy_cicp nclx;
    uint32_t coding;                 /* primary item type when our reader does not decode it */
} heif_geometry;

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

/* EXIF orientation as the matrix taking stored (centred, y down) to upright. */
static const int exif_matrix[9][4] = {
    {0, 0, 0, 0}, {1, 0, 0, 1}, {-1, 0, 0, 1}, {-1, 0, 0, -1}, {1, 0, 0, -1},
    {0, 1, 1, 0}, {0, -1, 1, 0}, {0, -1, -1, 0}, {0, 1, -1, 0},
};

static void multiply(const int a[4], const int b[4], int out[4]) { /* out = a * b */
    out[0] = a[0] * b[0] + a[1] * b[2];
    out[1] = a[0] * b[1] + a[1] * b[3];
    out[2] = a[2] * b[0] + a[3] * b[2];
    out[3] = a[2] * b[1] + a[3] * b[3];
}

/* irot (anticlockwise quarter turns) and imir, in the order ipma listed them. */
static uint8_t orientation_of(const sy_heif_item_info *item) {
    int t[4] = {1, 0, 0, 1}, tmp[4];
    const int *rot = exif_matrix[8]; /* one quarter turn anticlockwise */
    int r[4] = {1, 0, 0, 1};
    for (unsigned i = 0; i < (item->rotation & 3u); i++) {
        multiply(rot, r, tmp);
        memcpy(r, tmp, sizeof r);
    }
    const int *m = item->mirror == 0 ? exif_matrix[2] : item->mirror == 1 ? exif_matrix[4] : exif_matrix[1];
    if (item->transform_order == 0) multiply(m, r, t); /* rotate first, then mirror */
    else multiply(r, m, t);
    for (uint8_t o = 1; o <= 8; o++)
        if (memcmp(exif_matrix[o], t, sizeof t) == 0) return o;
    return 1;
}

/* Our reader handles HEVC grids and single HEVC items; anything else returns SY_E_UNSUPPORTED. */
static sy_status read_geometry(sy_heif_file *file, const char *path, heif_geometry *g, sy_error *err) {
    memset(g, 0, sizeof *g);
    g->primary = sy_heif_primary_id(file);
    const sy_heif_item_info *primary = sy_heif_item(file, g->primary);
    if (!primary) return sy__fail(err, SY_E_INVALID_INPUT, "%s: HEIF has no primary item", path);
    const sy_heif_item_info *tile;
    if (primary->type == SY_FOURCC('g', 'r', 'i', 'd')) {
        sy_heif_grid grid;
        sy_status st = sy_heif_read_grid(file, g->primary, &grid, err);
        if (st != SY_OK) return st;
        uint32_t count = 0;
        g->tiles = sy_heif_derived(file, g->primary, &count);
        if (!g->tiles || count == 0 || count != grid.rows * grid.columns)
            return sy__fail(err, SY_E_INVALID_INPUT, "%s: grid %ux%u has %u tiles", path, grid.rows, grid.columns, count);
        g->rows = grid.rows, g->columns = grid.columns;
        g->grid_width = grid.output_width, g->grid_height = grid.output_height;
        tile = sy_heif_item(file, g->tiles[0]);
    } else if (primary->type == SY_FOURCC('h', 'v', 'c', '1')) {
        g->single_tile = g->primary;
        g->tiles = &g->single_tile;
        g->rows = g->columns = 1;
        tile = primary;
    } else {
        g->coding = primary->type;
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: primary item type '%c%c%c%c' is not decoded by our reader", path,
                        (char)(primary->type >> 24), (char)(primary->type >> 16), (char)(primary->type >> 8),
                        (char)primary->type);
    }
    if (!tile || tile->type != SY_FOURCC('h', 'v', 'c', '1') || !tile->has_ispe || !tile->width || !tile->height)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: tiles are not HEVC images with a size", path);
    g->tile_width = tile->width, g->tile_height = tile->height;
    if (g->rows == 1 && g->columns == 1 && !g->grid_width) {
        g->grid_width = primary->has_ispe ? primary->width : tile->width;
        g->grid_height = primary->has_ispe ? primary->height : tile->height;
    }
    if ((uint64_t)g->columns * g->tile_width < g->grid_width || (uint64_t)g->rows * g->tile_height < g->grid_height ||
        g->grid_width == 0 || g->grid_height == 0)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: %ux%u tiles of %ux%u cannot cover %ux%u", path, g->columns,
                        g->rows, g->tile_width, g->tile_height, g->grid_width, g->grid_height);
    if ((uint64_t)g->grid_width * g->grid_height > SY_MAX_INPUT_PIXELS || g->grid_width > SY_MAX_INPUT_DIMENSION ||
        g->grid_height > SY_MAX_INPUT_DIMENSION)
        return sy__fail(err, SY_E_BUDGET, "%s: HEIF %ux%u exceeds the input limit", path, g->grid_width, g->grid_height);
    /* The tiles' ispe is believed only as far as the grid needs it: a tile
     * larger than the input limit, or a whole column or row of tiles beyond the
     * output, is a lie that would size every row buffer below. */
    if ((uint64_t)g->tile_width * g->tile_height > SY_MAX_INPUT_PIXELS || g->tile_width > SY_MAX_INPUT_DIMENSION ||
        g->tile_height > SY_MAX_INPUT_DIMENSION)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: tiles of %ux%u exceed the input limit (image %ux%u)", path,
                        g->tile_width, g->tile_height, g->grid_width, g->grid_height);
    if ((uint64_t)(g->columns - 1) * g->tile_width >= g->grid_width ||
        (uint64_t)(g->rows - 1) * g->tile_height >= g->grid_height)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: %ux%u tiles of %ux%u overhang the %ux%u image by whole tiles",
                        path, g->columns, g->rows, g->tile_width, g->tile_height, g->grid_width, g->grid_height);
    for (uint32_t i = 0; i < g->rows * g->columns; i++) {
        const sy_heif_item_info *t = sy_heif_item(file, g->tiles[i]);
        if (!t || t->type != SY_FOURCC('h', 'v', 'c', '1') || t->width != g->tile_width || t->height != g->tile_height)
            return sy__fail(err, SY_E_UNSUPPORTED, "%s: tile %u differs from the first tile", path, i);
    }
    g->crop_x = g->crop_y = 0;
    g->width = g->grid_width, g->height = g->grid_height;
    if (primary->has_clap && primary->clap_width && primary->clap_height &&
        (uint64_t)primary->clap_x + primary->clap_width <= g->grid_width &&
        (uint64_t)primary->clap_y + primary->clap_height <= g->grid_height) {
        g->crop_x = primary->clap_x, g->crop_y = primary->clap_y;
        g->width = primary->clap_width, g->height = primary->clap_height;
    }
    g->orientation = orientation_of(primary);
    g->nclx = tile->nclx.present ? tile->nclx : primary->nclx;
    return SY_OK;
}

static void fill_info(const heif_geometry *g, const sy_heif_item_info *primary, sy_image_info *out) {
    memset(out, 0, sizeof *out);
    out->format = SY_FORMAT_HEIF;
    out->stored_width = g->width;
    out->stored_height = g->height;
    out->orientation = g->orientation;
    int turned = g->orientation >= 5;
    out->width = turned ? g->height : g->width;
    out->height = turned ? g->width : g->height;
    out->bit_depth = primary->bits_per_channel ? primary->bits_per_channel : 8;
}

sy_status sy__heif_probe(sy_context *ctx, const char *path, sy_image_info *out, sy_error *err) {
    sy_heif_file *file = NULL;
    sy_status st = sy_heif_open(ctx, path, &file, err);
    if (st != SY_OK) return st;
    heif_geometry g;
    st = read_geometry(file, path, &g, err);
    if (st == SY_OK) fill_info(&g, sy_heif_item(file, g.primary), out);
    sy_heif_close(file);
    if (st == SY_E_UNSUPPORTED && g.coding)
        return fallback_failed(path, g.coding, sy__libheif_probe(ctx, path, out, err), err);
    if (st == SY_E_UNSUPPORTED) return sy__libheif_probe(ctx, path, out, err);
    return st;
}

/* ---- the row source ---- */

typedef struct tile_source {
    sy__source base;
    sy_context *ctx;
    sy_heif_file *file;
    heif_geometry g;
    sy__hevc_decoder *decoder;
    char path[200];
    uint32_t k;                 /* box factor */
    uint32_t ring_rows;         /* output rows the sum ring holds */
    int direct;                 /* boxes never straddle tiles: average per tile into 8-bit rows */
    uint16_t *sums;             /* general path: ring_rows x width x 3 sums */
    uint8_t *pixels;            /* direct path: ring_rows x width x 3 finished pixels */
    uint16_t *box_row;          /* direct path: one row of box sums across a tile */
    uint8_t *row_weight;        /* input rows summed into each ring row */
    uint8_t *tile_row;          /* one converted tile row: tile_width * 3 */
    uint32_t next_tile_row;     /* next grid row of tiles to decode */
    uint32_t done_rows;         /* output rows complete (all their input rows summed) */
    uint32_t next_out;          /* next output row to hand out */
    size_t charged;
} tile_source;

/* The part [x_from, x_to) x [y_from, y_to) of the tile at (tx, ty) inside the
 * clean aperture; 0 when none of it is. */
static int tile_window(const heif_geometry *g, uint32_t tx, uint32_t ty, uint32_t *x_from, uint32_t *x_to,
                       uint32_t *y_from, uint32_t *y_to) {
    *x_from = tx < g->crop_x ? g->crop_x - tx : 0;
    *x_to = SY__MIN(g->tile_width, g->crop_x + g->width > tx ? g->crop_x + g->width - tx : 0);
    *y_from = ty < g->crop_y ? g->crop_y - ty : 0;
    *y_to = SY__MIN(g->tile_height, g->crop_y + g->height > ty ? g->crop_y + g->height - ty : 0);
    return *x_from < *x_to && *y_from < *y_to;
}

/* Sums one decoded tile into the ring. (tx, ty): the tile's top-left in grid pixels. */
static void accumulate_tile(tile_source *s, const sy__yuv *yuv, uint32_t tx, uint32_t ty) {
    const heif_geometry *g = &s->g;
    const uint32_t k = s->k, out_w = s->base.width;
    uint32_t x_from, x_to, y_from, y_to;
    if (!tile_window(g, tx, ty, &x_from, &x_to, &y_from, &y_to)) return;
    for (uint32_t y = y_from; y < y_to; y++) {
        uint8_t *row = s->tile_row;
        sy__yuv_rows(yuv, &g->nclx, 0, y, 1, &row);
        uint32_t fy = ty + y - g->crop_y, oy = fy / k;
        uint16_t *sum = s->sums + (size_t)(oy % s->ring_rows) * out_w * 3;
        uint32_t fx = tx + x_from - g->crop_x;
        const uint8_t *p = row + (size_t)x_from * 3;
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
    }
}

/* Direct path: the tile holds whole k x k boxes (offsets and tile sides are
 * multiples of k), so each box is averaged here and stored as 8-bit pixels. */
static void average_tile(tile_source *s, const sy__yuv *yuv, uint32_t tx, uint32_t ty) {
    const heif_geometry *g = &s->g;
    const uint32_t k = s->k, out_w = s->base.width;
    uint32_t x_from, x_to, y_from, y_to;
    if (!tile_window(g, tx, ty, &x_from, &x_to, &y_from, &y_to)) return;
    uint32_t boxes = (x_to - x_from + k - 1) / k, ox0 = (tx + x_from - g->crop_x) / k;
    for (uint32_t y = y_from; y < y_to; y += k) {
        uint32_t rows_in = SY__MIN(k, y_to - y);
        memset(s->box_row, 0, (size_t)boxes * 3 * sizeof *s->box_row);
        for (uint32_t r = 0; r < rows_in; r++) {
            uint8_t *row = s->tile_row;
            sy__yuv_rows(yuv, &g->nclx, 0, y + r, 1, &row);
            const uint8_t *p = row + (size_t)x_from * 3;
            for (uint32_t x = 0; x < x_to - x_from; x++, p += 3) {
                uint16_t *q = s->box_row + (size_t)(x / k) * 3;
                q[0] += p[0], q[1] += p[1], q[2] += p[2];
            }
        }
        uint32_t oy = (ty + y - g->crop_y) / k;
        uint8_t *out = s->pixels + ((size_t)(oy % s->ring_rows) * out_w + ox0) * 3;
        for (uint32_t b = 0; b < boxes; b++) {
            uint32_t n = SY__MIN(k, x_to - x_from - b * k) * rows_in;
            for (int c = 0; c < 3; c++) out[3 * b + c] = (uint8_t)((s->box_row[3 * b + c] + n / 2) / n);
        }
    }
}

/* Decodes the next row of tiles into the ring, or skips it when `skip`. */
static sy_status decode_tile_row(tile_source *s, int skip, sy_error *err) {
    const heif_geometry *g = &s->g;
    uint32_t r = s->next_tile_row++;
    uint32_t ty = r * g->tile_height;
    uint32_t last_frame_row = (uint32_t)SY__MIN((uint64_t)ty + g->tile_height, (uint64_t)g->crop_y + g->height);
    if (!skip && last_frame_row > g->crop_y) {
        /* rows of the ring this tile row touches start empty */
        for (uint32_t c = 0; c < g->columns; c++) {
            sy_status st = sy__check_cancel(s->ctx, err);
            if (st != SY_OK) return st;
            uint8_t *data = NULL;
            size_t len = 0;
            uint32_t id = g->tiles[r * g->columns + c];
            uint32_t tx = c * g->tile_width;
            if (tx >= g->crop_x + g->width || tx + g->tile_width <= g->crop_x) continue; /* outside clap */
            if ((st = sy_heif_read_item(s->file, id, &data, &len, err)) != SY_OK) return st;
            sy__yuv yuv = {0};
            st = sy__hevc_decode(s->decoder, data, len, &yuv, err);
            sy_heif_free_data(s->file, data);
            if (st != SY_OK) {
                char why[200];
                snprintf(why, sizeof why, "%s", err ? err->message : "decode failed");
                return sy__fail(err, st, "%s: tile %u (row %u, column %u): %s", s->path, id, r, c, why);
            }
            if (yuv.width != g->tile_width || yuv.height < g->tile_height) { /* tile_row holds tile_width pixels */
                sy__yuv_release(s->ctx, &yuv);
                return sy__fail(err, SY_E_INVALID_INPUT, "%s: tile %u decoded as %ux%u, expected %ux%u", s->path, id,
                                yuv.width, yuv.height, g->tile_width, g->tile_height);
            }
            if (s->direct) average_tile(s, &yuv, tx, ty);
            else accumulate_tile(s, &yuv, tx, ty);
            sy__yuv_release(s->ctx, &yuv);
        }
    }
    /* Every output row whose k input rows are now all in is complete. */
    if (last_frame_row > g->crop_y) {
        uint32_t frame_rows_in = last_frame_row - g->crop_y;
        uint32_t complete = frame_rows_in >= g->height ? s->base.height : frame_rows_in / s->k;
        for (uint32_t oy = s->done_rows; oy < complete; oy++) {
            uint32_t first = oy * s->k, rows_in = SY__MIN(s->k, g->height - first);
            s->row_weight[oy % s->ring_rows] = (uint8_t)rows_in;
        }
        if (complete > s->done_rows) s->done_rows = complete;
    }
    return SY_OK;
}

static void clear_row(tile_source *s, uint32_t oy);

/* Turns ring row `oy` into 8-bit pixels and clears it for reuse. */
static void emit_row(tile_source *s, uint32_t oy, uint8_t *out) {
    const uint32_t k = s->k, out_w = s->base.width, width = s->g.width;
    if (s->direct) {
        memcpy(out, s->pixels + (size_t)(oy % s->ring_rows) * out_w * 3, (size_t)out_w * 3);
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
        if (s->next_tile_row >= s->g.rows)
            return sy__fail(err, SY_E_INVALID_INPUT, "%s: grid ended before row %u", s->path, through);
        uint64_t tile_end = (uint64_t)(s->next_tile_row + 1) * s->g.tile_height;
        int skip = tile_end <= s->g.crop_y + (uint64_t)skip_before * s->k;
        sy_status st = decode_tile_row(s, skip, err);
        if (st != SY_OK) return st;
    }
    return SY_OK;
}

static void clear_row(tile_source *s, uint32_t oy) {
    if (s->direct) return; /* direct rows are overwritten, not summed into */
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
    sy__hevc_decoder_destroy(s->decoder);
    sy_heif_close(s->file);
    sy__free(ctx, s->sums);
    sy__free(ctx, s->pixels);
    sy__free(ctx, s->box_row);
    sy__free(ctx, s->row_weight);
    sy__free(ctx, s->tile_row);
    sy__discharge(ctx, s->charged);
    sy__free(ctx, s);
}

sy_status sy__heif_source_open(sy_context *ctx, const char *path, uint32_t min_width, uint32_t min_height,
                               sy__source **out, sy_error *err) {
    *out = NULL;
    tile_source *s = sy__calloc(ctx, 1, sizeof *s, "heif tile source", err);
    if (!s) return err ? err->code : SY_E_BUDGET;
    s->ctx = ctx;
    snprintf(s->path, sizeof s->path, "%s", path);
    s->base.read_rows = tile_read_rows;
    s->base.skip_rows = tile_skip_rows;
    s->base.close = tile_close;
    s->base.pixels = SY__PIX_YCC;
    sy_status st = sy_heif_open(ctx, path, &s->file, err);
    if (st == SY_OK) st = read_geometry(s->file, path, &s->g, err);
    if (st == SY_E_UNSUPPORTED) {
        uint32_t coding = s->g.coding;
        tile_close(&s->base);
        st = sy__libheif_source_open(ctx, path, out, err);
        return coding ? fallback_failed(path, coding, st, err) : st;
    }
    if (st != SY_OK) goto fail;
    const heif_geometry *g = &s->g;
    /* Largest power-of-two box (<= 16, so 16-bit sums cannot overflow) that still covers the need. */
    s->k = 1;
    while (s->k < 16 && (g->width + 2 * s->k - 1) / (2 * s->k) >= min_width &&
           (g->height + 2 * s->k - 1) / (2 * s->k) >= min_height)
        s->k *= 2;
    s->base.width = (g->width + s->k - 1) / s->k;
    s->base.height = (g->height + s->k - 1) / s->k;
    s->base.orientation = g->orientation;
    s->ring_rows = g->tile_height / s->k + 2;
    size_t hvcc_len = 0;
    const uint8_t *hvcc = sy_heif_hvcc(s->file, g->tiles[0], &hvcc_len);
    if (!hvcc) {
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: tile has no hvcC", path);
        goto fail;
    }
    if ((st = sy__hevc_decoder_create(ctx, hvcc, hvcc_len, &s->decoder, err)) != SY_OK) goto fail;
    s->direct = g->crop_x % s->k == 0 && g->crop_y % s->k == 0 && g->tile_width % s->k == 0 &&
                g->tile_height % s->k == 0;
    size_t ring_values = (size_t)s->ring_rows * s->base.width * 3;
    if (s->direct) {
        s->pixels = sy__alloc(ctx, ring_values, 1, "heif rows", err);
        s->box_row = sy__alloc(ctx, (size_t)(g->tile_width / s->k + 1) * 3, sizeof *s->box_row, "heif box row", err);
    } else {
        s->sums = sy__calloc(ctx, ring_values, sizeof *s->sums, "heif row sums", err);
    }
    s->row_weight = sy__calloc(ctx, s->ring_rows, 1, "heif row weights", err);
    s->tile_row = sy__alloc(ctx, g->tile_width, 3, "heif tile row", err);
    if ((s->direct ? !s->pixels || !s->box_row : !s->sums) || !s->row_weight || !s->tile_row) {
        st = err ? err->code : SY_E_BUDGET;
        goto fail;
    }
    /* A decoded tile (16-bit worst case, 3 planes) plus libde265's own buffers. */
    size_t tile_bytes = (size_t)g->tile_width * g->tile_height * 2 * 3;
    if ((st = sy__charge(ctx, tile_bytes, path, err)) != SY_OK) goto fail;
    s->charged = tile_bytes;
    s->base.working_bytes = tile_bytes + ring_values * (s->direct ? 1 : 2);
    *out = &s->base;
    return SY_OK;
fail:
    tile_close(&s->base);
    return st;
}
