/* gainmap_bench.c — hand-run timing of one photo's gain-map decode; not a test.
 *
 *   clang -std=c11 -D_GNU_SOURCE -O2 -I... (each layer's root and include folder, as scripts/fuzz.sh)
 *     scripts/gainmap_bench.c ENGINE_SOURCES (CSources' .c files but system and fixtures) \
 *     $(pkg-config --libs libjpeg libheif libavcodec libavutil x265 zlib lcms2) -lpthread -lm -o /tmp/gainmap_bench
 *   /tmp/gainmap_bench PHOTO [RUNS] [REDUCE]
 *
 * Probes PHOTO, then decodes its gain map RUNS times (default 9) as a
 * collage does (sy__gainmap_decode_reduced, REDUCE default 1; 0: as an edit's
 * save does, sy_gainmap_decode, on two threads when there are two cores); prints each
 * run's wall and process CPU time, their medians, the engine's peak bytes and
 * a 64-bit FNV-1a of the map's pixels (the same map gives the same hash). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gainmap/sy_gainmap_internal.h"
#include "sy_gainmap.h"

static double clock_s(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 2) return fprintf(stderr, "usage: %s PHOTO [RUNS] [REDUCE]\n", argv[0]), 2;
    int runs = argc > 2 ? atoi(argv[2]) : 9;
    uint32_t reduce = argc > 3 ? (uint32_t)atoi(argv[3]) : 1;
    if (runs < 1 || runs > 1000) runs = 9;
    sy_context *ctx = NULL;
    sy_error err = {0};
    if (sy_context_create(NULL, &ctx, &err) != SY_OK) return fprintf(stderr, "%s\n", err.message), 1;
    sy_gainmap_info info;
    if (sy_gainmap_probe(ctx, argv[1], &info, &err) != SY_OK) return fprintf(stderr, "%s\n", err.message), 1;
    double wall[1000], cpu[1000];
    uint64_t hash = 0;
    for (int i = 0; i < runs; i++) {
        sy_gainmap_image map;
        double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        if ((reduce ? sy__gainmap_decode_reduced(ctx, argv[1], &info, reduce, &map, &err)
                    : sy_gainmap_decode(ctx, argv[1], &info, &map, &err)) != SY_OK)
            return fprintf(stderr, "%s\n", err.message), 1;
        wall[i] = (clock_s(CLOCK_MONOTONIC) - w0) * 1e3, cpu[i] = (clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e3;
        hash = 14695981039346656037ull;
        for (uint32_t y = 0; y < map.height; y++)
            for (size_t x = 0; x < (size_t)map.width * map.channels; x++)
                hash = (hash ^ map.pixels[y * map.stride + x]) * 1099511628211ull;
        printf("run %d: %.2f ms wall, %.2f ms CPU\n", i, wall[i], cpu[i]);
        sy_gainmap_image_free(ctx, &map);
    }
    sy_memory_stats stats;
    sy_context_memory_stats(ctx, &stats);
    qsort(wall, (size_t)runs, sizeof *wall, by_value);
    qsort(cpu, (size_t)runs, sizeof *cpu, by_value);
    printf("map %ux%u x%u: median %.2f ms wall, %.2f ms CPU; peak %llu bytes; pixels fnv1a %016llx\n", info.map_width,
           info.map_height, reduce, wall[runs / 2], cpu[runs / 2], (unsigned long long)stats.peak_bytes,
           (unsigned long long)hash);
    sy_context_destroy(ctx);
    return 0;
}
