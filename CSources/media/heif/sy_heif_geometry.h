/* sy_heif_geometry.h — how our reader decodes one HEVC image item of a HEIF
 * (engine-private; used by the row source, heif_tile_source.c).
 *
 * An item is either a 'grid' of equal 'hvc1' tiles or a single 'hvc1' item.
 * Its geometry names the tiles, the clean aperture (clap) that is the
 * delivered frame, the display transform (irot/imir as the equivalent EXIF
 * orientation) and the colour (nclx) the pixels are converted with.
 *
 * An item whose signal is HDR (PQ or HLG transfer: the nclx, or without one
 * the tiles' SPS VUI — Sony and Canon cameras' HLG / PQ HEIFs) is delivered
 * tone-mapped to SDR Display P3 (base/sy_hdr_tone.h), and its gain map is
 * derived from the same signal (gainmap: SY_GAINMAP_HDR_SIGNAL).
 *
 * Which item: the primary, unless a thumbnail of it ('thmb') is the smaller
 * correct source for what the caller needs (sy__heif_pick_item). */
#ifndef SY_HEIF_GEOMETRY_H
#define SY_HEIF_GEOMETRY_H

#include "heif/sy_heif.h"
#include "sy_image.h"

typedef struct sy__heif_geometry {
    uint32_t item;                    /* the decoded item (grid or hvc1) */
    uint32_t rows, columns;           /* 1 x 1 for a plain hvc1 item */
    uint32_t grid_width, grid_height; /* output size of the grid before clap */
    uint32_t tile_width, tile_height;
    const uint32_t *tiles;            /* rows*columns item ids (borrowed from the file) */
    uint32_t single_tile;             /* storage when not a grid (tiles points here: do not copy the struct) */
    uint32_t crop_x, crop_y, width, height; /* clap window = delivered frame at full size */
    uint8_t orientation;              /* EXIF code equivalent of irot/imir */
    sy_cicp nclx;
    sy_cicp signal;                   /* the nclx, else the first tile's SPS VUI (present = 0 when neither says) */
    uint32_t coding;                  /* item type when our reader does not decode it */
} sy__heif_geometry;

/* Reads and checks the geometry of `item`. Our reader handles HEVC grids and
 * single HEVC items; any other coding is SY_E_UNSUPPORTED (g->coding names
 * it); broken or lying sizes are SY_E_INVALID_INPUT / SY_E_BUDGET. */
sy_status sy__heif_geometry_read(sy_heif_file *file, const char *path, uint32_t item, sy__heif_geometry *g,
                                 sy_error *err);

/* Whether the item's signal is HDR (PQ, HLG): delivered tone-mapped, see the top. */
int sy__heif_geometry_is_hdr(const sy__heif_geometry *g);

/* An AV1 primary (an 'av01' item, or a 'grid' of them; our reader leaves
 * their decoding to libheif): 1 when its nclx (the first tile's, else the
 * item's) says PQ or HLG, with that signal (peak from the grade, as above);
 * 0 otherwise. Such a primary is delivered tone-mapped too (the libheif
 * fallback, sy_heif_source.h). Colour said only inside the AV1 sequence
 * header is not read: such a file stays as libheif shows it. */
int sy__heif_av1_signal(sy_heif_file *file, uint32_t item, sy_cicp *signal);

/* The probe's view of a geometry (`info` is the item's infe/properties). */
void sy__heif_geometry_info(const sy__heif_geometry *g, const sy_heif_item_info *info, sy_image_info *out);

/* The item to decode when the caller needs at least min_width x min_height
 * pixels of the primary's delivered frame (in the primary's stored
 * orientation). Returns a thumbnail of the primary ('thmb' reference) when one
 * is a correct stand-in and covers the need at its own full size (never
 * upscaled): an HEVC item our reader decodes, showing the same picture
 * upright (its own irot/imir/clap applied, the upright aspect within one
 * thumbnail pixel of the primary's) in the same colour (equal nclx, equal or
 * no ICC profiles); the smallest such thumbnail wins. Otherwise the primary.
 * `primary` is the primary's geometry. */
uint32_t sy__heif_pick_item(sy_heif_file *file, const char *path, const sy__heif_geometry *primary,
                            uint32_t min_width, uint32_t min_height);

#endif
