/* sy_render_encode.h — the downscale's linear -> 16-bit sRGB encode on each
 * of its paths, for the tests that hold them to the same bytes
 * (engine-private). */
#ifndef SY_RENDER_ENCODE_H
#define SY_RENDER_ENCODE_H

#include <stddef.h>
#include <stdint.h>

/* Encodes `n` linear values with the portable loop into `portable` and with
 * the AVX2 loop into `simd`. Returns 1 when the AVX2 loop ran (the CPU has
 * it), else 0 and `simd` is the portable result again. */
int sy__render_encode_paths(const float *lin, size_t n, uint16_t *portable, uint16_t *simd);

#endif
