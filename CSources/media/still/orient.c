/* orient.c — see sy_orient.h. */
#include <string.h>

#include "still/sy_orient.h"

sy__orient sy__orient_plan(uint8_t orientation, uint32_t stored_w, uint32_t stored_h) {
    const int32_t w = (int32_t)stored_w, h = (int32_t)stored_h;
    sy__orient m = {.orientation = orientation >= 1 && orientation <= 8 ? orientation : 1, .stored_width = stored_w};
    /*                          x0     xx  xy  y0     yx  yy */
    switch (m.orientation) {
    case 2: m.x0 = w - 1, m.xx = -1, m.xy = 0, m.y0 = 0, m.yx = 0, m.yy = 1; break;
    case 3: m.x0 = w - 1, m.xx = -1, m.xy = 0, m.y0 = h - 1, m.yx = 0, m.yy = -1; break;
    case 4: m.x0 = 0, m.xx = 1, m.xy = 0, m.y0 = h - 1, m.yx = 0, m.yy = -1; break;
    case 5: m.x0 = 0, m.xx = 0, m.xy = 1, m.y0 = 0, m.yx = 1, m.yy = 0; break;
    case 6: m.x0 = h - 1, m.xx = 0, m.xy = -1, m.y0 = 0, m.yx = 1, m.yy = 0; break;
    case 7: m.x0 = h - 1, m.xx = 0, m.xy = -1, m.y0 = w - 1, m.yx = -1, m.yy = 0; break;
    case 8: m.x0 = 0, m.xx = 0, m.xy = 1, m.y0 = w - 1, m.yx = -1, m.yy = 0; break;
    default: m.x0 = 0, m.xx = 1, m.xy = 0, m.y0 = 0, m.yx = 0, m.yy = 1; break;
    }
    m.width = m.orientation >= 5 ? stored_h : stored_w;
    m.height = m.orientation >= 5 ? stored_w : stored_h;
    return m;
}

uint8_t sy__orient_from_rotation(uint32_t rotation, int mirrored) {
    /* clockwise 0, 90, 180, 270 -> 1, 6, 3, 8; flipped after turning -> 2, 5, 4, 7 */
    static const uint8_t plain[4] = {1, 6, 3, 8}, flipped[4] = {2, 5, 4, 7};
    uint32_t q = rotation == 90 ? 1 : rotation == 180 ? 2 : rotation == 270 ? 3 : 0;
    return mirrored ? flipped[q] : plain[q];
}

void sy__orient_band_rows(const sy__orient *m, uint8_t *dst, size_t stride, uint8_t *band, uint32_t y0, uint32_t n,
                          uint8_t **rows) {
    const size_t band_row = (size_t)m->stored_width * 3;
    for (uint32_t i = 0; i < n; i++) {
        int32_t uy = m->y0 + m->yy * (int32_t)(y0 + i);
        rows[i] = sy__orient_transposes(m) ? band + (size_t)i * band_row : dst + (size_t)uy * stride;
    }
}

static void reverse_pixels(uint8_t *row, uint32_t n) {
    for (uint32_t a = 0, b = n - 1; a < b; a++, b--) {
        uint8_t t[3];
        memcpy(t, row + 3 * (size_t)a, 3);
        memcpy(row + 3 * (size_t)a, row + 3 * (size_t)b, 3);
        memcpy(row + 3 * (size_t)b, t, 3);
    }
}

void sy__orient_band_place(const sy__orient *m, uint8_t *const *rows, uint32_t y0, uint32_t n, uint8_t *dst,
                           size_t stride) {
    const uint32_t sw = m->stored_width;
    if (!sy__orient_transposes(m)) {
        if (m->xx < 0)
            for (uint32_t i = 0; i < n; i++) reverse_pixels(rows[i], sw);
        return;
    }
    /* Stored column x is upright row y0 + yx*x; stored row y is upright column x0 + xy*y. */
    for (uint32_t x = 0; x < sw; x++) {
        uint8_t *out = dst + (size_t)(m->y0 + m->yx * (int32_t)x) * stride;
        for (uint32_t i = 0; i < n; i++) {
            int32_t ux = m->x0 + m->xy * (int32_t)(y0 + i);
            memcpy(out + 3 * (size_t)ux, rows[i] + 3 * (size_t)x, 3);
        }
    }
}
