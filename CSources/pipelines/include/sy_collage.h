/* sy_collage.h — strip-wise long images and grid collages (SPEC C12, C13).
 *
 * The output is produced top to bottom in 16-row strips that go straight into
 * a streaming encoder (libjpeg scanlines or zlib-deflated PNG rows). Each cell
 * is decoded at the size the layout needs when the first strip reaches it
 * (worker threads prepare the next cells ahead, within a cell-memory cap) and
 * released after its last strip. A HEIC cell decodes the tiles of each tile
 * row on all the threads instead (within the job's 12 MiB), or reads the
 * file's thumbnail when that covers the cell; the output bytes never depend
 * on the thread count. An unreadable input becomes a neutral grey
 * cell (128,128,128) and is reported; if no input is readable the job fails
 * and no file is written. The output is written to a temporary file in the
 * destination folder and renamed into place only on success.
 */
#ifndef SY_COLLAGE_H
#define SY_COLLAGE_H

#include "sy_base.h"
#include "sy_image.h"
#include "sy_still.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sy_layout_kind {
    SY_LAYOUT_LONG = 0, /* photos stacked vertically at a common width */
    SY_LAYOUT_GRID = 1, /* 2..30 photos in a template that fills the canvas, cells centre-cropped to fill */
} sy_layout_kind;

/** Largest JPEG side libjpeg-turbo can write (its JPEG_MAX_DIMENSION). */
#define SY_JPEG_MAX_DIMENSION 65500u

typedef struct sy_collage_options {
    uint32_t version;        /* 1 */
    sy_layout_kind layout;
    uint32_t width;          /* output width in px (default 1080) */
    uint32_t columns;        /* grid: 0 = template for the photo count, cells shaped to their photos;
                                N = rows of N equal cells, a short last row widened to fill */
    uint32_t spacing;        /* px between cells (default 0 long, 8 grid) */
    uint32_t margin;         /* outer margin in px (default 0 long, 8 grid) */
    uint8_t background[3];   /* RGB of spacing/margins (default white) */
    sy_still_format format;  /* JPEG (baseline, standard Huffman tables, 4:2:0) or PNG (8-bit RGB,
                                non-interlaced); collages are never HEIC */
    int quality;             /* JPEG quality 1..100 (default 90) */
    int png_compression;     /* zlib level 0..9 (default 6) */
    int naive;               /* 1 = decode every input fully, one full canvas (benchmark baseline) */
    int threads;             /* decode workers (HEIC: tile workers per cell); 0 = number of online CPUs (max 4) */
    size_t cell_memory_cap;  /* bytes of prepared cells kept ahead; 0 = 6 MiB (and at most one cell per worker ahead) */
    int too_tall;            /* what to do when a JPEG would exceed 65,500 px:
                                0 = scale the canvas down uniformly (default),
                                1 = fail with SY_E_BUDGET before decoding anything */
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
} sy_collage_report;

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
