/* sy_hdr_tone.h — HDR video signals (PQ, HLG) shown as SDR Display P3
 * (engine-private).
 *
 * The engine's RGB frames are 8-bit and SDR: a still, a GIF, a collage cell.
 * An HDR movie (an iPhone's default HLG recording, a PQ clip) decoded as if
 * it were SDR looks flat and grey, its colours pale (BT.2020 values read as
 * sRGB ones). Its frames are instead taken to display light, tone-mapped and
 * converted to Display P3 (hdr_tone.c), so every such frame is a Display P3
 * frame (sy__cicp_frame_primaries) and is tagged and composed as one. */
#ifndef SY_HDR_TONE_H
#define SY_HDR_TONE_H

#include <stddef.h>
#include <stdint.h>

#include "sy_image.h" /* sy_hdr_static_metadata */

#define SY_CICP_TRANSFER_PQ 16u  /* SMPTE ST 2084 */
#define SY_CICP_TRANSFER_HLG 18u /* ARIB STD-B67, BT.2100 HLG */

/* Whether `transfer` is an HDR signal the engine tone-maps. */
int sy__cicp_is_hdr_transfer(uint16_t transfer);

/* The primaries of the RGB frames the engine makes of pictures described by
 * (primaries, transfer): Display P3 for HDR signals, else `primaries`. */
uint16_t sy__cicp_frame_primaries(uint16_t primaries, uint16_t transfer);

/* One picture's mapping: its signal, luma weights and gamut. */
typedef struct sy__hdr_map {
    uint16_t transfer;
    const float *to_linear; /* signal 0..1 -> linear (see hdr_tone.c), SY__HDR_STEPS + 2 entries */
    float weight[3];        /* luma weights of the source primaries */
    float gamut[9];         /* source linear RGB -> Display P3 linear RGB */
    float knee, bend;       /* the tone curve (hdr_tone.c) */
} sy__hdr_map;

/* Sets up the mapping for pictures in `primaries` (unspecified: BT.2020,
 * what HDR video uses) with HDR `transfer`; 0 when it is no HDR transfer.
 * `peak` (cd/m², PQ only; 0 = 1000) is where the tone curve reaches white. */
int sy__hdr_map_init(sy__hdr_map *m, uint16_t primaries, uint16_t transfer, uint16_t peak);

/* The peak a PQ picture with this HDR10 metadata is tone-mapped to (cd/m²):
 * its MaxCLL, else its mastering display's peak, within 400..10000; 0 (the
 * nominal 1000) when it says neither. */
uint16_t sy__hdr_content_peak(const sy_hdr_static_metadata *grade);

/* `n` pixels of R'G'B' signal (0..1, interleaved floats) -> 8-bit Display P3
 * R'G'B' (sRGB curve), interleaved. */
void sy__hdr_to_sdr(const sy__hdr_map *m, const float *signal, size_t n, uint8_t *out);

/* For the same pixels: how much brighter the HDR display shows each one than
 * its SDR rendition (linear ratio, 1 up to the tone curve's knee; the same for
 * R, G and B, so HDR = SDR x gain exactly) — what a gain map records. */
void sy__hdr_gain(const sy__hdr_map *m, const float *signal, size_t n, float *gain);

/* The display peak a mapping with `peak` (as sy__hdr_map_init takes it)
 * assumes, over reference white (1000 / 203 for 0): the largest gain
 * sy__hdr_gain gives for pixels at or below that peak. */
double sy__hdr_headroom(uint16_t peak);

#endif
