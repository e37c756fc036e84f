/* sy_heif_writer_state.h — the HEIF writer's state, shared by its two
 * files (engine-private to heif/): heif_writer.c takes rows, metadata and
 * auxiliary images and encodes their tiles into the spool;
 * heif_writer_container.c lays out the items and writes ftyp + meta + mdat
 * when the writer finishes. */
#ifndef SY_HEIF_WRITER_STATE_H
#define SY_HEIF_WRITER_STATE_H

#include <stdio.h>

#include "base/sy_cicp.h"
#include "base/sy_internal.h"
#include "base/sy_rgb_to_ycbcr.h"
#include "heif/sy_heif_tile_lanes.h"
#include "heif/sy_heif_writer.h"

typedef struct hw_rows { /* one tile row of samples being filled */
    uint32_t width, padded_w, tile_h, channels;
    uint8_t *plane[3];
    size_t stride[3];
    uint8_t *even_rgb; /* the last even row, waiting for its odd partner (4:2:0 chroma) */
    uint32_t filled;
} hw_rows;

typedef struct hw_image {
    sy_heif_writer *owner;
    uint32_t width, height, channels;
    uint32_t tile_w, tile_h, cols, rows;
    int grid;
    char *urn;                   /* auxiliary type, NULL for the primary, a thumbnail and a tmap-only map */
    int thumb;                   /* a 'thmb' thumbnail of the primary (kept in aux[], not hidden, no auxC) */
    int tmap_only;               /* a gain map only the 'tmap' item uses (hidden, no auxC, no auxl) */
    uint8_t *hvcc;
    size_t hvcc_len;
    uint64_t *tile_offset;       /* in the spool */
    uint32_t *tile_length;
    uint32_t tiles_done;
    uint8_t *xmp;                /* auxiliary images' own XMP */
    size_t xmp_len;
    uint32_t id, first_tile_id;  /* assigned by finish */
} hw_image;

struct sy_heif_writer {
    sy_context *ctx;
    sy_heif_writer_options opts;
    char *preset;
    uint32_t min_cu_size; /* HW_DEFAULT_MIN_CU with the default preset, else 0 (the preset's) */
    uint32_t rd_level;    /* HW_DEFAULT_RD with the default preset, else 0 (the preset's) */
    char *path;
    FILE *spool;
    uint64_t spool_len;
    sy__ycbcr_matrix matrix;
    hw_image primary;
    hw_image aux[SY_HEIF_WRITER_MAX_AUXILIARY];
    uint32_t aux_count;
    sy__tile_lanes *encoder;   /* primary tiles; NULL once all rows are encoded */
    hw_rows rows[2];           /* one filled while x265 encodes the other (one when a tile row is all) */
    uint32_t filling;
    uint32_t rows_in;
    uint8_t *exif, *xmp, *icc;
    size_t exif_len, xmp_len, icc_len;
    uint32_t exif_tiff_offset;
    uint8_t *tmap;             /* ISO 21496-1 payload of the 'tmap' item, or NULL */
    size_t tmap_len;
    uint32_t tmap_aux;         /* the auxiliary image it uses as gain map */
    uint32_t tmap_id;          /* assigned by finish */
    int failed, finished;
};

/* The colour the nclx box and the tiles' VUI describe: the options', with
 * primaries and transfer those of the ICC profile when one is set. */
sy_cicp sy__heif_writer_colour(const sy_heif_writer *w);

/* Writes the file (ftyp, meta, mdat with the spooled tiles) to a temporary
 * file beside the target and renames it into place; `max_items` bounds the
 * item table. */
sy_status sy__heif_writer_write_container(sy_heif_writer *w, uint32_t max_items, sy_error *err);

#endif
