/* frame_orient.c — a decoded picture to upright interleaved RGB in one pass.
 *
 * The track matrix says how the stored picture is displayed: rotated 0, 90,
 * 180 or 270 degrees clockwise, then possibly flipped horizontally; that is
 * one of the eight EXIF orientations, placed like a still's (sy_orient.h):
 * SY__ORIENT_BAND source rows at a time are converted straight into their
 * frame rows (then mirrored in place) or, for 90 / 270, into the scratch band
 * that is scattered so each frame row gets runs of BAND pixels. */
#include "base/sy_internal.h"
#include "still/sy_frame_orient.h"
#include "hevc/sy_hevc.h" /* sy__yuv_rows */
#include "still/sy_orient.h"

void sy__orient_rgb(const sy__yuv *pic, uint32_t rotation, int mirrored, uint8_t *dst, size_t stride,
                    uint8_t *scratch) {
    const uint32_t h = pic->height;
    /* Without a scratch band the picture is converted as stored (callers pass
     * one whenever the track is rotated or mirrored). */
    const sy__orient m = sy__orient_plan(scratch ? sy__orient_from_rotation(rotation, mirrored) : 1, pic->width, h);
    uint8_t *rows[SY__ORIENT_BAND];
    for (uint32_t y0 = 0; y0 < h; y0 += SY__ORIENT_BAND) {
        uint32_t n = SY__MIN(SY__ORIENT_BAND, h - y0);
        sy__orient_band_rows(&m, dst, stride, scratch, y0, n, rows);
        sy__yuv_rows(pic, NULL, 1, y0, n, rows);
        sy__orient_band_place(&m, rows, y0, n, dst, stride);
    }
}
