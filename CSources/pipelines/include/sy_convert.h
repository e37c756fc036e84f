/* sy_convert.h — photo format conversion (SPEC S3: a copy, original untouched).
 *
 * JPEG, PNG or HEIC in; JPEG, PNG or HEIC out. The pixels are turned upright
 * (EXIF orientation / irot / imir applied, the Exif Orientation tag reset to
 * 1); capture date, GPS and the rest of the Exif, XMP and the ICC profile are
 * carried over where the output format has a place for them (JPEG APP1/APP2,
 * HEIC Exif/XMP items and colr, PNG eXIf/iTXt/iCCP). The output is written to
 * a temporary file and renamed; an existing file is never destroyed by a
 * failed write. A conversion is sy_edit with the identity recipe (sy_edit.h).
 * Memory: the whole upright image at 3 bytes per pixel plus the
 * encoder's working set. */
#ifndef SY_CONVERT_H
#define SY_CONVERT_H

#include "sy_base.h"
#include "sy_image.h"
#include "sy_still.h"
#include "sy_video.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sy_convert_options {
    uint32_t version;          /* 1 */
    sy_still_format format;    /* JPEG (default), PNG or HEIC */
    int quality;               /* JPEG/HEIC 1..100 (default 90) */
    const char *heic_preset;   /* x265 preset for HEIC output; NULL = the writer's default (ultrafast, 32x32 CUs) */
} sy_convert_options;

void sy_convert_options_init(sy_convert_options *opts);

typedef struct sy_convert_report {
    sy_image_format source_format;
    uint32_t width, height;         /* written (upright) */
    uint8_t source_orientation;     /* what was applied to the pixels */
    uint32_t dropped;               /* SY_DROPPED_* bits (sy_still.h): metadata not carried over */
    uint8_t kept_exif, kept_gps, kept_capture_date, kept_xmp, kept_icc;
    char capture_date[20];          /* "YYYY:MM:DD HH:MM:SS" when kept */
} sy_convert_report;

/** Converts `input` to `output`. Fails with the file and reason for unreadable
 *  input (SY_E_INVALID_INPUT / SY_E_UNSUPPORTED), SY_E_USAGE for identical
 *  paths or bad options, SY_E_IO/SY_E_CODEC when writing fails. A source
 *  with an HDR gain map is refused (SY_E_UNSUPPORTED, nothing written: the
 *  map would be lost, SPEC E6); convert it with sy_gainmap_edit and the
 *  identity recipe, which keeps the map or asks. */
sy_status sy_convert(sy_context *ctx, const char *input, const char *output, const sy_convert_options *opts,
                     sy_convert_report *report, sy_error *err);

/* ---- video -> GIF (SPEC S3) ----
 * The movie's main video track decoded and rendered frame by frame through
 * one renderer (the transcoder's frame path, scaled to fit), one palette for
 * the whole animation chosen in Oklab from every kept frame (a first pass),
 * an ordered dither that stays put where the picture does, and our own LZW
 * GIF writer (a second pass) that sends only the rectangle of pixels that
 * changed, the rest transparent. Timing: each frame is shown until the next
 * kept frame's presentation time, in GIF's 1/100 s units (rounded on the
 * running total, so the animation's length is the movie's). Memory: the
 * decoder, one rendered frame, two index frames (width x height bytes each),
 * the 1 MB histogram and 512 KB colour cache — never the whole movie. The
 * first pass's rendered frames are spooled to an unlinked scratch file beside
 * the output (up to 512 MB; past that, or where none can be made, the movie
 * is decoded again) so the second pass does not decode. */

typedef struct sy_gif_options {
    uint32_t version;          /* 1 */
    uint32_t max_width, max_height; /* fit inside (keeping the aspect, never upscaled); 0 = native */
    double fps;                /* keep at most this many frames per second; 0 = every frame */
    uint32_t colors;           /* palette entries 2..255 (default 255; one more index is the transparent one) */
    float dither;              /* ordered dither peak-to-peak in 8-bit sRGB units (default 2; 0 = none) */
} sy_gif_options;

void sy_gif_options_init(sy_gif_options *opts);

typedef struct sy_gif_report {
    uint32_t width, height;
    uint32_t frames;           /* frames written */
    uint32_t source_frames;    /* frames decoded per pass */
    uint32_t colors;           /* palette entries used */
    uint64_t bytes;            /* file size */
    double duration_seconds;   /* sum of the frame delays */
} sy_gif_report;

/** Writes `input`'s video as an animated GIF at `output` (temp file +
 *  rename). Progress phase "gif palette" then "gif frames" (source frames). */
sy_status sy_convert_video_to_gif(sy_context *ctx, const char *input, const char *output, const sy_gif_options *opts,
                                  sy_gif_report *report, sy_error *err);

#ifdef __cplusplus
}
#endif
#endif
