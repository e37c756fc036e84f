/* gainmap_signal.c — the gain map of a HEIF whose picture is an HDR signal
 * (SY_GAINMAP_HDR_SIGNAL: PQ or HLG, as Sony, Canon and Nikon cameras write
 * 10-bit HEIFs). Such a file stores no map. The engine shows the picture as
 * its SDR Display P3 rendition (the tile source, base/sy_hdr_tone.h) and
 * derives the map from the same decoded signal: per box of scale x scale
 * pixels, the mean log2 of how much brighter the HDR display shows them
 * (sy__yuv_hdr_gain_rows), encoded with the numbers of
 * sy__gainmap_signal_params. A save then carries it like any stored map. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/sy_hdr_tone.h"
#include "gainmap/sy_gainmap_internal.h"
#include "heif/sy_heif.h"
#include "heif/sy_heif_geometry.h"
#include "hevc/sy_hevc.h"

void sy__gainmap_signal_params(sy_gainmap_params *p) {
    memset(p, 0, sizeof *p);
    const double headroom_log2 = log2(sy__hdr_headroom());
    p->channels = 1;
    for (int c = 0; c < 3; c++) p->min_log2[c] = 0, p->max_log2[c] = headroom_log2, p->gamma[c] = 1;
    p->capacity_min = 0, p->capacity_max = headroom_log2;
}

uint8_t sy__gainmap_signal_code(double log2_gain) {
    double v = log2_gain / log2(sy__hdr_headroom());
    return (uint8_t)lrint(255 * (v < 0 ? 0 : v > 1 ? 1 : v));
}

int sy__gainmap_probe_signal(sy_heif_file *file, const char *path, uint32_t primary, sy_gainmap_info *info) {
    sy__heif_geometry g;
    if (sy__heif_geometry_read(file, path, primary, &g, NULL) != SY_OK || !sy__heif_geometry_is_hdr(&g)) return 0;
    info->kind = SY_GAINMAP_HDR_SIGNAL;
    snprintf(info->detail, sizeof info->detail,
             "%s HDR picture, no stored map: shown as SDR Display P3, its gain map derived from the signal",
             g.signal.transfer == SY_CICP_TRANSFER_PQ ? "PQ" : "HLG");
    sy__gainmap_signal_params(&info->params); /* saves write them as ISO 21496-1 / Ultra HDR numbers */
    info->map_channels = 1;
    info->map_width = (g.width + SY__GAINMAP_SIGNAL_SCALE - 1) / SY__GAINMAP_SIGNAL_SCALE;
    info->map_height = (g.height + SY__GAINMAP_SIGNAL_SCALE - 1) / SY__GAINMAP_SIGNAL_SCALE;
    info->map_offset = primary;
    return 1;
}

/* Log2 sums of the map rows one tile row touches (a box may straddle two
 * tile rows: ring_rows = tile rows' boxes + 2), flushed as codes once every
 * picture row of a box is in. */
typedef struct signal_map {
    const sy__heif_geometry *g;
    uint32_t scale, ring_rows;
    double *sums;      /* ring_rows x out->width */
    float *gain;       /* one picture row of gains */
    uint32_t gain_width;
    sy_gainmap_image *out;
    uint32_t flushed;  /* map rows written */
} signal_map;

/* Adds the tile at grid (r, c), decoded as `yuv`, to the sums. */
static sy_status add_tile(sy_context *ctx, signal_map *m, const sy__yuv *yuv, uint32_t r, uint32_t c, sy_error *err) {
    const sy__heif_geometry *g = m->g;
    if (yuv->width > m->gain_width) { /* decoded wider than the tile's ispe */
        sy__free(ctx, m->gain);
        if (!(m->gain = sy__alloc(ctx, yuv->width, sizeof *m->gain, "gain row", err))) return err ? err->code : SY_E_BUDGET;
        m->gain_width = yuv->width;
    }
    uint64_t tx = (uint64_t)c * g->tile_width, ty = (uint64_t)r * g->tile_height;
    /* the tile's part of the delivered frame (the clean aperture), in tile coordinates */
    uint32_t x_from = tx < g->crop_x ? (uint32_t)(g->crop_x - tx) : 0;
    uint32_t y_from = ty < g->crop_y ? (uint32_t)(g->crop_y - ty) : 0;
    uint64_t x_end = g->crop_x + (uint64_t)g->width, y_end = g->crop_y + (uint64_t)g->height;
    uint32_t x_to = (uint32_t)SY__MIN((uint64_t)SY__MIN(g->tile_width, yuv->width), x_end > tx ? x_end - tx : 0);
    uint32_t y_to = (uint32_t)SY__MIN((uint64_t)SY__MIN(g->tile_height, yuv->height), y_end > ty ? y_end - ty : 0);
    for (uint32_t y = y_from; y < y_to; y++) {
        float *row = m->gain;
        if (!sy__yuv_hdr_gain_rows(yuv, &g->signal, y, 1, &row)) return SY_OK; /* not reached: the item is HDR */
        uint64_t fy = ty + y - g->crop_y;
        double *sum = m->sums + (size_t)((fy / m->scale) % m->ring_rows) * m->out->width;
        for (uint32_t x = x_from; x < x_to; x++) sum[(tx + x - g->crop_x) / m->scale] += log2f(row[x]);
    }
    return SY_OK;
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
            dst[bx] = sy__gainmap_signal_code(sum[bx] / ((double)rows * cols));
        }
        memset(sum, 0, (size_t)out->width * sizeof *sum);
        m->flushed++;
    }
}

static sy_status decode_tiles(sy_context *ctx, sy_heif_file *file, const char *path, signal_map *m, sy_error *err) {
    const sy__heif_geometry *g = m->g;
    sy__hevc_decoder *dec = NULL;
    sy_status st = SY_OK;
    for (uint32_t r = 0; r < g->rows && st == SY_OK; r++) {
        uint64_t top = (uint64_t)r * g->tile_height, bottom = top + g->tile_height;
        if (bottom <= g->crop_y || top >= g->crop_y + (uint64_t)g->height) continue;
        for (uint32_t c = 0; c < g->columns && st == SY_OK; c++) {
            uint64_t left = (uint64_t)c * g->tile_width;
            if (left + g->tile_width <= g->crop_x || left >= g->crop_x + (uint64_t)g->width) continue;
            uint32_t id = g->tiles[r * g->columns + c];
            size_t hl = 0;
            const uint8_t *hvcc = sy_heif_hvcc(file, id, &hl);
            sy__yuv yuv = {0};
            st = sy__gainmap_decode_item(ctx, file, path, "HDR picture tile", id, hvcc, hl, 1, &dec, &yuv, err);
            if (st != SY_OK) break;
            st = add_tile(ctx, m, &yuv, r, c, err);
            sy__yuv_release(ctx, &yuv);
            if (st != SY_OK) break;
            if ((st = sy__check_cancel(ctx, err)) != SY_OK) break;
        }
        flush_rows(m, SY__MIN(bottom - g->crop_y, (uint64_t)g->height));
    }
    sy__hevc_decoder_destroy(dec);
    if (st == SY_OK && m->flushed < m->out->height)
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: the HDR picture's tiles end before its row %u", path,
                      m->flushed * m->scale);
    return st;
}

sy_status sy__gainmap_decode_signal(sy_context *ctx, const char *path, const sy_gainmap_info *info, uint32_t reduce,
                                    sy_gainmap_image *out, sy_error *err) {
    sy_heif_file *file = NULL;
    sy_status st = sy_heif_open(ctx, path, &file, err);
    if (st != SY_OK) return st;
    sy__heif_geometry g;
    signal_map m = {.g = &g, .out = out};
    if ((st = sy__heif_geometry_read(file, path, (uint32_t)info->map_offset, &g, err)) != SY_OK) goto done;
    if (!sy__heif_geometry_is_hdr(&g)) {
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: item %u is no HDR picture", path, (uint32_t)info->map_offset);
        goto done;
    }
    m.scale = SY__GAINMAP_SIGNAL_SCALE * (reduce >= 4 ? 4 : reduce >= 2 ? 2 : 1);
    m.ring_rows = g.tile_height / m.scale + 2;
    out->width = (g.width + m.scale - 1) / m.scale, out->height = (g.height + m.scale - 1) / m.scale;
    out->channels = 1, out->stride = out->width;
    out->pixels = sy__alloc(ctx, out->stride, out->height, "gain map pixels", err);
    m.sums = out->pixels ? sy__calloc(ctx, (size_t)m.ring_rows * out->width, sizeof *m.sums, "gain map sums", err) : NULL;
    m.gain = m.sums ? sy__alloc(ctx, g.tile_width, sizeof *m.gain, "gain row", err) : NULL;
    m.gain_width = g.tile_width;
    if (!m.gain) {
        st = err ? err->code : SY_E_BUDGET;
        goto done;
    }
    st = decode_tiles(ctx, file, path, &m, err);
done:
    sy__free(ctx, m.sums);
    sy__free(ctx, m.gain);
    sy_heif_close(file);
    if (st != SY_OK) sy_gainmap_image_free(ctx, out);
    return st;
}
