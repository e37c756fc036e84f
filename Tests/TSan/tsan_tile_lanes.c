/* tsan_tile_lanes.c — ThreadSanitizer run of the HEIF writer's tile lanes
 * (heif/heif_tile_lanes.c; `make tsan`): two x265 encoders on threads of
 * their own, two rows in flight, rows of 3 + 2 tiles so a lane starts the
 * next row while the other finishes; with 1, 2 and 3 pool threads, a
 * destroy with rows in flight, and a cancellation mid-row. Exit 0 with no
 * ThreadSanitizer report; tiles sunk in order and all of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sy_base.h"
#include "base/sy_internal.h"
#include "heif/sy_heif_tile_lanes.h"

typedef struct { int64_t next; size_t bytes; int bad; } sunk;
static sy_status sink(void *user, const sy__hevc_packet *p, sy_error *err) {
    sunk *s = user;
    if (p->pts != s->next) s->bad = 1;
    s->next++;
    s->bytes += p->len;
    return SY_OK;
}

static int run(sy_context *ctx, uint32_t threads, uint32_t rows, int abandon) {
    int cancel = abandon == 2;
    enum { T = 128, COLS = 5 };
    sy__hevc_encoder_options o;
    memset(&o, 0, sizeof o);
    o.use = SY__HEVC_STILLS;
    o.width = o.height = T;
    o.preset = "ultrafast";
    o.threads = threads;
    o.still.quality = 90;
    o.still.pictures = COLS * rows;
    o.still.min_cu_size = 32;
    o.still.rd_level = 1;
    o.colour = (sy_cicp){1, 1, 13, 6, 1, 0};
    sunk s = {0};
    sy_error err;
    sy__tile_lanes *l = NULL;
    if (sy__tile_lanes_open(ctx, &o, 2, sink, &s, &l, &err) != SY_OK) { fprintf(stderr, "open: %s\n", err.message); return 1; }
    size_t w = T * COLS, luma = w * T;
    uint8_t *buf[2] = {malloc(luma * 3 / 2), malloc(luma * 3 / 2)};
    for (uint32_t r = 0; r < rows; r++) {
        uint8_t *b = buf[r % 2];
        for (size_t i = 0; i < luma * 3 / 2; i++) b[i] = (uint8_t)((i * 7 + r * 13 + (i / w) * 3) ^ (i >> 5));
        uint8_t *planes[3] = {b, b + luma, b + luma + luma / 4};
        size_t stride[3] = {w, w / 2, w / 2};
        sy__tile_lanes_start_row(l, planes, stride, COLS, T, (int64_t)r * COLS);
        if (abandon == 1 && r == 2) break; /* destroy with rows in flight */
        if (cancel && r == 3) sy_context_cancel(ctx);
        sy_status st = sy__tile_lanes_finish_rows(l, 1, &err);
        if (cancel && st == SY_E_CANCELLED) { printf("cancelled at row %u: %s\n", r, err.message); break; }
        if (st != SY_OK) { fprintf(stderr, "row: %s\n", err.message); return 1; }
    }
    if (!abandon && sy__tile_lanes_flush(l, &err) != SY_OK) { fprintf(stderr, "flush: %s\n", err.message); return 1; }
    uint64_t early = sy__tile_lanes_early_starts(l);
    sy__tile_lanes_destroy(l);
    free(buf[0]); free(buf[1]);
    if (!abandon && (s.bad || s.next != (int64_t)(COLS * rows))) { fprintf(stderr, "order/count wrong\n"); return 1; }
    printf("threads %u rows %u abandon %d: %lld tiles, %zu bytes, %llu early\n", threads, rows, abandon,
           (long long)s.next, s.bytes, (unsigned long long)early);
    return 0;
}

int main(void) {
    sy_context_options co;
    sy_context_options_init(&co);
    sy_context *ctx = NULL;
    sy_error err;
    if (sy_context_create(&co, &ctx, &err) != SY_OK) return 1;
    int bad = 0;
    for (int k = 0; k < 3; k++) bad |= run(ctx, 2, 8, 0);
    bad |= run(ctx, 1, 8, 0);
    bad |= run(ctx, 3, 6, 0);
    bad |= run(ctx, 2, 6, 1);
    sy_context_destroy(ctx);
    if (sy_context_create(&co, &ctx, &err) != SY_OK) return 1;
    bad |= run(ctx, 2, 8, 2);
    sy_context_destroy(ctx);
    return bad;
}
