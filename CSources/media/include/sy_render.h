/* sy_render.h — the one frame renderer (issue 5; SPEC E2, E5, S2).
 *
 * sy_render turns upright RGB8 source pixels plus an edit recipe into output
 * pixels. It is the only code that does so: editor preview, still save, every
 * frame of a Live-photo save, "frame -> photo", the shared poster and collage
 * cells all call it. Preview and save differ only in the target size.
 *
 * Order of operations (fixed; the recipe JSON names keep these meanings):
 *  Geometry, all in upright-source coordinates:
 *   1. crop      {x, y, width, height} normalized to the upright source, rounded
 *                to whole source pixels (x0 = round(x*W), x1 = round((x+width)*W));
 *   2. straighten degrees, positive turns the picture clockwise, about the crop
 *                centre; the frame keeps the crop's size and aspect and is
 *                shrunk about its centre just enough ("auto-zoom") that every
 *                corner stays inside the source, so no corner is ever empty;
 *   3. quarter_turns clockwise (0..3) of the straightened frame;
 *   4. flips     horizontal (mirror left-right), then vertical, of the turned frame;
 *   5. scale     to the target's inner rectangle (target minus border). When the
 *                target aspect differs from the frame aspect the frame is centre-
 *                cropped to cover it (never stretched).
 *  Resampling: downscale in linear light (separable Catmull-Rom widened by the
 *   scale factor, i.e. a proper antialiasing prefilter) to the output pixel
 *   grid, then the residual rotation / turn / flip with Catmull-Rom bicubic
 *   (4x4) in sRGB-encoded 16-bit. The residual step only interpolates between
 *   neighbours at ~1:1, where encoded vs linear makes no visible difference
 *   while keeping the full-size path free of a 12 MP linear float copy.
 *   Whole-pixel geometry (integer crop, no straighten, 1:1) is an exact pixel
 *   permutation; the identity is a row copy.
 *  Colour, per pixel, in this order (each step skipped when neutral):
 *   exposure in linear light (x 2^EV, clipping at white);
 *   tone on luminance (contrast S-curve, highlights, shadows; hue kept);
 *   colour in linear light (saturation, vibrance, warmth, tint; luminance kept);
 *   filter LUT on the sRGB-encoded values, blended by intensity;
 *   vignette (radial, on the encoded value);
 *   sharpness (3x3 unsharp mask / soften on the encoded value);
 *   border (solid colour frame around the image).
 *  Tone, colour and filter are baked into one 3D LUT per renderer and applied
 *  with tetrahedral interpolation (16-bit); exposure is an exact 1D table.
 *  The colour transfer is sRGB (also right for Display P3 sources).
 *
 * Thread safety: a renderer is immutable after create; sy_renderer_render_rows
 * may run concurrently on one renderer for disjoint row bands, and the result
 * of a band never depends on how the image was split into bands.
 * Memory: every allocation goes through the context. A renderer holds its
 * tables (~0.5 MB with a LUT); a band call adds a few rows of scratch plus,
 * for downscales, its share of the output-sized grid (at most 32 MiB per
 * piece; the band is split into pieces beyond that).
 */
#ifndef SY_RENDER_H
#define SY_RENDER_H

#include "sy_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- user LUTs (.cube) ---- */

/** A 3D colour LUT (immutable once created; may be shared between threads). */
typedef struct sy_lut sy_lut;

/** Largest LUT_3D_SIZE accepted (Adobe's .cube 1.0 limit for 3D tables). */
#define SY_LUT_MAX_SIZE 65
/** Largest .cube text accepted (a 65^3 table with generous formatting). */
#define SY_CUBE_MAX_BYTES ((size_t)64 << 20)

/** Parses Adobe / Resolve `.cube` text: `TITLE "..."`, `LUT_3D_SIZE n` (2..65),
 *  `DOMAIN_MIN r g b`, `DOMAIN_MAX r g b`, `LUT_3D_INPUT_RANGE lo hi` (Resolve),
 *  `#` comments, blank lines, then n^3 lines of three numbers, red fastest.
 *  Corrupt or hostile text gives SY_E_INVALID_INPUT with "line N: reason";
 *  a 1D LUT (`LUT_1D_SIZE`) gives SY_E_UNSUPPORTED. Output values are clamped
 *  to 0..1 when applied. Free with sy_lut_destroy. */
sy_status sy_lut_parse_cube(sy_context *ctx, const char *text, size_t length, sy_lut **out, sy_error *err);

/** Reads `path` (at most SY_CUBE_MAX_BYTES) and parses it as above. */
sy_status sy_lut_load_cube(sy_context *ctx, const char *path, sy_lut **out, sy_error *err);

/** Bakes built-in filter `id` into a LUT of `size` nodes per axis (2..65). */
sy_status sy_lut_from_filter(sy_context *ctx, const char *id, uint32_t size, sy_lut **out, sy_error *err);

/** Nodes per axis. */
uint32_t sy_lut_size(const sy_lut *lut);
/** TITLE of the .cube (empty string when none); borrowed until destroy. */
const char *sy_lut_title(const sy_lut *lut);
/** Applies the LUT (tetrahedral, full intensity) to one RGB value in 0..1. */
void sy_lut_apply(const sy_lut *lut, const float in[3], float out[3]);
/** NULL does nothing. */
void sy_lut_destroy(sy_lut *lut);

/* ---- built-in filters ---- */

/** One built-in filter: procedurally generated from a documented colour look.
 *  All strings are static. `id` is stable ("film.amber"): "<family>.<name>". */
typedef struct sy_filter_info {
    const char *id;
    const char *family;       /* family id: "film", "portrait", "vivid", "mono" */
    const char *name;         /* English display name */
    const char *name_zh;      /* Chinese display name */
} sy_filter_info;

/** Number of built-in filters (>= 24: 4 families x >= 6). */
size_t sy_filter_count(void);
/** Filter at `index` (family order, then display order); 0 on success, -1 when out of range. */
int sy_filter_at(size_t index, sy_filter_info *out);
/** Index of `id`, or -1 when there is no such built-in filter. */
int32_t sy_filter_find(const char *id);

/* ---- the recipe ---- */

#define SY_RECIPE_VERSION 1

/** Slider values; 0 is neutral for all. Ranges are inclusive. */
typedef struct sy_adjustments {
    double exposure;    /* EV, -4..4: linear light x 2^EV */
    double contrast;    /* -1..1: S-curve on luminance (negative flattens) */
    double highlights;  /* -1..1: negative recovers bright tones, positive lifts them */
    double shadows;     /* -1..1: positive opens dark tones, negative deepens them */
    double saturation;  /* -1..1: -1 is monochrome, +1 doubles chroma */
    double vibrance;    /* -1..1: saturation weighted towards muted colours */
    double warmth;      /* -1..1: cool (blue) .. warm (amber) white balance */
    double tint;        /* -1..1: green .. magenta */
    double vignette;    /* -1..1: positive darkens the corners, negative lightens them */
    double sharpness;   /* -1..1: positive sharpens (unsharp mask), negative softens */
} sy_adjustments;

typedef struct sy_recipe_rect {
    double x, y, width, height; /* normalized 0..1 to the upright source */
} sy_recipe_rect;

/** The edit recipe (C mirror of the Swift EditRecipe). Initialize with
 *  sy_recipe_init (the identity), then set fields. Pointers are borrowed only
 *  for the duration of the call that receives the recipe. */
typedef struct sy_recipe {
    uint32_t version;            /* SY_RECIPE_VERSION */
    sy_recipe_rect crop;         /* JSON crop {x, y, width, height}; default {0, 0, 1, 1}; inside 0..1 */
    double straighten;           /* JSON straighten: degrees, -45..45, positive = clockwise */
    uint32_t quarter_turns;      /* JSON quarterTurns: clockwise, 0..3 */
    uint8_t flip_horizontal;     /* JSON flipHorizontal: 0 or 1 */
    uint8_t flip_vertical;       /* JSON flipVertical: 0 or 1 */
    sy_adjustments adjustments;  /* JSON adjustments {exposure, contrast, ...} (same names) */
    const char *filter_id;       /* JSON filter.id: a built-in filter id, or NULL */
    const sy_lut *filter_lut;    /* user LUT, or NULL (not both with filter_id) */
    double filter_intensity;     /* JSON filter.intensity: 0..1 (default 1); 0 means no filter */
    double border_width;         /* JSON border.width: fraction of the image's short side, 0..0.5 (0 = none) */
    uint8_t border_color[3];     /* JSON border.color: RGB, default white */
} sy_recipe;

/** The identity recipe: version 1, full crop, nothing else set, intensity 1, white border colour. */
void sy_recipe_init(sy_recipe *recipe);

/** SY_OK, or SY_E_USAGE naming the first field out of range (NaN included),
 *  an unknown filter id, or both filter_id and filter_lut set. */
sy_status sy_recipe_validate(const sy_recipe *recipe, sy_error *err);

/** 1 when the recipe renders the source unchanged at its own size. */
int sy_recipe_is_identity(const sy_recipe *recipe);

/* ---- sizes ---- */

/** Lets sy_render_output_size return a size above the native one. */
#define SY_RENDER_ALLOW_UPSCALE 1u

/** Output size for a source of src_w x src_h: the frame's aspect (crop, turns)
 *  plus the border, at native resolution (1 source pixel per output pixel,
 *  i.e. the crop size times the straighten auto-zoom) and fitted inside
 *  max_w x max_h (0 = no limit on that axis) keeping the aspect. Never above
 *  native unless `flags` has SY_RENDER_ALLOW_UPSCALE. */
sy_status sy_render_output_size(const sy_recipe *recipe, uint32_t src_w, uint32_t src_h, uint32_t max_w,
                                uint32_t max_h, uint32_t flags, uint32_t *out_w, uint32_t *out_h, sy_error *err);

/* ---- rendering ---- */

/** Borrowed source pixels: upright RGB8, `stride` bytes per row (>= width*3). */
typedef struct sy_pixels {
    const uint8_t *data;
    size_t stride;
    uint32_t width, height;
} sy_pixels;

/** Largest source or target side accepted. */
#define SY_RENDER_MAX_SIDE 65535u

/** A prepared render: geometry, resampling weights, exposure table and the
 *  baked colour LUT for one recipe, one source size and one target size.
 *  Create once, render many frames (a Live video reuses it for every frame). */
typedef struct sy_renderer sy_renderer;

/** Validates the recipe (SY_E_USAGE) and precomputes everything. dst_w x dst_h
 *  is the whole target including the border (see sy_render_output_size).
 *  The recipe (and its filter LUT) may be freed after the call. */
sy_status sy_renderer_create(sy_context *ctx, const sy_recipe *recipe, uint32_t src_w, uint32_t src_h, uint32_t dst_w,
                             uint32_t dst_h, sy_renderer **out, sy_error *err);

/** Target size of the renderer. */
void sy_renderer_size(const sy_renderer *r, uint32_t *dst_w, uint32_t *dst_h);

/** Renders target rows [y0, y0 + count) into `dst` (which holds row y0;
 *  `dst_stride` >= dst_w*3). `src` must have the renderer's source size.
 *  Thread-safe for disjoint bands on one renderer. Honours sy_context_cancel
 *  (checked every few rows). */
sy_status sy_renderer_render_rows(const sy_renderer *r, const sy_pixels *src, uint32_t y0, uint32_t count,
                                  uint8_t *dst, size_t dst_stride, sy_error *err);

/** NULL does nothing. */
void sy_renderer_destroy(sy_renderer *r);

/** Convenience: create, render the whole target (threads 0/1 = calling thread,
 *  2+ = the target split into that many bands, at most 8), destroy. The bytes
 *  do not depend on `threads`. */
sy_status sy_render(sy_context *ctx, const sy_recipe *recipe, const sy_pixels *src, uint32_t dst_w, uint32_t dst_h,
                    uint8_t *dst, size_t dst_stride, uint32_t threads, sy_error *err);

#ifdef __cplusplus
}
#endif
#endif
