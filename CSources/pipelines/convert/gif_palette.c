/* gif_palette.c — a GIF palette chosen in Oklab and ordered-dither mapping
 * (convert/sy_gif_palette.h).
 *
 * Oklab (Björn Ottosson, 2020) is perceptually even enough that Euclidean
 * distance in it ranks colour errors as the eye does, so boxes are cut and
 * nearest colours found there rather than in sRGB. Median cut splits the
 * box with the largest count-weighted variance at its weighted median on
 * its widest axis; three k-means passes over the histogram bins then move
 * each entry to the mean of the colours it serves. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "convert/sy_gif_palette.h"

#define BINS (1u << 15)     /* 5 bits per channel */
/* Nearest colours are cached per exact sRGB colour (direct-mapped, the
 * colour stored as the tag). A cache by 6-bit bucket looked each colour up
 * at its bucket's centre: up to 2 levels off on every channel, more than the
 * dither moves a colour, so dark smooth areas (where the palette is 2-4
 * levels apart) snapped to one entry per bucket with a tint the metric saw
 * (SSIM 0.52 against ffmpeg's 0.93 on a dark movie). */
#define CACHE_BITS 18u
#define CACHE (1u << CACHE_BITS)
#define KMEANS_PASSES 3
/* Flat colours: exact colours of runs (a pixel equal to its left
 * neighbour), counted in a small heavy-hitters table. One that covers at
 * least 1/FLAT_SHARE of all pixels goes into the palette exactly. Measured on
 * the dark corpus Live movie: its black background (R = B = 0 on 67% of the
 * pixels) came out (1, g, 1) from a bin mean, and ffmpeg's SSIM, whose
 * constants are tiny at that level, scored the frame 0.57 instead of 0.95. */
#define FLAT_SLOTS 4096u
#define FLAT_SHARE 200u
#define FLAT_MAX 16u

typedef struct bin {
    uint64_t count, r, g, b;
} bin;

struct sy__gif_histogram {
    sy_context *ctx;
    uint64_t pixels;
    bin bins[BINS];
    uint32_t flat_tag[FLAT_SLOTS];   /* colour + 1 << 24; 0 = empty */
    uint64_t flat_count[FLAT_SLOTS]; /* run pixels of it (less the evictions' decay) */
};

static uint32_t flat_slot(uint32_t colour) { return (colour * 2654435761u) >> 20; }

typedef struct colour {
    float lab[3];
    float key;              /* the sort key: lab on the axis being cut */
    double weight, r, g, b; /* count and sRGB sums */
} colour;

struct sy__gif_mapper {
    sy_context *ctx;
    uint32_t count;
    uint8_t rgb[256][3];    /* the palette as given */
    float amplitude;
    float lin[256];         /* sRGB level -> linear light */
    float lab[256][3];      /* the palette in Oklab, sorted by L (lightness) */
    uint8_t index[256];     /* palette index of each sorted entry */
    uint32_t tag[CACHE];    /* cached colour (24-bit sRGB) + 1 << 24; 0 = empty */
    uint8_t cached[CACHE];  /* its palette index */
};

static float linear(float v) {
    v /= 255.0f;
    return v <= 0.04045f ? v / 12.92f : powf((v + 0.055f) / 1.055f, 2.4f);
}

static void oklab_of_linear(float r, float g, float b, float out[3]) {
    float l = cbrtf(0.4122214708f * r + 0.5363325363f * g + 0.0514459929f * b);
    float m = cbrtf(0.2119034982f * r + 0.6806995451f * g + 0.1073969566f * b);
    float s = cbrtf(0.0883024619f * r + 0.2817188376f * g + 0.6299787005f * b);
    out[0] = 0.2104542553f * l + 0.7936177850f * m - 0.0040720468f * s;
    out[1] = 1.9779984951f * l - 2.4285922050f * m + 0.4505937099f * s;
    out[2] = 0.0259040371f * l + 0.7827717662f * m - 0.8086757660f * s;
}

static void to_oklab(float r8, float g8, float b8, float out[3]) { oklab_of_linear(linear(r8), linear(g8), linear(b8), out); }

static float distance2(const float a[3], const float b[3]) {
    float d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

sy_status sy__gif_histogram_create(sy_context *ctx, sy__gif_histogram **out, sy_error *err) {
    *out = sy__calloc(ctx, 1, sizeof **out, "gif histogram", err);
    if (!*out) return err ? err->code : SY_E_BUDGET;
    (*out)->ctx = ctx;
    return SY_OK;
}

void sy__gif_histogram_add(sy__gif_histogram *h, const uint8_t *rgb, size_t stride, uint32_t width, uint32_t height) {
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *p = rgb + (size_t)y * stride;
        for (uint32_t x = 0; x < width; x++, p += 3) {
            bin *b = &h->bins[(uint32_t)(p[0] >> 3) << 10 | (uint32_t)(p[1] >> 3) << 5 | (uint32_t)(p[2] >> 3)];
            b->count++, b->r += p[0], b->g += p[1], b->b += p[2];
            if (x && p[0] == p[-3] && p[1] == p[-2] && p[2] == p[-1]) { /* a run: count its colour */
                uint32_t colour = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2], k = flat_slot(colour);
                if (h->flat_tag[k] == (colour | 1u << 24)) h->flat_count[k]++;
                else if (h->flat_count[k] == 0) h->flat_tag[k] = colour | 1u << 24, h->flat_count[k] = 1;
                else h->flat_count[k]--; /* a rival decays the holder (Misra-Gries, one counter a slot) */
            }
        }
    }
    h->pixels += (uint64_t)width * height;
}

void sy__gif_histogram_destroy(sy__gif_histogram *h) {
    if (h) sy__free(h->ctx, h);
}

typedef struct box {
    uint32_t start, end; /* into the colour array */
    double score;        /* count-weighted variance summed over the axes; < 0 = cannot split */
    int axis;
} box;

static int by_key(const void *a, const void *b) {
    float x = ((const colour *)a)->key, y = ((const colour *)b)->key;
    return (x > y) - (x < y);
}

static void score(box *bx, const colour *c) {
    double w = 0, mean[3] = {0}, var[3] = {0};
    for (uint32_t i = bx->start; i < bx->end; i++) {
        w += c[i].weight;
        for (int k = 0; k < 3; k++) mean[k] += c[i].weight * c[i].lab[k];
    }
    for (int k = 0; k < 3; k++) mean[k] /= w;
    for (uint32_t i = bx->start; i < bx->end; i++)
        for (int k = 0; k < 3; k++) var[k] += c[i].weight * (c[i].lab[k] - mean[k]) * (c[i].lab[k] - mean[k]);
    bx->axis = var[0] >= var[1] && var[0] >= var[2] ? 0 : var[1] >= var[2] ? 1 : 2;
    bx->score = bx->end - bx->start < 2 ? -1 : var[0] + var[1] + var[2];
}

static void mean_colour(const colour *c, uint32_t start, uint32_t end, uint8_t out[3]) {
    double w = 0, r = 0, g = 0, b = 0;
    for (uint32_t i = start; i < end; i++) w += c[i].weight, r += c[i].r, g += c[i].g, b += c[i].b;
    out[0] = (uint8_t)lround(r / w), out[1] = (uint8_t)lround(g / w), out[2] = (uint8_t)lround(b / w);
}

/* k-means over the colours: each moves to its nearest entry, each entry to the mean of its colours. */
static void refine(colour *c, uint32_t n, uint8_t *palette, uint32_t count) {
    float lab[256][3];
    double sums[256][4];
    for (int pass = 0; pass < KMEANS_PASSES; pass++) {
        for (uint32_t k = 0; k < count; k++) to_oklab(palette[3 * k], palette[3 * k + 1], palette[3 * k + 2], lab[k]);
        memset(sums, 0, sizeof sums);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t best = 0;
            float bd = distance2(c[i].lab, lab[0]);
            for (uint32_t k = 1; k < count; k++) {
                float d = distance2(c[i].lab, lab[k]);
                if (d < bd) bd = d, best = k;
            }
            sums[best][0] += c[i].weight, sums[best][1] += c[i].r, sums[best][2] += c[i].g, sums[best][3] += c[i].b;
        }
        for (uint32_t k = 0; k < count; k++)
            if (sums[k][0] > 0)
                for (int j = 0; j < 3; j++) palette[3 * k + j] = (uint8_t)lround(sums[k][j + 1] / sums[k][0]);
    }
}

/* Each flat colour (largest first) replaces the nearest entry not already
 * pinned, so a flat background is drawn in its own colour, undithered. */
static void pin_flat_colours(const sy__gif_histogram *h, uint8_t *palette, uint32_t count) {
    uint32_t pick[FLAT_MAX], n = 0;
    uint64_t floor = h->pixels / FLAT_SHARE;
    for (uint32_t k = 0; k < FLAT_SLOTS; k++) {
        if (!h->flat_tag[k] || h->flat_count[k] < floor || !floor) continue;
        uint32_t at = n < FLAT_MAX ? n++ : FLAT_MAX;
        if (at == FLAT_MAX) { /* full: replace the smallest when larger */
            at = 0;
            for (uint32_t j = 1; j < n; j++)
                if (h->flat_count[pick[j]] < h->flat_count[pick[at]]) at = j;
            if (h->flat_count[pick[at]] >= h->flat_count[k]) continue;
        }
        pick[at] = k;
    }
    for (uint32_t i = 1; i < n; i++) /* largest first */
        for (uint32_t j = i; j > 0 && h->flat_count[pick[j]] > h->flat_count[pick[j - 1]]; j--) {
            uint32_t t = pick[j];
            pick[j] = pick[j - 1], pick[j - 1] = t;
        }
    uint8_t pinned[256] = {0};
    for (uint32_t i = 0; i < n && i < count - 1; i++) {
        uint32_t colour = h->flat_tag[pick[i]] & 0xFFFFFFu;
        uint8_t rgb[3] = {(uint8_t)(colour >> 16), (uint8_t)(colour >> 8), (uint8_t)colour};
        float lab[3], best_d = INFINITY;
        to_oklab(rgb[0], rgb[1], rgb[2], lab);
        uint32_t best = 0;
        for (uint32_t k = 0; k < count; k++) {
            if (pinned[k]) continue;
            float e[3];
            to_oklab(palette[3 * k], palette[3 * k + 1], palette[3 * k + 2], e);
            float d = distance2(lab, e);
            if (d < best_d) best_d = d, best = k;
        }
        memcpy(palette + 3 * best, rgb, 3);
        pinned[best] = 1;
    }
}

sy_status sy__gif_palette_build(sy__gif_histogram *h, uint32_t colors, uint8_t palette[256 * 3], uint32_t *count,
                                sy_error *err) {
    if (colors < 2 || colors > 256) return sy__fail(err, SY_E_USAGE, "gif palette: %u colours (2..256)", colors);
    uint32_t n = 0;
    for (uint32_t i = 0; i < BINS; i++) n += h->bins[i].count != 0;
    colour *c = sy__alloc(h->ctx, n ? n : 1, sizeof *c, "gif palette colours", err);
    box *boxes = sy__alloc(h->ctx, colors, sizeof *boxes, "gif palette boxes", err);
    if (!c || !boxes) {
        sy__free(h->ctx, c);
        sy__free(h->ctx, boxes);
        return err ? err->code : SY_E_BUDGET;
    }
    n = 0;
    for (uint32_t i = 0; i < BINS; i++) {
        const bin *b = &h->bins[i];
        if (!b->count) continue;
        colour *o = &c[n++];
        o->weight = (double)b->count, o->r = (double)b->r, o->g = (double)b->g, o->b = (double)b->b;
        to_oklab((float)(o->r / o->weight), (float)(o->g / o->weight), (float)(o->b / o->weight), o->lab);
    }
    uint32_t made = 0;
    if (n) {
        boxes[0] = (box){0, n, 0, 0};
        score(&boxes[0], c);
        made = 1;
        while (made < colors) {
            uint32_t pick = 0;
            for (uint32_t k = 1; k < made; k++)
                if (boxes[k].score > boxes[pick].score) pick = k;
            box *bx = &boxes[pick];
            if (bx->score <= 0) break;
            for (uint32_t i = bx->start; i < bx->end; i++) c[i].key = c[i].lab[bx->axis];
            qsort(c + bx->start, bx->end - bx->start, sizeof *c, by_key);
            double total = 0, run = 0;
            for (uint32_t i = bx->start; i < bx->end; i++) total += c[i].weight;
            uint32_t cut = bx->start + 1;
            for (uint32_t i = bx->start; i < bx->end - 1; i++) {
                run += c[i].weight;
                cut = i + 1;
                if (run >= total / 2) break;
            }
            boxes[made] = (box){cut, bx->end, 0, 0};
            bx->end = cut;
            score(bx, c);
            score(&boxes[made], c);
            made++;
        }
        for (uint32_t k = 0; k < made; k++) mean_colour(c, boxes[k].start, boxes[k].end, palette + 3 * k);
        refine(c, n, palette, made);
        if (made > 2) pin_flat_colours(h, palette, made);
    }
    if (made < 2) { /* a flat picture still needs a 2-colour table */
        if (!made) memset(palette, 0, 3);
        memcpy(palette + 3, palette, 3);
        made = 2;
    }
    *count = made;
    sy__free(h->ctx, c);
    sy__free(h->ctx, boxes);
    return SY_OK;
}

static int by_lightness(const void *a, const void *b) {
    float x = ((const float *)a)[0], y = ((const float *)b)[0];
    return (x > y) - (x < y);
}

sy_status sy__gif_mapper_create(sy_context *ctx, const uint8_t *palette, uint32_t count, float amplitude,
                                sy__gif_mapper **out, sy_error *err) {
    sy__gif_mapper *m = sy__calloc(ctx, 1, sizeof *m, "gif colour mapper", err);
    if (!m) return err ? err->code : SY_E_BUDGET;
    m->ctx = ctx, m->count = count, m->amplitude = amplitude;
    for (int v = 0; v < 256; v++) m->lin[v] = linear((float)v);
    float sorted[256][4]; /* L, a, b, index */
    for (uint32_t k = 0; k < count; k++) {
        to_oklab(palette[3 * k], palette[3 * k + 1], palette[3 * k + 2], sorted[k]);
        sorted[k][3] = (float)k;
        memcpy(m->rgb[k], palette + 3 * k, 3);
    }
    qsort(sorted, count, sizeof sorted[0], by_lightness);
    for (uint32_t k = 0; k < count; k++) {
        memcpy(m->lab[k], sorted[k], sizeof m->lab[k]);
        m->index[k] = (uint8_t)sorted[k][3];
    }
    *out = m;
    return SY_OK;
}

/* Exact nearest entry in Oklab: outwards from the entries of the colour's
 * lightness, stopping once the lightness gap alone exceeds the best distance. */
static uint8_t nearest_to(const sy__gif_mapper *m, int r, int g, int b) {
    float lab[3];
    oklab_of_linear(m->lin[r], m->lin[g], m->lin[b], lab);
    uint32_t lo = 0, hi = m->count;
    while (lo < hi) { /* first entry with L >= the colour's */
        uint32_t mid = (lo + hi) / 2;
        if (m->lab[mid][0] < lab[0]) lo = mid + 1;
        else hi = mid;
    }
    uint32_t best = lo < m->count ? lo : m->count - 1;
    float bd = distance2(lab, m->lab[best]);
    for (int64_t up = (int64_t)lo, down = (int64_t)lo - 1; up < (int64_t)m->count || down >= 0; up++, down--) {
        int live = 0;
        if (up < (int64_t)m->count) {
            float dl = m->lab[up][0] - lab[0];
            if (dl * dl < bd) {
                live = 1;
                float d = distance2(lab, m->lab[up]);
                if (d < bd) bd = d, best = (uint32_t)up;
            } else {
                up = (int64_t)m->count;
            }
        }
        if (down >= 0) {
            float dl = lab[0] - m->lab[down][0];
            if (dl * dl < bd) {
                live = 1;
                float d = distance2(lab, m->lab[down]);
                if (d < bd) bd = d, best = (uint32_t)down;
            } else {
                down = -1;
            }
        }
        if (!live) break;
    }
    return m->index[best];
}

/* The palette entry for an sRGB colour, through the exact-colour cache. */
static uint8_t nearest(sy__gif_mapper *m, int r, int g, int b) {
    uint32_t colour = (uint32_t)r << 16 | (uint32_t)g << 8 | (uint32_t)b;
    uint32_t slot = (colour * 2654435761u) >> (32 - CACHE_BITS);
    if (m->tag[slot] != (colour | 1u << 24)) {
        m->tag[slot] = colour | 1u << 24;
        m->cached[slot] = nearest_to(m, r, g, b);
    }
    return m->cached[slot];
}

/* 8x8 Bayer thresholds 0..63 */
static const uint8_t BAYER[8][8] = {
    {0, 32, 8, 40, 2, 34, 10, 42},  {48, 16, 56, 24, 50, 18, 58, 26}, {12, 44, 4, 36, 14, 46, 6, 38},
    {60, 28, 52, 20, 62, 30, 54, 22}, {3, 35, 11, 43, 1, 33, 9, 41},  {51, 19, 59, 27, 49, 17, 57, 25},
    {15, 47, 7, 39, 13, 45, 5, 37},  {63, 31, 55, 23, 61, 29, 53, 21}};

void sy__gif_mapper_row(sy__gif_mapper *m, const uint8_t *rgb, uint32_t width, uint32_t y, uint8_t *indices) {
    int offsets[8];
    for (int x = 0; x < 8; x++) offsets[x] = (int)lroundf(((float)BAYER[y & 7][x] + 0.5f) / 64.0f * m->amplitude -
                                                          m->amplitude / 2);
    for (uint32_t x = 0; x < width; x++, rgb += 3) {
        /* a colour the palette holds (within one level) is not dithered:
         * flat areas of it stay flat instead of carrying the pattern */
        uint8_t plain = nearest(m, rgb[0], rgb[1], rgb[2]);
        const uint8_t *p = m->rgb[plain];
        if (abs(p[0] - rgb[0]) <= 1 && abs(p[1] - rgb[1]) <= 1 && abs(p[2] - rgb[2]) <= 1) {
            indices[x] = plain;
            continue;
        }
        int d = offsets[x & 7], v[3];
        for (int k = 0; k < 3; k++) {
            v[k] = rgb[k] + d;
            v[k] = v[k] < 0 ? 0 : v[k] > 255 ? 255 : v[k];
        }
        indices[x] = nearest(m, v[0], v[1], v[2]);
    }
}

void sy__gif_mapper_destroy(sy__gif_mapper *m) {
    if (m) sy__free(m->ctx, m);
}
