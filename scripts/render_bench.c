/* render_bench.c — hand-run timing of the one frame renderer (issue 5); not a test.
 *
 *   /opt/swift/usr/bin/clang -std=c11 -D_GNU_SOURCE -O2 -ICSources/core -ICSources/core/include \
 *     -ICSources/media/include scripts/render_bench.c CSources/media/render/[a-z]*.c CSources/core/base/context.c $(pkg-config --libs libheif) -lpthread -lm -o /tmp/render_bench
 *   /tmp/render_bench /tmp/render_bench.rgb      # also writes the source for scripts/render_vips.py
 *
 * Renders a deterministic 4032x3024 photo-like RGB image with the typical
 * recipe (crop 90% + straighten 3 deg + exposure +0.3 + saturation +0.2 +
 * the film.amber LUT) to full size and to a 1170-px-wide preview, on 1 and
 * 2 threads; prints the best and mean wall time of 9 runs, the best process
 * CPU time, the renderer create time and the engine's peak bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sy_render.h"

static double clock_s(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint8_t *photo(uint32_t w, uint32_t h) {
    uint8_t *p = malloc((size_t)w * h * 3);
    if (!p) exit(1);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t k = (x * 73856093u) ^ (y * 19349663u);
            k = (k ^ (k >> 13)) * 0x5bd1e995u;
            int n = (int)((k >> 8) % 25) - 12;
            int r = 40 + (int)(150 * x / w) + n, g = 60 + (int)(120 * (h - y) / h) + n,
                b = 90 + (int)(100.0 * x / w * y / h) + n;
            if (y > h * 6 / 10) g += 40, b -= 30;
            if ((x / 97 + y / 89) % 5 == 0) r = 230;
            uint8_t *q = p + ((size_t)y * w + x) * 3;
            q[0] = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
            q[1] = (uint8_t)(g < 0 ? 0 : g > 255 ? 255 : g);
            q[2] = (uint8_t)(b < 0 ? 0 : b > 255 ? 255 : b);
        }
    return p;
}

int main(int argc, char **argv) {
    const uint32_t W = 4032, H = 3024;
    uint8_t *src = photo(W, H);
    if (argc > 1) {
        FILE *f = fopen(argv[1], "wb");
        if (!f || fwrite(src, 1, (size_t)W * H * 3, f) != (size_t)W * H * 3) return 1;
        fclose(f);
    }
    sy_context *ctx;
    sy_error err = {0};
    if (sy_context_create(NULL, &ctx, &err) != SY_OK) return 1;
    sy_pixels px = {src, (size_t)W * 3, W, H};
    sy_recipe r;
    sy_recipe_init(&r);
    r.crop = (sy_recipe_rect){0.05, 0.05, 0.9, 0.9};
    r.straighten = 3;
    r.adjustments.exposure = 0.3;
    r.adjustments.saturation = 0.2;
    r.filter_id = "film.amber";
    uint8_t *dst = malloc((size_t)W * H * 3);
    const struct {
        const char *name;
        uint32_t max_w;
    } cases[] = {{"full", 0}, {"preview1170", 1170}};
    for (int c = 0; c < 2; c++) {
        uint32_t ow, oh;
        sy_render_output_size(&r, W, H, cases[c].max_w, 0, 0, &ow, &oh, &err);
        double create = 1e9;
        for (int i = 0; i < 5; i++) {
            sy_renderer *rr;
            double t = clock_s(CLOCK_MONOTONIC);
            sy_renderer_create(ctx, &r, W, H, ow, oh, &rr, &err);
            t = clock_s(CLOCK_MONOTONIC) - t;
            if (t < create) create = t;
            sy_renderer_destroy(rr);
        }
        for (uint32_t threads = 1; threads <= 2; threads++) {
            double best = 1e9, sum = 0, best_cpu = 1e9;
            const int n = 9;
            sy_context_reset_peak(ctx);
            for (int i = 0; i < n; i++) {
                double t = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
                if (sy_render(ctx, &r, &px, ow, oh, dst, (size_t)ow * 3, threads, &err) != SY_OK) {
                    printf("error: %s\n", err.message);
                    return 1;
                }
                double cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
                t = clock_s(CLOCK_MONOTONIC) - t;
                best = t < best ? t : best;
                best_cpu = cpu < best_cpu ? cpu : best_cpu;
                sum += t;
            }
            sy_memory_stats ms;
            sy_context_memory_stats(ctx, &ms);
            printf("%-12s %ux%u threads=%u  wall best %6.1f ms  mean %6.1f ms  cpu best %6.1f ms  create %4.1f ms  "
                   "engine peak %.1f MB\n",
                   cases[c].name, ow, oh, threads, best * 1e3, sum / n * 1e3, best_cpu * 1e3, create * 1e3,
                   ms.peak_bytes / 1048576.0);
        }
    }
    sy_context_destroy(ctx);
    free(dst);
    free(src);
    return 0;
}
