/* gainmap_signal.c — the gain map of a HEIF whose picture is an HDR signal
 * (SY_GAINMAP_HDR_SIGNAL: PQ or HLG, as Sony, Canon and Nikon cameras write
 * 10-bit HEIFs). Such a file stores no map. The engine shows the picture as
 * its SDR Display P3 rendition (the tile source, base/sy_hdr_tone.h) and
 * derives the map from the same decoded signal: per box of scale x scale
 * pixels, the mean log2 of how much brighter the HDR display shows them
 * (sy__yuv_hdr_gain_rows), encoded with the numbers of
 * sy__gainmap_signal_params. A save then carries it like any stored map. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/sy_hdr_tone.h"
#include "gainmap/sy_gainmap_internal.h"
#include "heif/sy_heif.h"
#include "heif/sy_heif_geometry.h"
#include "hevc/sy_hevc.h"

void sy__gainmap_signal_params(sy_gainmap_params *p, uint16_t peak) {
    memset(p, 0, sizeof *p);
    const double headroom_log2 = log2(sy__hdr_headroom(peak));
    p->channels = 1;
    for (int c = 0; c < 3; c++) p->min_log2[c] = 0, p->max_log2[c] = headroom_log2, p->gamma[c] = 1;
    p->capacity_min = 0, p->capacity_max = headroom_log2;
}

void sy__gainmap_signal_info(sy_gainmap_info *info, const char *what, const sy_cicp *signal, uint32_t width,
                             uint32_t height, uint32_t item) {
    info->kind = SY_GAINMAP_HDR_SIGNAL;
    snprintf(info->detail, sizeof info->detail,
             "%s HDR %s, no stored map: shown as SDR Display P3, its gain map derived from the signal",
             signal->transfer == SY_CICP_TRANSFER_PQ ? "PQ" : "HLG", what);
    sy__gainmap_signal_params(&info->params, signal->peak); /* saves write them as ISO 21496-1 / Ultra HDR numbers */
    info->map_channels = 1;
    info->map_width = (width + SY__GAINMAP_SIGNAL_SCALE - 1) / SY__GAINMAP_SIGNAL_SCALE;
    info->map_height = (height + SY__GAINMAP_SIGNAL_SCALE - 1) / SY__GAINMAP_SIGNAL_SCALE;
    info->map_offset = item;
}

uint8_t sy__gainmap_signal_code(double log2_gain, uint16_t peak) {
    double v = log2_gain / log2(sy__hdr_headroom(peak));
    return (uint8_t)lrint(255 * (v < 0 ? 0 : v > 1 ? 1 : v));
}

int sy__gainmap_probe_signal(sy_heif_file *file, const char *path, uint32_t primary, sy_gainmap_info *info) {
    sy__heif_geometry g;
    if (sy__heif_geometry_read(file, path, primary, &g, NULL) != SY_OK || !sy__heif_geometry_is_hdr(&g)) return 0;
    sy__gainmap_signal_info(info, "picture", &g.signal, g.width, g.height, primary);
    return 1;
}

/* Log2 sums of the map rows one tile row touches (a box may straddle two
 * tile rows: ring_rows = tile rows' boxes + 2), flushed as codes once every
 * picture row of a box is in. Tiles of a row are decoded by up to
 * SIGNAL_WORKERS workers, each tile into its own partial box sums, merged in
 * column order: the map is the same bytes whatever the worker count. */
#define SIGNAL_WORKERS 2u

typedef struct tile_part {
    double *sums;               /* the boxes the tile touches: bw x bh */
    uint32_t bx0, by0, bw, bh;
    int used;
} tile_part;

typedef struct signal_map signal_map;

typedef struct signal_worker {
    signal_map *m;
    uint32_t index;             /* takes the row's tiles index, index + count, ... */
    sy__hevc_decoder *dec;
    float *gain;                /* one picture row of gains */
    uint32_t gain_width;
    sy_status status;
    sy_error err;
} signal_worker;

struct signal_map {
    sy_context *ctx;
    sy_heif_file *file;
    const char *path;
    const sy__heif_geometry *g;
    uint32_t scale, ring_rows;
    double *sums;               /* ring_rows x out->width */
    tile_part *parts;           /* one per tile column */
    size_t part_cap;            /* doubles each part holds */
    sy_gainmap_image *out;
    uint32_t flushed;           /* map rows written */
    uint32_t row;               /* the tile row being decoded */
    uint32_t columns[1024];     /* its tiles in the delivered frame */
    uint32_t column_count;
    signal_worker workers[SIGNAL_WORKERS];
    uint32_t worker_count;
    int warm;                   /* each worker keeps its libavcodec context from tile to tile */
};

/* The tile at (row, c), decoded as `yuv`, into its part. */
static sy_status sum_tile(signal_map *m, signal_worker *w, const sy__yuv *yuv, uint32_t c, sy_error *err) {
    const sy__heif_geometry *g = m->g;
    if (yuv->width > w->gain_width) { /* decoded wider than the tile's ispe */
        sy__free(m->ctx, w->gain);
        if (!(w->gain = sy__alloc(m->ctx, yuv->width, sizeof *w->gain, "gain row", err)))
            return err ? err->code : SY_E_BUDGET;
        w->gain_width = yuv->width;
    }
    uint64_t tx = (uint64_t)c * g->tile_width, ty = (uint64_t)m->row * g->tile_height;
    /* the tile's part of the delivered frame (the clean aperture), in tile coordinates */
    uint32_t x_from = tx < g->crop_x ? (uint32_t)(g->crop_x - tx) : 0;
    uint32_t y_from = ty < g->crop_y ? (uint32_t)(g->crop_y - ty) : 0;
    uint64_t x_end = g->crop_x + (uint64_t)g->width, y_end = g->crop_y + (uint64_t)g->height;
    uint32_t x_to = (uint32_t)SY__MIN((uint64_t)SY__MIN(g->tile_width, yuv->width), x_end > tx ? x_end - tx : 0);
    uint32_t y_to = (uint32_t)SY__MIN((uint64_t)SY__MIN(g->tile_height, yuv->height), y_end > ty ? y_end - ty : 0);
    tile_part *part = &m->parts[c];
    part->used = 0;
    if (x_from >= x_to || y_from >= y_to) return SY_OK;
    part->bx0 = (uint32_t)((tx + x_from - g->crop_x) / m->scale);
    part->by0 = (uint32_t)((ty + y_from - g->crop_y) / m->scale);
    part->bw = (uint32_t)((tx + x_to - 1 - g->crop_x) / m->scale) - part->bx0 + 1;
    part->bh = (uint32_t)((ty + y_to - 1 - g->crop_y) / m->scale) - part->by0 + 1;
    if ((size_t)part->bw * part->bh > m->part_cap) return sy__fail(err, SY_E_USAGE, "gain map: tile boxes overflow");
    memset(part->sums, 0, (size_t)part->bw * part->bh * sizeof *part->sums);
    part->used = 1;
    for (uint32_t y = y_from; y < y_to; y++) {
        float *row = w->gain;
        if (!sy__yuv_hdr_gain_rows(yuv, &g->signal, y, 1, &row)) return SY_OK; /* not reached: the item is HDR */
        uint64_t fy = ty + y - g->crop_y;
        double *sum = part->sums + (size_t)(fy / m->scale - part->by0) * part->bw - part->bx0;
        for (uint32_t x = x_from; x < x_to; x++) sum[(tx + x - g->crop_x) / m->scale] += log2f(row[x]);
    }
    return SY_OK;
}

/* Decodes this worker's tiles of the current row. */
static void *work(void *arg) {
    signal_worker *w = arg;
    signal_map *m = w->m;
    w->status = SY_OK;
    for (uint32_t k = w->index; k < m->column_count && w->status == SY_OK; k += m->worker_count) {
        uint32_t c = m->columns[k], id = m->g->tiles[m->row * m->g->columns + c];
        size_t hl = 0;
        const uint8_t *hvcc = sy_heif_hvcc(m->file, id, &hl);
        sy__yuv yuv = {0};
        w->status = sy__gainmap_decode_item(m->ctx, m->file, m->path, "HDR picture tile", id, hvcc, hl, 1, m->warm,
                                            &w->dec, &yuv, &w->err);
        if (w->status != SY_OK) break;
        w->status = sum_tile(m, w, &yuv, c, &w->err);
        sy__hevc_recycle(w->dec, &yuv); /* back to a warm decoder, else freed */
        if (w->status == SY_OK) w->status = sy__check_cancel(m->ctx, &w->err);
    }
    return NULL;
}

/* The row's parts into the ring, in column order. */
static void merge_parts(signal_map *m) {
    for (uint32_t k = 0; k < m->column_count; k++) {
        const tile_part *part = &m->parts[m->columns[k]];
        if (!part->used) continue;
        for (uint32_t j = 0; j < part->bh; j++) {
            double *ring = m->sums + (size_t)((part->by0 + j) % m->ring_rows) * m->out->width + part->bx0;
            const double *add = part->sums + (size_t)j * part->bw;
            for (uint32_t i = 0; i < part->bw; i++) ring[i] += add[i];
        }
    }
}

/* Writes the map rows whose picture rows all lie above `done` (delivered rows). */
static void flush_rows(signal_map *m, uint64_t done) {
    const sy__heif_geometry *g = m->g;
    sy_gainmap_image *out = m->out;
    while (m->flushed < out->height) {
        uint32_t by = m->flushed, top = by * m->scale, rows = SY__MIN(m->scale, g->height - top);
        if (top + rows > done) return;
        double *sum = m->sums + (size_t)(by % m->ring_rows) * out->width;
        uint8_t *dst = out->pixels + (size_t)by * out->stride;
        for (uint32_t bx = 0; bx < out->width; bx++) {
            uint32_t cols = SY__MIN(m->scale, g->width - bx * m->scale);
            dst[bx] = sy__gainmap_signal_code(sum[bx] / ((double)rows * cols), g->signal.peak);
        }
        memset(sum, 0, (size_t)out->width * sizeof *sum);
        m->flushed++;
    }
}

/* One tile row: its tiles on the workers (the calling thread is worker 0). */
static sy_status decode_row(signal_map *m, sy_error *err) {
    pthread_t helpers[SIGNAL_WORKERS];
    int started[SIGNAL_WORKERS] = {0};
    for (uint32_t i = 1; i < m->worker_count; i++)
        started[i] = pthread_create(&helpers[i], NULL, work, &m->workers[i]) == 0;
    work(&m->workers[0]);
    for (uint32_t i = 1; i < m->worker_count; i++) {
        if (started[i]) pthread_join(helpers[i], NULL);
        else work(&m->workers[i]); /* no thread: its tiles here */
    }
    for (uint32_t i = 0; i < m->worker_count; i++)
        if (m->workers[i].status != SY_OK) {
            if (err) *err = m->workers[i].err;
            return m->workers[i].status;
        }
    merge_parts(m);
    return SY_OK;
}

static sy_status decode_tiles(signal_map *m, sy_error *err) {
    const sy__heif_geometry *g = m->g;
    sy_status st = SY_OK;
    for (uint32_t r = 0; r < g->rows && st == SY_OK; r++) {
        uint64_t top = (uint64_t)r * g->tile_height, bottom = top + g->tile_height;
        if (bottom <= g->crop_y || top >= g->crop_y + (uint64_t)g->height) continue;
        m->row = r, m->column_count = 0;
        for (uint32_t c = 0; c < g->columns && m->column_count < sizeof m->columns / sizeof m->columns[0]; c++) {
            uint64_t left = (uint64_t)c * g->tile_width;
            if (left + g->tile_width > g->crop_x && left < g->crop_x + (uint64_t)g->width) m->columns[m->column_count++] = c;
        }
        st = decode_row(m, err);
        flush_rows(m, SY__MIN(bottom - g->crop_y, (uint64_t)g->height));
    }
    if (st == SY_OK && m->flushed < m->out->height)
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: the HDR picture's tiles end before its row %u", m->path,
                      m->flushed * m->scale);
    return st;
}

/* Ring, parts and workers: `threads` workers at most (1: the calling thread alone). */
static sy_status map_alloc(signal_map *m, uint32_t threads, sy_error *err) {
    const sy__heif_geometry *g = m->g;
    sy_context *ctx = m->ctx;
    m->sums = sy__calloc(ctx, (size_t)m->ring_rows * m->out->width, sizeof *m->sums, "gain map sums", err);
    m->part_cap = (size_t)(g->tile_width / m->scale + 2) * (g->tile_height / m->scale + 2);
    m->parts = m->sums ? sy__calloc(ctx, g->columns, sizeof *m->parts, "gain map tile parts", err) : NULL;
    if (!m->parts) return err ? err->code : SY_E_BUDGET;
    for (uint32_t c = 0; c < g->columns; c++)
        if (!(m->parts[c].sums = sy__alloc(ctx, m->part_cap, sizeof(double), "gain map tile part", err)))
            return err ? err->code : SY_E_BUDGET;
    m->worker_count = SY__MAX(1u, SY__MIN(threads, SIGNAL_WORKERS));
    if (g->columns < 2) m->worker_count = 1;
    /* warm decoders with room for one more decode beside them; a one-tile picture has nothing to reuse */
    size_t room = sy__gainmap_tile_decodes_in_budget(ctx, m->file, g->tiles[0], g->tile_width, g->tile_height);
    m->warm = g->rows * g->columns > 1 && room > m->worker_count;
    for (uint32_t i = 0; i < m->worker_count; i++) {
        signal_worker *w = &m->workers[i];
        w->m = m, w->index = i, w->gain_width = g->tile_width;
        if (!(w->gain = sy__alloc(ctx, g->tile_width, sizeof *w->gain, "gain row", err))) return err ? err->code : SY_E_BUDGET;
    }
    return SY_OK;
}

static void map_free(signal_map *m) {
    for (uint32_t i = 0; i < SIGNAL_WORKERS; i++) {
        sy__hevc_decoder_destroy(m->workers[i].dec);
        sy__free(m->ctx, m->workers[i].gain);
    }
    if (m->parts)
        for (uint32_t c = 0; c < m->g->columns; c++) sy__free(m->ctx, m->parts[c].sums);
    sy__free(m->ctx, m->parts);
    sy__free(m->ctx, m->sums);
}

sy_status sy__gainmap_decode_signal(sy_context *ctx, const char *path, const sy_gainmap_info *info, uint32_t reduce,
                                    uint32_t threads, sy_gainmap_image *out, sy_error *err) {
    sy_heif_file *file = NULL;
    sy_status st = sy_heif_open(ctx, path, &file, err);
    if (st != SY_OK) return st;
    sy__heif_geometry g;
    signal_map *m = sy__calloc(ctx, 1, sizeof *m, "gain map decode", err);
    if (!m) {
        sy_heif_close(file);
        return err ? err->code : SY_E_BUDGET;
    }
    *m = (signal_map){.ctx = ctx, .file = file, .path = path, .g = &g, .out = out};
    sy_cicp av1;
    sy_error geometry_err = {0};
    if ((st = sy__heif_geometry_read(file, path, (uint32_t)info->map_offset, &g, &geometry_err)) == SY_E_UNSUPPORTED &&
        sy__heif_av1_signal(file, (uint32_t)info->map_offset, &av1)) {
        sy__free(ctx, m);
        sy_heif_close(file);
        return sy__gainmap_decode_av1_signal(ctx, path, &av1, info, reduce, out, err); /* an HDR AVIF */
    }
    if (st != SY_OK) {
        if (err) *err = geometry_err;
        goto done;
    }
    if (!sy__heif_geometry_is_hdr(&g)) {
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: item %u is no HDR picture", path, (uint32_t)info->map_offset);
        goto done;
    }
    m->scale = SY__GAINMAP_SIGNAL_SCALE * (reduce >= 4 ? 4 : reduce >= 2 ? 2 : 1);
    m->ring_rows = g.tile_height / m->scale + 2;
    out->width = (g.width + m->scale - 1) / m->scale, out->height = (g.height + m->scale - 1) / m->scale;
    out->channels = 1, out->stride = out->width;
    if (!(out->pixels = sy__alloc(ctx, out->stride, out->height, "gain map pixels", err))) {
        st = err ? err->code : SY_E_BUDGET;
        goto done;
    }
    if ((st = map_alloc(m, threads, err)) == SY_OK) st = decode_tiles(m, err);
done:
    map_free(m);
    sy__free(ctx, m);
    sy_heif_close(file);
    if (st != SY_OK) sy_gainmap_image_free(ctx, out);
    return st;
}
