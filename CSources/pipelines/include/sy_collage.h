/* sy_collage.h — strip-wise long images and grid collages (SPEC C12, C13).
 *
 * The output is produced top to bottom in 16-row strips that go straight into
 * a streaming encoder (libjpeg scanlines, zlib-deflated PNG rows, or x265
 * HEIC grid tiles, one tile row at a time). Each cell
 * is decoded at the size the layout needs when the first strip reaches it
 * (worker threads prepare the next cells ahead, within a cell-memory cap) and
 * released after its last strip. A HEIC cell decodes the tiles of each tile
 * row on all the threads instead (within the job's 12 MiB), or reads the
 * file's thumbnail when that covers the cell; the output bytes never depend
 * on the thread count. An unreadable input becomes a neutral grey
 * cell (128,128,128) and is reported; if no input is readable the job fails
 * and no file is written. The output is written to a temporary file in the
 * destination folder and renamed into place only on success. A HEIC output
 * adds its x265 encoder (charged to the context by its estimate, about
 * 12 MiB + 32 bytes per tile sample per frame thread) to the strip-wise job.
 *
 * HDR (SPEC E6, docs/gain-maps.md "Collages"): when any cell has a gain map,
 * a JPEG or HEIC collage carries one gain map for the whole canvas, composed before
 * the base through each cell's own geometry, in one common form: every
 * cell's map read as log2 gain from its own metadata, SDR cells, spacing and
 * margins at gain 0, encoded with the largest of the cells' headrooms at the
 * sources' map resolution (half size for iPhone maps). Written as still
 * edits write their maps: JPEG Ultra HDR + ISO 21496-1, plus Apple's
 * HDRGainMap XMP when every HDR cell is Apple's; HEIC the Apple auxiliary
 * map and a 'tmap' item on it. When a map cannot be kept (a PNG
 * collage, an uninterpretable or undecodable map) the hook is asked, or
 * `allow_sdr` consents; otherwise nothing is written (SY_E_UNSUPPORTED).
 */
#ifndef SY_COLLAGE_H
#define SY_COLLAGE_H

#include "sy_base.h"
#include "sy_image.h"
#include "sy_still.h"
#include "sy_gainmap_edit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sy_layout_kind {
    SY_LAYOUT_LONG = 0, /* photos stacked vertically at a common width */
    SY_LAYOUT_GRID = 1, /* 2..30 photos in a template that fills the canvas, cells centre-cropped to fill */
} sy_layout_kind;

/** Largest JPEG side libjpeg-turbo can write (its JPEG_MAX_DIMENSION). */
#define SY_JPEG_MAX_DIMENSION 65500u
/** Largest HEIC collage side: what libheif opens by default (Debian's 1.15
 *  refuses a side over 32768 px; vips 8.14 one over 16384). */
#define SY_HEIC_MAX_DIMENSION 32768u

typedef struct sy_collage_options {
    uint32_t version;        /* 1 */
    sy_layout_kind layout;
    uint32_t width;          /* output width in px (default 1080) */
    uint32_t columns;        /* grid: 0 = template for the photo count, cells shaped to their photos;
                                N = rows of N equal cells, a short last row widened to fill */
    uint32_t spacing;        /* px between cells (default 0 long, 8 grid) */
    uint32_t margin;         /* outer margin in px (default 0 long, 8 grid) */
    uint8_t background[3];   /* RGB of spacing/margins (default white) */
    sy_still_format format;  /* JPEG (baseline, standard Huffman tables, 4:2:0), PNG (8-bit RGB,
                                non-interlaced) or HEIC (x265 grid of 512 px tiles, 4:2:0) */
    int quality;             /* JPEG / HEIC quality 1..100 (default 90; HEIC: sy_heif_writer's CRF table) */
    int png_compression;     /* zlib level 0..9 (default 6) */
    int naive;               /* 1 = decode every input fully, one full canvas (benchmark baseline) */
    int threads;             /* decode workers (HEIC: tile workers per cell); 0 = number of online CPUs (max 4) */
    size_t cell_memory_cap;  /* bytes of prepared cells kept ahead; 0 = 6 MiB (and at most one cell per worker ahead) */
    int too_tall;            /* what to do when a JPEG would exceed 65,500 px (a HEIC 32,768):
                                0 = scale the canvas down uniformly (default),
                                1 = fail with SY_E_BUDGET before decoding anything */
    int allow_sdr;           /* SPEC E6 consent: a gain map that cannot be kept makes its cell (or, for
                                PNG, the collage) SDR without asking */
    sy_hdr_loss_hook hdr_hook; /* asked when a gain map cannot be kept (before allow_sdr); 1 = go on SDR */
    void *hdr_hook_context;
} sy_collage_options;

/** Fills defaults for `layout` (spacing/margin differ per layout). */
void sy_collage_options_init(sy_collage_options *opts, sy_layout_kind layout);

/** Why a cell was painted grey. */
typedef struct sy_cell_failure {
    uint32_t index;      /* input index */
    sy_status code;
    char reason[256];
} sy_cell_failure;

typedef struct sy_collage_report {
    uint32_t width, height;      /* of the written image */
    uint32_t cells;              /* number of inputs placed */
    uint32_t grey_count;
    sy_cell_failure *grey;       /* grey_count entries, owned by the report */
    uint32_t over_budget_count;  /* cells whose decoder needed more than the cap
                                    (progressive JPEG coefficient buffers, full HEIF decodes) */
    uint32_t *over_budget;       /* their input indices, owned by the report */
    int scaled_to_fit;           /* 1 when the canvas was scaled for JPEG_MAX_DIMENSION */
    double scale_factor;         /* 1.0 unless scaled_to_fit */
    uint64_t engine_peak_bytes;  /* accounting allocator peak during the job */
    uint64_t cell_peak_bytes;    /* peak bytes held by prepared cells */
    int display_p3;              /* 1: rendered in Display P3 and tagged with its profile (an input was
                                    wider than sRGB); 0: sRGB, untagged as sRGB files usually are */
    sy_hdr_outcome hdr;          /* NOT_HDR (no cell had a map), KEPT (the collage carries one) or
                                    DROPPED_WITH_CONSENT (every map was dropped) */
    uint8_t *cell_hdr;           /* cells entries of sy_collage_cell_hdr, owned by the report */
    uint32_t gain_map_width, gain_map_height; /* the written map (0 when none) */
    double gain_map_headroom;    /* its headroom, linear (the largest of the cells'; 0 when none) */
    uint32_t gain_map_forms;     /* SY_GAINMAP_FORM_* bits written */
    uint32_t hdr_hook_calls;
    char hdr_detail[200];        /* why a map was dropped ("" when none was) */
} sy_collage_report;

/** What became of one cell's gain map. */
typedef enum sy_collage_cell_hdr {
    SY_COLLAGE_CELL_SDR = 0,         /* the photo has no gain map (gain 0 in an HDR collage) */
    SY_COLLAGE_CELL_HDR_KEPT = 1,    /* its map is part of the collage's map */
    SY_COLLAGE_CELL_HDR_DROPPED = 2, /* its map could not be kept; the hook or allow_sdr agreed */
} sy_collage_cell_hdr;

/** Renders inputs[0..count) into `output_path`.
 *  On SY_OK, `report` is filled; release it with sy_collage_report_free.
 *  On failure nothing is left at `output_path` (an existing file there is kept).
 *  Returns SY_E_INVALID_INPUT when no input is readable, SY_E_USAGE for
 *  impossible options, SY_E_BUDGET for a too-tall JPEG with too_tall = 1,
 *  SY_E_CANCELLED when cancelled, SY_E_IO/SY_E_CODEC for write failures. */
sy_status sy_collage_render(sy_context *ctx, const char *const *inputs, uint32_t count,
                            const sy_collage_options *opts, const char *output_path,
                            sy_collage_report *report, sy_error *err);

/** Frees what a report owns; the struct itself is the caller's. NULL is fine. */
void sy_collage_report_free(sy_collage_report *report);

#ifdef __cplusplus
}
#endif
#endif
