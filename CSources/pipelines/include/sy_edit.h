/* sy_edit.h — edit a still photo end to end (issue 5; SPEC E2, E7, S2, S3).
 *
 * One path for every still the editor produces: decode the file upright
 * (EXIF orientation / irot / imir applied), render it with sy_render (the one
 * renderer) at the target size, and write JPEG, PNG or HEIC carrying the
 * source's Exif (Orientation reset to 1), GPS, capture date, XMP and ICC
 * profile, through a temporary file renamed into place. sy_convert is this
 * path with the identity recipe.
 *
 * Preview = save: sy_edit_render returns the pixels sy_edit writes for the
 * same input, recipe and size, byte for byte (both render the prepared job
 * with the same renderer; the renderer's bytes do not depend on how the
 * target is split into row bands).
 *
 * Target size: sy_render_output_size of the recipe for the file's upright
 * full size, fitted inside max_width x max_height (0 = no limit; never above
 * native resolution).
 *
 * Reduced decode (previews): when the target is at most half the native
 * output size, a JPEG is decoded at a DCT scale n/8 and a HEIF grid at a
 * power-of-two reduction, chosen as the smallest that still keeps at least
 * 2 decoded pixels per target pixel on both axes. The renderer's linear-light
 * antialiasing downscale then does the final step, so the result is a correct
 * downscale (it differs from a full-size decode by rounding and by the
 * decoder's own prefilter only: measured on a 12 MP sample with the typical
 * recipe, 50.5 dB PSNR at 1170 px (6/8 decode), 52.5 dB at 600 px (4/8) and
 * 55.5 dB at 300 px against the same render from a full decode; a 1.5x
 * margin would have allowed 4/8 at 1170 px, measured 42.9 dB with local
 * differences up to 38 levels, hence 2x). The decoded size is reported;
 * SY_EDIT_FULL_DECODE turns this off (the SPEC E7 overwrite path needs the
 * full-size decode).
 *
 * User LUTs: a recipe whose filter_id is "cube:<path>" loads <path> with
 * sy_lut_load_cube and applies it as the recipe's filter_lut.
 *
 * Memory: the upright decoded image (3 bytes per pixel, at the decoded size),
 * the renderer's tables, a few row bands of output, and the encoder's working
 * set (sy_edit) or the whole output (sy_edit_render). Every allocation goes
 * through the context.
 *
 * Thread safety: a job is used by one thread at a time; rendering uses
 * `threads` threads internally (default 2).
 */
#ifndef SY_EDIT_H
#define SY_EDIT_H

#include "sy_base.h"
#include "sy_image.h"
#include "sy_render.h"
#include "sy_still.h"

#ifdef __cplusplus
extern "C" {
#endif


/** filter_id prefix naming a user .cube file ("cube:/path/look.cube"). */
#define SY_EDIT_CUBE_PREFIX "cube:"

/** Decode at full size even for a small target (SPEC E7: proof of full size). */
#define SY_EDIT_FULL_DECODE 1u
/** Compute the source file's size and SHA-256 before decoding and check after
 *  decoding that the file did not change (dev, inode, size, mtime). */
#define SY_EDIT_IDENTIFY_SOURCE 2u
/** sy_edit / sy_edit_job_write write the rendered base only. For a source with
 *  an HDR gain map (sy_gainmap.h) that silently loses the HDR layer, so they
 *  refuse it (SY_E_UNSUPPORTED, nothing written) unless this flag records the
 *  user's consent to SDR (SPEC E6). sy_gainmap_edit keeps the map instead. */
#define SY_EDIT_ALLOW_SDR 4u

typedef struct sy_edit_options {
    uint32_t version;          /* 1 */
    sy_still_format format;    /* for sy_edit_write */
    int quality;               /* JPEG/HEIC 1..100 (default 90) */
    const char *heic_preset;   /* x265 preset for HEIC; NULL = the writer's default */
    uint32_t max_width;        /* target box; 0 = no limit on that axis */
    uint32_t max_height;
    uint32_t flags;            /* SY_EDIT_* */
    uint32_t threads;          /* render threads: 0 = 2, 1 = the calling thread only, at most 8 */
} sy_edit_options;

/** Defaults: version 1, JPEG, quality 90, full size, no flags, 2 threads. */
void sy_edit_options_init(sy_edit_options *opts);

/** What a job read, decoded and (will) write. Filled by sy_edit_open. */
typedef struct sy_edit_report {
    sy_image_format source_format;
    uint32_t source_width, source_height;   /* upright full size recorded in the file */
    uint32_t decoded_width, decoded_height; /* upright pixels the decode produced */
    uint32_t width, height;                 /* rendered / written */
    uint8_t source_orientation;             /* applied to the pixels (1..8) */
    uint8_t kept_exif, kept_gps, kept_capture_date, kept_xmp, kept_icc;
    char capture_date[20];                  /* "YYYY:MM:DD HH:MM:SS" when kept */
    uint32_t kept_gain_map_forms;           /* SY_GAINMAP_FORM_* bits the output's gain map is written in (0: none) */
    uint64_t source_bytes;                  /* SY_EDIT_IDENTIFY_SOURCE: file size */
    char source_sha256[65];                 /* SY_EDIT_IDENTIFY_SOURCE: lowercase hex, else "" */
    uint32_t decodes;                       /* decodes this job has done (1 after open) */
    uint32_t dropped;                       /* SY_DROPPED_* bits (sy_still.h): metadata not carried over */
    uint8_t kept_heic_thumbnail;            /* a HEIC save of a source with a 'thmb' thumbnail renders it anew */
} sy_edit_report;

/** Rendered pixels: RGB8, `stride` = width * 3, engine-allocated. */
typedef struct sy_edit_image {
    uint8_t *pixels;
    size_t stride;
    uint32_t width, height;
} sy_edit_image;

/** A prepared edit: the decoded upright source and a renderer for the target. */
typedef struct sy_edit_job sy_edit_job;

/** Validates the recipe (loading a "cube:" LUT) and the options, probes and
 *  decodes `input`, reads its metadata and prepares the renderer. Fills
 *  `report` (may be NULL). Errors: SY_E_USAGE for a bad recipe or options
 *  (the message names the field), the decoder's error naming the file. */
sy_status sy_edit_open(sy_context *ctx, const char *input, const sy_recipe *recipe, const sy_edit_options *opts,
                       sy_edit_job **out, sy_edit_report *report, sy_error *err);

/** Re-targets an open job to another recipe and target box (0 = no limit),
 *  for slider previews (SPEC E5): the decoded source is kept when the new
 *  target asks for the same decode (same crop, straighten and box: one decode,
 *  many renders), otherwise the input is decoded again. Either way the
 *  pixels equal those of a fresh sy_edit_open with the same arguments. After
 *  a failure the job renders nothing (SY_E_USAGE) until a retarget succeeds.
 *  Updates `report` (may be NULL). */
sy_status sy_edit_job_retarget(sy_edit_job *job, const sy_recipe *recipe, uint32_t max_w, uint32_t max_h,
                               sy_edit_report *report, sy_error *err);

/** Renders the whole target into a new image (free with sy_edit_image_free). */
sy_status sy_edit_job_render(sy_edit_job *job, sy_edit_image *out, sy_error *err);

/** Renders and encodes to `output` in the options' format, with the source's
 *  metadata, via a temporary file renamed into place (nothing is left behind
 *  on failure and an existing file survives). `output` may be the input file
 *  itself: the source is fully decoded before the output is opened. */
sy_status sy_edit_job_write(sy_edit_job *job, const char *output, sy_error *err);

/** NULL does nothing. */
void sy_edit_close(sy_edit_job *job);

/** open + write + close. */
sy_status sy_edit(sy_context *ctx, const char *input, const char *output, const sy_recipe *recipe,
                  const sy_edit_options *opts, sy_edit_report *report, sy_error *err);

/** The preview: open (target box max_w x max_h, 0 = full size) + render + close.
 *  `flags` as in sy_edit_options. */
sy_status sy_edit_render(sy_context *ctx, const char *input, const sy_recipe *recipe, uint32_t max_w, uint32_t max_h,
                         uint32_t flags, sy_edit_image *out, sy_edit_report *report, sy_error *err);

/** Frees the pixels and zeroes `image`; NULL or an empty image does nothing. */
void sy_edit_image_free(sy_context *ctx, sy_edit_image *image);


#ifdef __cplusplus
}
#endif
#endif
