/* sy_icc.h — what an ICC profile says in CICP terms (engine-private), so a
 * file that carries both a profile and a colr 'nclx' / VUI can make the two
 * agree instead of contradicting each other. */
#ifndef SY_ICC_H
#define SY_ICC_H

#include <stddef.h>
#include <stdint.h>

/* The colour_primaries code point (H.273) of an RGB display profile whose
 * rXYZ/gXYZ/bXYZ colorants (D50-adapted, as ICC v2/v4 store them) match a
 * known set within 0.005: 1 = BT.709/sRGB, 12 = Display P3 (SMPTE EG 432),
 * 9 = BT.2020. 0 when the profile is unreadable, not RGB, or other primaries.
 * Bounded by [icc, icc + len). */
uint16_t sy__icc_primaries(const uint8_t *icc, size_t len);

/* The transfer_characteristics code point of an RGB profile whose three
 * rTRC/gTRC/bTRC curves are all the sRGB curve (IEC 61966-2-1: a 'para'
 * function of type 3 or 4 with its parameters, or a sampled 'curv' table that
 * follows it within 0.5 %): 13. 0 for any other curve or an unreadable profile. */
uint16_t sy__icc_transfer(const uint8_t *icc, size_t len);

/* 1 when the profile's data colour space (header bytes 16..19) is 'CMYK'. */
int sy__icc_is_cmyk(const uint8_t *icc, size_t len);

/* 1 when the profile's data colour space is 'GRAY'. */
int sy__icc_is_gray(const uint8_t *icc, size_t len);

#endif
