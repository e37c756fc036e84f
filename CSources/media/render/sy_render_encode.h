/* sy_render_encode.h — the renderer's SIMD loops (the downscale's linear ->
 * 16-bit sRGB encode, the CUBIC sampling of the 16-bit grid) on each of
 * their paths, for the tests that hold them to the same bytes
 * (engine-private). */
#ifndef SY_RENDER_ENCODE_H
#define SY_RENDER_ENCODE_H

#include <stddef.h>
#include <stdint.h>

/* Encodes `n` linear values with the portable loop into `portable` and with
 * the AVX2 loop into `simd`. Returns 1 when the AVX2 loop ran (the CPU has
 * it), else 0 and `simd` is the portable result again. */
int sy__render_encode_paths(const float *lin, size_t n, uint16_t *portable, uint16_t *simd);

/* Samples output row `v` (`n` pixels) of the map `m` (output pixel ->
 * grid pixel centre, as sy__sampler_plan takes it) from a grid_w x grid_h
 * RGB16 grid whose rows are grid_w * 3 + 4 values apart, with the portable
 * loop into `portable` and the AVX2 loop into `simd`. Returns 1 when the
 * AVX2 loop ran, 0 when `simd` is the portable result again, -1 when the
 * map is not CUBIC (nothing written). */
int sy__render_sample16_paths(const double m[6], const uint16_t *grid, uint32_t grid_w, uint32_t grid_h, uint32_t v,
                              uint32_t n, uint16_t *portable, uint16_t *simd);

#endif
