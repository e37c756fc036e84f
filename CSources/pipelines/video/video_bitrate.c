/* video_bitrate.c — SPEC C14: the export bitrate for a frame size (issue 4).
 * The one implementation: the Swift facade's VideoBitrate calls it. */
#include "sy_video.h"

#define C14_FLOOR 12000000LL     /* 12 Mbps: the reference size and below */
#define C14_CAP 64000000LL       /* 64 Mbps */
#define C14_REF_PIXELS 1555200LL /* 1080 x 1440 */

uint64_t sy_video_bitrate_c14(int64_t width, int64_t height) {
    if (width <= 0 || height <= 0) return (uint64_t)C14_FLOOR; /* unknown size */
    int64_t pixels;
    /* At 64/12 x the reference the rate is capped: sizes from 6 x on (or whose
     * product overflows) skip the arithmetic, which also keeps it in range. */
    if (__builtin_mul_overflow(width, height, &pixels) || pixels >= 6 * C14_REF_PIXELS) return (uint64_t)C14_CAP;
    int64_t rate = (C14_FLOOR * pixels + C14_REF_PIXELS / 2) / C14_REF_PIXELS; /* nearest, halves up */
    if (rate < C14_FLOOR) rate = C14_FLOOR;
    if (rate > C14_CAP) rate = C14_CAP;
    return (uint64_t)rate;
}
