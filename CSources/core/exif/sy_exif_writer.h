/* sy_exif_writer.h — builds a small little-endian TIFF/Exif payload
 * (engine-private). Layout: "II*\0", IFD0 (Make, Model, Orientation,
 * X/YResolution, ResolutionUnit, DateTime, YCbCrPositioning, ExifIFD pointer),
 * then the Exif IFD (ExifVersion, DateTimeOriginal, ComponentsConfiguration,
 * FlashpixVersion, ColorSpace, PixelX/YDimension; with the optional capture
 * facts also Software, the Exif offsets, sub-seconds and a GPS IFD). Tags are in ascending order,
 * every value longer than 4 bytes sits in a word-aligned data area right after
 * its IFD, and the next-IFD links are 0, so exiftool reads it without warnings. */
#ifndef SY_EXIF_WRITER_H
#define SY_EXIF_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct sy__exif_info {
    uint16_t orientation;  /* 1..8 (written as is) */
    const char *make;      /* printable ASCII; NULL or "" = omitted */
    const char *model;     /* printable ASCII; NULL or "" = omitted */
    const char *datetime;  /* "YYYY:MM:DD HH:MM:SS" (19 characters) for DateTime and
                              DateTimeOriginal; NULL = omitted */
    uint32_t pixel_x;      /* stored (compressed) image width; 0 = omitted */
    uint32_t pixel_y;      /* stored image height; 0 = omitted */
    uint8_t uncalibrated;  /* 1: ColorSpace 0xFFFF, the ICC profile says the space (as iPhones write
                              Display P3 photos); 0: ColorSpace sRGB */
    /* Optional capture facts (a still made of a movie's frame carries the movie's):
     * with `datetime`, also DateTimeDigitized (CreateDate) when `offset` or `subsec` is set */
    const char *offset;    /* "+HH:MM" / "-HH:MM": OffsetTime, OffsetTimeOriginal, OffsetTimeDigitized; NULL = omitted */
    const char *subsec;    /* 1..9 digits: SubSecTimeOriginal; NULL = omitted */
    const char *software;  /* printable ASCII: Software; NULL or "" = omitted */
    uint8_t has_gps;       /* 1: a GPS IFD with latitude, longitude (degrees, WGS 84) */
    uint8_t has_altitude;  /* 1: and altitude (metres; negative = below sea level) */
    double latitude, longitude, altitude;
} sy__exif_info;

/* Largest JPEG APP1 payload (a marker segment length is 16 bits and counts itself). */
#define SY__EXIF_APP1_MAX 65533u

/* Writes the TIFF structure (from "II*\0"; what libheif's Exif block and the
 * part after "Exif\0\0" in JPEG hold) into buf. Returns the byte count, or 0
 * when `cap` is too small or a field is invalid (orientation outside 1..8, a
 * string with non-printable characters or longer than 255, a malformed datetime). */
size_t sy__exif_build_tiff(const sy__exif_info *info, uint8_t *buf, size_t cap);

/* Same, preceded by "Exif\0\0": the payload for jpeg_write_marker(JPEG_APP0 + 1). */
size_t sy__exif_build_app1(const sy__exif_info *info, uint8_t *buf, size_t cap);

#endif
