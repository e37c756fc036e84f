/* sy_heif_file_state.h — the HEIF structure reader's handle, shared by its
 * files (engine-private to heif/): heif_file.c opens the file and indexes
 * `meta` (hdlr, pitm, iinf, iloc, idat, iref); heif_file_props.c decodes the
 * item properties (ipco + ipma); heif_file_items.c reads item payloads and
 * grids on demand. */
#ifndef SY_HEIF_FILE_STATE_H
#define SY_HEIF_FILE_STATE_H

#include <stdio.h>

#include "base/sy_internal.h"
#include "bmff/sy_bmff.h"
#include "heif/sy_heif.h"

#define FCC SY_FOURCC

typedef struct heif_extent {
    uint64_t offset, length; /* absolute file offset (method 0) or idat offset (method 1) */
} heif_extent;

typedef struct heif_ref {
    uint32_t type, from, first, count; /* targets[first .. first+count) */
    uint64_t box_offset;
} heif_ref;

typedef struct heif_item {
    sy_heif_item_info info;
    const uint8_t *hvcc;
    size_t hvcc_len;
    const uint8_t *av1c; /* AV1CodecConfigurationRecord of an 'av01' item */
    size_t av1c_len;
    const uint8_t *icc;
    size_t icc_len;
    /* location */
    uint8_t in_iloc;
    uint8_t method;          /* iloc construction method: 0 file, 1 idat */
    sy_status loc_status;    /* SY_OK or why the payload cannot be read */
    uint64_t loc_bad_offset; /* the offending extent, for the message */
    uint64_t loc_bad_length;
    uint64_t iloc_offset;    /* absolute offset of the iloc box */
    uint32_t extent_first, extent_count;
    /* references */
    int32_t dimg_ref; /* index into refs, -1 none */
    /* properties seen (first one of each kind wins) */
    uint8_t seen_hvcc, seen_av1c, seen_ispe, seen_irot, seen_imir, seen_clap, seen_nclx, seen_icc, seen_pixi, seen_auxc;
    int32_t clap[8];
} heif_item;

struct sy_heif_file {
    sy_context *ctx;
    FILE *fp;
    int fd;
    uint64_t file_size;
    char *path;
    uint32_t major_brand;
    uint8_t *meta; /* whole meta box, header included */
    uint64_t meta_size, meta_offset;
    const uint8_t *idat;
    uint64_t idat_size;
    uint32_t primary;   /* the image shown: pitm, or a tmap primary's base */
    uint32_t signalled; /* pitm's item */
    heif_item *items; /* sorted by id */
    uint32_t item_count;
    heif_extent *extents;
    uint32_t extent_count;
    heif_ref *refs;
    uint32_t ref_count;
    uint64_t iloc_offset, iref_offset; /* absolute, for messages */
    uint32_t *targets;
    uint32_t target_count;
};

/* One property of ipco. */
typedef struct heif_prop {
    uint32_t type;
    uint64_t payload_offset, payload_size, box_offset; /* payload/box offsets inside the meta buffer */
} heif_prop;

/* ---- helpers (heif_file.c) ---- */

static inline uint64_t abs_off(const sy_heif_file *f, uint64_t meta_offset) { return f->meta_offset + meta_offset; }

static inline sy_bmff_span payload_span(const sy_heif_file *f, const sy_bmff_box *b) { return sy_bmff_payload(f->meta, b); }

/* "path: reason ('box', offset N)". `offset` is absolute in the file. */
__attribute__((format(printf, 6, 7))) sy_status sy__heif_bad(const sy_heif_file *f, sy_error *err, sy_status code,
                                                             uint32_t box, uint64_t offset, const char *fmt, ...);
/* The next child box under the cursor (type 0 at the end). */
sy_status sy__heif_next_box(const sy_heif_file *f, sy_bmff_cursor *c, sy_bmff_box *b, sy_error *err);
/* The item with `id` (items are sorted by id), or NULL. */
heif_item *sy__heif_find_item(const sy_heif_file *f, uint32_t id);
/* `n` bytes at absolute file offset `offset`. */
sy_status sy__heif_read_at(const sy_heif_file *f, uint64_t offset, void *dst, size_t n, sy_error *err);

/* heif_file_props.c: iprp (ipco, then every ipma) onto the items. */
sy_status sy__heif_parse_iprp(sy_heif_file *f, const sy_bmff_cursor *meta, const sy_bmff_box *b, sy_error *err);

#endif
