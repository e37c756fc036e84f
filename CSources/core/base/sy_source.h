/* sy_source.h — a decoder seen as a stream of rows (engine-private).
 *
 * Every input codec (JPEG, PNG, HEIF) opens as an sy__source that hands out
 * rows top to bottom in the file's stored orientation, 3 interleaved 8-bit
 * channels per pixel. The cell builder renders them and applies the EXIF
 * orientation; nothing upstream needs to know which codec it was.
 */
#ifndef SY_SOURCE_H
#define SY_SOURCE_H

#include "sy_base.h"
#include "sy_image.h"

typedef enum sy__pixels {
    SY__PIX_RGB = 0, /* R'G'B' */
    SY__PIX_YCC = 1, /* JFIF YCbCr (BT.601 full range) */
} sy__pixels;

typedef struct sy__source sy__source;
struct sy__source {
    uint32_t width, height;  /* delivered size, stored orientation */
    uint8_t orientation;     /* EXIF orientation the consumer must apply (1..8) */
    sy__pixels pixels;
    size_t working_bytes;    /* estimate of what the codec holds while open (charged) */
    /* Reads the next `count` rows into rows[i] (each width*3 bytes). */
    sy_status (*read_rows)(sy__source *self, uint8_t *const *rows, uint32_t count, sy_error *err);
    /* Skips the next `count` rows. */
    sy_status (*skip_rows)(sy__source *self, uint32_t count, sy_error *err);
    /* Frees the decoder and `self`. */
    void (*close)(sy__source *self);
};

/* Header-only probes; `path` is used only in messages (the FILE is positioned at 0). */
sy_status sy__jpeg_probe(sy_context *ctx, FILE *file, const char *path, sy_image_info *out, sy_error *err);
sy_status sy__png_probe(sy_context *ctx, FILE *file, const char *path, sy_image_info *out, sy_error *err);
sy_status sy__heif_probe(sy_context *ctx, const char *path, sy_image_info *out, sy_error *err);

/* Opens a row source. JPEG picks the smallest DCT scale (n/8, n = 1..16)
 * whose stored-frame size is >= min_width x min_height; the others deliver
 * full size. Sources take ownership of nothing passed in. */
sy_status sy__jpeg_source_open(sy_context *ctx, const char *path, uint32_t min_width,
                               uint32_t min_height, sy__source **out, sy_error *err);
/* The same, but YCbCr files come out as R'G'B' (libjpeg's conversion); the
 * organize fingerprints hash R'G'B' rows and skip a scalar conversion. */
sy_status sy__jpeg_source_open_rgb(sy_context *ctx, const char *path, uint32_t min_width, uint32_t min_height,
                                   sy__source **out, sy_error *err);
sy_status sy__png_source_open(sy_context *ctx, const char *path, sy__source **out, sy_error *err);
/* HEIF: our own reader decodes HEVC grid/single images one tile row at a time,
 * box-downscaled by the largest power of two that still covers min_width x
 * min_height; other item types fall back to libheif's full decode. */
sy_status sy__heif_source_open(sy_context *ctx, const char *path, uint32_t min_width, uint32_t min_height,
                               sy__source **out, sy_error *err);
sy_status sy__libheif_probe(sy_context *ctx, const char *path, sy_image_info *out, sy_error *err);
sy_status sy__libheif_source_open(sy_context *ctx, const char *path, sy__source **out, sy_error *err);

/* Opens any supported still by sniffing its bytes (dispatch over the above). */
sy_status sy__source_open(sy_context *ctx, const char *path, const sy_image_info *info,
                          uint32_t min_width, uint32_t min_height, sy__source **out, sy_error *err);

#endif
