/* sy_gainmap.h — HDR gain maps: the forms read and written (issue 7; SPEC E6).
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
 *  - Apple JPEG: the MPF image whose XMP has HDRGainMap:HDRGainMapVersion
 *    (image 2, or later when portrait mattes / depth come first).
 *  - ISO 21496-1: the binary metadata in the gain-map JPEG's APP2 block
 *    (urn:iso:std:iso:ts:21496:-1; read when no hdrgm XMP is there, kind
 *    ULTRAHDR_JPEG) and in a HEIF 'tmap' derived item whose inputs are the
 *    primary and the gain map: the Apple map item (iPhone 17; kind
 *    APPLE_HEIC with `iso`, `tmap_item`) or, with no Apple map, any coded
 *    image item (kind ISO_HEIC: the ISO-only HEIC that Android's "HEIC
 *    Ultra HDR" and ISO writers make, and the AVIF form of libavif >= 1.1 and
 *    Android's "Ultra HDR AVIF", its map an 'av01' item; the numbers in
 *    `params` and `iso`).
 * Written (gainmap_save.c; docs/gain-maps.md): every JPEG output carries the
 * Ultra HDR form (hdrgm + Container XMP, MPF) and the ISO APP2 blocks, plus
 * Apple's HDRGainMap XMP when the source map is Apple's; a HEIC output of an
 * Apple map carries the Apple auxiliary map and a 'tmap' item sharing it,
 * of any other map (whose numbers Apple's curve cannot say) the 'tmap' item
 * and a hidden map alone. A HEIC whose 'tmap' numbers its Apple description
 * contradicts is read by the 'tmap' (kind ISO_HEIC, the map the aux item).
 * An HDR-signal HEIF (SY_GAINMAP_HDR_SIGNAL: nclx or VUI transfer PQ / HLG,
 * as Sony, Canon and Nikon cameras write; an AVIF whose nclx says PQ / HLG;
 * a PNG whose cICP does) stores no map: the engine shows
 * it as its SDR Display P3 rendition (base/sy_hdr_tone.h) and derives the map
 * from the decoded signal (gainmap_signal.c), ISO 21496-1 numbers in
 * `params`, so every save that carries maps keeps its HDR.
 * Detected but not interpreted (reported as SY_GAINMAP_UNINTERPRETABLE): a
 * 'tmap' item whose metadata does not parse or whose gain-map input is not a
 * coded image of the file, an MPF secondary image without any gain-map
 * metadata, a hdrgm version other than 1.0.
 *
 * This header holds the formats only; editing with the map in lockstep is
 * sy_gainmap_edit.h (pipelines), HDR sample photos sy_sample.h (fixtures).
 *
 * Thread safety: calls are independent; a context is used by one call at a time.
 */
#ifndef SY_GAINMAP_H
#define SY_GAINMAP_H

#include "sy_base.h"
#include "sy_render.h"

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
    SY_GAINMAP_ISO_HEIC = 5,        /* HEIF 'tmap' item alone: ISO 21496-1 numbers in `params`, its map a plain image item */
    SY_GAINMAP_HDR_SIGNAL = 6,      /* HEIF, AVIF or PNG with a PQ / HLG signal: no stored map, one derived from it */
} sy_gainmap_kind;

/** The forms a written gain map is described in (bits; sy_gainmap_form_name). */
typedef enum sy_gainmap_form {
    SY_GAINMAP_FORM_APPLE = 1u << 0,    /**< Apple: HEIC auxiliary item / JPEG MPF image with HDRGainMap XMP */
    SY_GAINMAP_FORM_ULTRAHDR = 1u << 1, /**< Ultra HDR: hdrgm + Container XMP and MPF (JPEG) */
    SY_GAINMAP_FORM_ISO21496 = 1u << 2, /**< ISO 21496-1: APP2 blocks (JPEG) / 'tmap' item (HEIC) */
} sy_gainmap_form;

/** "apple-gain-map", "ultra-hdr-gain-map", "iso-21496-gain-map" for one bit; NULL for others. */
const char *sy_gainmap_form_name(uint32_t bit);

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
    sy_gainmap_params params;         /* ULTRAHDR_JPEG, ISO_HEIC */
    double apple_headroom;            /* APPLE_*: linear headroom used to apply the map (>= 1) */
    uint32_t apple_version;           /* HDRGainMap:HDRGainMapVersion (65536, 131072), 0 if absent */
    uint8_t apple_headroom_source;    /* 0 none, 1 XMP HDRGainMapHeadroom, 2 MakerNote 33/48 */
    double maker33, maker48;          /* MakerNote values when present (NaN otherwise) */
    uint8_t has_iso21496;             /* ISO 21496-1 APP2 or 'tmap' item seen */
    uint8_t iso_valid;                /* `iso` holds parsed ISO 21496-1 metadata */
    sy_gainmap_params iso;            /* ISO 21496-1 (gain-map APP2 block, HEIF 'tmap' item), hdrgm names */
    uint32_t tmap_item;               /* HEIF: the 'tmap' item whose inputs are the primary and this map (0 none) */
    uint8_t orientation;              /* EXIF/irot orientation of the primary (1..8), applied to both images */
    uint64_t map_offset, map_length;  /* JPEG: gain-map JPEG bytes in the file; HEIC: item id in map_offset */
    uint32_t mpf_images;              /* JPEG: images its MPF index lists (primary, gain map, and any depth
                                         maps or mattes, which a save does not carry), 0 without MPF */
    uint8_t base_format;              /* the file's sy_image_format as the probe read it (sy_gainmap_decode
                                         goes by it; 0 = not said: decode probes the file) */
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

/** The gain in stops (log2 of HDR / SDR, at full HDR display capacity) that
 *  map code `code` of channel `channel` means under `info`'s own metadata:
 *  Apple log2(1 + (headroom - 1) * rec709^-1(code)), Ultra HDR / ISO
 *  21496-1 GainMapMin..Max through the gamma (the offsets, which matter only
 *  near black, are left out). */
double sy_gainmap_log2_gain(const sy_gainmap_info *info, uint32_t channel, uint8_t code);

/** HDR reconstruction of a whole image: `base` upright RGB8 sRGB-encoded
 *  (width x height, stride), `map` oriented the same (any size: sampled
 *  bilinearly at the base pixel centres), into `out` (width*height*3 floats,
 *  linear light, SDR white = 1). */
sy_status sy_gainmap_reconstruct(const sy_gainmap_info *info, const uint8_t *base, size_t base_stride,
                                 uint32_t width, uint32_t height, const sy_gainmap_image *map, float *out,
                                 sy_error *err);

#ifdef __cplusplus
}
#endif
#endif
