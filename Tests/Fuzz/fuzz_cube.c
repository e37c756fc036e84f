/* fuzz_cube.c — libFuzzer harness for the .cube 3D LUT parser (render/cube.c).
 *
 * Built and run by scripts/fuzz.sh (FUZZ_ONLY=Tests/Fuzz/fuzz_cube.c), with the
 * keyword dictionary Tests/Fuzz/cube.dict. Each input is parsed as .cube text
 * under a 64 MiB budget. A failure must carry its status and a message naming a
 * line; a success must give a 2..65 table whose every output is in 0..1 for
 * probe colours, and (up to 17 nodes) must survive being baked into a renderer
 * that draws a tiny image at two intensities. Afterwards no engine memory may be left. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_support.h"
#include "base/sy_internal.h"
#include "sy_render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    sy_context *ctx = fuzz_context((size_t)64 << 20);
    sy_error err;
    memset(&err, 0, sizeof err);

    sy_lut *lut = NULL;
    sy_status st = sy_lut_parse_cube(ctx, (const char *)data, size, &lut, &err);
    if (st != SY_OK) {
        if (lut || err.code != st || !strstr(err.message, "line")) abort(); /* failures explain themselves */
    } else {
        uint32_t n = sy_lut_size(lut);
        if (n < 2 || n > SY_LUT_MAX_SIZE) abort();
        if (strlen(sy_lut_title(lut)) >= 128) abort();
        static const float probes[][3] = {{0, 0, 0}, {1, 1, 1}, {0.5f, 0.25f, 0.75f}, {-1, 2, NAN}, {0.999f, 0.001f, 0.5f}};
        for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
            float out[3];
            sy_lut_apply(lut, probes[i], out);
            for (int c = 0; c < 3; c++)
                if (!(out[c] >= 0 && out[c] <= 1)) abort();
        }
        /* Through the renderer: a 7x5 gradient at full and half intensity
         * (small tables only: baking a 65^3 table per input would starve the fuzzer). */
        if (n > 17) goto done;
        uint8_t src[7 * 5 * 3], dst[7 * 5 * 3];
        for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)(i * 37 + size);
        sy_pixels px = {src, 7 * 3, 7, 5};
        sy_recipe r;
        sy_recipe_init(&r);
        r.filter_lut = lut;
        r.adjustments.saturation = (size & 7) == 1 ? 0.3 : 0; /* sometimes resampled onto a 33-node grid */
        for (int k = 0; k < 2; k++) {
            r.filter_intensity = k ? 0.5 : 1.0;
            if (sy_render(ctx, &r, &px, 7, 5, dst, 7 * 3, 1, &err) != SY_OK) abort();
        }
        volatile unsigned sum = 0;
        for (size_t i = 0; i < sizeof dst; i++) sum += dst[i]; /* touch every output byte */
        (void)sum;
    done:
        sy_lut_destroy(lut);
    }
    fuzz_require_released(ctx);
    return 0;
}
