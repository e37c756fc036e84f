/* sy_video_reader_scale.h — decoding a movie's frames at half size
 * (engine-private; video_reader.c).
 *
 * A consumer that shows a movie at half its size or less (a collage cell)
 * need not turn every full-size picture into RGB and then shrink it: for
 * 4:2:0 pictures each 2x2 block of luma is averaged and paired with its one
 * chroma sample, which is exactly the chroma plane's own grid, so the RGB
 * conversion and the frame are a quarter of the size and no chroma is
 * interpolated. */
#ifndef SY_VIDEO_READER_SCALE_H
#define SY_VIDEO_READER_SCALE_H

#include "sy_video.h"

/* From the next frame on, frames come at half width and height (rounded
 * down, after rotation), when the track is 4:2:0 and at least 4x4; *width and
 * *height receive the frame size either way. Returns SY_OK without halving
 * when the track does not qualify. */
sy_status sy__video_reader_halve(sy_video_reader *r, uint32_t *width, uint32_t *height, sy_error *err);

#endif
