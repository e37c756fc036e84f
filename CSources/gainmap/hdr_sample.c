/* hdr_sample.c — deterministic HDR test photos (sy_hdr_sample_write).
 *
 * The scene is a pure function of the normalized position, in linear light
 * with SDR white = 1: a sky gradient, a sun whose core reaches ~12x white
 * with a wide glow, value-noise clouds lit towards the sun, two ridges of
 * fractal hills with texture, and a lake whose ripples carry specular glints
 * (up to ~6x). The SDR base is that radiance through a soft shoulder (knee at
 * 0.8), sRGB-encoded. The gain map is evaluated at its own (coarser) pixel
 * centres from the same scene: log2 of the luminance ratio HDR / SDR (with
 * the 1/64 offsets for Ultra HDR), so the map really holds the highlights the
 * base clipped. Ultra HDR: GainMapMin 0, GainMapMax 3 (8x), gamma 1,
 * HDRCapacity 0..3. Apple: headroom 8 (XMP v2), g = Rec.709 OETF of
 * (ratio - 1) / 7. */
#include <math.h>
#include <string.h>

#include "../sample/sy_exif_writer.h"
#include "gainmap_internal.h"

#define MAX_STOPS 3.0
#define OFFSET (1.0 / 64)

typedef struct scene {
    uint32_t seed;
    double sun_x, sun_y, horizon, lake;
    double aspect;
} scene;

static uint32_t hash2(int32_t x, int32_t y, uint32_t seed) {
    uint32_t h = (uint32_t)x * 0x8DA6B343u ^ (uint32_t)y * 0xD8163841u ^ seed * 0xCB1AB31Fu;
    h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
    return h;
}

static double lattice(int32_t x, int32_t y, uint32_t seed) { return (hash2(x, y, seed) & 0xFFFF) / 65535.0; }

/* Smooth value noise, 0..1. */
static double noise(double x, double y, uint32_t seed) {
    double fx = floor(x), fy = floor(y), tx = x - fx, ty = y - fy;
    int32_t ix = (int32_t)fx, iy = (int32_t)fy;
    tx = tx * tx * (3 - 2 * tx), ty = ty * ty * (3 - 2 * ty);
    double a = lattice(ix, iy, seed), b = lattice(ix + 1, iy, seed);
    double c = lattice(ix, iy + 1, seed), d = lattice(ix + 1, iy + 1, seed);
    return (a + (b - a) * tx) * (1 - ty) + (c + (d - c) * tx) * ty;
}

static double fbm(double x, double y, uint32_t seed, int octaves) {
    double sum = 0, amp = 0.5, norm = 0;
    for (int o = 0; o < octaves; o++, x *= 2.03, y *= 2.03, amp *= 0.5) sum += amp * noise(x, y, seed + (uint32_t)o), norm += amp;
    return sum / norm;
}

/* Radiance at normalized (u, v) in [0,1]^2 (v down). */
static void radiance(const scene *s, double u, double v, double out[3]) {
    double x = u * s->aspect;
    double dx = x - s->sun_x * s->aspect, dy = v - s->sun_y, d2 = dx * dx + dy * dy;
    double sun = 11.0 * exp(-d2 / 0.0006) + 1.2 * exp(-d2 / 0.01) + 0.25 * exp(-d2 / 0.08);
    double ridge1 = s->horizon - 0.10 * fbm(x * 3, 1.7, s->seed + 11, 5);
    double ridge2 = s->horizon + 0.02 - 0.06 * fbm(x * 5, 4.2, s->seed + 23, 5);
    if (v < ridge1) { /* sky with clouds */
        double t = v / s->horizon;
        double sky[3] = {0.18 + 0.45 * t, 0.32 + 0.40 * t, 0.75 + 0.15 * t};
        double cl = fbm(x * 4, v * 9, s->seed + 5, 5);
        cl = cl > 0.55 ? (cl - 0.55) / 0.45 : 0;
        double lit = 0.9 + 2.2 * exp(-d2 / 0.03); /* cloud edges near the sun glow */
        for (int c = 0; c < 3; c++) out[c] = sky[c] * (1 - cl) + cl * lit * (c == 2 ? 0.92 : 1.0) + sun * (c == 0 ? 1.0 : c == 1 ? 0.93 : 0.78);
        return;
    }
    if (v < s->lake) { /* hills: far ridge hazy, near ridge textured */
        int near = v >= ridge2;
        double tex = fbm(x * (near ? 40 : 18), v * (near ? 40 : 18), s->seed + (near ? 41 : 37), 4);
        double shade = 0.55 + 0.45 * tex;
        double base[3] = {near ? 0.10 : 0.20, near ? 0.16 : 0.24, near ? 0.06 : 0.26};
        double glow = 0.35 * exp(-(dx * dx) / 0.02) * (near ? 0.4 : 1.0); /* rim light under the sun */
        for (int c = 0; c < 3; c++) out[c] = base[c] * shade + glow * (c == 2 ? 0.5 : 1.0);
        return;
    }
    /* lake: mirrored sky darkened, ripples, glints in the sun's column */
    double mv = 2 * s->horizon - (v - s->lake) * 0.6 - s->horizon * 0.9;
    double rip = fbm(x * 12, v * 70, s->seed + 53, 4);
    double col = exp(-(dx * dx) / 0.004);
    double glint = rip > 0.62 ? (rip - 0.62) / 0.38 : 0;
    double t = mv / s->horizon;
    for (int c = 0; c < 3; c++) {
        double sky = (c == 0 ? 0.18 + 0.45 * t : c == 1 ? 0.32 + 0.40 * t : 0.75 + 0.15 * t) * 0.45;
        out[c] = sky * (0.8 + 0.4 * rip) + col * (0.3 + 6.0 * glint * glint) * (c == 2 ? 0.8 : 1.0);
    }
}

/* SDR rendition: identity up to the knee, then a soft shoulder into 1. */
static double shoulder(double v) {
    const double knee = 0.8;
    if (v <= knee) return v < 0 ? 0 : v;
    return knee + (1 - knee) * (1 - exp(-(v - knee) / (1 - knee)));
}

static double luma(const double c[3]) { return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; }

static uint8_t srgb8(double v) {
    v = v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055;
    v = v * 255 + 0.5;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* Map code at (u, v): Ultra HDR log2 form or Apple's Rec.709-coded linear gain. */
static uint8_t map_code(const scene *s, double u, double v, int apple) {
    double h[3], sd[3];
    radiance(s, u, v, h);
    for (int c = 0; c < 3; c++) sd[c] = shoulder(h[c]);
    double yh = luma(h), ys = luma(sd), code;
    if (apple) {
        double g = (yh / (ys > 1e-6 ? ys : 1e-6) - 1) / 7.0; /* headroom 8 */
        g = g < 0 ? 0 : g > 1 ? 1 : g;
        code = g < 0.018 ? 4.5 * g : 1.099 * pow(g, 0.45) - 0.099;
    } else {
        double l = log2((yh + OFFSET) / (ys + OFFSET));
        code = l / MAX_STOPS;
    }
    code = code * 255 + 0.5;
    return (uint8_t)(code < 0 ? 0 : code > 255 ? 255 : code);
}

void sy_hdr_sample_options_init(sy_hdr_sample_options *o) {
    memset(o, 0, sizeof *o);
    o->version = 1;
    o->width = 1024;
    o->height = 768;
    o->seed = 1;
    o->quality = 90;
    o->map_scale = 2;
}

sy_status sy_hdr_sample_write(sy_context *ctx, const sy_hdr_sample_options *o, sy_still_format format,
                              const char *path, sy_error *err) {
    if (!ctx || !o || !path) return sy__fail(err, SY_E_USAGE, "sy_hdr_sample_write: NULL argument");
    if (o->version != 1 || o->width < 64 || o->height < 64 || o->width > 16384 || o->height > 16384 ||
        (o->width | o->height) & 1 || o->map_scale < 1 || o->map_scale > 8 || o->quality < 1 || o->quality > 100)
        return sy__fail(err, SY_E_USAGE, "sy_hdr_sample_write: size %ux%u (even, 64..16384), map scale %u (1..8), "
                        "quality %d", o->width, o->height, o->map_scale, o->quality);
    if (format != SY_STILL_JPEG && format != SY_STILL_HEIC)
        return sy__fail(err, SY_E_USAGE, "%s: HDR samples are JPEG or HEIC", path);
    const int apple = format == SY_STILL_HEIC;
    uint32_t seed32 = (uint32_t)(o->seed ^ (o->seed >> 32));
    scene s = {seed32, 0.30 + 0.4 * lattice(1, 2, seed32), 0.22 + 0.12 * lattice(3, 4, seed32), 0.55, 0.72,
               (double)o->width / o->height};
    sy_gainmap_info info;
    memset(&info, 0, sizeof info);
    info.kind = apple ? SY_GAINMAP_APPLE_HEIC : SY_GAINMAP_ULTRAHDR_JPEG;
    info.map_channels = 1;
    info.apple_version = 131072, info.apple_headroom = 8;
    sy_gainmap_params *p = &info.params;
    p->channels = 1;
    for (int c = 0; c < 3; c++)
        p->min_log2[c] = 0, p->max_log2[c] = MAX_STOPS, p->gamma[c] = 1, p->offset_sdr[c] = p->offset_hdr[c] = OFFSET;
    p->capacity_min = 0, p->capacity_max = MAX_STOPS;

    sy_gainmap_image map = {0};
    map.width = o->width / o->map_scale, map.height = o->height / o->map_scale, map.channels = 1;
    map.stride = map.width;
    map.pixels = sy__alloc(ctx, map.width, map.height, "sample gain map", err);
    uint8_t *rows = sy__alloc(ctx, (size_t)o->width * 3, 16, "sample rows", err);
    sy_status st = map.pixels && rows ? SY_OK : (err ? err->code : SY_E_BUDGET);
    for (uint32_t y = 0; st == SY_OK && y < map.height; y++)
        for (uint32_t x = 0; x < map.width; x++)
            map.pixels[(size_t)y * map.width + x] =
                map_code(&s, (x + 0.5) / map.width, (y + 0.5) / map.height, apple);

    uint8_t exif[512];
    sy__exif_info ei = {1, "Shiying", apple ? "HDRSampleCam HEIC" : "HDRSampleCam", "2026:07:14 19:42:00", o->width,
                        o->height};
    sy__metadata md = {0};
    md.exif = exif;
    md.exif_len = sy__exif_build_tiff(&ei, exif, sizeof exif);
    sy__gainmap_save save;
    memset(&save, 0, sizeof save);
    sy__still_writer *w = NULL;
    if (st == SY_OK) st = sy__gainmap_save_prepare(&save, ctx, path, format, o->quality, &info, &map, err);
    if (st == SY_OK) {
        sy__metadata with = md;
        if (save.extra.xmp) with.xmp = (uint8_t *)save.extra.xmp, with.xmp_len = save.extra.xmp_len;
        st = sy__still_writer_open_extra(ctx, path, format, o->quality, apple ? "ultrafast" : NULL, o->width, o->height,
                                         &with, &save.extra, &w, err);
    }
    for (uint32_t y0 = 0; st == SY_OK && y0 < o->height; y0 += 16) {
        uint32_t n = SY__MIN(16, o->height - y0);
        for (uint32_t j = 0; j < n; j++)
            for (uint32_t x = 0; x < o->width; x++) {
                double h[3];
                radiance(&s, (x + 0.5) / o->width, (y0 + j + 0.5) / o->height, h);
                uint8_t *px = rows + ((size_t)j * o->width + x) * 3;
                for (int c = 0; c < 3; c++) px[c] = srgb8(shoulder(h[c]));
            }
        st = sy__still_writer_write(w, rows, (size_t)o->width * 3, n, err);
        sy__progress(ctx, "rows", y0 + n, o->height);
    }
    if (st == SY_OK) st = sy__still_writer_finish(w, err);
    sy__still_writer_destroy(w);
    sy__gainmap_save_free(&save);
    sy_gainmap_image_free(ctx, &map);
    sy__free(ctx, rows);
    return st;
}
