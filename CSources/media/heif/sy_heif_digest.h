/* sy_heif_digest.h — exact-content digest of a HEIF's primary image from its
 * coded data, or of another image item's (engine-private; used by the organize
 * fingerprints).
 *
 * SHA-256 over "SYHC1", the primary's geometry (grid, tiles, clean aperture,
 * irot/imir as an orientation, nclx) and every tile's hvcC and HEVC payload
 * in grid order. No pixel is decoded; memory is one tile's payload. */
#ifndef SY_HEIF_DIGEST_H
#define SY_HEIF_DIGEST_H

#include "sy_base.h"

/* 64 lowercase hex digits + NUL into `out`. Item types our reader does not
 * decode (AV1, iden, ...) give SY_E_UNSUPPORTED; broken files name the file. */
sy_status sy__heif_coded_digest(sy_context *ctx, const char *path, char out[65], sy_error *err);

/* The same digest of another coded image item (a gain map); item 0 is the primary. */
sy_status sy__heif_item_coded_digest(sy_context *ctx, const char *path, uint32_t item, char out[65], sy_error *err);

#endif
