/* sy_png_source.h — PNG header probe and row source (engine-private; the
 * interface is base/sy_source.h). */
#ifndef SY_PNG_SOURCE_H
#define SY_PNG_SOURCE_H

#include <stdio.h>

#include "base/sy_source.h"

/* Header only; `path` is used only in messages (the FILE is positioned at 0). */
sy_status sy__png_probe(sy_context *ctx, FILE *file, const char *path, sy_image_info *out, sy_error *err);
/* Opens a full-size row source (8-bit R'G'B'). A PNG whose cICP says PQ or
 * HLG (PNG 3rd edition HDR) delivers its SDR Display P3 rendition, as an
 * HDR-signal HEIF does (base/sy_hdr_tone.h): its code values read as SDR would
 * look flat and grey. */
sy_status sy__png_source_open(sy_context *ctx, const char *path, sy__source **out, sy_error *err);

/* What a PNG's cICP / cLLi / mDCv chunks say of an HDR signal. */
typedef struct sy__png_hdr {
    uint8_t present;    /* cICP with a PQ or HLG transfer and the RGB matrix (0) */
    uint8_t primaries;  /* cICP colour primaries (1 BT.709, 9 BT.2020, 12 Display P3) */
    uint8_t transfer;   /* SY_CICP_TRANSFER_PQ or _HLG */
    uint8_t full_range; /* cICP video_full_range_flag */
    uint16_t peak;      /* cd/m² a PQ picture is mapped to (cLLi, else mDCv; 0: nominal) */
} sy__png_hdr;

/* The HDR signal of a source sy__png_source_open opened (zeroed for SDR). */
void sy__png_source_hdr(const sy__source *png, sy__png_hdr *out);

/* For an HDR source, instead of the next row's pixels: how much brighter an
 * HDR display shows each of its `width` pixels than the SDR rendition does
 * (sy__hdr_gain). SY_E_UNSUPPORTED for an interlaced PNG (decoded whole, as SDR). */
sy_status sy__png_read_gain_row(sy__source *png, float *gain, sy_error *err);

#endif
