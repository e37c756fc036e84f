/* sy_color_transform.h — colour management (engine-private): 8-bit R'G'B'
 * rows from a source's colour space into one output space, through lcms2
 * (the only folder that includes it).
 *
 * The engine renders every output in one RGB space and tags it with that
 * space's profile (so a viewer shows what was meant): Display P3 when a
 * source is wider than sRGB, sRGB otherwise (sy__color_output_space). A
 * source is described by its ICC profile, else by CICP primaries (HEIF nclx,
 * a movie's VUI), else it is sRGB, as untagged web and phone images are.
 *
 * Memory: lcms2's allocations for a transform (a few hundred KB for a
 * 33-point device link) are charged to the context through an lcms2 memory
 * plugin. Threads: a transform is read-only once made (no cache), so any
 * number of threads may run sy__color_transform_rows on it at once. */
#ifndef SY_COLOR_TRANSFORM_H
#define SY_COLOR_TRANSFORM_H

#include <stddef.h>
#include <stdint.h>

#include "base/sy_internal.h"

typedef enum sy__rgb_space {
    SY__RGB_SRGB = 0,
    SY__RGB_DISPLAY_P3 = 1,
} sy__rgb_space;

/* What a source says about its colour: ICC bytes (borrowed; NULL = none) or
 * CICP primaries (0 = not said; pixels in any primaries with known
 * chromaticities are converted from them, with the sRGB curve). */
typedef struct sy__color_source {
    const uint8_t *icc;
    size_t icc_len;
    uint16_t cicp_primaries;
} sy__color_source;

/* 1 when the source is not sRGB: Display P3, or a profile or primaries
 * other than sRGB's (converted whatever the output, but kept wide). */
int sy__color_is_wide(const sy__color_source *src);

/* Display P3 when any of `count` sources is wide (or has a profile we cannot
 * name), sRGB otherwise. */
sy__rgb_space sy__color_output_space(const sy__color_source *sources, size_t count);

/* The space pixels of CICP `primaries` are in, as far as a profile can say
 * it: Display P3 for 12, sRGB for everything else (a frame of a movie is
 * tagged with it, not converted). */
sy__rgb_space sy__color_space_of_primaries(uint16_t primaries);

/* An sRGB colour (a collage's background) as `space` codes it, in place. */
sy_status sy__color_from_srgb(sy_context *ctx, sy__rgb_space space, uint8_t rgb[3], sy_error *err);

typedef struct sy__color_transform sy__color_transform;

/* A transform from the CMYK of `icc` (a CMYK profile; `inverted`: Adobe's
 * convention, 255 = no ink, as Photoshop's JPEGs store it) to sRGB R'G'B',
 * for sy__color_cmyk_rows. SY_E_UNSUPPORTED when lcms2 cannot read the
 * profile or it is not CMYK. */
sy_status sy__color_cmyk_create(sy_context *ctx, const uint8_t *icc, size_t icc_len, int inverted,
                                sy__color_transform **out, sy_error *err);

/* `width` CMYK pixels (4 bytes each) into sRGB R'G'B' (3 bytes each). */
void sy__color_cmyk_rows(const sy__color_transform *t, const uint8_t *cmyk, uint8_t *rgb, uint32_t width);

/* A transform from `src` to `dest`; *out = NULL (and SY_OK) when none is
 * needed (the source is already in `dest`). A profile lcms2 cannot read, or
 * one that is not RGB, is SY_E_UNSUPPORTED naming the reason. */
sy_status sy__color_transform_create(sy_context *ctx, const sy__color_source *src, sy__rgb_space dest,
                                     sy__color_transform **out, sy_error *err);

/* Converts `rows` interleaved R'G'B' rows of `width` pixels in place
 * (stride bytes apart). */
void sy__color_transform_rows(const sy__color_transform *t, uint8_t *rgb, size_t stride, uint32_t width,
                              uint32_t rows);

void sy__color_transform_destroy(sy__color_transform *t);

/* The ICC profile that tags an output in `space` (engine-allocated, sy__free):
 * a v4 matrix/shaper profile with the sRGB curve and the space's primaries,
 * D65 white, built by lcms2. */
sy_status sy__color_space_icc(sy_context *ctx, sy__rgb_space space, uint8_t **icc, size_t *len, sy_error *err);

/* The ICC profile that says what a CICP colour description (a HEIF's nclx:
 * primaries with known chromaticities, transfer) says, for an output that
 * keeps such pixels as they are (sy__color_space_icc's profile for sRGB and
 * Display P3 with the sRGB curve). The curve: the sRGB one for the SDR
 * transfers (BT.709, sRGB, BT.601, BT.2020: what still-image readers show),
 * gamma 2.2 / 2.8 for 4 / 5, linear for 8. SY_E_UNSUPPORTED for unknown
 * primaries or an HDR transfer. */
sy_status sy__color_cicp_icc(sy_context *ctx, uint16_t primaries, uint16_t transfer, uint8_t **icc, size_t *len,
                             sy_error *err);

/* A grey profile (data colour space 'GRAY': Photoshop's "Dot Gain 20%",
 * "Gray Gamma 2.2", a linear grey) as an RGB matrix/shaper profile with the
 * same curve on all three channels and sRGB's primaries: the engine hands
 * grey pictures out as R = G = B, which that profile shows exactly as the grey
 * one showed the grey values, and which colour conversions (a P3 collage) can
 * use. SY_E_UNSUPPORTED when lcms2 cannot read the profile or its grey curve. */
sy_status sy__color_gray_as_rgb_icc(sy_context *ctx, const uint8_t *gray, size_t gray_len, uint8_t **icc, size_t *len,
                                    sy_error *err);

#endif
