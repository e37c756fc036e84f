/* sy_frame_gainmap.h — the gain map of a still made of an HDR movie's frame
 * (engine-private; frame_gainmap.c).
 *
 * Such a still is the frame's SDR rendition (base/sy_hdr_tone.h); its gain
 * map records how much brighter the HDR display showed each part of it, so a
 * viewer that reads gain maps shows the still as the movie plays. */
#ifndef SY_FRAME_GAINMAP_H
#define SY_FRAME_GAINMAP_H

#include "gainmap/sy_gainmap_internal.h"
#include "sy_render.h"
#include "video/sy_video_reader_gain.h"

/* Box size of the map: one map pixel for 4 x 4 frame pixels, as a still's. */
#define SY__FRAME_GAINMAP_SCALE SY__GAINMAP_SIGNAL_SCALE

/* The frame's gain plane (stored as the picture, sy_video_reader_gain.h) put
 * upright and through the recipe's geometry, encoded (ISO 21496-1 values:
 * log2 gain 0 .. the mapping's headroom, gamma 1, no offsets; Ultra HDR + ISO
 * on JPEG, 'tmap' on HEIC) and prepared for `output` into `save` (its extra
 * goes to the still writer; free with sy__gainmap_save_free, then `map` with
 * sy_gainmap_image_free). */
sy_status sy__frame_gainmap_prepare(sy_context *ctx, const sy__gain_plane *plane, const sy_recipe *recipe,
                                    const char *output, sy_still_format format, int quality, sy_gainmap_image *map,
                                    sy__gainmap_save *save, sy_error *err);

#endif
