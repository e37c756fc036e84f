/* heif_digest.c — the exact-content digest of a HEIF's primary image, taken
 * from its coded data instead of its decoded pixels.
 *
 * Why: hashing decoded rows in raster order needs a whole tile row at full
 * resolution (15 MB for a 24 MP iPhone grid), more than a 12 MB scan worker
 * has. HEVC decoding is deterministic, so the same coded tiles with the same
 * geometry and colour description always decode to the same pixels: equal
 * digests mean equal pixels, and a metadata-only change (Exif, XMP, ICC,
 * another thumbnail) keeps the digest. */
#include <string.h>

#include "base/sy_internal.h"
#include "base/sy_sha256.h"
#include "heif/sy_heif_geometry.h"
#include "heif/sy_heif_digest.h"

static void put_u32(sy__sha256 *sha, uint32_t v) {
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    sy__sha256_update(sha, b, sizeof b);
}

/* Everything that decides how the coded tiles become delivered pixels. */
static void hash_geometry(sy__sha256 *sha, const sy__heif_geometry *g) {
    static const uint8_t tag[5] = {'S', 'Y', 'H', 'C', '1'};
    sy__sha256_update(sha, tag, sizeof tag);
    const uint32_t fields[] = {g->rows,     g->columns, g->grid_width, g->grid_height, g->tile_width,
                               g->tile_height, g->crop_x, g->crop_y,    g->width,       g->height,
                               g->orientation, g->nclx.present, g->nclx.primaries, g->nclx.transfer,
                               g->nclx.matrix, g->nclx.full_range};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) put_u32(sha, fields[i]);
}

sy_status sy__heif_coded_digest(sy_context *ctx, const char *path, char out[65], sy_error *err) {
    return sy__heif_item_coded_digest(ctx, path, 0, out, err);
}

sy_status sy__heif_item_coded_digest(sy_context *ctx, const char *path, uint32_t item, char out[65], sy_error *err) {
    sy_heif_file *file = NULL;
    sy_status st = sy_heif_open(ctx, path, &file, err);
    if (st != SY_OK) return st;
    sy__heif_geometry g;
    if ((st = sy__heif_geometry_read(file, path, item ? item : sy_heif_primary_id(file), &g, err)) != SY_OK) goto done;
    sy__sha256 sha;
    sy__sha256_init(&sha);
    hash_geometry(&sha, &g);
    for (uint32_t i = 0; i < g.rows * g.columns; i++) {
        size_t hvcc_len = 0, len = 0;
        const uint8_t *hvcc = sy_heif_hvcc(file, g.tiles[i], &hvcc_len);
        put_u32(&sha, (uint32_t)hvcc_len);
        if (hvcc) sy__sha256_update(&sha, hvcc, hvcc_len);
        uint8_t *data = NULL;
        if ((st = sy_heif_read_item(file, g.tiles[i], &data, &len, err)) != SY_OK) goto done;
        put_u32(&sha, (uint32_t)len);
        sy__sha256_update(&sha, data, len);
        sy_heif_free_data(file, data);
        if ((i & 15) == 15 && (st = sy__check_cancel(ctx, err)) != SY_OK) goto done;
    }
    sy__sha256_hex(&sha, out);
done:
    sy_heif_close(file);
    return st;
}
