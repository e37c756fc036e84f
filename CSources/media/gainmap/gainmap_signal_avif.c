/* gainmap_signal_avif.c — the gain map of an HDR AVIF (an AV1 primary whose
 * nclx says PQ or HLG, heif/sy_heif_geometry.h sy__heif_av1_signal). Like an
 * HDR-signal HEIF (gainmap_signal.c) it stores no map: the engine shows its
 * SDR Display P3 rendition and derives the map from the same decoded signal
 * (the libheif fallback's 10/12-bit R'G'B', through the tone mapping of
 * base/sy_hdr_tone.h every HDR signal takes). libheif delivers the picture whole and upright, so the map is
 * made of its rows top to bottom (sy__gainmap_signal_rows). */
#include <stdio.h>

#include "base/sy_hdr_tone.h"
#include "gainmap/sy_gainmap_internal.h"
#include "heif/sy_heif.h"
#include "heif/sy_heif_geometry.h"
#include "heif/sy_heif_source.h"

int sy__gainmap_probe_av1_signal(sy_heif_file *file, uint32_t primary, sy_gainmap_info *info) {
    sy_cicp signal;
    if (!sy__heif_av1_signal(file, primary, &signal) || !info->base_width || !info->base_height) return 0;
    /* libheif's picture is upright (orientation 1): the probe's stored size is the delivered one */
    sy__gainmap_signal_info(info, "AVIF", &signal, info->base_width, info->base_height, primary);
    return 1;
}

static sy_status next_gain_row(void *src, float *gain, sy_error *err) {
    return sy__libheif_read_gain_row(src, gain, err);
}

sy_status sy__gainmap_decode_av1_signal(sy_context *ctx, const char *path, const sy_cicp *signal,
                                        const sy_gainmap_info *info, uint32_t reduce, sy_gainmap_image *out,
                                        sy_error *err) {
    sy__source *src = NULL;
    sy_status st = sy__libheif_source_open(ctx, path, signal, &src, err);
    if (st != SY_OK) return st;
    /* the map covers the picture the probe announced (libheif's header size) */
    if (src->width != info->base_width || src->height != info->base_height)
        st = sy__fail(err, SY_E_INVALID_INPUT, "%s: the AV1 picture decodes as %ux%u, its header says %ux%u", path,
                      src->width, src->height, info->base_width, info->base_height);
    if (st == SY_OK)
        st = sy__gainmap_signal_rows(ctx, src->width, src->height, signal->peak, reduce, next_gain_row, src, out, err);
    src->close(src);
    return st;
}
