/* sy_gainmap.h — HDR gain maps: read, edit in lockstep, write back (issue 7; SPEC E6).
 *
 * A gain-map photo is an SDR base image plus a smaller greyscale "gain map"
 * and a few numbers saying how much brighter each pixel may become on an HDR
 * display. Forms understood (see ../shared/specs/gain-map.md):
 *  - Ultra HDR JPEG: primary with hdrgm/Container XMP and an MPF APP2 index,
 *    followed by a gain-map JPEG carrying hdrgm:* XMP (log2 units);
 *  - Apple HEIC: hidden auxiliary 'hvc1' item of type
 *    urn:com:apple:photo:2020:aux:hdrgainmap ('auxl' to the primary) with its
 *    own XMP item (HDRGainMap:*), headroom from the XMP (v2) or the Exif
 *    MakerNote tags 33/48;
 *  - Apple JPEG: MPF image 2 whose XMP has HDRGainMap:HDRGainMapVersion.
 * Detected but not interpreted (reported as SY_GAINMAP_UNINTERPRETABLE): an
 * ISO 21496-1 'tmap' derived item in HEIF, an MPF secondary image without
 * any gain-map XMP, a hdrgm version other than 1.0.
 *
 * Editing (sy_gainmap_edit): the base goes through sy_edit (decode upright ->
 * sy_render -> write); the gain map goes through the same renderer with the
 * recipe's geometry only (sy_recipe_geometry_only) at its own resolution, so
 * the two stay aligned; colour adjustments touch the base only. When the map
 * cannot be kept (PNG target, undecodable map, uninterpretable form), the
 * caller's hook is asked first; no hook or a declined hook writes nothing.
 *
 * Thread safety: calls are independent; a context is used by one call at a time.
 */
#ifndef SY_GAINMAP_H
#define SY_GAINMAP_H

#include "sy_base.h"
#include "sy_edit.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SY_APPLE_GAINMAP_URN "urn:com:apple:photo:2020:aux:hdrgainmap"

typedef enum sy_gainmap_kind {
    SY_GAINMAP_NONE = 0,            /* no gain map: an SDR photo */
    SY_GAINMAP_ULTRAHDR_JPEG = 1,   /* MPF + hdrgm XMP */
    SY_GAINMAP_APPLE_HEIC = 2,      /* auxiliary hdrgainmap item */
    SY_GAINMAP_APPLE_JPEG = 3,      /* MPF image 2 with Apple HDRGainMap XMP */
    SY_GAINMAP_UNINTERPRETABLE = 4, /* a gain map we can see but must not misread (detail says which) */
} sy_gainmap_kind;

/** Ultra HDR / ISO 21496-1 parameters (hdrgm XMP names; log2 where the XMP is). */
typedef struct sy_gainmap_params {
    uint32_t channels;          /* 1 or 3 sets of the per-channel values */
    double min_log2[3];         /* hdrgm:GainMapMin */
    double max_log2[3];         /* hdrgm:GainMapMax */
    double gamma[3];            /* hdrgm:Gamma (linear, > 0) */
    double offset_sdr[3];       /* hdrgm:OffsetSDR */
    double offset_hdr[3];       /* hdrgm:OffsetHDR */
    double capacity_min;        /* hdrgm:HDRCapacityMin (log2) */
    double capacity_max;        /* hdrgm:HDRCapacityMax (log2) */
    uint8_t base_is_hdr;        /* hdrgm:BaseRenditionIsHDR */
} sy_gainmap_params;

typedef struct sy_gainmap_info {
    sy_gainmap_kind kind;
    char detail[160];             /* what was found; for UNINTERPRETABLE, why it cannot be used */
    uint32_t base_width, base_height; /* primary as stored */
    uint32_t map_width, map_height;   /* gain map as stored (0 when unknown) */
    uint32_t map_channels;            /* 1 or 3 */
    sy_gainmap_params params;         /* ULTRAHDR_JPEG */
    double apple_headroom;            /* APPLE_*: linear headroom used to apply the map (>= 1) */
    uint32_t apple_version;           /* HDRGainMap:HDRGainMapVersion (65536, 131072), 0 if absent */
    uint8_t apple_headroom_source;    /* 0 none, 1 XMP HDRGainMapHeadroom, 2 MakerNote 33/48 */
    double maker33, maker48;          /* MakerNote values when present (NaN otherwise) */
    uint8_t has_iso21496;             /* ISO 21496-1 APP2 or 'tmap' item seen */
    uint8_t orientation;              /* EXIF/irot orientation of the primary (1..8), applied to both images */
    uint64_t map_offset, map_length;  /* JPEG: gain-map JPEG bytes in the file; HEIC: item id in map_offset */
} sy_gainmap_info;

/** Reads the gain-map structure and metadata of `path` (JPEG or HEIF; other
 *  formats report SY_GAINMAP_NONE). No pixels are decoded. Errors name the
 *  file: SY_E_INVALID_INPUT for a broken container. A corrupt *gain map
 *  metadata block* is not an error: kind becomes UNINTERPRETABLE. */
sy_status sy_gainmap_probe(sy_context *ctx, const char *path, sy_gainmap_info *out, sy_error *err);

/** A decoded gain map, as stored (not yet oriented): 8-bit, `channels` per pixel. */
typedef struct sy_gainmap_image {
    uint8_t *pixels;
    size_t stride;
    uint32_t width, height, channels;
} sy_gainmap_image;

/** Decodes the gain map described by `info` (from sy_gainmap_probe of the same
 *  path). SY_E_INVALID_INPUT / SY_E_CODEC (naming the file) when it does not
 *  decode or its size disagrees with its container. Free with sy_gainmap_image_free. */
sy_status sy_gainmap_decode(sy_context *ctx, const char *path, const sy_gainmap_info *info, sy_gainmap_image *out,
                            sy_error *err);
void sy_gainmap_image_free(sy_context *ctx, sy_gainmap_image *img);

/** The recipe's geometry only (crop, straighten, quarter turns, flips, border
 *  width) with every colour step neutral; the border gets `border_value` grey,
 *  the map code that means "no gain". This is how a gain map is rendered. */
void sy_recipe_geometry_only(const sy_recipe *in, uint8_t border_value, sy_recipe *out);

/** Map code (0..255) that applies no gain (HDR = SDR) for `info`. */
uint8_t sy_gainmap_neutral_code(const sy_gainmap_info *info);

/** HDR linear light from one SDR linear RGB value and its gain-map code(s) at
 *  full HDR display capacity: Ultra HDR (SDR + k_sdr) * 2^L - k_hdr, Apple
 *  SDR * (1 + (headroom - 1) * g). `code` has map_channels entries. */
void sy_gainmap_apply(const sy_gainmap_info *info, const float sdr_linear[3], const uint8_t *code, float hdr_linear[3]);

/** HDR reconstruction of a whole image: `base` upright RGB8 sRGB-encoded
 *  (width x height, stride), `map` oriented the same (any size: sampled
 *  bilinearly at the base pixel centres), into `out` (width*height*3 floats,
 *  linear light, SDR white = 1). */
sy_status sy_gainmap_reconstruct(const sy_gainmap_info *info, const uint8_t *base, size_t base_stride,
                                 uint32_t width, uint32_t height, const sy_gainmap_image *map, float *out,
                                 sy_error *err);

/* ---- editing with the SDR-downgrade hook ---- */

typedef enum sy_hdr_loss_reason {
    SY_HDR_LOSS_NONE = 0,
    SY_HDR_LOSS_UNSUPPORTED_TARGET = 1,  /* the output format has no gain maps (PNG) */
    SY_HDR_LOSS_UNREADABLE_GAIN_MAP = 2, /* the gain map is there but does not decode */
    SY_HDR_LOSS_UNINTERPRETABLE = 3,     /* a gain-map form we cannot interpret (e.g. ISO 21496-1 tmap) */
} sy_hdr_loss_reason;

/** Asked only when the gain map cannot be kept; return 1 to write SDR, 0 to
 *  refuse (nothing is written). `detail` is borrowed for the call. */
typedef int (*sy_hdr_loss_hook)(void *context, sy_hdr_loss_reason reason, const char *detail);

typedef enum sy_hdr_outcome {
    SY_HDR_NOT_HDR = 0,               /* the source had no gain map */
    SY_HDR_KEPT = 1,                  /* output carries the edited gain map */
    SY_HDR_DROPPED_WITH_CONSENT = 2,  /* the hook agreed to SDR */
    SY_HDR_REFUSED = 3,               /* no hook or the hook declined: nothing written */
} sy_hdr_outcome;

typedef struct sy_gainmap_edit_report {
    sy_edit_report edit;              /* base image (sy_edit) */
    sy_hdr_outcome outcome;
    sy_hdr_loss_reason reason;        /* why the hook was asked (NONE when it was not) */
    char reason_detail[200];          /* what exactly cannot be kept ("" when nothing) */
    uint32_t hook_calls;
    sy_gainmap_kind source_kind;
    uint32_t map_width, map_height;   /* written gain map (0 when none) */
    uint64_t map_peak_bytes;          /* engine peak while the map was rendered, before the base
                                         (sy_edit resets the context peak when it opens) */
} sy_gainmap_edit_report;

/** Edits `input` into `output` like sy_edit, keeping the gain map (see the
 *  top of this file). opts->format JPEG keeps Ultra HDR / Apple JPEG maps as
 *  Ultra HDR JPEG; HEIC keeps them as an Apple auxiliary gain map; PNG cannot.
 *  A declined or missing hook returns SY_E_CANCELLED ("... HDR gain map would
 *  be lost ...; nothing was written") with outcome SY_HDR_REFUSED, and any
 *  existing file at `output` is untouched. `report` may be NULL. */
sy_status sy_gainmap_edit(sy_context *ctx, const char *input, const char *output, const sy_recipe *recipe,
                          const sy_edit_options *opts, sy_hdr_loss_hook hook, void *hook_context,
                          sy_gainmap_edit_report *report, sy_error *err);

/** Saves SDR on purpose (the caller already has the user's consent, e.g. an
 *  explicit "save as SDR"): sy_edit, minus any Ultra HDR XMP that would claim
 *  a gain map the output no longer has. */
sy_status sy_gainmap_edit_sdr(sy_context *ctx, const char *input, const char *output, const sy_recipe *recipe,
                              const sy_edit_options *opts, sy_edit_report *report, sy_error *err);

/* ---- HDR sample photos ---- */

typedef struct sy_hdr_sample_options {
    uint32_t version;     /* 1 */
    uint32_t width, height; /* base size (even; default 1024 x 768) */
    uint64_t seed;        /* same seed, same bytes */
    int quality;          /* base quality (default 90) */
    uint32_t map_scale;   /* gain map = base / map_scale per side (default 2, as iPhones) */
} sy_hdr_sample_options;

void sy_hdr_sample_options_init(sy_hdr_sample_options *opts);

/** Renders a synthetic HDR scene (sky, sun with a core ~16x SDR white, lit
 *  clouds, textured hills, specular glints on water) in linear light, tone-maps
 *  it to the SDR base, derives the gain map from HDR / SDR, and writes an
 *  Ultra HDR JPEG (`format` SY_STILL_JPEG) or an Apple-style HEIC with an
 *  auxiliary gain map and its XMP (SY_STILL_HEIC). Atomic output. */
sy_status sy_hdr_sample_write(sy_context *ctx, const sy_hdr_sample_options *opts, sy_still_format format,
                              const char *output_path, sy_error *err);

#ifdef __cplusplus
}
#endif
#endif
