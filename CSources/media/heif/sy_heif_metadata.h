/* sy_heif_metadata.h — a HEIF file's metadata (engine-private). */
#ifndef SY_HEIF_METADATA_H
#define SY_HEIF_METADATA_H

#include "base/sy_cicp.h"
#include "base/sy_metadata.h"

/* The Exif and XMP items describing the primary image (cdsc) and its ICC
 * profile into *out (zeroed first), read with our own HEIF reader; missing
 * parts stay NULL. The profile says what the pixels handed out are: an HDR
 * picture's is Display P3 (sy_heif_geometry.h); a colour said only by nclx
 * (wide primaries) becomes the profile that says the same. On failure *out
 * is freed and zeroed. */
sy_status sy__heif_metadata_read(sy_context *ctx, const char *path, sy__metadata *out, sy_error *err);

/* The images of the file, besides the primary and its Apple HDR gain map,
 * that a re-encoded still does not carry: SY_DROPPED_ISO_GAIN_MAP ('tmap'
 * items), SY_DROPPED_HEIC_THUMBNAIL ('thmb' of the primary),
 * SY_DROPPED_AUXILIARY_IMAGES (other auxiliary images of the primary) —
 * bits of sy_still.h added to *dropped. *thumbnail_side gets the longer
 * side of the primary's thumbnail (0 = none), which a HEIC save renders
 * anew. An unreadable file adds nothing. */
/* The nclx of `primary`, else of its first input (a grid's tiles); present
 * = 0 when neither has one. */
typedef struct sy_heif_file sy_heif_file;
sy_cicp sy__heif_primary_nclx(sy_heif_file *file, uint32_t primary);

void sy__heif_uncarried_items(sy_context *ctx, const char *path, uint32_t *dropped, uint32_t *thumbnail_side);

#endif
