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

/* The HDR signal of a source sy__png_source_open or _gain_open opened (zeroed for SDR). */
void sy__png_source_hdr(const sy__source *png, sy__png_hdr *out);
/* 1 for an Adam7-interlaced PNG. */
int sy__png_source_interlaced(const sy__source *png);

/* The HDR signal alone (a probe): reads the chunks before the image data,
 * allocates no rows and no inflate state. */
sy_status sy__png_probe_hdr(sy_context *ctx, const char *path, sy__png_hdr *out, sy_error *err);

/* Opens a PNG for sy__png_read_gains only (its read_rows fails): an
 * interlaced one is not decoded whole, so this holds a few rows at any size. */
sy_status sy__png_gain_open(sy_context *ctx, const char *path, sy__source **out, sy_error *err);

/* Which pixels one sy__png_read_gains call covered: row y, columns x0,
 * x0 + step, ... (count of them). */
typedef struct sy__png_gain_run {
    uint32_t y, x0, step, count;
} sy__png_gain_run;

/* For an HDR source from sy__png_gain_open: how much brighter an HDR display
 * shows the next run of pixels than the SDR rendition does (sy__hdr_gain), in
 * file order — rows top to bottom (x0 0, step 1, the whole width), an
 * interlaced PNG's seven Adam7 passes one after another (so a pixel's box may
 * be complete only after the last pass). run->count 0: every pixel was given. */
sy_status sy__png_read_gains(sy__source *png, float *gain, sy__png_gain_run *run, sy_error *err);

#endif
