/* sy_sample.h — deterministic photo-like sample photos (built-in demo and test inputs). */
#ifndef SY_SAMPLE_H
#define SY_SAMPLE_H

#include "sy_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sy_sample_options {
    uint32_t version;     /* 1 */
    uint32_t width;       /* stored width (default 4032) */
    uint32_t height;      /* stored height (default 3024) */
    uint8_t orientation;  /* EXIF orientation to write: 1 (landscape) or 6/8 (portrait
                             stored landscape; the scene is drawn so it is upright after it) */
    uint64_t seed;        /* scene seed: same seed, same bytes */
    int quality;          /* JPEG quality (default 92) */
    int progressive;      /* 1 = progressive JPEG */
} sy_sample_options;

void sy_sample_options_init(sy_sample_options *opts);

/** Writes a textured landscape scene (sky gradient, sun, fractal hills, foliage
 *  noise) as a baseline (or progressive) JPEG with an Exif APP1 segment holding
 *  Orientation, Make/Model "Shiying"/"SampleCam" and DateTimeOriginal. Streams
 *  16 rows at a time; written to a temp file and renamed. Deterministic. */
sy_status sy_sample_write_jpeg(sy_context *ctx, const sy_sample_options *opts,
                               const char *output_path, sy_error *err);

/** The same scene as an iPhone-shaped HEIC: the stored pixels as a grid of
 *  512x512 HEVC tiles (x265 "ultrafast"), the orientation as irot/imir, the same
 *  Exif as an Exif item. Streams 16 rows at a time into the HEIF writer. */
sy_status sy_sample_write_heic(sy_context *ctx, const sy_sample_options *opts, const char *output_path,
                               sy_error *err);

#ifdef __cplusplus
}
#endif
#endif
