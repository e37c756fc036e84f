/* grid.c — grid templates that tile the inner area exactly (see sy_layout.h).
 *
 * All arithmetic is integer (aspect ratios in 1/4096 units) so a layout is
 * the same on every machine and a cell edge is rounded once: each row's cell
 * edges are rounded cumulative fractions of the row, so the rounding never
 * adds up to a gap or an overlap. */
#include "collage/sy_layout.h"

#define SY__ASPECT_ONE 4096u
#define SY__ASPECT_MIN 3072u /* 3:4 */
#define SY__ASPECT_MAX 5461u /* 4:3 */

/* p / q rounded to the nearest multiple of 2 (`even`) or 1. */
static uint64_t round_to(uint64_t p, uint64_t q, int even) {
    uint64_t unit = even ? 2 : 1;
    return unit * ((2 * p + unit * q) / (2 * unit * q));
}

/* Width / height of the cell a photo wants, clamped to 3:4 .. 4:3; unreadable = square. */
static uint64_t cell_aspect(const sy_image_info *info) {
    if (!info || !info->width || !info->height) return SY__ASPECT_ONE;
    uint64_t a = round_to((uint64_t)info->width * SY__ASPECT_ONE, info->height, 0);
    return a < SY__ASPECT_MIN ? SY__ASPECT_MIN : a > SY__ASPECT_MAX ? SY__ASPECT_MAX : a;
}

static uint32_t base_columns(uint32_t n) {
    if (n <= 4) return 2;
    if (n <= 9) return 3;
    if (n <= 16) return 4;
    if (n <= 25) return 5;
    return 6;
}

uint32_t sy__grid_rows(uint32_t n, uint32_t columns, uint32_t per_row[SY__GRID_MAX_ROWS]) {
    if (n < 2 || n > SY__GRID_MAX_ROWS) return 0;
    if (columns) {
        uint32_t cols = columns < n ? columns : n;
        uint32_t rows = (n + cols - 1) / cols;
        for (uint32_t r = 0; r < rows; r++) per_row[r] = r + 1 < rows ? cols : n - r * cols;
        return rows;
    }
    uint32_t rows = (n + base_columns(n) - 1) / base_columns(n);
    uint32_t each = n / rows, longer = n % rows; /* the longer rows go last: bigger cells on top */
    for (uint32_t r = 0; r < rows; r++) per_row[r] = each + (r >= rows - longer);
    return rows;
}

/* Rows of cells; `uniform` = every cell square-ish at the full row's size
 * (explicit columns) instead of shaped to its photo. */
static uint64_t place_rows(const sy_image_info *const *infos, const uint32_t *per_row, uint32_t rows, int uniform,
                           uint32_t x0, uint32_t y0, uint32_t inner, uint32_t spacing, int even, sy__rect *cells) {
    uint64_t uniform_height = 0;
    if (uniform) {
        if ((uint64_t)(per_row[0] - 1) * spacing >= inner) return 0;
        uniform_height = round_to(inner - (uint64_t)(per_row[0] - 1) * spacing, per_row[0], even);
    }
    uint64_t y = y0;
    uint32_t index = 0;
    for (uint32_t r = 0; r < rows; r++) {
        uint32_t k = per_row[r];
        if ((uint64_t)(k - 1) * spacing >= inner) return 0;
        uint64_t avail = inner - (uint64_t)(k - 1) * spacing, total = 0;
        for (uint32_t j = 0; j < k; j++) total += uniform ? SY__ASPECT_ONE : cell_aspect(infos[index + j]);
        uint64_t height = uniform ? uniform_height : round_to(avail * SY__ASPECT_ONE, total, even);
        if (height < 2 || y + height > UINT32_MAX) return 0;
        uint64_t cum = 0, left = 0;
        for (uint32_t j = 0; j < k; j++, index++) {
            cum += uniform ? SY__ASPECT_ONE : cell_aspect(infos[index]);
            uint64_t right = j + 1 == k ? avail : round_to(avail * cum, total, even);
            if (right < left + 2) return 0;
            cells[index] = (sy__rect){x0 + j * spacing + (uint32_t)left, (uint32_t)y, (uint32_t)(right - left),
                                      (uint32_t)height};
            left = right;
        }
        y += height + (r + 1 < rows ? spacing : 0);
    }
    return y - y0;
}

/* Three photos, the first portrait: it takes the full height on the left, the
 * other two share the right column; every cell keeps its photo's aspect.
 * Solving wL = aH * H, H = wR / a1 + wR / a2 + spacing, wL + spacing + wR = inner
 * for the right column's width wR. */
static uint64_t place_hero(const sy_image_info *const *infos, uint32_t x0, uint32_t y0, uint32_t inner,
                           uint32_t spacing, int even, sy__rect *cells) {
    const uint64_t one = SY__ASPECT_ONE;
    uint64_t hero = cell_aspect(infos[0]);
    uint64_t inv1 = one * one / cell_aspect(infos[1]), inv2 = one * one / cell_aspect(infos[2]);
    if ((uint64_t)inner * one <= (uint64_t)spacing * one + hero * spacing) return 0;
    uint64_t num = ((uint64_t)(inner - spacing) * one - hero * spacing) * one;
    uint64_t right_width = round_to(num, one * one + hero * (inv1 + inv2), even);
    if (right_width < 2 || right_width + spacing + 2 > inner) return 0;
    uint64_t left_width = inner - spacing - right_width;
    uint64_t height = round_to(left_width * one, hero, even);
    if (height < spacing + 4 || height > UINT32_MAX) return 0;
    uint64_t top = round_to((height - spacing) * inv1, inv1 + inv2, even);
    if (top < 2 || top + 2 > height - spacing) return 0;
    uint32_t xr = x0 + (uint32_t)left_width + spacing;
    cells[0] = (sy__rect){x0, y0, (uint32_t)left_width, (uint32_t)height};
    cells[1] = (sy__rect){xr, y0, (uint32_t)right_width, (uint32_t)top};
    cells[2] = (sy__rect){xr, y0 + (uint32_t)top + spacing, (uint32_t)right_width,
                          (uint32_t)(height - spacing - top)};
    return height;
}

uint64_t sy__grid_place(const sy_image_info *const *infos, uint32_t count, uint32_t columns, uint32_t x0,
                        uint32_t y0, uint32_t inner, uint32_t spacing, int even, sy__rect *cells) {
    uint32_t per_row[SY__GRID_MAX_ROWS];
    uint32_t rows = sy__grid_rows(count, columns, per_row);
    if (!rows) return 0;
    int portrait_first = infos[0] && infos[0]->height > infos[0]->width;
    if (!columns && count == 3 && portrait_first) return place_hero(infos, x0, y0, inner, spacing, even, cells);
    return place_rows(infos, per_row, rows, columns != 0, x0, y0, inner, spacing, even, cells);
}
