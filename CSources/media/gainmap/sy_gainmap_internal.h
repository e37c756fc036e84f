/* gainmap_internal.h — the parsers and builders behind sy_gainmap.h
 * (engine-private). Every parser is bounded by its length and never trusts
 * an offset or count from the file. */
#ifndef SY_GAINMAP_INTERNAL_H
#define SY_GAINMAP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/sy_cicp.h"
#include "base/sy_internal.h"
#include "still/sy_still_internal.h"
#include "sy_gainmap.h"

/* ---- MPF APP2 (CIPA DC-007), mpf.c ---- */

#define SY__MPF_MAX_IMAGES 8

typedef struct sy__mpf_entry {
    uint32_t attribute, size, offset; /* offset relative to the TIFF header (0 for the first image) */
} sy__mpf_entry;

/* `p` = APP2 payload after "MPF\0" (starts with the TIFF header). Returns the
 * number of entries (0..SY__MPF_MAX_IMAGES) or -1 when malformed. */
int sy__mpf_parse(const uint8_t *p, size_t len, sy__mpf_entry *entries, uint32_t max);

/* Adds `delta` to the first (primary) image's size in the MPF payload `p`
 * (after "MPF\0"), in place: for a primary whose header segments grew or
 * shrank. 1 when patched, 0 when the index is malformed or the size would
 * leave 1..UINT32_MAX. */
int sy__mpf_add_primary_size(uint8_t *p, size_t len, int64_t delta);

/* Bytes of the two-image APP2 payload sy__mpf_build writes ("MPF\0" included). */
#define SY__MPF_PAYLOAD_LEN 86u
/* Offsets (inside that payload) of the big-endian u32 fields patched later. */
#define SY__MPF_PRIMARY_SIZE_AT 58u
#define SY__MPF_MAP_SIZE_AT 74u
#define SY__MPF_MAP_OFFSET_AT 78u
/* Two entries: Baseline MP Primary (offset 0) and an "Undefined" gain map. */
void sy__mpf_build(uint8_t out[SY__MPF_PAYLOAD_LEN], uint32_t primary_size, uint32_t map_size, uint32_t map_offset);

/* ---- XMP, gainmap_xmp.c ---- */

/* hdrgm:* of a gain-map XMP. Returns 1 with *p filled (defaults for missing
 * optional fields), 0 when there is no hdrgm:Version, -1 when present but
 * unusable (bad number, version other than 1.0, Max < Min, gamma <= 0);
 * `why` (>= 96 bytes) says which. */
int sy__xmp_hdrgm_parse(const char *xml, size_t len, sy_gainmap_params *p, char *why, size_t why_len);
/* 1 when the packet has a hdrgm:Version (the primary's "this is Ultra HDR" signal). */
int sy__xmp_has_hdrgm(const char *xml, size_t len);
/* Apple HDRGainMap: version (0 when absent) and headroom (linear; 0 when absent). */
void sy__xmp_apple_parse(const char *xml, size_t len, uint32_t *version, double *headroom);

/* Builders: engine-allocated, NUL-terminated packets (length without the NUL). */
char *sy__xmp_build_primary(sy_context *ctx, uint64_t map_length, size_t *len, sy_error *err);
char *sy__xmp_build_gainmap(sy_context *ctx, const sy_gainmap_params *p, size_t *len, sy_error *err);
char *sy__xmp_build_apple(sy_context *ctx, uint32_t version, double headroom, size_t *len, sy_error *err);
/* `base` with the rdf:Description elements of `add` put at the end of its
 * rdf:RDF (both stay one packet; base's own fields are kept); `add` alone
 * when base is NULL or has no rdf:RDF. */
char *sy__xmp_join(sy_context *ctx, const char *base, size_t base_len, const char *add, size_t add_len, size_t *len,
                   sy_error *err);

/* ---- the source's XMP beside a gain map's, gainmap_xmp_carry.c ---- */

/* Removes in place the source packet's gain-map claims: every hdrgm:*
 * property and the Container:Directory (under the prefixes the packet binds
 * to their namespaces), and the rdf:Descriptions that held nothing else.
 * Returns the new length. */
size_t sy__xmp_strip_gainmap_claims(uint8_t *xmp, size_t len);
/* What a save writes as its XMP: a copy of `source` (may be NULL) without
 * its gain-map claims, with `gainmap`'s rdf:Descriptions (the Ultra HDR
 * directory; NULL: none) joined at the end. Over `limit` bytes (0: none;
 * JPEG: SY__JPEG_XMP_MAX) the source's padding goes; a packet still over is
 * kept when the JPEG writer can split it into extended XMP (exif/
 * sy__xmp_split_for_jpeg, the Ultra HDR directory staying in the main
 * part), else the source's properties go: `gainmap` alone, *source_dropped = 1.
 * Engine-allocated, NUL-terminated (NULL with *out_len 0 when source and
 * gainmap are both NULL, or on failure with err set). */
uint8_t *sy__xmp_carry_with_gainmap(sy_context *ctx, const uint8_t *source, size_t source_len, const char *gainmap,
                                    size_t gainmap_len, size_t limit, size_t *out_len, int *source_dropped,
                                    sy_error *err);

/* The range checks every parsed parameter set passes (gamma in 1e-3..1e3,
 * Max >= Min, offsets >= 0, |log2| <= 16, capacity rising by >= 1e-4 stops);
 * `form` names the source in `why`. 0 when usable, -1 otherwise. */
int sy__gainmap_params_check(const sy_gainmap_params *p, const char *form, char *why, size_t why_len);

/* ---- ISO 21496-1 binary metadata, iso21496.c ---- */

/* "urn:iso:std:iso:ts:21496:-1" + NUL: the JPEG APP2 identifier. */
#define SY__ISO21496_URN "urn:iso:std:iso:ts:21496:-1"
#define SY__ISO21496_URN_LEN 28u
/* Largest payload sy__iso21496_build writes (3 channels, every fraction N/D). */
#define SY__ISO21496_MAX_LEN 141u

/* Parses a payload (after the APP2 URN, or a 'tmap' item after its version
 * byte). 1 with *out filled (and the raw flags byte), 0 for the version-only
 * block a primary carries, -1 when malformed or out of range (`why` says
 * which). Bounded by `len`; never trusts a count. */
int sy__iso21496_parse(const uint8_t *p, size_t len, sy_gainmap_params *out, uint8_t *flags, char *why,
                       size_t why_len);
/* Serializes `p` in the full N/D form (flags 0x00 or 0x80, readable by
 * libavif and libultrahdr); returns the length. */
size_t sy__iso21496_build(const sy_gainmap_params *p, uint8_t out[SY__ISO21496_MAX_LEN]);
/* ISO parameters under which an Apple map's codes give nearly Apple's gains
 * (min 0, max log2 headroom, offsets 0, a fitted gamma). */
void sy__iso21496_from_apple(double headroom, sy_gainmap_params *out);
/* Apple linear headroom for an ISO / Ultra HDR parameter set: 2^max(GainMapMax). */
double sy__iso21496_apple_headroom(const sy_gainmap_params *p);
/* 1 when Apple's description of a map (linear `headroom`) contradicts the ISO
 * numbers of the same map: an HDR base, three channels, or gains that differ
 * from Apple's curve by more than a tenth of a stop beyond what the best
 * fitted gamma misses by. Then the ISO numbers are the map's meaning. */
int sy__iso21496_contradicts_apple(const sy_gainmap_params *iso, double headroom);

/* ---- Apple MakerNote tags 33/48, apple_makernote.c ---- */

/* From Exif TIFF bytes: 1 with both values, 0 when absent or malformed. */
int sy__apple_makernote_headroom(const uint8_t *tiff, size_t len, double *m33, double *m48);
/* Apple's headroom formula (linear, >= 1) from the two tags. */
double sy__apple_headroom_from_makernote(double m33, double m48);

/* ---- gain-map JPEG codec, gainmap_jpeg.c ---- */

/* Encodes 8-bit greyscale (channels 1) or RGB (3) rows into a baseline JPEG in
 * memory with one APP1 XMP packet (may be NULL) and an ISO 21496-1 APP2 block
 * (`iso` payload, may be NULL). *out engine-allocated. */
sy_status sy__gainmap_jpeg_encode(sy_context *ctx, const uint8_t *px, size_t stride, uint32_t w, uint32_t h,
                                  uint32_t channels, int quality, const char *xmp, size_t xmp_len,
                                  const uint8_t *iso, size_t iso_len, uint8_t **out, size_t *out_len, sy_error *err);
/* Decodes a JPEG held in memory into 8-bit grey (1 component) or RGB. */
sy_status sy__gainmap_jpeg_decode(sy_context *ctx, const char *path, const uint8_t *data, size_t len,
                                  sy_gainmap_image *out, sy_error *err);
/* The XMP packet of a JPEG held in memory (borrowed from `data`), or NULL. */
const char *sy__jpeg_find_xmp(const uint8_t *data, size_t len, size_t *xmp_len);
/* The ISO 21496-1 APP2 payload (after its URN) of a JPEG in memory, or NULL. */
const uint8_t *sy__jpeg_find_iso21496(const uint8_t *data, size_t len, size_t *iso_len);

/* ---- decoding, gainmap_decode.c ---- */

/* sy_gainmap_decode, a greyscale HEIF map reduced up to `reduce` (1, 2, 4)
 * times per side as it is decoded (k x k means; k halved until it divides
 * the tile size), so a small consumer (a collage cell) never holds the map
 * at full size. JPEG maps and 3-channel maps come at full size. The result's
 * width/height say which. One thread (sy_gainmap_decode, for a whole-photo
 * save, decodes a grid map's tiles, or an HDR picture's map, on two). */
sy_status sy__gainmap_decode_reduced(sy_context *ctx, const char *path, const sy_gainmap_info *info, uint32_t reduce,
                                     sy_gainmap_image *out, sy_error *err);
/* sy__gainmap_decode_reduced with a fresh libavcodec context per tile of a
 * grid map (as before 2026-12-06; the default keeps one warm across the
 * tiles): the reference the warm decode must equal, pixel for pixel and
 * error for error (GainMapTileDecodeTests, fuzz_gainmap.c). */
sy_status sy__gainmap_decode_fresh_tiles(sy_context *ctx, const char *path, const sy_gainmap_info *info,
                                         uint32_t reduce, sy_gainmap_image *out, sy_error *err);

/* One coded image item (an 'hvc1' tile of a map or of a picture) decoded with
 * *dec (made from `hvcc` on first use, kept warm from tile to tile when
 * `warm`; the caller destroys it). `what` names
 * the item in errors ("gain map item"). Colour maps (`channels` 3) are at
 * most 8192 pixels wide. */
typedef struct sy_heif_file sy_heif_file;
struct sy__hevc_decoder;
struct sy__yuv;
sy_status sy__gainmap_decode_item(sy_context *ctx, sy_heif_file *file, const char *path, const char *what, uint32_t id,
                                  const uint8_t *hvcc, size_t hvcc_len, uint32_t channels, int warm,
                                  struct sy__hevc_decoder **dec, struct sy__yuv *yuv, sy_error *err);

/* How many decodes of `tile` (an 'hvc1' item of width x height) the
 * context's budget could still hold: SIZE_MAX without a budget, 0 without
 * an hvcC. Decoders are kept warm from tile to tile only with room to spare
 * (gainmap_decode.c says why). */
size_t sy__gainmap_tile_decodes_in_budget(sy_context *ctx, sy_heif_file *file, uint32_t tile, uint32_t width,
                                          uint32_t height);

/* ---- maps derived from an HDR signal, gainmap_signal.c ---- */

/* One map pixel for SCALE x SCALE picture pixels (as an HDR movie frame's). */
#define SY__GAINMAP_SIGNAL_SCALE 4u

/* The ISO 21496-1 numbers of a map derived from an HDR signal whose content
 * peak is `peak` (sy_cicp.peak; 0 = 1000 cd/m²): log2 gain 0 .. the tone
 * mapping's headroom (sy__hdr_headroom), gamma 1, no offsets — the tone curve
 * scales R, G and B by one factor, so HDR = SDR x gain exactly. */
void sy__gainmap_signal_params(sy_gainmap_params *p, uint16_t peak);
/* Fills `info` as an SY_GAINMAP_HDR_SIGNAL photo of `what` (a "PQ HEIF" reads
 * "PQ HDR <what>, no stored map: ..."): its detail, those numbers for
 * `signal`, one channel, the map size of a width x height picture over
 * SY__GAINMAP_SIGNAL_SCALE, and the item the map is derived from. */
void sy__gainmap_signal_info(sy_gainmap_info *info, const char *what, const sy_cicp *signal, uint32_t width,
                             uint32_t height, uint32_t item);
/* The code of a log2 gain under those numbers (clamped). */
uint8_t sy__gainmap_signal_code(double log2_gain, uint16_t peak);

/* probe_heif's last case: the primary of `file` has an HDR signal (PQ, HLG)
 * and no stored map. Fills `info` as SY_GAINMAP_HDR_SIGNAL (map size: the
 * delivered frame over SY__GAINMAP_SIGNAL_SCALE) and returns 1; 0 otherwise. */
int sy__gainmap_probe_signal(sy_heif_file *file, const char *path, uint32_t primary, sy_gainmap_info *info);

/* The map of an SY_GAINMAP_HDR_SIGNAL photo, reduced `reduce` (1, 2, 4) times
 * further per side: the picture decoded tile by tile (on up to `threads`
 * threads, each with its decoder: the same bytes for any count), per box the
 * mean log2 of HDR over SDR of its pixels (sy__yuv_hdr_gain_rows). */
sy_status sy__gainmap_decode_signal(sy_context *ctx, const char *path, const sy_gainmap_info *info, uint32_t reduce,
                                    uint32_t threads, sy_gainmap_image *out, sy_error *err);

/* The same for an HDR PNG (cICP PQ / HLG; gainmap_signal_png.c): probe reads
 * the chunks before the image data, fills `info` (map_offset 0) and returns 1;
 * decode reads the gains in file order (an interlaced PNG holding every box's
 * sum until its last pass). */
int sy__gainmap_probe_png_signal(sy_context *ctx, const char *path, const sy_image_info *img, sy_gainmap_info *info);
sy_status sy__gainmap_decode_png_signal(sy_context *ctx, const char *path, uint32_t reduce, sy_gainmap_image *out,
                                        sy_error *err);

/* A map derived from an HDR signal handed out row by row, top to bottom
 * (gainmap_signal_rows.c): `next_row` fills the next of the h rows' w gains
 * (HDR over SDR); the map is the mean log2 per box of SY__GAINMAP_SIGNAL_SCALE
 * x `reduce` (1, 2, 4) pixels a side, coded for `peak` (sy_cicp.peak). */
sy_status sy__gainmap_signal_rows(sy_context *ctx, uint32_t w, uint32_t h, uint16_t peak, uint32_t reduce,
                                  sy_status (*next_row)(void *user, float *gain, sy_error *err), void *user,
                                  sy_gainmap_image *out, sy_error *err);

/* The same for an HDR AVIF (gainmap_signal_avif.c: an AV1 primary whose
 * nclx says PQ / HLG, decoded by libheif): probe is probe_heif's case after
 * sy__gainmap_probe_signal (map size from info->base_width/height, libheif's
 * upright picture; 1 when it is one); decode is reached through
 * sy__gainmap_decode_signal with the primary's signal; a picture that decodes
 * to another size than info->base_width x base_height is SY_E_INVALID_INPUT. */
int sy__gainmap_probe_av1_signal(sy_heif_file *file, uint32_t primary, sy_gainmap_info *info);
sy_status sy__gainmap_decode_av1_signal(sy_context *ctx, const char *path, const sy_cicp *signal,
                                        const sy_gainmap_info *info, uint32_t reduce, sy_gainmap_image *out,
                                        sy_error *err);

/* ---- gains, gainmap_math.c ---- */

/* The channel-0 code whose sy_gainmap_log2_gain is nearest `log2_gain`
 * (clamped to what the metadata can express). */
uint8_t sy__gainmap_code_for_log2(const sy_gainmap_info *info, double log2_gain);

/* ---- geometry, gainmap_geometry.c ---- */

/* The stored map turned upright by EXIF `orientation` and put through the
 * recipe's geometry into dst_w x dst_h (engine-allocated result). */
sy_status sy__gainmap_render(sy_context *ctx, const sy_gainmap_image *map, uint8_t orientation,
                             const sy_recipe *recipe, uint8_t border_value, uint32_t dst_w, uint32_t dst_h,
                             sy_gainmap_image *out, sy_error *err);

/* ---- saving a map with a still, gainmap_save.c ---- */

typedef struct sy__gainmap_save {
    sy_context *ctx;
    const char *output;
    const sy_gainmap_image *map;   /* borrowed, upright as the base */
    uint8_t *map_jpeg;             /* JPEG target: the encoded map */
    size_t map_jpeg_len;
    char *map_xmp;                 /* Apple XMP (HEIC, Apple JPEG) or hdrgm XMP */
    size_t map_xmp_len;
    char *primary_xmp;             /* Ultra HDR Container XMP (JPEG), or NULL */
    size_t primary_xmp_len;
    uint8_t mpf[SY__MPF_PAYLOAD_LEN];
    uint8_t iso[SY__ISO21496_MAX_LEN]; /* the map's ISO 21496-1 payload (JPEG APP2, HEIC 'tmap') */
    size_t iso_len;
    uint8_t iso_version[SY__ISO21496_URN_LEN + 4]; /* the primary's version-only ISO APP2 */
    uint32_t forms;                /* SY_GAINMAP_FORM_* bits the save writes */
    sy__still_extra extra;         /* hand to the still writer */
} sy__gainmap_save;

/* Prepares `s` for writing `map` with a base of `format` (JPEG or HEIC), the
 * map's numbers taken from `info` in every form the target has: JPEG gets
 * Ultra HDR (hdrgm/Container XMP, MPF) + ISO 21496-1 APP2 blocks, and Apple's
 * HDRGainMap XMP when the map is Apple's; HEIC gets, for an Apple
 * one-channel map, the Apple auxiliary map and a 'tmap' item on it, for any
 * other the 'tmap' item and a hidden map alone. `s` keeps pointers to `s` itself, `output` and
 * `map`: do not move it before the write. */
sy_status sy__gainmap_save_prepare(sy__gainmap_save *s, sy_context *ctx, const char *output, sy_still_format format,
                                   int quality, const sy_gainmap_info *info, const sy_gainmap_image *map,
                                   sy_error *err);
/* sy__gainmap_save_prepare with the forms of a HEIC save chosen: 0 (the
 * default: Apple + ISO 21496-1 for an Apple map, ISO alone for any other) or
 * SY_GAINMAP_FORM_ISO21496 alone (HDR
 * samples of the ISO-only HEIC that Android writes). */
sy_status sy__gainmap_save_prepare_forms(sy__gainmap_save *s, sy_context *ctx, const char *output,
                                         sy_still_format format, int quality, const sy_gainmap_info *info,
                                         const sy_gainmap_image *map, uint32_t heic_forms, sy_error *err);
void sy__gainmap_save_free(sy__gainmap_save *s);

#endif
