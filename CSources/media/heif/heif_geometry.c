/* heif_geometry.c — what our reader needs to decode one HEVC image item of a
 * HEIF (a grid of tiles or a single coded item): tiles, clean aperture,
 * irot/imir as an EXIF orientation, colour; and which item a reduced decode
 * should read (sy_heif_geometry.h). */
#include <string.h>

#include "base/sy_internal.h"
#include "base/sy_fourcc.h"
#include "base/sy_hdr_tone.h"
#include "heif/sy_heif_geometry.h"
#include "hevc/sy_hevc_params.h"

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

/* irot (anticlockwise quarter turns) and imir, in the order ipma listed them.
 * imir's bit (ISO/IEC 23008-12:2022 6.5.12.3, amended to match iPhones and
 * libheif): 0 exchanges top and bottom (EXIF 4), 1 left and right (EXIF 2).
 * The 2017 text ("a vertical (0) or horizontal (1) axis") was read the other
 * way round by some; a mirrored iPhone selfie (irot 1 + imir 1) then comes
 * out upside down. */
static uint8_t orientation_of(const sy_heif_item_info *item) {
    int t[4] = {1, 0, 0, 1}, tmp[4];
    const int *rot = exif_matrix[8]; /* one quarter turn anticlockwise */
    int r[4] = {1, 0, 0, 1};
    for (unsigned i = 0; i < (item->rotation & 3u); i++) {
        multiply(rot, r, tmp);
        memcpy(r, tmp, sizeof r);
    }
    const int *m = item->mirror == 0 ? exif_matrix[4] : item->mirror == 1 ? exif_matrix[2] : exif_matrix[1];
    if (item->transform_order == 0) multiply(m, r, t); /* rotate first, then mirror */
    else multiply(r, m, t);
    for (uint8_t o = 1; o <= 8; o++)
        if (memcmp(exif_matrix[o], t, sizeof t) == 0) return o;
    return 1;
}

/* The colour description of a tile's SPS VUI (what the decoder will report),
 * read from its hvcC; present = 0 when it has none or does not parse. */
static sy_cicp vui_colour(sy_heif_file *file, uint32_t tile) {
    sy_cicp none = {0};
    size_t len = 0;
    const uint8_t *rec = sy_heif_hvcc(file, tile, &len);
    sy__hvcc h;
    if (!rec || sy__hvcc_parse(rec, len, &h, NULL) != SY_OK) return none;
    for (uint32_t i = 0; i < h.ps_count; i++) {
        const uint8_t *nal = rec + h.ps[i].offset;
        sy__hevc_sps sps;
        if (h.ps[i].length >= 2 && sy__hevc_nal_type(nal) == SY__HEVC_NAL_SPS &&
            sy__hevc_sps_parse(nal, h.ps[i].length, &sps) && sps.has_vui)
            return sps.colour;
    }
    return none;
}

/* A PQ picture's grade (mdcv / clli properties, the tile's else the item's)
 * sets where its tone mapping reaches white (sy_cicp.peak); 0 otherwise. */
static uint16_t pq_peak(const sy_cicp *signal, const sy_heif_item_info *tile, const sy_heif_item_info *image) {
    const sy_hdr_static_metadata *grade = tile->hdr.has_mastering || tile->hdr.has_light_level ? &tile->hdr : &image->hdr;
    return signal->transfer == SY_CICP_TRANSFER_PQ ? sy__hdr_content_peak(grade) : 0;
}

sy_status sy__heif_geometry_read(sy_heif_file *file, const char *path, uint32_t item, sy__heif_geometry *g,
                                 sy_error *err) {
    memset(g, 0, sizeof *g);
    g->item = item;
    const sy_heif_item_info *image = sy_heif_item(file, g->item);
    if (!image) return sy__fail(err, SY_E_INVALID_INPUT, "%s: HEIF has no item %u", path, item);
    const sy_heif_item_info *tile;
    if (image->type == SY_FOURCC('g', 'r', 'i', 'd')) {
        sy_heif_grid grid;
        sy_status st = sy_heif_read_grid(file, g->item, &grid, err);
        if (st != SY_OK) return st;
        uint32_t count = 0;
        g->tiles = sy_heif_derived(file, g->item, &count);
        if (!g->tiles || count == 0 || count != grid.rows * grid.columns)
            return sy__fail(err, SY_E_INVALID_INPUT, "%s: grid %ux%u has %u tiles", path, grid.rows, grid.columns, count);
        g->rows = grid.rows, g->columns = grid.columns;
        g->grid_width = grid.output_width, g->grid_height = grid.output_height;
        tile = sy_heif_item(file, g->tiles[0]);
    } else if (image->type == SY_FOURCC('h', 'v', 'c', '1')) {
        g->single_tile = g->item;
        g->tiles = &g->single_tile;
        g->rows = g->columns = 1;
        tile = image;
    } else {
        g->coding = image->type;
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: primary item type '%c%c%c%c' is not decoded by our reader", path,
                        (char)(image->type >> 24), (char)(image->type >> 16), (char)(image->type >> 8),
                        (char)image->type);
    }
    if (!tile || tile->type != SY_FOURCC('h', 'v', 'c', '1') || !tile->has_ispe || !tile->width || !tile->height)
        return sy__fail(err, SY_E_UNSUPPORTED, "%s: tiles are not HEVC images with a size", path);
    g->tile_width = tile->width, g->tile_height = tile->height;
    if (g->rows == 1 && g->columns == 1 && !g->grid_width) {
        g->grid_width = image->has_ispe ? image->width : tile->width;
        g->grid_height = image->has_ispe ? image->height : tile->height;
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
    if (image->has_clap && image->clap_width && image->clap_height &&
        (uint64_t)image->clap_x + image->clap_width <= g->grid_width &&
        (uint64_t)image->clap_y + image->clap_height <= g->grid_height) {
        g->crop_x = image->clap_x, g->crop_y = image->clap_y;
        g->width = image->clap_width, g->height = image->clap_height;
    }
    g->orientation = orientation_of(image);
    g->nclx = tile->nclx.present ? tile->nclx : image->nclx;
    g->signal = g->nclx.present ? g->nclx : vui_colour(file, g->tiles[0]);
    g->signal.peak = pq_peak(&g->signal, tile, image);
    return SY_OK;
}

int sy__heif_av1_signal(sy_heif_file *file, uint32_t item, sy_cicp *signal) {
    memset(signal, 0, sizeof *signal);
    const sy_heif_item_info *image = sy_heif_item(file, item), *tile = image;
    if (image && image->type == SY_FOURCC('g', 'r', 'i', 'd')) {
        uint32_t count = 0;
        const uint32_t *tiles = sy_heif_derived(file, item, &count);
        tile = tiles && count ? sy_heif_item(file, tiles[0]) : NULL;
    }
    if (!tile || tile->type != SY_FOURCC('a', 'v', '0', '1')) return 0;
    const sy_cicp nclx = tile->nclx.present ? tile->nclx : image->nclx;
    if (!nclx.present || !sy__cicp_is_hdr_transfer(nclx.transfer)) return 0;
    *signal = nclx;
    signal->peak = pq_peak(signal, tile, image);
    return 1;
}

int sy__heif_geometry_is_hdr(const sy__heif_geometry *g) {
    return g->signal.present && sy__cicp_is_hdr_transfer(g->signal.transfer);
}

void sy__heif_geometry_info(const sy__heif_geometry *g, const sy_heif_item_info *image, sy_image_info *out) {
    memset(out, 0, sizeof *out);
    out->format = SY_FORMAT_HEIF;
    out->stored_width = g->width;
    out->stored_height = g->height;
    out->orientation = g->orientation;
    int turned = g->orientation >= 5;
    out->width = turned ? g->height : g->width;
    out->height = turned ? g->width : g->height;
    out->bit_depth = image->bits_per_channel ? image->bits_per_channel : 8;
}


/* ---- the item a reduced decode reads ---- */

static void upright_size(const sy__heif_geometry *g, uint32_t *w, uint32_t *h) {
    int turned = g->orientation >= 5;
    *w = turned ? g->height : g->width;
    *h = turned ? g->width : g->height;
}

static int same_colour(sy_heif_file *file, const sy__heif_geometry *a, const sy__heif_geometry *b) {
    if (sy__heif_geometry_is_hdr(a) != sy__heif_geometry_is_hdr(b)) return 0; /* an SDR thumbnail of an HDR photo */
    if (a->nclx.present != b->nclx.present) return 0;
    if (a->nclx.present && (a->nclx.primaries != b->nclx.primaries || a->nclx.transfer != b->nclx.transfer ||
                            a->nclx.matrix != b->nclx.matrix || a->nclx.full_range != b->nclx.full_range))
        return 0;
    size_t a_len = 0, b_len = 0;
    const uint8_t *a_icc = sy_heif_icc(file, a->item, &a_len), *b_icc = sy_heif_icc(file, b->item, &b_len);
    if (!a_icc || !b_icc) return !a_icc && !b_icc;
    return a_len == b_len && memcmp(a_icc, b_icc, a_len) == 0;
}

uint32_t sy__heif_pick_item(sy_heif_file *file, const char *path, const sy__heif_geometry *primary,
                            uint32_t min_width, uint32_t min_height) {
    uint32_t pw, ph, best = primary->item;
    upright_size(primary, &pw, &ph);
    /* The need, upright (it is given in the primary's stored orientation). */
    uint32_t need_w = primary->orientation >= 5 ? min_height : min_width;
    uint32_t need_h = primary->orientation >= 5 ? min_width : min_height;
    uint64_t best_pixels = (uint64_t)primary->width * primary->height;
    for (uint32_t i = 0, n = sy_heif_item_count(file); i < n; i++) {
        const sy_heif_item_info *it = sy_heif_item_at(file, i);
        if (!it || it->thumbnail_of != primary->item || it->id == primary->item) continue;
        sy__heif_geometry t;
        if (sy__heif_geometry_read(file, path, it->id, &t, NULL) != SY_OK) continue;
        uint32_t tw, th;
        upright_size(&t, &tw, &th);
        /* The same picture: upright aspect within one thumbnail pixel (tw vs pw*th/ph). */
        uint64_t lhs = (uint64_t)tw * ph, rhs = (uint64_t)pw * th;
        if ((lhs > rhs ? lhs - rhs : rhs - lhs) > ph) continue;
        if (tw < need_w || th < need_h) continue; /* never upscale a thumbnail */
        if (!same_colour(file, primary, &t)) continue;
        uint64_t pixels = (uint64_t)t.width * t.height;
        if (pixels < best_pixels) best = t.item, best_pixels = pixels;
    }
    return best;
}
