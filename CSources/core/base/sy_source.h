/* sy_source.h — a decoder seen as a stream of rows (engine-private).
 *
 * Every input codec (JPEG, PNG, HEIF) opens as an sy__source that hands out
 * rows top to bottom in the file's stored orientation, 3 interleaved 8-bit
 * channels per pixel. The cell builder renders them and applies the EXIF
 * orientation; nothing upstream needs to know which codec it was.
 *
 * Each codec declares its probe and open in its own folder
 * (jpeg/sy_jpeg_source.h, png/sy_png_source.h, heif/sy_heif_source.h);
 * still/sy_still_internal.h opens any still by its probed format.
 */
#ifndef SY_SOURCE_H
#define SY_SOURCE_H

#include "sy_base.h"
#include "sy_image.h"

typedef enum sy__pixels {
    SY__PIX_RGB = 0, /* R'G'B' */
    SY__PIX_YCC = 1, /* JFIF YCbCr (BT.601 full range) */
} sy__pixels;

/* What a source may spend on speed beyond its need: threads that decode at
 * once, and the working set it may grow to for them. Sources that cannot use
 * them ignore them; the rows are the same either way. */
typedef struct sy__source_means {
    uint32_t threads;      /* 0 or 1: the calling thread only */
    size_t working_bytes;  /* whole working set allowed with the extra threads */
} sy__source_means;

typedef struct sy__source sy__source;
struct sy__source {
    uint32_t width, height;  /* delivered size, stored orientation */
    uint8_t orientation;     /* EXIF orientation the consumer must apply (1..8) */
    sy__pixels pixels;
    size_t working_bytes;    /* estimate of what the codec needs while open (charged) */
    /* Reads the next `count` rows into rows[i] (each width*3 bytes). */
    sy_status (*read_rows)(sy__source *self, uint8_t *const *rows, uint32_t count, sy_error *err);
    /* Skips the next `count` rows. */
    sy_status (*skip_rows)(sy__source *self, uint32_t count, sy_error *err);
    /* Frees the decoder and `self`. */
    void (*close)(sy__source *self);
    /* Optional (NULL = nothing to give up): the caller will hold the whole
     * frame it reads, so the source gives up speed that costs memory
     * (a HEIF source's libavcodec contexts kept from tile to tile). Before
     * the first read_rows. */
    void (*spend_less)(sy__source *self);
};

#endif
