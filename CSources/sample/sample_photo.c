/* sample_photo.c — deterministic, photo-like sample JPEGs.
 *
 * The scene (sky gradient, sun disc and glow, wispy clouds, three layers of
 * fractal hills with aerial perspective and valley fog, foliage texture and
 * sensor grain) is a pure function of the upright pixel position and of
 * parameters drawn from the seed with splitmix64. Everything is integer or
 * fixed-point, so the bytes do not depend on floating-point contraction or
 * libm. Rendering streams 16 rows at a time straight into libjpeg.
 *
 * Orientation: the stored image is width x height as asked. For orientations
 * 5..8 the scene is an upright (height x width) portrait, and stored pixel
 * (x, y) shows the upright pixel the EXIF transform puts there, e.g. for 6
 * (rotate 90° CW to display) upright (H-1-y, x), for 8 upright (y, W-1-x).
 *
 * Per pixel: up to 3 ridge compares, two (sky: clouds) or three (hills:
 * patches, clumps, leaves) value-noise lookups on a 256x256 lattice table,
 * one integer hash for the grain, and per-row / per-column tables for the sky,
 * the ridges, the slope lighting and the sun distance. Pixels are shaded in
 * runs along an upright row, so each noise's vertical interpolation is done
 * once per run (noise_line). */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "../base/sy_internal.h"
#include "../io/sy_output.h"
#include "sy_exif_writer.h"
#include "sy_heif_writer.h"
#include "sy_sample.h"

#define STRIP_ROWS 16
#define MAX_LAYERS 3
#define GLOW_N 16384 /* sun glow table entries, indexed by squared distance >> glow_shift */
#define LATTICE 256  /* value-noise lattice is LATTICE x LATTICE, wrapping */

void sy_sample_options_init(sy_sample_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
    opts->width = 4032;
    opts->height = 3024;
    opts->orientation = 1;
    opts->seed = 1;
    opts->quality = 92;
    opts->progressive = 0;
}

/* ---- deterministic randomness ---- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r) {
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform integer in [lo, hi]. */
static int32_t rng_range(rng *r, int32_t lo, int32_t hi) {
    uint64_t span = (uint64_t)((int64_t)hi - lo) + 1;
    return (int32_t)(lo + (int64_t)(rng_next(r) % span));
}

static inline uint32_t hash32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    x *= 0x846CA68Bu;
    x ^= x >> 16;
    return x;
}

/* Per-pixel hash for the grain (cheap: two multiplies after the mix-in). */
static inline uint32_t pixel_hash(uint32_t x, uint32_t y, uint32_t seed) {
    uint32_t h = (x * 0x9E3779B1u) ^ ((y + seed) * 0x85EBCA77u);
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    h *= 0x297A2D39u;
    h ^= h >> 15;
    return h;
}

/* ---- colours: 8.8 fixed point per channel ---- */

typedef struct rgb {
    int32_t r, g, b;
} rgb;

static rgb rgb8(int r, int g, int b) { return (rgb){r * 256, g * 256, b * 256}; }

/* a + (b - a) * t / 4096 */
static rgb mix12(rgb a, rgb b, int32_t t) {
    return (rgb){a.r + (int32_t)(((int64_t)(b.r - a.r) * t) >> 12), a.g + (int32_t)(((int64_t)(b.g - a.g) * t) >> 12),
                 a.b + (int32_t)(((int64_t)(b.b - a.b) * t) >> 12)};
}

/* Channel-wise multiply by factors in 1/256. */
static rgb tint(rgb c, rgb f256) {
    return (rgb){c.r * f256.r / 256, c.g * f256.g / 256, c.b * f256.b / 256};
}

static rgb jitter(rng *r, rgb c, int amount) {
    c.r += rng_range(r, -amount, amount) * 256;
    c.g += rng_range(r, -amount, amount) * 256;
    c.b += rng_range(r, -amount, amount) * 256;
    return c;
}

/* ---- scene ---- */

enum { TEX_COARSE, TEX_CLUMP, TEX_FINE, TEX_N };

/* Value-noise "lines" (see noise_line): 0 and 1 are the cloud octaves,
 * 2 + k*TEX_N + t is texture t of hill layer k. */
#define LINES (2 + MAX_LAYERS * TEX_N)
#define LINE_CAP(uw) ((size_t)(uw) / 2 + 260) /* lattice columns per line: shx >= 1, offset < 256 cells */

typedef struct layer {
    rgb base, alt;      /* hill colour; alt is mixed in by the coarse noise (fields, patches) */
    int32_t haze12;     /* aerial-perspective mix toward the haze colour (of 4096) */
    int32_t fog_start;  /* valley fog starts at this upright row ... */
    int32_t fog_rate;   /* ... grows by fog_rate/4096 per row ... */
    int32_t fog12;      /* ... up to this much (of 4096) */
    int32_t a[TEX_N];   /* texture contrast per noise (1/256 at the noise's extremes) */
    int32_t grain;      /* grain amplitude in levels */
    int32_t glow12;     /* share of the sun glow the hills catch */
    int32_t light_inv;  /* slope lighting fades out over 4096/light_inv rows below the crest */
    unsigned sh[TEX_N]; /* log2 cell size per noise (smaller for distant layers) */
} layer;

typedef struct scene {
    uint32_t uw, uh; /* upright size */
    /* stored (x, y) -> upright: ux = ux0 + x*ux_dx + y*ux_dy, uy likewise */
    int32_t ux0, ux_dx, ux_dy, uy0, uy_dx, uy_dy;
    int nlayers;
    layer layers[MAX_LAYERS];
    rgb sun, haze, cloud;
    int32_t *sky;       /* uh x 3, 8.8 */
    int32_t *cloud_amt; /* uh, of 4096 */
    int32_t *ridge;     /* nlayers x uw: first row of each layer in each column */
    int32_t *light;     /* nlayers x uw: slope lighting, 1/256 */
    int64_t *sun_dx2;   /* uw */
    int64_t *sun_dy2;   /* uh */
    uint16_t *glow;     /* GLOW_N, of 4096 */
    uint16_t *lattice;  /* LATTICE^2 values 0..1023 */
    int glow_shift;
    int64_t disc_in2, disc_out2;
    uint32_t line_oy[LINES];    /* vertical offset of each noise line's lattice */
    unsigned line_shy[LINES];   /* log2 cell height */
    uint32_t *line_col;         /* LINES x uw: (lattice column << 9) | horizontal weight */
    unsigned sc; /* log2 cloud cell size */
    int32_t cloud_thr, cloud_gain;
    int32_t sky_grain;
    uint32_t grain_seed;
    int32_t ridge_top[MAX_LAYERS]; /* highest row of each layer */
    int32_t sky_bottom;             /* no sky at or below this row */
    int16_t *lines;                 /* LINES x LINE_CAP(uw) scratch for shade_run */
    int16_t smooth[256];            /* smoothstep, 0..256 */
} scene;

static unsigned log2_near(uint32_t v) {
    unsigned k = 0;
    /* the nearest power of two: largest k with 2^k <= v * sqrt(2) */
    uint64_t lim = (uint64_t)v * 181 / 128;
    while (k < 20 && (1ull << (k + 1)) <= lim) k++;
    return k;
}

static uint32_t isqrt64(uint64_t v) {
    uint64_t r = 0, bit = 1ull << 62;
    while (bit > v) bit >>= 2;
    while (bit) {
        if (v >= r + bit) {
            v -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    return (uint32_t)r;
}

/* 1-D fractal value noise (fbm), 0..65535. Ridged octaves fold the value for
 * sharp mountain crests. */
static uint32_t fbm1(uint32_t x, uint32_t cell0, int octaves, uint32_t seed, int ridged) {
    uint64_t sum = 0, norm = 0;
    uint32_t amp = 1u << 16;
    for (int o = 0; o < octaves; o++, amp >>= 1) {
        uint32_t cell = cell0 >> o;
        if (cell < 2) cell = 2;
        uint32_t i = x / cell;
        uint64_t f = ((uint64_t)(x % cell) << 16) / cell;      /* 0..65535 */
        uint64_t w = (f * f * (3 * 65536 - 2 * f)) >> 32;       /* smoothstep */
        uint32_t os = seed + (uint32_t)o * 0x632BE5ABu;
        int64_t a = hash32(i * 0x9E3779B1u + os) & 0xFFFF;
        int64_t b = hash32((i + 1) * 0x9E3779B1u + os) & 0xFFFF;
        int64_t v = a + (((b - a) * (int64_t)w) >> 16);
        if (ridged) v = 65535 - (v * 2 - 65535 < 0 ? 65535 - v * 2 : v * 2 - 65535);
        sum += (uint64_t)v * amp;
        norm += amp;
    }
    return (uint32_t)(sum / norm);
}

/* 2-D value noise (0..1023) on the lattice table. A run of pixels shares an
 * upright row, so the vertical interpolation is done once per lattice column
 * the run crosses (a "line"); the horizontal part comes from a per-column
 * table (lattice column and smoothstep weight), so a pixel costs two loads
 * from the line and one multiply. */
typedef struct noise_line {
    const int16_t *v;    /* v[ix]: vertically interpolated value at lattice column ix */
    const uint32_t *col; /* per upright column: (ix << 9) | weight 0..256 */
} noise_line;

static void noise_line_fill(const scene *s, int line, uint32_t uy, uint32_t ux_lo, uint32_t ux_hi, noise_line *n) {
    const uint32_t *col = s->line_col + (size_t)line * s->uw;
    const unsigned shy = s->line_shy[line];
    uint32_t y = uy + s->line_oy[line], iy = y >> shy;
    int32_t wy = s->smooth[((y & ((1u << shy) - 1)) << 8) >> shy];
    const uint16_t *r0 = s->lattice + (iy & (LATTICE - 1)) * LATTICE;
    const uint16_t *r1 = s->lattice + ((iy + 1) & (LATTICE - 1)) * LATTICE;
    int16_t *buf = s->lines + (size_t)line * LINE_CAP(s->uw);
    uint32_t ix0 = col[ux_lo] >> 9, ix1 = (col[ux_hi] >> 9) + 1;
    for (uint32_t ix = ix0; ix <= ix1; ix++) {
        uint32_t c = ix & (LATTICE - 1);
        int32_t a = r0[c], b = r1[c];
        buf[ix] = (int16_t)(a + (((b - a) * wy) >> 8));
    }
    n->v = buf;
    n->col = col;
}

static inline int32_t noise_at(const noise_line *n, uint32_t ux) {
    uint32_t t = n->col[ux];
    const int16_t *v = n->v + (t >> 9);
    int32_t wx = (int32_t)(t & 511);
    int32_t a = v[0], b = v[1];
    return a + (((b - a) * wx) >> 8);
}

static inline uint8_t to8(int32_t v) {
    v = (v + 128) >> 8;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* Shades `count` pixels of upright row `uy`, at columns ux, ux+step, ...,
 * writing RGB triplets `stride` bytes apart. */
static void shade_run(const scene *restrict s, uint32_t uy, int32_t ux, int32_t step, uint32_t count,
                      uint8_t *restrict out, size_t stride) {
    const int nl = s->nlayers;
    const int32_t sky_r = s->sky[uy * 3], sky_g = s->sky[uy * 3 + 1], sky_b = s->sky[uy * 3 + 2];
    const int32_t cloud_amt = s->cloud_amt[uy];
    const int64_t dy2 = s->sun_dy2[uy];
    const uint32_t ux_last = (uint32_t)(ux + step * (int32_t)(count - 1));
    const uint32_t lo = (uint32_t)ux < ux_last ? (uint32_t)ux : ux_last, hi = (uint32_t)ux < ux_last ? ux_last : (uint32_t)ux;
    noise_line c1, c2, tex[MAX_LAYERS][TEX_N];
    if (cloud_amt > 0 && (int32_t)uy < s->sky_bottom) {
        noise_line_fill(s, 0, uy, lo, hi, &c1);
        noise_line_fill(s, 1, uy, lo, hi, &c2);
    }
    for (int k = 0; k < nl; k++) {
        if ((int32_t)uy < s->ridge_top[k]) continue; /* the layer is not in this row */
        for (int t = 0; t < TEX_N; t++) noise_line_fill(s, 2 + k * TEX_N + t, uy, lo, hi, &tex[k][t]);
    }
    const int32_t yy = (int32_t)uy;

    for (uint32_t i = 0; i < count; i++, ux += step, out += stride) {
        const uint32_t x = (uint32_t)ux;
        int32_t r, g, b;
        int64_t d2 = s->sun_dx2[x] + dy2;
        int64_t gi = d2 >> s->glow_shift;
        int32_t glow = s->glow[gi < GLOW_N ? gi : GLOW_N - 1];
        uint32_t h = pixel_hash(x, uy, s->grain_seed);
        int32_t grain = (int32_t)(h & 255) + (int32_t)((h >> 8) & 255) - 255; /* triangular, +-255 */

        int k = nl - 1;
        while (k >= 0 && yy < s->ridge[(uint32_t)k * s->uw + x]) k--;

        if (k < 0) { /* sky */
            r = sky_r, g = sky_g, b = sky_b;
            if (cloud_amt > 0) {
                int32_t n = (3 * noise_at(&c1, x) + noise_at(&c2, x)) >> 2;
                int32_t c = (n - s->cloud_thr) * s->cloud_gain;
                c = c < 0 ? 0 : c > 4096 ? 4096 : c;
                c = (c * cloud_amt) >> 12;
                r += ((s->cloud.r - r) * c) >> 12;
                g += ((s->cloud.g - g) * c) >> 12;
                b += ((s->cloud.b - b) * c) >> 12;
            }
            if (d2 < s->disc_out2) { /* the disc itself, with a soft edge */
                int32_t disc = d2 <= s->disc_in2
                                   ? 4096
                                   : (int32_t)((s->disc_out2 - d2) * 4096 / (s->disc_out2 - s->disc_in2));
                if (disc > glow) glow = disc;
            }
            r += ((s->sun.r - r) * glow) >> 12;
            g += ((s->sun.g - g) * glow) >> 12;
            b += ((s->sun.b - b) * glow) >> 12;
            int32_t gr = grain * s->sky_grain;
            r += gr, g += gr, b += gr;
        } else { /* hills */
            const layer *L = &s->layers[k];
            const noise_line *tx = tex[k];
            int32_t d = yy - s->ridge[(uint32_t)k * s->uw + x];
            int32_t n1 = noise_at(&tx[TEX_COARSE], x);
            int32_t n2 = noise_at(&tx[TEX_CLUMP], x);
            int32_t n3 = noise_at(&tx[TEX_FINE], x);
            int32_t w = 2048 + (n1 - 512) * 5;
            w = w < 0 ? 0 : w > 4096 ? 4096 : w;
            r = L->base.r + (((L->alt.r - L->base.r) * w) >> 12);
            g = L->base.g + (((L->alt.g - L->base.g) * w) >> 12);
            b = L->base.b + (((L->alt.b - L->base.b) * w) >> 12);
            int32_t att = 4096 - d * L->light_inv;
            att = att < 0 ? 0 : att;
            int32_t f = 256 + (((n1 - 512) * L->a[TEX_COARSE]) >> 9) + (((n2 - 512) * L->a[TEX_CLUMP]) >> 9) +
                        (((n3 - 512) * L->a[TEX_FINE]) >> 9) + ((s->light[(uint32_t)k * s->uw + x] * att) >> 12);
            r = (r * f) >> 8;
            g = (g * f) >> 8;
            b = (b * f) >> 8;
            int32_t m = (yy - L->fog_start) * L->fog_rate;
            m = m < 0 ? 0 : m > 4096 ? 4096 : m;
            m = L->haze12 + ((m * L->fog12) >> 12);
            m = m > 4096 ? 4096 : m;
            r += ((s->haze.r - r) * m) >> 12;
            g += ((s->haze.g - g) * m) >> 12;
            b += ((s->haze.b - b) * m) >> 12;
            int32_t gl = (glow * L->glow12) >> 12;
            r += ((s->sun.r - r) * gl) >> 12;
            g += ((s->sun.g - g) * gl) >> 12;
            b += ((s->sun.b - b) * gl) >> 12;
            int32_t gr = grain * L->grain;
            int32_t ch = ((int32_t)((h >> 16) & 255) - 128) * L->grain; /* a little chroma noise */
            r += gr + (ch >> 2);
            g += gr;
            b += gr - (ch >> 2);
        }
        out[0] = to8(r);
        out[1] = to8(g);
        out[2] = to8(b);
    }
}

/* Renders stored rows [y0, y0+rows) into `strip` (rows x width x 3). Runs
 * always follow an upright row: a stored row for orientations 1..4, and for
 * 5..8 (where a stored row is an upright column) the `rows` pixels of one
 * stored column. */
static void render_strip(const scene *sp, uint32_t width, uint32_t y0, uint32_t rows, uint8_t *strip) {
    const scene s = *sp; /* a local copy: the byte stores below cannot alias it */
    const size_t row_bytes = (size_t)width * 3;
    if (s.ux_dy == 0) {
        for (uint32_t j = 0; j < rows; j++) {
            int32_t uy = s.uy0 + (int32_t)(y0 + j) * s.uy_dy;
            shade_run(&s, (uint32_t)uy, s.ux0, s.ux_dx, width, strip + j * row_bytes, 3);
        }
    } else {
        int32_t ux = s.ux0 + (int32_t)y0 * s.ux_dy;
        for (uint32_t x = 0; x < width; x++) {
            int32_t uy = s.uy0 + (int32_t)x * s.uy_dx;
            shade_run(&s, (uint32_t)uy, ux, s.ux_dy, rows, strip + (size_t)x * 3, row_bytes);
        }
    }
}

/* Time-of-day palettes: midday, golden hour, dusk, misty morning. */
typedef struct palette {
    rgb top, horizon, sun, haze;
    rgb light;          /* hill light tint, 1/256 per channel */
    int sun_lo, sun_hi; /* sun height, % of the horizon row */
    int glow_wide;      /* outer glow strength, of 4096 */
    int fog;            /* valley fog strength, of 4096 */
} palette;

static palette tod_palette(int tod) {
    switch (tod) {
    case 0: return (palette){rgb8(18, 62, 150), rgb8(176, 206, 232), rgb8(255, 252, 238), rgb8(180, 202, 224),
                             (rgb){272, 264, 248}, 18, 45, 700, 700};
    case 1: return (palette){rgb8(40, 72, 146), rgb8(250, 196, 132), rgb8(255, 226, 160), rgb8(232, 186, 144),
                             (rgb){286, 244, 196}, 55, 80, 1500, 1000};
    case 2: return (palette){rgb8(26, 28, 84), rgb8(236, 126, 104), rgb8(255, 186, 120), rgb8(168, 108, 124),
                             (rgb){196, 150, 170}, 70, 92, 1900, 1200};
    default: return (palette){rgb8(58, 108, 172), rgb8(226, 222, 214), rgb8(255, 246, 222), rgb8(212, 216, 222),
                              (rgb){252, 250, 244}, 40, 70, 1100, 2000};
    }
}

/* Hill colours per season: near base, near alt (patches), far. */
static void season_colours(int season, rgb *near, rgb *alt, rgb *far) {
    switch (season) {
    case 0: *near = rgb8(44, 90, 34), *alt = rgb8(80, 110, 40), *far = rgb8(58, 86, 92); break;
    case 1: *near = rgb8(70, 90, 38), *alt = rgb8(112, 112, 52), *far = rgb8(74, 90, 92); break;
    default: *near = rgb8(104, 70, 34), *alt = rgb8(140, 100, 42), *far = rgb8(86, 82, 88); break;
    }
}

/* Tables, arena-allocated in one block. */
typedef struct arena_layout {
    size_t sky, cloud, ridge, light, dx2, dy2, glow, lattice, lines, line_col, strip, total;
} arena_layout;

static size_t align16(size_t v) { return (v + 15) & ~(size_t)15; }

static arena_layout layout_for(uint32_t uw, uint32_t uh, uint32_t width) {
    arena_layout a;
    size_t at = 0;
    a.sky = at, at += align16((size_t)uh * 3 * sizeof(int32_t));
    a.cloud = at, at += align16((size_t)uh * sizeof(int32_t));
    a.ridge = at, at += align16((size_t)MAX_LAYERS * uw * sizeof(int32_t));
    a.light = at, at += align16((size_t)MAX_LAYERS * uw * sizeof(int32_t));
    a.dx2 = at, at += align16((size_t)uw * sizeof(int64_t));
    a.dy2 = at, at += align16((size_t)uh * sizeof(int64_t));
    a.glow = at, at += align16((size_t)GLOW_N * sizeof(uint16_t));
    a.lattice = at, at += align16((size_t)LATTICE * LATTICE * sizeof(uint16_t));
    a.lines = at, at += align16(LINES * LINE_CAP(uw) * sizeof(int16_t));
    a.line_col = at, at += align16((size_t)LINES * uw * sizeof(uint32_t));
    a.strip = at, at += align16((size_t)width * 3 * STRIP_ROWS);
    a.total = at;
    return a;
}

static void scene_build(scene *s, const sy_sample_options *o, uint8_t *arena, const arena_layout *al) {
    uint32_t W = o->width, H = o->height;
    int rotated = o->orientation >= 5;
    s->uw = rotated ? H : W;
    s->uh = rotated ? W : H;
    int32_t w1 = (int32_t)W - 1, h1 = (int32_t)H - 1;
    switch (o->orientation) {
    default: s->ux0 = 0, s->ux_dx = 1, s->ux_dy = 0, s->uy0 = 0, s->uy_dx = 0, s->uy_dy = 1; break;
    case 2: s->ux0 = w1, s->ux_dx = -1, s->ux_dy = 0, s->uy0 = 0, s->uy_dx = 0, s->uy_dy = 1; break;
    case 3: s->ux0 = w1, s->ux_dx = -1, s->ux_dy = 0, s->uy0 = h1, s->uy_dx = 0, s->uy_dy = -1; break;
    case 4: s->ux0 = 0, s->ux_dx = 1, s->ux_dy = 0, s->uy0 = h1, s->uy_dx = 0, s->uy_dy = -1; break;
    case 5: s->ux0 = 0, s->ux_dx = 0, s->ux_dy = 1, s->uy0 = 0, s->uy_dx = 1, s->uy_dy = 0; break;
    case 6: s->ux0 = h1, s->ux_dx = 0, s->ux_dy = -1, s->uy0 = 0, s->uy_dx = 1, s->uy_dy = 0; break;
    case 7: s->ux0 = h1, s->ux_dx = 0, s->ux_dy = -1, s->uy0 = w1, s->uy_dx = -1, s->uy_dy = 0; break;
    case 8: s->ux0 = 0, s->ux_dx = 0, s->ux_dy = 1, s->uy0 = w1, s->uy_dx = -1, s->uy_dy = 0; break;
    }
    const uint32_t uw = s->uw, uh = s->uh;
    const uint32_t smin = uw < uh ? uw : uh;

    s->sky = (int32_t *)(arena + al->sky);
    s->cloud_amt = (int32_t *)(arena + al->cloud);
    s->ridge = (int32_t *)(arena + al->ridge);
    s->light = (int32_t *)(arena + al->light);
    s->sun_dx2 = (int64_t *)(arena + al->dx2);
    s->sun_dy2 = (int64_t *)(arena + al->dy2);
    s->glow = (uint16_t *)(arena + al->glow);
    s->lattice = (uint16_t *)(arena + al->lattice);
    s->lines = (int16_t *)(arena + al->lines);
    s->line_col = (uint32_t *)(arena + al->line_col);

    for (int i = 0; i < 256; i++) s->smooth[i] = (int16_t)((3 * i * i * 256 - 2 * i * i * i + 32768) >> 16);

    rng r = {o->seed ^ 0x53484959494E47ull}; /* "SHIYING" */
    uint32_t nseed = (uint32_t)rng_next(&r);
    for (uint32_t i = 0; i < LATTICE * LATTICE; i++) s->lattice[i] = (uint16_t)(hash32(i * 0x9E3779B1u ^ nseed) & 1023);
    s->grain_seed = (uint32_t)rng_next(&r);

    /* Consecutive seeds walk through the four times of day, so neighbours differ clearly. */
    int tod = (int)((o->seed + 3) % 4);
    int season = (int)(rng_next(&r) % 3);
    palette p = tod_palette(tod);
    rgb top = jitter(&r, p.top, 8), horizon = jitter(&r, p.horizon, 10);
    s->sun = p.sun;
    s->haze = jitter(&r, p.haze, 8);
    s->cloud = mix12(mix12(horizon, rgb8(255, 255, 255), 2600), p.sun, tod == 0 || tod == 3 ? 600 : 1800);

    /* Horizon (the far layer's base line) and sky. */
    int32_t horizon_y = (int32_t)((uint64_t)uh * (uint32_t)rng_range(&r, 50, 60) / 100);
    int32_t cover = rng_range(&r, 1200, 3600);
    for (uint32_t y = 0; y < uh; y++) {
        int64_t t = horizon_y > 0 ? (int64_t)y * 4096 / horizon_y : 4096;
        if (t > 4096) t = 4096;
        int32_t te = (int32_t)(t * isqrt64((uint64_t)t * 4096) >> 12); /* t^1.5: blue stays high up */
        rgb c = mix12(top, horizon, te);
        s->sky[y * 3] = c.r, s->sky[y * 3 + 1] = c.g, s->sky[y * 3 + 2] = c.b;
        int32_t fade = (int32_t)((4096 - t) * 3 / 2);
        if (fade > 4096) fade = 4096;
        s->cloud_amt[y] = (cover * fade) >> 12;
    }
    s->sc = log2_near(smin / 12);
    if (s->sc < 2) s->sc = 2;
    s->cloud_thr = rng_range(&r, 500, 600);
    s->cloud_gain = 4096 / 160;
    s->sky_grain = 3; /* levels */

    /* Sun: position, disc and glow. */
    int32_t sx = (int32_t)((uint64_t)uw * (uint32_t)rng_range(&r, 12, 88) / 100);
    int32_t sy = (int32_t)((int64_t)horizon_y * rng_range(&r, p.sun_lo, p.sun_hi) / 100);
    int64_t rs = smin * (uint32_t)rng_range(&r, 26, 40) / 1000;
    if (rs < 1) rs = 1;
    for (uint32_t x = 0; x < uw; x++) s->sun_dx2[x] = ((int64_t)x - sx) * ((int64_t)x - sx);
    for (uint32_t y = 0; y < uh; y++) s->sun_dy2[y] = ((int64_t)y - sy) * ((int64_t)y - sy);
    s->disc_in2 = rs * rs * 81 / 100;
    s->disc_out2 = rs * rs * 121 / 100;
    uint64_t far2 = (uint64_t)uw * uw + (uint64_t)uh * uh;
    s->glow_shift = 0;
    while ((far2 >> s->glow_shift) >= GLOW_N) s->glow_shift++;
    int64_t rg1 = rs * 5 / 2, rg2 = (int64_t)uh * 3 / 10 + 1;
    for (int i = 0; i < GLOW_N; i++) {
        int64_t d2 = (int64_t)i << s->glow_shift;
        int64_t g = 1900 * rg1 * rg1 / (rg1 * rg1 + d2) + p.glow_wide * rg2 * rg2 / (rg2 * rg2 + d2);
        s->glow[i] = (uint16_t)(g > 4096 ? 4096 : g);
    }

    /* Hills: far (index 0, ridged mountains) to near (rolling, textured). */
    s->nlayers = MAX_LAYERS;
    rgb near, alt, far;
    season_colours(season, &near, &alt, &far);
    near = jitter(&r, near, 10), alt = jitter(&r, alt, 12), far = jitter(&r, far, 8);
    int32_t haze_far = rng_range(&r, 1500, 1900);
    int32_t spacing = (int32_t)((uint64_t)uh * (uint32_t)rng_range(&r, 11, 15) / 100);
    unsigned near_sh[TEX_N] = {log2_near(smin / 24), log2_near(smin / 190), log2_near(smin / 760)};
    for (int k = 0; k < s->nlayers; k++) {
        layer *L = &s->layers[k];
        int32_t q = k * 4096 / (s->nlayers - 1); /* 0 far .. 4096 near */
        int32_t base_y = horizon_y + spacing * k;
        int32_t amp_pct = k == 0 ? rng_range(&r, 14, 24) : q < 4096 ? rng_range(&r, 8, 13) : rng_range(&r, 7, 12);
        int32_t amp = (int32_t)((int64_t)uh * amp_pct / 100);
        uint32_t cell = (uint32_t)((uint64_t)uw * 10 / (uint32_t)(k == 0 ? rng_range(&r, 25, 45) : rng_range(&r, 18, 36)));
        uint32_t lseed = (uint32_t)rng_next(&r);
        int32_t *ridge = s->ridge + (size_t)k * uw;
        s->ridge_top[k] = (int32_t)uh;
        for (uint32_t x = 0; x < uw; x++) {
            uint32_t v = fbm1(x, cell < 2 ? 2 : cell, 5, lseed, k == 0);
            int32_t y = base_y - (int32_t)((int64_t)amp * v / 65535);
            ridge[x] = y < 0 ? 0 : y;
            s->ridge_top[k] = SY__MIN(s->ridge_top[k], ridge[x]);
        }
        /* Slope lighting: a crest rising toward the sun is lit, the other side shaded. */
        int32_t step = (int32_t)(uw / 400) + 1;
        int32_t lmax = 4 + 18 * q / 4096;
        int32_t *light = s->light + (size_t)k * uw;
        for (uint32_t x = 0; x < uw; x++) {
            int32_t xa = (int32_t)x - step, xb = (int32_t)x + step;
            if (xa < 0) xa = 0;
            if (xb > (int32_t)uw - 1) xb = (int32_t)uw - 1;
            int32_t rise = ridge[xa] - ridge[xb]; /* > 0: terrain rises to the right, faces left */
            int32_t dir = (int32_t)x > sx ? 1 : -1;
            int32_t l = dir * rise * 90 / (2 * step);
            light[x] = l > lmax ? lmax : l < -lmax ? -lmax : l;
        }
        L->light_inv = 4096 / ((int32_t)(uh / 14) + 1) + 1;
        L->base = tint(mix12(far, near, q), p.light);
        L->alt = tint(mix12(far, alt, q), p.light);
        L->haze12 = 200 + (int32_t)((int64_t)(haze_far - 200) * (4096 - q) / 4096);
        /* Valley fog: clear crests, misty toward the layer's base line. */
        L->fog_start = base_y - amp * 4 / 10;
        L->fog_rate = 4096 / (amp * 7 / 10 + (int32_t)(uh / 40) + 1) + 1;
        L->fog12 = p.fog * (4096 - q) / 4096;
        L->a[TEX_COARSE] = 14 + 10 * q / 4096;
        L->a[TEX_CLUMP] = 20 + 50 * q / 4096;
        L->a[TEX_FINE] = 14 + 64 * q / 4096;
        L->grain = 4 + 15 * q / 4096;
        L->glow12 = 1400 - 1100 * q / 4096;
        /* Perspective: texture cells halve per layer into the distance. */
        int farther = s->nlayers - 1 - k;
        for (int t = 0; t < TEX_N; t++) L->sh[t] = near_sh[t] > (unsigned)farther + 1 ? near_sh[t] - (unsigned)farther : 1;
    }
    s->sky_bottom = 0;
    for (uint32_t x = 0; x < uw; x++) {
        int32_t top = (int32_t)uh;
        for (int k = 0; k < s->nlayers; k++) top = SY__MIN(top, s->ridge[(size_t)k * uw + x]);
        s->sky_bottom = SY__MAX(s->sky_bottom, top);
    }
    /* Noise lines: cell sizes, lattice offsets (so the noises do not line up)
     * and the per-column horizontal part. */
    for (int line = 0; line < LINES; line++) {
        unsigned shx, shy;
        if (line < 2) {
            shx = line == 0 ? s->sc + 2 : s->sc; /* clouds: stretched horizontally */
            shy = line == 0 ? s->sc : s->sc - 1;
        } else {
            shx = shy = s->layers[(line - 2) / TEX_N].sh[(line - 2) % TEX_N];
        }
        uint32_t ox = (uint32_t)(rng_next(&r) & (LATTICE - 1)) << shx;
        s->line_oy[line] = (uint32_t)rng_range(&r, 0, 65535);
        s->line_shy[line] = shy;
        uint32_t *col = s->line_col + (size_t)line * uw;
        for (uint32_t x = 0; x < uw; x++) {
            uint32_t xx = x + ox;
            col[x] = ((xx >> shx) << 9) | (uint32_t)s->smooth[((xx & ((1u << shx) - 1)) << 8) >> shx];
        }
    }
}

/* "YYYY:MM:DD HH:MM:SS" from the seed; the hour follows the time of day. */
static void sample_datetime(uint64_t seed, char out[32]) {
    static const int hours[4] = {12, 18, 20, 6};
    rng r = {seed ^ 0x44415445ull}; /* "DATE" */
    int tod = (int)((seed + 3) % 4);
    int month = rng_range(&r, 1, 12), day = rng_range(&r, 1, 28);
    int hour = hours[tod] + rng_range(&r, 0, 1);
    int minute = rng_range(&r, 0, 59), second = rng_range(&r, 0, 59);
    snprintf(out, 32, "2024:%02d:%02d %02d:%02d:%02d", month, day, hour, minute, second);
}

/* ---- libjpeg glue ---- */

typedef struct sample_jerr {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int saved_errno;
} sample_jerr;

static void sample_error_exit(j_common_ptr cinfo) {
    sample_jerr *e = (sample_jerr *)cinfo->err;
    e->saved_errno = errno;
    longjmp(e->jump, 1);
}

static void sample_output_message(j_common_ptr cinfo) { (void)cinfo; /* never print */ }

/* Rough size of libjpeg's own allocations, charged to the context. */
static size_t codec_estimate(const sy_sample_options *o) {
    size_t w = ((size_t)o->width + 15) & ~(size_t)15, h = ((size_t)o->height + 15) & ~(size_t)15;
    size_t bytes = (size_t)64 * 1024 + w * 16 * 3 * 2;
    if (o->progressive) bytes += w * h * 3; /* whole-image coefficients: 2 (Y) + 2 x 0.5 (chroma) bytes/px */
    return bytes;
}

/* Compresses the scene into `file`. libjpeg errors longjmp back here; only
 * objects in memory (cinfo, jerr) and unchanged parameters are used after the
 * jump. The caller owns the file and the tables. */
static sy_status encode(sy_context *ctx, const sy_sample_options *o, const scene *s, uint8_t *strip,
                        const uint8_t *exif, size_t exif_len, FILE *file, const char *path, sy_error *err) {
    struct jpeg_compress_struct cinfo;
    sample_jerr jerr;
    memset(&cinfo, 0, sizeof cinfo);
    memset(&jerr, 0, sizeof jerr);
    cinfo.err = jpeg_std_error(&jerr.pub);
    jerr.pub.error_exit = sample_error_exit;
    jerr.pub.output_message = sample_output_message;
    if (setjmp(jerr.jump)) {
        char msg[JMSG_LENGTH_MAX];
        cinfo.err->format_message((j_common_ptr)&cinfo, msg);
        jpeg_destroy_compress(&cinfo);
        if (jerr.pub.msg_code == JERR_FILE_WRITE)
            return sy__fail_sub(err, SY_E_IO, jerr.saved_errno, "%s: %s (%s)", path, msg,
                                strerror(jerr.saved_errno));
        return sy__fail_sub(err, SY_E_CODEC, jerr.pub.msg_code, "%s: %s", path, msg);
    }
    jpeg_create_compress(&cinfo);
    jpeg_stdio_dest(&cinfo, file);
    cinfo.image_width = o->width;
    cinfo.image_height = o->height;
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo); /* YCbCr 4:2:0, ISLOW DCT, standard Huffman tables */
    jpeg_set_quality(&cinfo, o->quality, TRUE);
    cinfo.optimize_coding = FALSE;
    cinfo.density_unit = 1; /* 72 dpi, as in the Exif */
    cinfo.X_density = cinfo.Y_density = 72;
    if (o->progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    if (exif_len) jpeg_write_marker(&cinfo, JPEG_APP0 + 1, exif, (unsigned int)exif_len);

    const uint32_t W = o->width, H = o->height;
    const uint64_t strips = (H + STRIP_ROWS - 1) / STRIP_ROWS;
    JSAMPROW rows[STRIP_ROWS];
    for (uint32_t y = 0; y < H; y += STRIP_ROWS) {
        if (sy__check_cancel(ctx, err) != SY_OK) {
            jpeg_destroy_compress(&cinfo);
            return SY_E_CANCELLED;
        }
        uint32_t n = H - y < STRIP_ROWS ? H - y : STRIP_ROWS;
        render_strip(s, W, y, n, strip);
        for (uint32_t j = 0; j < n; j++) rows[j] = strip + (size_t)j * W * 3;
        uint32_t done = 0;
        while (done < n) done += jpeg_write_scanlines(&cinfo, rows + done, n - done);
        sy__progress(ctx, "strips", y / STRIP_ROWS + 1, strips);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return SY_OK;
}

/* HEIC: the stored (landscape) rows go to our HEIF writer as a grid of 512x512
 * tiles; the EXIF orientation becomes irot/imir, as an iPhone stores a portrait. */
static sy_status encode_heic(sy_context *ctx, const sy_sample_options *o, const scene *s, uint8_t *strip,
                             const uint8_t *tiff, size_t tiff_len, const char *path, sy_error *err) {
    static const uint8_t rotation_of[9] = {0, 0, 0, 2, 0, 1, 3, 3, 1}; /* EXIF -> anticlockwise quarter turns */
    static const int8_t mirror_of[9] = {-1, -1, 0, -1, 1, 0, -1, 0, -1};
    sy_heif_writer_options hopts;
    sy_heif_writer_options_init(&hopts);
    hopts.width = o->width;
    hopts.height = o->height;
    hopts.quality = o->quality;
    hopts.x265_preset = "ultrafast"; /* test and benchmark inputs: speed over size */
    hopts.rotation = rotation_of[o->orientation];
    hopts.mirror = mirror_of[o->orientation];
    sy_heif_writer *w = NULL;
    sy_status st = sy_heif_writer_create(ctx, path, &hopts, &w, err);
    if (st == SY_OK && tiff_len) st = sy_heif_writer_set_exif(w, tiff, tiff_len, err);
    const uint32_t W = o->width, H = o->height;
    for (uint32_t y = 0; st == SY_OK && y < H; y += STRIP_ROWS) {
        uint32_t n = H - y < STRIP_ROWS ? H - y : STRIP_ROWS;
        render_strip(s, W, y, n, strip);
        const uint8_t *rows[STRIP_ROWS];
        for (uint32_t j = 0; j < n; j++) rows[j] = strip + (size_t)j * W * 3;
        st = sy_heif_writer_write_rows(w, rows, n, err);
    }
    if (st == SY_OK) st = sy_heif_writer_finish(w, err);
    sy_heif_writer_destroy(w);
    return st;
}

static sy_status write_sample(sy_context *ctx, const sy_sample_options *opts, const char *output_path, int heic,
                              sy_error *err);

sy_status sy_sample_write_jpeg(sy_context *ctx, const sy_sample_options *opts, const char *output_path,
                               sy_error *err) {
    return write_sample(ctx, opts, output_path, 0, err);
}

sy_status sy_sample_write_heic(sy_context *ctx, const sy_sample_options *opts, const char *output_path,
                               sy_error *err) {
    return write_sample(ctx, opts, output_path, 1, err);
}

static sy_status write_sample(sy_context *ctx, const sy_sample_options *opts, const char *output_path, int heic,
                              sy_error *err) {
    if (!ctx || !opts || !output_path || !output_path[0])
        return sy__fail(err, SY_E_USAGE, "sy_sample_write_jpeg: context, options and output path are required");
    if (opts->version != 1)
        return sy__fail(err, SY_E_USAGE, "sy_sample_write_jpeg: options version %u, expected 1", opts->version);
    if (opts->width < 16 || opts->width > 65500 || opts->height < 16 || opts->height > 65500)
        return sy__fail(err, SY_E_USAGE, "sy_sample_write_jpeg: size %ux%u outside 16..65500", opts->width,
                        opts->height);
    if (opts->orientation < 1 || opts->orientation > 8)
        return sy__fail(err, SY_E_USAGE, "sy_sample_write_jpeg: orientation %u outside 1..8", opts->orientation);
    if (opts->quality < 1 || opts->quality > 100)
        return sy__fail(err, SY_E_USAGE, "sy_sample_write_jpeg: quality %d outside 1..100", opts->quality);
    if (opts->progressive != 0 && opts->progressive != 1)
        return sy__fail(err, SY_E_USAGE, "sy_sample_write_jpeg: progressive must be 0 or 1, not %d",
                        opts->progressive);

    const uint32_t W = opts->width, H = opts->height;
    const int rotated = opts->orientation >= 5;
    arena_layout al = layout_for(rotated ? H : W, rotated ? W : H, W);
    uint8_t *arena = sy__alloc(ctx, al.total, 1, "sample photo tables", err);
    if (!arena) return err ? err->code : SY_E_BUDGET;
    scene *s = sy__alloc(ctx, 1, sizeof *s, "sample photo scene", err);
    if (!s) {
        sy__free(ctx, arena);
        return err ? err->code : SY_E_BUDGET;
    }
    scene_build(s, opts, arena, &al);

    uint8_t exif[512];
    char datetime[32];
    sample_datetime(opts->seed, datetime);
    sy__exif_info info = {opts->orientation, "Shiying", "SampleCam", datetime, W, H};
    size_t exif_len = heic ? sy__exif_build_tiff(&info, exif, sizeof exif) : sy__exif_build_app1(&info, exif, sizeof exif);
    if (heic) {
        sy_status st = encode_heic(ctx, opts, s, arena + al.strip, exif, exif_len, output_path, err);
        sy__free(ctx, s);
        sy__free(ctx, arena);
        return st;
    }

    const size_t charged = codec_estimate(opts);
    sy_status st = sy__charge(ctx, charged, "sample photo: libjpeg", err);
    if (st == SY_OK) {
        sy__output out;
        st = sy__output_open(ctx, output_path, &out, err);
        if (st == SY_OK) {
            st = encode(ctx, opts, s, arena + al.strip, exif, exif_len, out.file, output_path, err);
            if (st == SY_OK) st = sy__output_commit(&out, err);
            else sy__output_abort(&out);
        }
        sy__discharge(ctx, charged);
    }
    sy__free(ctx, s);
    sy__free(ctx, arena);
    return st;
}
