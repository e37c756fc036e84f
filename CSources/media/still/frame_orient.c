/* frame_orient.c — a decoded picture to upright interleaved RGB in one pass.
 *
 * The track matrix says how the stored picture is displayed: rotated 0, 90,
 * 180 or 270 degrees clockwise, then possibly flipped horizontally. Source
 * pixel (x, y) lands at output column X = a + bx*x + by*y and row
 * Y = c + cx*x + cy*y, so the whole transform is a start offset plus one byte
 * step per source column and one per source row. Upright pictures convert
 * straight into the frame; others convert SY__ORIENT_BAND source rows into a
 * scratch band and scatter it, walking the frame row by row (180 / mirror) or
 * column by column within the band (90 / 270), so each output row is written
 * in runs of BAND pixels rather than one pixel per cache line. */
#include <string.h>

#include "base/sy_video_stream.h"
#include "hevc/sy_hevc.h" /* sy__yuv_rows */

typedef struct walk {
    ptrdiff_t origin, sx, sy; /* byte offsets in the frame */
} walk;

static walk plan(uint32_t w, uint32_t h, uint32_t rotation, int mirrored, size_t stride) {
    /* X = a + bx*x + by*y, Y = c + cx*x + cy*y, in pixels */
    ptrdiff_t a = 0, bx = 1, by = 0, c = 0, cx = 0, cy = 1, out_w = w;
    ptrdiff_t W = w, H = h;
    switch (rotation) {
    case 90: a = H - 1, bx = 0, by = -1, c = 0, cx = 1, cy = 0, out_w = H; break;
    case 180: a = W - 1, bx = -1, by = 0, c = H - 1, cx = 0, cy = -1; break;
    case 270: a = 0, bx = 0, by = 1, c = W - 1, cx = -1, cy = 0, out_w = H; break;
    default: break;
    }
    if (mirrored) a = out_w - 1 - a, bx = -bx, by = -by;
    ptrdiff_t s = (ptrdiff_t)stride;
    walk k = {a * 3 + c * s, bx * 3 + cx * s, by * 3 + cy * s};
    return k;
}

void sy__orient_rgb(const sy__yuv *pic, uint32_t rotation, int mirrored, uint8_t *dst, size_t stride,
                    uint8_t *scratch) {
    const uint32_t w = pic->width, h = pic->height;
    uint8_t *rows[SY__ORIENT_BAND];
    if ((rotation == 0 && !mirrored) || !scratch) {
        for (uint32_t y0 = 0; y0 < h; y0 += SY__ORIENT_BAND) {
            uint32_t n = SY__MIN(SY__ORIENT_BAND, h - y0);
            for (uint32_t i = 0; i < n; i++) rows[i] = dst + (size_t)(y0 + i) * stride;
            sy__yuv_rows(pic, NULL, 1, y0, n, rows);
        }
        return;
    }
    const walk k = plan(w, h, rotation, mirrored, stride);
    const size_t band_row = (size_t)w * 3;
    for (uint32_t i = 0; i < SY__ORIENT_BAND; i++) rows[i] = scratch + i * band_row;
    for (uint32_t y0 = 0; y0 < h; y0 += SY__ORIENT_BAND) {
        uint32_t n = SY__MIN(SY__ORIENT_BAND, h - y0);
        sy__yuv_rows(pic, NULL, 1, y0, n, rows);
        uint8_t *band = dst + k.origin + (ptrdiff_t)y0 * k.sy;
        if (k.sx == 3 || k.sx == -3) { /* source rows stay frame rows */
            for (uint32_t i = 0; i < n; i++) {
                uint8_t *o = band + (ptrdiff_t)i * k.sy;
                const uint8_t *s = rows[i];
                for (uint32_t x = 0; x < w; x++, o += k.sx, s += 3) memcpy(o, s, 3);
            }
        } else { /* source rows become frame columns: a band covers BAND pixels of each frame row */
            for (uint32_t x = 0; x < w; x++) {
                uint8_t *o = band + (ptrdiff_t)x * k.sx;
                for (uint32_t i = 0; i < n; i++) memcpy(o + (ptrdiff_t)i * k.sy, rows[i] + (size_t)x * 3, 3);
            }
        }
    }
}
