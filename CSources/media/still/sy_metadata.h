/* sy_metadata.h — the metadata a conversion carries over: Exif (capture date,
 * GPS, camera), XMP and the ICC profile (engine-private). */
#ifndef SY_METADATA_H
#define SY_METADATA_H

#include "base/sy_internal.h"
#include "sy_image.h"

typedef struct sy__metadata {
    uint8_t *exif;   /* TIFF structure ("II*\0" / "MM\0*"), no "Exif\0\0" prefix */
    size_t exif_len;
    uint8_t *xmp;    /* the XMP packet (XML) */
    size_t xmp_len;
    uint8_t *icc;    /* ICC profile, reassembled */
    size_t icc_len;
} sy__metadata;

/* Reads what `path` carries (JPEG APP1/APP2, HEIF Exif/XMP items and colr). Missing parts stay NULL. */
sy_status sy__metadata_read(sy_context *ctx, const char *path, const sy_image_info *info, sy__metadata *out,
                            sy_error *err);
sy_status sy__jpeg_metadata_read(sy_context *ctx, const char *path, sy__metadata *out, sy_error *err);
sy_status sy__heif_metadata_read(sy_context *ctx, const char *path, sy__metadata *out, sy_error *err);
void sy__metadata_free(sy_context *ctx, sy__metadata *md);

/* Sets the Exif Orientation tag in place (when present); returns 1 if changed. */
int sy__exif_set_orientation(uint8_t *tiff, size_t len, uint8_t orientation);
/* Sets PixelXDimension / PixelYDimension (Exif IFD 0xA002 / 0xA003) in place
 * when present as one SHORT or LONG; returns 1 if either changed. An edit
 * changes the pixel size, and the Exif must not claim the old one. */
int sy__exif_set_dimensions(uint8_t *tiff, size_t len, uint32_t width, uint32_t height);
/* Finds DateTimeOriginal (or DateTime) "YYYY:MM:DD HH:MM:SS" into out[20]; 1 if found. */
int sy__exif_capture_date(const uint8_t *tiff, size_t len, char out[20]);
/* 1 when the Exif has a GPS IFD pointer (0x8825). */
int sy__exif_has_gps(const uint8_t *tiff, size_t len);
/* 1 when IFD0 names a camera (Make 0x010F or Model 0x0110). */
int sy__exif_has_camera(const uint8_t *tiff, size_t len);
/* 1 when Exif UserComment (0x9286) contains `needle` (ASCII, any case; ASCII or UTF-16 text). */
int sy__exif_user_comment_has(const uint8_t *tiff, size_t len, const char *needle);
/* 1 when an XMP packet's exif:UserComment property contains `needle` (any case). */
int sy__xmp_user_comment_has(const uint8_t *xmp, size_t len, const char *needle);
/* PNG ancillary chunks: eXIf (Exif TIFF) and an uncompressed iTXt
 * "XML:com.adobe.xmp"; `animated` = an acTL chunk before the first IDAT (APNG). */
sy_status sy__png_metadata_read(sy_context *ctx, const char *path, sy__metadata *out, int *animated,
                                sy_error *err);

#endif
