/* render_internal.h — pieces of the one frame renderer shared between the
 * files of CSources/render (sy__ prefix). See sy_render.h for the order of
 * operations; each file here owns one stage. */
#ifndef SY_RENDER_INTERNAL_H
#define SY_RENDER_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include "base/sy_internal.h"
#include "sy_render.h"

/* The Catmull-Rom kernel (a = -0.5) both resamplers weigh taps with: the
 * cubic upscale's four taps and the widened downscale's. */
static inline double sy__cubic(double x) {
    x = fabs(x);
    if (x < 1.0) return (1.5 * x - 2.5) * x * x + 1.0;
    if (x < 2.0) return ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0;
    return 0.0;
}

/* Hot loops get an AVX2 clone picked at load time (the x86 AVX2 clone). */
#if defined(__x86_64__) && defined(__has_attribute) && !defined(__SANITIZE_ADDRESS__)
#if __has_attribute(target_clones)
#define SY__RENDER_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef SY__RENDER_CLONES
#define SY__RENDER_CLONES
#endif

/* ---- sRGB transfer (transfer.c) ---- */

/* Exact sRGB curves (IEC 61966-2-1), for table building. */
double sy__srgb_decode(double v);
double sy__srgb_encode(double v);

/* Lookup tables with linear interpolation between 4096 uniform steps; the
 * error is far below one 16-bit level. `lin8` decodes 8-bit codes exactly. */
#define SY__TF_STEPS 4096
typedef struct sy__transfer {
    float decode[SY__TF_STEPS + 2]; /* encoded 0..1 -> linear (one spare entry for the lerp) */
    float encode[SY__TF_STEPS + 2]; /* linear 0..1 -> encoded */
    float lin8[256];                /* 8-bit code -> linear */
} sy__transfer;

void sy__transfer_init(sy__transfer *t);

static inline float sy__tf_lerp(const float *table, float v) {
    if (!(v > 0.0f)) return table[0]; /* also NaN */
    if (v >= 1.0f) return table[SY__TF_STEPS];
    float x = v * (float)SY__TF_STEPS;
    int i = (int)x;
    float f = x - (float)i;
    return table[i] + (table[i + 1] - table[i]) * f;
}

/* ---- LUTs (lut.c) ---- */

struct sy_lut {
    sy_context *ctx;
    uint32_t size;          /* nodes per axis, 2..65 */
    float domain_min[3];
    float domain_max[3];
    float *data;            /* size^3 RGB triples, red index fastest */
    char title[128];
};

sy_status sy__lut_create(sy_context *ctx, uint32_t size, sy_lut **out, sy_error *err);
/* Tetrahedral interpolation in float, input mapped through the domain and
 * clamped, output clamped to 0..1. */
void sy__lut_eval(const sy_lut *lut, const float in[3], float out[3]);

/* The renderer's baked LUT: size^3 RGB triples of 16-bit values, red fastest,
 * applied to 16-bit encoded pixels with tetrahedral interpolation. */
typedef struct sy__lut16 {
    uint32_t size;
    uint16_t *data;
} sy__lut16;

/* Per 16-bit input value: cell index << 13 | fraction in 1/4096 (0..4096),
 * of pre[v] when `pre` (the exposure table) is given, else of v. */
void sy__lut16_index_table(const sy__lut16 *lut, const uint16_t *pre, uint32_t *table);
/* In place over `n` interleaved RGB16 pixels, through the index table. */
void sy__lut16_apply_row(const sy__lut16 *lut, const uint32_t *index, uint16_t *px, uint32_t n);

/* ---- .cube text (cube.c) ---- */
/* (public: sy_lut_parse_cube, sy_lut_load_cube) */

/* ---- built-in filters (filters.c) ---- */

/* A look: a documented sequence of simple colour transforms on encoded RGB
 * (see filters.c for the exact order). */
typedef struct sy__look {
    float exposure;            /* stops, in linear light */
    float warmth, tint;        /* like the sliders, -1..1 */
    float gamma[3];            /* per-channel power - 1 on the encoded value (0 = none) */
    float mono;                /* 0 = colour, 1 = monochrome */
    float mono_mix[3];         /* channel weights of the monochrome mix (sum 1) */
    float mono_tone[3];        /* toning offset at mid-grey for monochrome (0 = neutral) */
    float saturation;          /* chroma scale - 1 around encoded luma */
    float contrast;            /* per-channel S-curve amount, -1..1 */
    float shadow_tint[3];      /* offset added in the shadows, weight (1 - luma)^2 */
    float highlight_tint[3];   /* offset added in the highlights, weight luma^2 */
    float lift, dim;           /* output black point and 1 - white point (fade / muted highlights) */
} sy__look;

const sy__look *sy__filter_look(int32_t index);

/* A look with its per-call constants worked out once (white-balance gains). */
typedef struct sy__look_prep {
    const sy__look *look;
    int linear;                /* step 1 needed */
    float gain[3];             /* exposure x normalized warmth/tint gains */
} sy__look_prep;

void sy__look_prepare(const sy__look *look, sy__look_prep *out);
/* Encoded 0..1 in, encoded 0..1 out. */
void sy__look_apply(const sy__look_prep *look, const sy__transfer *tf, const float in[3], float out[3]);

/* ---- adjustments (colour.c) ---- */

typedef struct sy__adjust {
    int exposure_active;       /* 1D table needed */
    int tone_active;           /* contrast / highlights / shadows */
    int colour_active;         /* saturation / vibrance / warmth / tint */
    float exposure_gain;       /* 2^EV */
    float contrast, highlights, shadows, saturation, vibrance;
    float wb[3];               /* linear white-balance gains, luminance-normalized */
} sy__adjust;

void sy__adjust_prepare(const sy_adjustments *a, sy__adjust *out);
/* Tone then colour on one encoded RGB value (0..1 in and out). */
void sy__adjust_apply(const sy__adjust *a, const sy__transfer *tf, const float in[3], float out[3]);
/* 65536-entry table: encoded 16-bit -> encoded 16-bit after the exposure gain. */
void sy__exposure_table(const sy__adjust *a, const sy__transfer *tf, uint16_t *table);

/* ---- geometry (geometry.c) ---- */

typedef struct sy__geometry {
    uint32_t src_w, src_h;
    int64_t crop_x, crop_y, crop_w, crop_h; /* whole source pixels */
    double zoom;                            /* straighten auto-zoom, (0, 1] */
    uint32_t inner_w, inner_h;              /* target minus border */
    /* Output pixel (u, v) -> source position in pixel-centre units:
     * x = m[0]*u + m[1]*v + m[2], y = m[3]*u + m[4]*v + m[5]. */
    double m[6];
    double scale_x, scale_y;                /* source pixels per output pixel along source x / y */
} sy__geometry;

/* Crop in whole pixels (at least 1x1) and the straighten zoom. */
void sy__crop_pixels(const sy_recipe *r, uint32_t src_w, uint32_t src_h, int64_t crop[4], double *zoom);
/* The turned frame's native size in source pixels (crop x zoom, swapped for odd turns). */
void sy__frame_size(const sy_recipe *r, uint32_t src_w, uint32_t src_h, double *fw, double *fh);
/* fill 0: the frame covers the target (centre-cropped to its aspect); 1: the
 * whole frame fills it, each axis scaled on its own (sy_render_stretch.h). */
void sy__geometry_plan(const sy_recipe *r, uint32_t src_w, uint32_t src_h, uint32_t inner_w, uint32_t inner_h,
                       int fill, sy__geometry *g);
/* Border width in pixels for a whole target of dst_w x dst_h. */
uint32_t sy__border_pixels(double border_width, uint32_t dst_w, uint32_t dst_h);

/* ---- resize to the output grid, linear light (resize.c) ---- */

/* Weights of one axis of the output-scale grid: grid index i (lo..hi) has
 * its centre at origin + (i + 0.5) * scale source pixels and is
 * sum_k w[k] * source[first + k]. */
typedef struct sy__axis {
    int32_t lo, hi;          /* valid grid indices (centres inside the source) */
    double origin, scale;
    uint32_t taps;           /* stride of w */
    int32_t *first;          /* per index (hi - lo + 1) */
    uint32_t *count;
    float *w;
} sy__axis;

sy_status sy__axis_plan(sy_context *ctx, uint32_t src_len, double origin, double scale, sy__axis *axis,
                        sy_error *err);
void sy__axis_free(sy_context *ctx, sy__axis *axis);

/* A rectangle of the grid held as encoded RGB16 (stride in elements). */
typedef struct sy__grid_region {
    int32_t x0, y0, x1, y1;  /* inclusive grid indices */
    size_t stride;
    uint16_t *px;
} sy__grid_region;

/* Elements between a region's rows: 3 per grid pixel plus 4, because the
 * samplers' 4-lane loads may read one pixel past a row's end. */
static inline size_t sy__grid_region_stride(const sy__grid_region *g) {
    return (size_t)(g->x1 - g->x0 + 1) * 3 + 4;
}

/* Fills region->px for the given rectangle from the 8-bit source, through
 * linear light (where `gamut`, if not NULL, changes the primaries). px NULL: allocated here (free with sy__free); else the
 * caller's rows, `stride` elements apart (at least sy__grid_region_stride). */
sy_status sy__resize_region(sy_context *ctx, const sy__axis *ax, const sy__axis *ay, const sy__transfer *tf,
                            const float *gamut, const sy_pixels *src, sy__grid_region *region, sy_error *err);

/* ---- a change of primaries (gamut.c; `m` row-major, linear RGB) ---- */

/* In place on `pixels` interleaved linear values. */
void sy__gamut_linear(const float m[9], float *rgb, size_t pixels);
/* In place on 16-bit encoded values: decoded, converted, encoded again. */
void sy__gamut_row16(const float m[9], const sy__transfer *tf, uint16_t *row, size_t pixels);

/* ---- sampling (sample.c) ---- */

enum { SY__SAMPLE_COPY = 1, SY__SAMPLE_CUBIC = 2 };
#define SY__PHASES 256

/* Output pixel (u, v) -> sampled image position in its pixel-centre units;
 * the sampled image is the source or the output-scale grid. */
typedef struct sy__sampler {
    int kind;
    double m[6];
    int32_t ext_x0, ext_x1, ext_y0, ext_y1; /* valid indices of the sampled image (clamp to edge) */
    int64_t cx0, cy0, cdxu, cdyu, cdxv, cdyv; /* COPY: x = cx0 + cdxu*u + cdxv*v, ... */
    int16_t w[SY__PHASES][4];               /* CUBIC: Catmull-Rom taps per 1/256-pixel phase, sum 1 << 14 */
    /* The same taps laid out for 16-bit multiply-add pairs: (w0 w1) x3, 0 0, (w2 w3) x3, 0 0. */
    int16_t wpair[SY__PHASES][16];
    int simd;                               /* the x86 AVX2 path may run */
} sy__sampler;

/* Chooses COPY when the map is a whole-pixel signed permutation, else CUBIC. */
void sy__sampler_plan(sy__sampler *s, const double m[6], int32_t ext_x0, int32_t ext_x1, int32_t ext_y0,
                      int32_t ext_y1);
/* Bounding box of the sample taps for output rows [v0, v1) (inclusive result, clamped to the extent). */
void sy__sampler_bbox(const sy__sampler *s, uint32_t width, uint32_t v0, uint32_t v1, int32_t box[4]);

/* One output row (inner width `n`) of encoded RGB16 from the 8-bit source. */
void sy__sample_row8(const sy__sampler *s, const sy_pixels *src, uint32_t v, uint32_t n, uint16_t *out);
/* The same from a grid region. */
void sy__sample_row16(const sy__sampler *s, const sy__grid_region *g, uint32_t v, uint32_t n, uint16_t *out);
/* COPY from the 8-bit source straight to 8-bit output (identity colour). */
void sy__copy_row8(const sy__sampler *s, const sy_pixels *src, uint32_t v, uint32_t n, uint8_t *out);

/* ---- finishing (finish.c) ---- */

typedef struct sy__finish {
    int vignette;              /* table in use */
    int32_t *vig_mul, *vig_add;/* SY__VIG_STEPS + 1 entries, Q16 */
    float *vig_dx2;            /* per column, normalized so corner r^2 = 1 */
    uint32_t inner_w, inner_h;
    int32_t sharpen_q8;        /* 0 = none; amount in 1/256 */
} sy__finish;

#define SY__VIG_STEPS 1024

sy_status sy__finish_prepare(sy_context *ctx, double vignette, double sharpness, uint32_t inner_w, uint32_t inner_h,
                             sy__finish *f, sy_error *err);
void sy__finish_free(sy_context *ctx, sy__finish *f);
void sy__vignette_row(const sy__finish *f, uint32_t v, uint16_t *px);
/* Quantizes row `cur` to 8 bits; with sharpening uses the rows above and
 * below (pass `cur` itself at the image edges). */
void sy__finish_row(const sy__finish *f, const uint16_t *above, const uint16_t *cur, const uint16_t *below,
                    uint8_t *out);

/* ---- the renderer (renderer.c; held_grid.c attaches a kept grid) ---- */

#define SY__REGION_CAP ((size_t)32 << 20) /* bytes of downscale grid per piece */

struct sy_renderer {
    sy_context *ctx;
    uint32_t src_w, src_h, dst_w, dst_h;
    uint32_t border, inner_w, inner_h;
    uint8_t border_rgb[3];
    sy__geometry geo;
    int grid;                  /* downscale to the output grid first */
    sy__axis ax, ay;
    sy__sampler sampler;
    int direct;                /* COPY with nothing else: bytes straight through */
    int grid_direct;           /* downscale, then the grid rows as they are: rounded straight from the grid */
    uint16_t *exposure;        /* 65536 entries, or NULL; folded into lut_index when there is a LUT */
    sy__lut16 lut;             /* data NULL when no tone / colour / filter */
    uint32_t *lut_index;       /* 65536 entries: (exposure then) LUT cell and fraction */
    sy__finish finish;
    sy__transfer tf;
    const sy__grid_region *held; /* the whole grid, kept by the caller (sy_render_held.h), or NULL */
    const float *gamut;        /* NULL, or gamut_matrix: source -> output primaries (sy_render_gamut.h) */
    float gamut_matrix[9];
};

#endif
