/* sy_heif_writer.h — HEIC writer: x265-encoded grid primary image, Exif/XMP
 * items, ICC/nclx colour, and hidden auxiliary images of any type URN (e.g.
 * Apple's HDR gain map "urn:com:apple:photo:2020:aux:hdrgainmap").
 *
 * Debian's libheif 1.15 cannot write auxiliary images, so the container is
 * written by the engine (sy_bmff writer) around x265 bitstreams.
 *
 * Use:
 *     sy_heif_writer_options o; sy_heif_writer_options_init(&o);
 *     o.width = W; o.height = H;
 *     sy_heif_writer_create(ctx, "out.heic", &o, &w, &err);
 *     sy_heif_writer_set_exif(w, tiff, n, &err);            // optional, any time before finish
 *     sy_heif_writer_write_rows(w, rows, count, &err);      // repeatedly, top to bottom, H rows in all
 *     sy_heif_writer_add_auxiliary(w, urn, mw, mh, 1, map_rows, &err);  // optional, any time before finish
 *     sy_heif_writer_finish(w, &err);
 *     sy_heif_writer_destroy(w);
 *
 * File layout: ftyp (major 'heic', compatible 'mif1' 'heic'), meta (hdlr
 * 'pict', pitm, iloc v1, iinf, iref, iprp, idat), mdat (64-bit size when
 * needed). The primary is a 'grid' item (descriptor in idat) of hidden 'hvc1'
 * tiles of tile_size x tile_size (or tile_size x tile_height) that share one hvcC; edge tiles are padded by
 * replicating the last column/row and the grid's output size crops them.
 * Properties: hvcC (essential), ispe, pixi, colr nclx and/or colr prof, auxC
 * (essential). Exif/XMP items point at their image with 'cdsc'; auxiliary
 * images point at the primary with a single-target 'auxl'.
 *
 * Memory: two tile rows of 4:2:0 samples (tile_size x padded width x 1.5
 * bytes each; one is filled while the encoders read the other; one for an
 * image of a single tile row) plus the x265 encoder (estimated and charged to the budget, ~12 MiB
 * + 32 bytes per tile sample). Compressed tiles are spooled to an unlinked
 * temporary file in the destination folder (not kept in memory); finish
 * copies them behind the metadata.
 *
 * Output goes to a temporary file beside `path`, renamed into place only when
 * complete: after any failure (including cancellation and destroy without
 * finish) no file is left and an existing file at `path` is untouched.
 *
 * HEVC: one x265 encoder (preset "ultrafast" with a 32x32 smallest CU and RD level 1 by default, CTU 64, intra only,
 * every tile an IDR; `encoders` x265 encoders take the tiles in turn) per image size; parameter sets go to hvcC only, item data is 4-byte
 * length-prefixed VCL NAL units. 4:2:0 tiles are Main Still Picture; 4:0:0
 * auxiliary images are Format Range Extensions (profile 4), which libavcodec
 * and libheif decode.
 *
 * Thread safety: a writer is used by one thread at a time; x265 runs its own
 * worker threads inside the calls. Several writers may run at once, but x265
 * requires every encoder open in a process to use the same CTU size (64; the
 * libheif x265 plugin also uses 64 for images of 64 px and more).
 * Cancellation (sy_context_cancel) is polled once per tile.
 */
#ifndef SY_HEIF_WRITER_H
#define SY_HEIF_WRITER_H

#include "sy_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sy_heif_writer sy_heif_writer;

/** Most auxiliary images per file. */
#define SY_HEIF_WRITER_MAX_AUXILIARY 16u

/** Quality -> x265 CRF, piecewise linear: 100 -> 12, 95 -> 17, 90 -> 22,
 *  80 -> 25, 70 -> 28, 50 -> 34, 1 -> 51. The default (90, preset
 *  "ultrafast", 32x32 smallest CU) re-saves an iPhone photo at about its own bits per pixel,
 *  above 40 dB PSNR (docs/heic-quality.md); it is not libheif's table
 *  (`heif-enc -q 90` is CRF 5, ~4x the bytes). */
typedef struct sy_heif_writer_options {
    uint32_t version;        /* 1 */
    uint32_t width, height;  /* primary image size, 1..65535 each (grid tiles <= 256 x 256) */
    int32_t quality;         /* 1..100; default 90 */
    uint32_t tile_size;      /* grid tile edge, multiple of 8 in 64..4096; default 512 (as iPhones) */
    uint32_t chroma;         /* 420 (the only value supported); default 420 */
    /* nclx colour description, written as colr 'nclx' on the primary and in the
     * HEVC VUI; the matrix also drives the RGB -> YCbCr conversion (1 BT.709,
     * 5/6 BT.601, 9 BT.2020 NCL). Default as iPhones: 1/13/6, full range. */
    uint8_t write_nclx;      /* 1 (default): write colr 'nclx'; 0: only the VUI (and 'prof' if set) */
    uint16_t colour_primaries;
    uint16_t transfer_characteristics;
    uint16_t matrix_coefficients;
    uint8_t full_range;
    uint32_t threads;        /* x265 worker threads; 0 (default) = one per core */
    const char *x265_preset; /* NULL (default) = "ultrafast" with a 32x32 smallest CU (docs/heic-quality.md);
                                a named preset is x265's own; copied by create */
    /* Display transform of the primary, written as irot then imir (both essential):
     * the pixels are stored as given and viewers turn them, as iPhones store portraits. */
    uint8_t rotation;        /* irot: anticlockwise quarter turns 0..3 (default 0 = none) */
    int8_t mirror;           /* imir: -1 none (default), 0 top<->bottom, 1 left<->right (ISO/IEC 23008-12:2022) */
    uint32_t tile_height;    /* grid tile height when not square (iPhone Pro 24 MP: 640 x 896), multiple of 8
                                in 64..4096; 0 (default) = tile_size */
    uint32_t encoders;       /* x265 encoders a grid of 16+ tiles is dealt to in turn, 1..4; default 2. With
                                threads != 1 they encode at once (a 24 MP save 1.1 s instead of 1.25 on 2 cores);
                                each costs ~9 MB with 512 px tiles. The bytes depend on this, not on threads */
} sy_heif_writer_options;

/** Fills the defaults above (version 1). */
void sy_heif_writer_options_init(sy_heif_writer_options *opts);

/** Creates a writer for `path` (copied). Fails early (SY_E_IO) when the
 *  destination folder cannot hold the temporary tile spool; SY_E_USAGE for bad
 *  options; SY_E_BUDGET when the buffers or the x265 estimate exceed the
 *  budget; SY_E_CODEC when x265 refuses the configuration. Nothing is written
 *  at `path` before finish. Free with sy_heif_writer_destroy. */
sy_status sy_heif_writer_create(sy_context *ctx, const char *path, const sy_heif_writer_options *opts,
                                sy_heif_writer **out, sy_error *err);

/** Appends `count` rows of 8-bit interleaved RGB (width*3 bytes each), top to
 *  bottom; every full row of tiles is converted and encoded before returning.
 *  Rows are borrowed only during the call. More rows than `height` is
 *  SY_E_USAGE. Returns SY_E_CANCELLED when the context is cancelled. After
 *  any error the writer is failed: later calls return SY_E_USAGE. */
sy_status sy_heif_writer_write_rows(sy_heif_writer *w, const uint8_t *const *rgb_rows, uint32_t count, sy_error *err);

/** Exif metadata for the primary: TIFF bytes starting "II*\0" or "MM\0*"
 *  (an "Exif\0\0" prefix is accepted and kept, with the header offset set to 6).
 *  Copied. Calling again replaces it. SY_E_INVALID_INPUT if not TIFF. */
sy_status sy_heif_writer_set_exif(sy_heif_writer *w, const uint8_t *tiff, size_t len, sy_error *err);

/** XMP packet for the primary ('mime' item, application/rdf+xml). Copied;
 *  calling again replaces it. */
sy_status sy_heif_writer_set_xmp(sy_heif_writer *w, const uint8_t *xml, size_t len, sy_error *err);

/** ICC profile for the primary (colr 'prof'; written in addition to the nclx
 *  box when write_nclx is set). Copied; calling again replaces it; only
 *  before the first row. The nclx box and the tiles' VUI then name the
 *  profile's primaries (sRGB, Display P3, BT.2020 recognised from its
 *  colorants) or "unspecified", never other ones. */
sy_status sy_heif_writer_set_icc(sy_heif_writer *w, const uint8_t *icc, size_t len, sy_error *err);

/** Encodes an auxiliary image of type `urn` (auxC, copied) for the primary:
 *  a hidden 'hvc1' item with its own hvcC/ispe/pixi, linked with 'auxl' to the
 *  primary. channels 1 = 8-bit greyscale rows (width bytes) encoded as HEVC
 *  4:0:0 (RExt profile); channels 3 = RGB rows converted like the primary to
 *  4:2:0 (plus the primary's colr nclx). `rows` holds `height` row pointers,
 *  borrowed during the call. Sizes 1..65535; an image larger than one tile
 *  (tile_size x tile_height), under 64 px, or (RGB) with an odd side becomes a
 *  hidden grid item instead (as iPhones store their gain maps).
 *  Its index (0 for the first, ...) is written to *index when not NULL. */
sy_status sy_heif_writer_add_auxiliary(sy_heif_writer *w, const char *urn, uint32_t width, uint32_t height,
                                       uint32_t channels, const uint8_t *const *rows, uint32_t *index,
                                       sy_error *err);

/** Encodes the primary's thumbnail: RGB rows (width*3 bytes, `height` row
 *  pointers borrowed during the call) as a visible 'hvc1' item converted like
 *  the primary (4:2:0, its colr and irot/imir), linked with 'thmb' to the
 *  primary. One per file; sizes as sy_heif_writer_add_auxiliary (even sides
 *  of 64..4096 make one item). Counts against SY_HEIF_WRITER_MAX_AUXILIARY. */
sy_status sy_heif_writer_add_thumbnail(sy_heif_writer *w, uint32_t width, uint32_t height,
                                       const uint8_t *const *rows, sy_error *err);

/** XMP for auxiliary image `index` (e.g. Apple's HDRGainMap XMP): a 'mime'
 *  item with 'cdsc' to the auxiliary item. Copied; calling again replaces it. */
sy_status sy_heif_writer_set_auxiliary_xmp(sy_heif_writer *w, uint32_t index, const uint8_t *xml, size_t len,
                                           sy_error *err);

/** ISO 21496-1 tone-map item (HEIF 3rd ed. Amd 1) using image `index` (an
 *  auxiliary image, as iPhone 17 shares Apple's map, or the one of
 *  sy_heif_writer_add_tone_map_image) as its gain map: a 'tmap'
 *  item whose data is u8 version 0 + `iso` (the ISO 21496-1 payload, copied),
 *  'dimg' to [primary, auxiliary], the primary's ispe/pixi/irot/imir, a
 *  'grpl'/'altr' group [tmap, primary] and the ftyp brand 'tmap'. The
 *  auxiliary keeps its single-target 'auxl' (libheif before 1.18 rejects more). */
sy_status sy_heif_writer_set_tone_map(sy_heif_writer *w, uint32_t index, const uint8_t *iso, size_t len,
                                      sy_error *err);

/** Encodes a gain map that only the 'tmap' item uses (the ISO 21496-1 form
 *  alone, as Android's HEIC Ultra HDR stores it): a hidden 'hvc1' item (or
 *  hidden grid, as for auxiliary images) with hvcC/ispe/pixi and no auxC,
 *  auxl or display transform of its own. Pass its index to
 *  sy_heif_writer_set_tone_map; finish refuses such an image no 'tmap' uses. */
sy_status sy_heif_writer_add_tone_map_image(sy_heif_writer *w, uint32_t width, uint32_t height, uint32_t channels,
                                            const uint8_t *const *rows, uint32_t *index, sy_error *err);

/** Writes the file (all `height` rows must have been written) and renames it
 *  into place. On failure nothing is left at `path` (an old file stays). The
 *  writer can only be destroyed afterwards. */
sy_status sy_heif_writer_finish(sy_heif_writer *w, sy_error *err);

/** Frees the writer; without a successful finish the output is abandoned
 *  (no file). NULL does nothing. */
void sy_heif_writer_destroy(sy_heif_writer *w);

#ifdef __cplusplus
}
#endif
#endif
