/* sy_heif.h — HEIF/HEIC structure reader (own ISO-BMFF walk; libheif is only
 * a fallback and a test oracle).
 *
 * sy_heif_open reads `ftyp` and the whole `meta` box (capped at 64 MiB) and
 * indexes items, their properties and references. Item payloads stay in the
 * file and are read on demand by extent, so a 48 MP grid HEIC costs only its
 * metadata until tiles are decoded one at a time.
 *
 * Thread safety: after sy_heif_open returns, the accessors and
 * sy_heif_read_item/sy_heif_read_grid may be called from several threads at
 * once on one file (payloads are read with pread). Open and close are not
 * concurrent with anything else on the same file.
 */
#ifndef SY_HEIF_H
#define SY_HEIF_H

#include "sy_base.h"
#include "base/sy_cicp.h"
#include "sy_image.h" /* sy_hdr_static_metadata */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sy_heif_file sy_heif_file;

typedef struct sy_heif_item_info {
    uint32_t id;
    uint32_t type;              /* 'hvc1', 'grid', 'iden', 'iovl', 'tmap', 'Exif', 'mime', 'av01', ... */
    char content_type[64];      /* for 'mime' items (e.g. "application/rdf+xml" for XMP) */
    char name[64];
    uint8_t hidden;             /* infe flags & 1 */
    uint32_t width, height;     /* ispe (0 when absent) */
    uint8_t has_ispe;
    uint8_t rotation;           /* irot: anticlockwise quarter turns 0..3 */
    int8_t mirror;              /* imir: -1 none, 0 top<->bottom, 1 left<->right (ISO/IEC 23008-12:2022) */
    uint8_t transform_order;    /* 0: rotate then mirror (as listed in ipma), 1: mirror then rotate */
    uint8_t has_clap;
    uint32_t clap_x, clap_y, clap_width, clap_height; /* clean aperture as a pixel rectangle (validated) */
    sy_cicp nclx;               /* colr 'nclx' (present = 0 when absent) */
    sy_hdr_static_metadata hdr; /* mdcv / clli properties (a PQ picture's grade; has_* = 0 when absent) */
    uint8_t has_icc;
    uint8_t bits_per_channel;   /* pixi of the first channel (0 when absent) */
    uint8_t channels;           /* pixi channel count (0 when absent) */
    char aux_type[128];         /* auxC URN for auxiliary images, "" otherwise */
    uint32_t aux_of;            /* item this one is auxiliary to (auxl reference), 0 = none */
    uint32_t describes;         /* cdsc target (Exif/XMP metadata items), 0 = none */
    uint32_t thumbnail_of;      /* thmb target, 0 = none */
    uint32_t derived_count;     /* number of dimg references from this item (grid tiles, iden source, tmap inputs) */
    uint64_t data_size;         /* sum of extent lengths (0 when the iloc entry is missing or invalid) */
} sy_heif_item_info;

typedef struct sy_heif_grid {
    uint32_t rows, columns;
    uint32_t output_width, output_height;
} sy_heif_grid;

/** Opens and indexes `path`. Errors name the file and the broken box. */
sy_status sy_heif_open(sy_context *ctx, const char *path, sy_heif_file **out, sy_error *err);
void sy_heif_close(sy_heif_file *file);

/** The primary image: pitm's item, or, when pitm names an ISO 21496-1 'tmap'
 *  item (the HDR rendition derived from [base, gain map]), its base image —
 *  the SDR picture every other reader of the file shows (HEIF's altr group). */
uint32_t sy_heif_primary_id(const sy_heif_file *file);
/** The item pitm names (differs from sy_heif_primary_id only for a 'tmap' primary). */
uint32_t sy_heif_signalled_primary_id(const sy_heif_file *file);
uint32_t sy_heif_item_count(const sy_heif_file *file);
/** Item by index (0..count-1) or by id; NULL when absent. Borrowed: valid until close. */
const sy_heif_item_info *sy_heif_item_at(const sy_heif_file *file, uint32_t index);
const sy_heif_item_info *sy_heif_item(const sy_heif_file *file, uint32_t id);

/** dimg references of item `id` in order (grid tiles row by row). Borrowed.
 *  Ids are as stored: one may name a missing item (sy_heif_read_grid checks). */
const uint32_t *sy_heif_derived(const sy_heif_file *file, uint32_t id, uint32_t *count);

/** The hvcC payload (HEVCDecoderConfigurationRecord) of an 'hvc1' item. Borrowed. */
const uint8_t *sy_heif_hvcc(const sy_heif_file *file, uint32_t id, size_t *len);
/** The av1C payload (AV1CodecConfigurationRecord) of an 'av01' item. Borrowed. */
const uint8_t *sy_heif_av1c(const sy_heif_file *file, uint32_t id, size_t *len);
/** The ICC profile of an item (colr 'prof'/'rICC'). Borrowed. */
const uint8_t *sy_heif_icc(const sy_heif_file *file, uint32_t id, size_t *len);

/** Parses a 'grid' item's descriptor (ImageGrid) and checks it against its
 *  dimg tiles (rows × columns references, existing coded items, equal ispe
 *  covering the output). SY_E_USAGE for a non-grid item, SY_E_BUDGET when the
 *  output exceeds 65535 × 65535, SY_E_INVALID_INPUT otherwise. */
sy_status sy_heif_read_grid(sy_heif_file *file, uint32_t id, sy_heif_grid *out, sy_error *err);

/** Whether an item's payload lies where its iloc entry says, inside the file
 *  (or idat), without reading it: SY_E_INVALID_INPUT naming the item for a
 *  truncated file, as sy_heif_read_item would fail. */
sy_status sy_heif_item_located(const sy_heif_file *file, uint32_t id, sy_error *err);

/** Reads an item's payload (all extents, iloc construction method 0 or 1).
 *  *data is engine-allocated: free with sy_heif_free_data. Capped by the context
 *  budget and at 256 MiB per item (SY_E_BUDGET); an extent outside the file or
 *  idat is SY_E_INVALID_INPUT, construction method 2 SY_E_UNSUPPORTED. */
sy_status sy_heif_read_item(sy_heif_file *file, uint32_t id, uint8_t **data, size_t *len, sy_error *err);
void sy_heif_free_data(sy_heif_file *file, uint8_t *data);

#ifdef __cplusplus
}
#endif
#endif
