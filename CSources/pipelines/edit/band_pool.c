/* band_pool.c — renders a target in row bands on up to 8 threads, either
 * into one whole image or through a small ring of band buffers handed in
 * order to a consumer (the encoder) on the calling thread.
 *
 * Why a ring and not "render all, then encode": the full-size output never
 * exists in memory (a 12 MP save holds 4 bands of ~1 MiB, not 30 MB), and the calling
 * thread renders bands itself whenever the next one to encode is not ready,
 * so encoding overlaps rendering and both cores stay busy. The bytes do not
 * depend on the split: sy_renderer_render_rows guarantees that. */
#include <pthread.h>
#include <string.h>

#include "edit/sy_band_pool.h"

typedef struct pool {
    const sy_renderer *r;
    const sy_pixels *src;
    uint32_t height, band_rows, bands;
    size_t stride;
    uint8_t *whole;             /* whole-image mode */
    uint8_t *ring;              /* ring mode: `slots` bands */
    uint32_t slots;
    uint32_t ready[SY__POOL_SLOTS]; /* ring mode: band index + 1 rendered in the slot, 0 = none */
    uint32_t next_render, next_consume;
    int failed;
    sy_status status;
    sy_error err;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} pool;

static uint8_t *band_memory(pool *p, uint32_t band) {
    size_t band_bytes = (size_t)p->band_rows * p->stride;
    return p->whole ? p->whole + (size_t)band * band_bytes : p->ring + (size_t)(band % p->slots) * band_bytes;
}

/* Under the lock: the next band to render, if one may start now. */
static int claim(pool *p, uint32_t *band) {
    if (p->failed || p->next_render >= p->bands) return 0;
    if (p->ring && p->next_render >= p->next_consume + p->slots) return 0; /* ring full */
    *band = p->next_render++;
    return 1;
}

static void fail_locked(pool *p, sy_status st, const sy_error *e) {
    if (!p->failed) {
        p->failed = 1;
        p->status = st;
        p->err = *e;
    }
    pthread_cond_broadcast(&p->cv);
}

/* Called with the lock held; renders without it. */
static void render_band(pool *p, uint32_t band) {
    pthread_mutex_unlock(&p->mu);
    uint32_t y0 = band * p->band_rows, n = SY__MIN(p->band_rows, p->height - y0);
    sy_error e = {0};
    sy_status st = sy_renderer_render_rows(p->r, p->src, y0, n, band_memory(p, band), p->stride, &e);
    pthread_mutex_lock(&p->mu);
    if (st != SY_OK) {
        fail_locked(p, st, &e);
        return;
    }
    if (p->ring) p->ready[band % p->slots] = band + 1;
    pthread_cond_broadcast(&p->cv);
}

static void *worker(void *arg) {
    pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        uint32_t band;
        if (claim(p, &band)) {
            render_band(p, band);
            continue;
        }
        if (p->failed || p->next_render >= p->bands) break;
        pthread_cond_wait(&p->cv, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* The calling thread: consumes ready bands in order (ring mode), renders otherwise. */
static void drive(pool *p, sy__band_consumer consume, void *user) {
    pthread_mutex_lock(&p->mu);
    while (!p->failed) {
        if (p->ring) {
            if (p->next_consume >= p->bands) break;
            uint32_t slot = p->next_consume % p->slots;
            if (p->ready[slot] == p->next_consume + 1) {
                uint32_t band = p->next_consume, y0 = band * p->band_rows;
                pthread_mutex_unlock(&p->mu);
                sy_error e = {0};
                sy_status st = consume(user, y0, SY__MIN(p->band_rows, p->height - y0), band_memory(p, band), p->stride, &e);
                pthread_mutex_lock(&p->mu);
                if (st != SY_OK) {
                    fail_locked(p, st, &e);
                    break;
                }
                p->ready[slot] = 0;
                p->next_consume++;
                pthread_cond_broadcast(&p->cv);
                continue;
            }
        } else if (p->next_render >= p->bands) {
            break;
        }
        uint32_t band;
        if (claim(p, &band)) {
            render_band(p, band);
            continue;
        }
        pthread_cond_wait(&p->cv, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
}

sy_status sy__render_bands(sy_context *ctx, const sy_renderer *r, const sy_pixels *src, uint32_t threads,
                           uint8_t *whole, size_t whole_stride, sy__band_consumer consume, void *user,
                           sy_error *err) {
    uint32_t width, height;
    sy_renderer_size(r, &width, &height);
    if (threads < 1) threads = 1;
    if (threads > 8) threads = 8;
    pool p = {.r = r, .src = src, .height = height};
    /* Why not small bands: each band call resamples the bounding box of the
     * source it samples, and a straightened band's box is taller than the
     * band by width x tan(angle); few, tall bands keep that overlap small.
     * Whole mode: one band per thread. Ring mode: ~1 MiB per band. */
    uint32_t rows = whole ? (height + threads - 1) / threads : SY__POOL_BAND_BYTES / (width * 3 + 1);
    p.band_rows = SY__MAX(rows, SY__POOL_MIN_BAND_ROWS);
    p.bands = (height + p.band_rows - 1) / p.band_rows;
    if (whole) {
        p.whole = whole;
        p.stride = whole_stride;
    } else {
        p.stride = (size_t)width * 3;
        p.slots = SY__POOL_SLOTS;
        p.ring = sy__alloc(ctx, (size_t)p.slots * p.band_rows, p.stride, "render band ring", err);
        if (!p.ring) return err ? err->code : SY_E_BUDGET;
    }
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    pthread_t tids[7];
    uint32_t started = 0;
    for (uint32_t i = 1; i < threads && i < p.bands; i++) /* a failed start only means fewer helpers */
        if (pthread_create(&tids[started], NULL, worker, &p) == 0) started++;
    drive(&p, consume, user);
    for (uint32_t i = 0; i < started; i++) pthread_join(tids[i], NULL);
    pthread_cond_destroy(&p.cv);
    pthread_mutex_destroy(&p.mu);
    sy__free(ctx, p.ring);
    if (p.failed) {
        if (err) *err = p.err;
        return p.status;
    }
    return SY_OK;
}
