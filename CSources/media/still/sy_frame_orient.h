/* sy_frame_orient.h — a decoded video picture to upright RGB, placed by the
 * track matrix like a still by its EXIF orientation (engine-private). */
#ifndef SY_FRAME_ORIENT_H
#define SY_FRAME_ORIENT_H

#include "base/sy_yuv.h"

/* Rows of source picture converted per band before they are scattered into a
 * rotated frame: the scratch buffer holds BAND * width * 3 bytes. */
#define SY__ORIENT_BAND 16u

/* Converts `pic` (its own VUI colour) into `dst` (stride bytes per row),
 * rotated `rotation` degrees clockwise and then, when `mirrored`, flipped
 * horizontally: dst is height x width for 90/270, else width x height.
 * `scratch` is needed only when rotation or mirror is set. */
void sy__orient_rgb(const sy__yuv *pic, uint32_t rotation, int mirrored, uint8_t *dst, size_t stride,
                    uint8_t *scratch);

#endif
