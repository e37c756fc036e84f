/* sy_analysis.h — measurements on a small luma plane (engine-private):
 * the perceptual hash and the quality figures of sy_fingerprint. */
#ifndef SY_ANALYSIS_H
#define SY_ANALYSIS_H

#include <stdint.h>

#include "sy_fingerprint.h"

/* pHash of a luma plane of w x h (stored orientation; EXIF `orientation`
 * is applied to the 32x32 grid so the hash describes the upright picture). */
uint64_t sy__phash_luma(const uint8_t *luma, uint32_t w, uint32_t h, uint8_t orientation);

/* Fills sharpness, clipped_fraction, mean_luma and quality of `out`. */
void sy__quality_luma(const uint8_t *luma, uint32_t w, uint32_t h, sy_fingerprint *out);

#endif
