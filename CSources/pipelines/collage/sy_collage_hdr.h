/* sy_collage_hdr.h — the gain map of an HDR collage (engine-private; the
 * behaviour is described in sy_collage.h and docs/gain-maps.md "Collages").
 *
 * Planned and composed before the output is opened, so a refusal (SPEC E6)
 * writes nothing and the map's memory is gone before the first base cell
 * decodes: the canvas map (at most SY__COLLAGE_MAP_BYTES, one byte per map
 * pixel) is filled cell by cell, each stored map rendered through the cell's
 * geometry band by band, then encoded into a small in-memory JPEG that the
 * strip sink appends after the base — or, for a HEIC collage, kept (at most
 * SY__COLLAGE_MAP_BYTES) until the sink encodes it as the Apple auxiliary
 * image + 'tmap' item after the base, once the base's x265 encoder is gone. */
#ifndef SY_COLLAGE_HDR_H
#define SY_COLLAGE_HDR_H

#include "sy_collage.h"
#include "collage/sy_layout.h"
#include "collage/sy_prefetch.h"
#include "gainmap/sy_gainmap_internal.h"

/* Largest canvas map kept while it is composed: a taller canvas gets a
 * coarser map (the divisor doubles) rather than more memory. */
#define SY__COLLAGE_MAP_BYTES (3u << 20)

typedef struct sy__collage_hdr {
    int active;               /* the output carries `save` */
    uint8_t *cell_state;      /* count entries of sy_collage_cell_hdr (ctx-allocated) */
    uint32_t count;
    sy_gainmap_info common;   /* the collage map's description */
    uint32_t map_width, map_height;
    uint32_t hook_calls;
    int dropped_all;          /* an HDR cell existed but no map was kept (consented) */
    char detail[200];         /* the first reason a map was dropped */
    sy__gainmap_save save;    /* the strip sink's additions: JPEG the encoded map, XMP, ISO and MPF
                                 blocks; HEIC the map's images (save.map = &canvas) */
    sy_gainmap_image canvas;  /* HEIC: the composed map, until free */
} sy__collage_hdr;

/* Probes every readable cell's gain map, asks where one cannot be kept
 * (opts->hdr_hook, else opts->allow_sdr, else SY_E_UNSUPPORTED naming the
 * input), and for a JPEG or HEIC collage composes the canvas map for
 * `layout` (JPEG: encodes it). SDR inputs cost one gain-map probe each. */
sy_status sy__collage_hdr_prepare(sy_context *ctx, const sy_collage_options *opts, const sy__cell_job *jobs,
                                  uint32_t count, const sy__layout *layout, const char *output,
                                  sy__collage_hdr *hdr, sy_error *err);
void sy__collage_hdr_free(sy_context *ctx, sy__collage_hdr *hdr);

/* SPEC E6's question for `input`: opts->hdr_hook, else opts->allow_sdr;
 * SY_E_UNSUPPORTED (naming the input, nothing written) without consent. The
 * first consented loss is kept in hdr->detail. */
sy_status sy__collage_hdr_ask(const sy_collage_options *opts, sy__collage_hdr *hdr, const char *input,
                              sy_hdr_loss_reason reason, const char *detail, sy_error *err);

#endif
