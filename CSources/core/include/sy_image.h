/* sy_image.h — the still formats the engine reads and what a header says of a file. */
#ifndef SY_IMAGE_H
#define SY_IMAGE_H

#include "sy_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sy_image_format {
    SY_FORMAT_UNKNOWN = 0,
    SY_FORMAT_JPEG = 1,
    SY_FORMAT_PNG = 2,
    SY_FORMAT_HEIF = 3,
} sy_image_format;

/** Largest width or height the engine accepts for any input (hostile-size guard). */
#define SY_MAX_INPUT_DIMENSION 65535u
/** Largest pixel count the engine accepts for any input (≈ 200 MP). */
#define SY_MAX_INPUT_PIXELS (200ull * 1000 * 1000)

typedef struct sy_image_info {
    sy_image_format format;
    uint32_t width, height;               /* upright (after orientation) */
    uint32_t stored_width, stored_height; /* as coded in the file */
    uint8_t orientation;                  /* EXIF orientation 1..8 (1 when absent) */
    uint8_t progressive;                  /* JPEG: progressive/multi-scan */
    uint8_t has_alpha;
    uint8_t bit_depth;                    /* per channel as coded */
} sy_image_info;

/** HDR10 static metadata of a PQ (or HLG) picture or movie: the SMPTE ST 2086
 *  mastering display colour volume and the CTA-861.3 content light levels, in
 *  the units of the HEVC / H.264 SEI messages and the ISO `mdcv` / `clli`
 *  boxes. A player reads them to tone-map for its own display; a re-encode
 *  that keeps the HDR must carry them. Zeroed (has_* = 0) when absent. */
typedef struct sy_hdr_static_metadata {
    uint8_t has_mastering;                 /* mastering display colour volume present */
    uint8_t has_light_level;               /* content light level present */
    uint16_t primaries_x[3], primaries_y[3]; /* display primaries G, B, R (the SEI's order), 0.00002 units */
    uint16_t white_x, white_y;             /* white point, 0.00002 units */
    uint32_t max_luminance, min_luminance; /* mastering display luminance, 0.0001 cd/m² units */
    uint16_t max_cll, max_fall;            /* brightest pixel, brightest frame average, cd/m² */
} sy_hdr_static_metadata;

/** Identifies a file by its magic bytes (never by its name). */
sy_image_format sy_image_sniff(const uint8_t *head, size_t len);

const char *sy_image_format_name(sy_image_format format);

#ifdef __cplusplus
}
#endif
#endif
