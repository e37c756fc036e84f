/* sy_heif_metadata_swap.h — a HEIF file copied with a new Exif / XMP for its primary,
 * every coded picture, auxiliary image and property kept byte for byte
 * (engine-private; heif_metadata_swap.c). */
#ifndef SY_HEIF_METADATA_SWAP_H
#define SY_HEIF_METADATA_SWAP_H

#include <stdio.h>
#include "base/sy_internal.h"

/* Writes to `out` the first `keep` bytes of `input` (a HEIF whose boxes end
 * there: e.g. a Motion Photo before its `mpvd`) with the primary's Exif item
 * (when `tiff` is given: TIFF bytes from "II*\0"/"MM\0*", put behind the old
 * item's header) and XMP item (when `xmp` is given) pointed at new payloads
 * appended in an `mdat` of their own; NULL keeps an item as it is.
 * SY_E_UNSUPPORTED (naming the reason) when the file cannot be patched so:
 * no such item, or one not stored as one extent in the file. `out_path`
 * names `out` in errors. */
sy_status sy__heif_copy_with_metadata(sy_context *ctx, const char *input, uint64_t keep, const uint8_t *tiff,
                                      size_t tiff_len, const uint8_t *xmp, size_t xmp_len, FILE *out,
                                      const char *out_path, sy_error *err);

#endif
