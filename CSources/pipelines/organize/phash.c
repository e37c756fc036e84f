/* phash.c — 64-bit DCT perceptual hash (see sy_fingerprint.h for the layout).
 * The 32x32 grid is an area average of the analysis plane; the DCT is the
 * separable, unnormalized DCT-II (scale does not change the median test). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "organize/sy_analysis.h"

#define GRID 32
#define LOW 8

/* Stored-grid cell that shows at upright (x, y) for EXIF orientation o (square grid). */
static void stored_cell(uint8_t o, int x, int y, int *sx, int *sy) {
    const int n = GRID - 1;
    switch (o) {
    case 2: *sx = n - x, *sy = y; break;
    case 3: *sx = n - x, *sy = n - y; break;
    case 4: *sx = x, *sy = n - y; break;
    case 5: *sx = y, *sy = x; break;
    case 6: *sx = y, *sy = n - x; break;
    case 7: *sx = n - y, *sy = n - x; break;
    case 8: *sx = n - y, *sy = x; break;
    default: *sx = x, *sy = y; break;
    }
}

/* Mean of the plane over cell (gx, gy) of a GRID x GRID partition (at least one pixel). */
static double cell_mean(const uint8_t *luma, uint32_t w, uint32_t h, int gx, int gy) {
    uint32_t x0 = (uint32_t)((uint64_t)gx * w / GRID), x1 = (uint32_t)((uint64_t)(gx + 1) * w / GRID);
    uint32_t y0 = (uint32_t)((uint64_t)gy * h / GRID), y1 = (uint32_t)((uint64_t)(gy + 1) * h / GRID);
    if (x1 <= x0) x1 = x0 + 1;
    if (y1 <= y0) y1 = y0 + 1;
    if (x1 > w) x0 = w - 1, x1 = w;
    if (y1 > h) y0 = h - 1, y1 = h;
    uint64_t sum = 0;
    for (uint32_t y = y0; y < y1; y++)
        for (uint32_t x = x0; x < x1; x++) sum += luma[(size_t)y * w + x];
    return (double)sum / ((double)(x1 - x0) * (y1 - y0));
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The 64-bit hash of an upright GRID x GRID plane. */
static uint64_t hash_grid(const double grid[GRID][GRID]) {
    double basis[LOW][GRID]; /* cos(pi k (2n+1) / 2N) for the low frequencies only */
    for (int k = 0; k < LOW; k++)
        for (int n = 0; n < GRID; n++) basis[k][n] = cos(M_PI * k * (2 * n + 1) / (2.0 * GRID));
    double rows[GRID][LOW]; /* DCT along x */
    for (int y = 0; y < GRID; y++)
        for (int k = 0; k < LOW; k++) {
            double s = 0;
            for (int n = 0; n < GRID; n++) s += grid[y][n] * basis[k][n];
            rows[y][k] = s;
        }
    double low[LOW * LOW], sorted[LOW * LOW];
    for (int v = 0; v < LOW; v++) /* then along y */
        for (int u = 0; u < LOW; u++) {
            double s = 0;
            for (int n = 0; n < GRID; n++) s += rows[n][u] * basis[v][n];
            low[v * LOW + u] = s;
        }
    memcpy(sorted, low, sizeof low);
    qsort(sorted, LOW * LOW, sizeof *sorted, compare_double);
    double median = (sorted[LOW * LOW / 2 - 1] + sorted[LOW * LOW / 2]) / 2;
    uint64_t hash = 0;
    for (int i = 0; i < LOW * LOW; i++)
        if (low[i] > median) hash |= (uint64_t)1 << (63 - i);
    return hash;
}

void sy__phash_luma(const uint8_t *luma, uint32_t w, uint32_t h, uint8_t orientation, uint64_t out[4]) {
    double stored[GRID][GRID], grid[GRID][GRID], turned[GRID][GRID];
    for (int y = 0; y < GRID; y++)
        for (int x = 0; x < GRID; x++) stored[y][x] = cell_mean(luma, w, h, x, y);
    for (int y = 0; y < GRID; y++)
        for (int x = 0; x < GRID; x++) {
            int sx, sy;
            stored_cell(orientation, x, y, &sx, &sy);
            grid[y][x] = stored[sy][sx];
        }
    out[0] = hash_grid(grid);
    for (int k = 1; k < 4; k++) { /* one more quarter turn clockwise: turned[y][x] = grid[n - x][y] */
        for (int y = 0; y < GRID; y++)
            for (int x = 0; x < GRID; x++) turned[y][x] = grid[GRID - 1 - x][y];
        memcpy(grid, turned, sizeof grid);
        out[k] = hash_grid(grid);
    }
}

int sy_phash_distance(uint64_t a, uint64_t b) { return __builtin_popcountll(a ^ b); }
