/* sy_heif_source.h — HEIF header probe and row sources (engine-private;
 * the interface is base/sy_source.h).
 *
 * Our own reader decodes HEVC grid/single images one tile row at a time,
 * box-downscaled by the largest power of two that still covers min_width x
 * min_height (of the primary's delivered frame, stored orientation), from the
 * primary or from a thumbnail item that covers that at its full size; the
 * tiles of a row are decoded on up to means->threads threads while the
 * source's working set stays within means->working_bytes (NULL means: the
 * calling thread only). Other item types fall back to libheif's full decode
 * (libheif_fallback.c), which initialises libheif on first use. */
#ifndef SY_HEIF_SOURCE_H
#define SY_HEIF_SOURCE_H

#include "base/sy_cicp.h"
#include "base/sy_source.h"

sy_status sy__heif_probe(sy_context *ctx, const char *path, sy_image_info *out, sy_error *err);

/* Whether every tile of the primary image lies inside the file (nothing is
 * read): SY_E_INVALID_INPUT naming the first that does not — a truncated copy,
 * whose header probes fine. */
sy_status sy__heif_complete(sy_context *ctx, const char *path, sy_error *err);
sy_status sy__heif_source_open(sy_context *ctx, const char *path, uint32_t min_width, uint32_t min_height,
                               const sy__source_means *means, sy__source **out, sy_error *err);

/* The libheif fallback: probe and a full-size, upright (orientation 1) source. */
sy_status sy__libheif_probe(sy_context *ctx, const char *path, sy_image_info *out, sy_error *err);

/* `hdr` NULL: libheif's own 8-bit R'G'B'. An HDR signal (PQ / HLG, as
 * sy__heif_av1_signal says; heif/sy_heif_geometry.h): libheif's 10/12-bit
 * R'G'B' of it, delivered as its SDR Display P3 rendition (base/sy_hdr_tone.h). */
sy_status sy__libheif_source_open(sy_context *ctx, const char *path, const sy_cicp *hdr, sy__source **out,
                                  sy_error *err);
/* For a source opened with `hdr`, instead of the next row's pixels: its gain,
 * HDR over SDR, per pixel (sy__hdr_gain), base.width floats. */
sy_status sy__libheif_read_gain_row(sy__source *src, float *gain, sy_error *err);

#endif
