/* sy_metadata.h — reading the metadata a conversion carries over (Exif, XMP,
 * ICC) from any still: dispatch over the formats' own readers
 * (engine-private). The record is base/sy_metadata.h; the Exif facts and
 * edits on it are exif/sy_exif.h. */
#ifndef SY_STILL_METADATA_H
#define SY_STILL_METADATA_H

#include "base/sy_metadata.h"
#include "exif/sy_exif.h"
#include "sy_image.h"
#include "sy_still.h"
#include "color/sy_color_transform.h"

/* Reads what `path` carries (JPEG APP1/APP2, HEIF Exif/XMP items and colr;
 * nothing yet for PNG) into *out (zeroed first). Missing parts stay NULL;
 * free with sy__metadata_free, also after a failure. */
sy_status sy__metadata_read(sy_context *ctx, const char *path, const sy_image_info *info, sy__metadata *out,
                            sy_error *err);

/* What `path`'s pixels are in: its ICC profile (read into *md, which owns
 * the bytes `out` points at; free with sy__metadata_free) or, for a HEIF
 * without one, the primary's (or its first tile's) nclx primaries. Nothing
 * said = sRGB (out zeroed). Never fails on a file that probed. */
void sy__colour_read(sy_context *ctx, const char *path, const sy_image_info *info, sy__metadata *md,
                     sy__color_source *out);

/* The same from metadata already read (`md` keeps owning the ICC bytes): a
 * HEIF without a profile has its nclx read, nothing else is read again. */
void sy__colour_of(sy_context *ctx, const char *path, const sy_image_info *info, const sy__metadata *md,
                   sy__color_source *out);

/* Makes `md` true of a still written in `format` apart from its source:
 * removes the Motion Photo XMP (no still writer appends the video), drops
 * an extended XMP it cannot carry (or a note naming one not read whole) and, for
 * JPEG, fits an Exif over one APP1 segment (exif/sy_exif.h sy__exif_fit).
 * Adds SY_DROPPED_* bits (sy_still.h) to *dropped. A block that cannot be
 * fitted is dropped whole rather than failing the save. */
sy_status sy__metadata_for_output(sy_context *ctx, sy__metadata *md, sy_still_format format, uint32_t *dropped,
                                  sy_error *err);

/* Drops the extended XMP's frame-bound data (GDepth / GImage / GAudio: a
 * depth map and original of another frame) and the main's properties in
 * those namespaces, for pixels they no longer describe; the extension's
 * other properties are joined into the main packet (a JPEG save splits
 * them again). An extension not read whole, or that does not join, goes
 * whole with the note naming it. Adds SY_DROPPED_EXTENDED_XMP when data or
 * a note went. */
void sy__metadata_drop_extended_xmp(sy_context *ctx, sy__metadata *md, uint32_t *dropped);

/* The places md's metadata points at (Exif SubjectArea/SubjectLocation in
 * pixels of the stored_w x stored_h frame, XMP face regions) moved by `m`
 * (exif/sy_exif.h sy__region_map; m->drop: all removed), into copies in
 * *exif / *xmp (sy__free) that md is pointed at; NULL where md's own bytes
 * stand. md's old blobs are left alone (the caller may share them). */
sy_status sy__metadata_map_regions(sy_context *ctx, sy__metadata *md, const sy__region_map *m, uint32_t stored_w,
                                   uint32_t stored_h, uint8_t **exif, uint8_t **xmp, sy_error *err);

#endif
