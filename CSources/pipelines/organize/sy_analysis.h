/* sy_analysis.h — measurements on a small luma plane (engine-private):
 * its size, the perceptual hash and the quality figures of sy_fingerprint. */
#ifndef SY_ANALYSIS_H
#define SY_ANALYSIS_H

#include <stdint.h>

#include "sy_base.h"
#include "sy_fingerprint.h"

/* Size of the analysis plane of a w x h frame: the long edge scaled to
 * SY_FINGERPRINT_ANALYSIS_EDGE (never up), rounded; at least 1 x 1.
 * `ceil_size` rounds up instead: the smallest decode that still covers it. */
void sy__analysis_size(uint32_t w, uint32_t h, int ceil_size, uint32_t *aw, uint32_t *ah);

/* One row of w R'G'B' pixels as BT.601 luma (the plane every measure reads). */
void sy__analysis_luma_row(const uint8_t *rgb, uint32_t w, uint8_t *luma);

/* pHashes of a luma plane of w x h (stored orientation; EXIF `orientation`
 * is applied to the 32x32 grid): out[0] of the upright picture, out[1..3] of
 * it turned 90, 180 and 270 degrees clockwise. */
void sy__phash_luma(const uint8_t *luma, uint32_t w, uint32_t h, uint8_t orientation, uint64_t out[4]);

/* Fills sharpness, clipped_fraction, mean_luma and quality of `out`. */
void sy__quality_luma(const uint8_t *luma, uint32_t w, uint32_t h, sy_fingerprint *out);

/* Folds a stored gain map into `pixel_sha256` (the primary's digest, 64 hex
 * digits): its metadata and pixels (gainmap_evidence.c). No map: unchanged.
 * A map that cannot be read: the digest becomes one of the file's bytes
 * (`file_sha256`), so only byte copies agree. Errors: cancellation, budget. */
sy_status sy__fingerprint_mix_gain_map(sy_context *ctx, const char *path, const char *file_sha256,
                                       char pixel_sha256[65], sy_error *err);

#endif
