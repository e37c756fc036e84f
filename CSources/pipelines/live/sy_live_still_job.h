/* sy_live_still_job.h — a Live pair's still written as a still edit is
 * (engine-private): the edit job renders `recipe`, carries `identifier`
 * (NULL: a still apart from any movie) and writes the gain map as the HDR
 * decision `hdr` (made by the caller, never ASK; KEEP's map is consumed)
 * says. `flags` are added to SY_EDIT_FULL_DECODE (SY_EDIT_IDENTIFY_SOURCE
 * for the E7 evidence). Used by Live saves and by Motion Photo -> Live.
 * Also: a still written from pixels in a space other than sRGB. */
#ifndef SY_LIVE_STILL_JOB_H
#define SY_LIVE_STILL_JOB_H

#include "color/sy_color_transform.h"
#include "edit/sy_edit_internal.h"
#include "sy_gainmap_edit.h"

sy_status sy__live_write_edited_still(sy_context *ctx, const char *source, const sy_recipe *recipe,
                                      sy_still_format format, int quality, uint32_t flags, const char *identifier,
                                      sy__hdr_decision *hdr, const char *path, sy_gainmap_edit_report *rep,
                                      sy_error *err);

/* sy_live_write_still for pixels in `space`: tagged with that space's profile
 * unless it is sRGB (a moving collage of Display P3 photos); `extra` (may be
 * NULL) adds a gain map (its XMP joined to the Exif source's). `facts_movie`
 * (may be NULL): the movie the pixels are a frame of; without an Exif source
 * the still carries its capture date and zone, GPS, make, model, software.
 * `dropped` (may be NULL) gets the SY_DROPPED_* bits of the Exif source's
 * metadata the still does not carry (its extended XMP, a Motion Photo's XMP). */
sy_status sy__live_write_still_in(sy_context *ctx, const sy_edit_image *image, sy__rgb_space space,
                                  const sy__still_extra *extra, const char *exif_source, const char *facts_movie,
                                  const char *content_identifier, const char *path, sy_still_format format,
                                  int quality, uint32_t *dropped, sy_error *err);

#endif
