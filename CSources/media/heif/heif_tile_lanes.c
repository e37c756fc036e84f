/* heif_tile_lanes.c — tiles encoded on several x265 encoders at once, sunk
 * in tile order (see sy_heif_tile_lanes.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "heif/sy_heif_tile_lanes.h"

typedef struct held_tile { /* a finished tile waiting for the tiles before it */
    int64_t pts;
    size_t offset, len; /* in the lane's bytes */
    int keyframe;
} held_tile;

/* A tile row handed to the lanes: where its samples are and which tiles it holds. */
typedef struct row_job {
    uint8_t *plane[3];
    size_t stride[3];
    uint32_t cols, tile_w;
    int64_t first_pts;
} row_job;

typedef struct lane {
    sy__tile_lanes *owner;
    sy__hevc_encoder *enc;
    held_tile *held; /* in pts order; [head, count) not yet sunk (guarded by owner->lock) */
    uint32_t head, count;
    size_t cap;
    uint8_t *bytes;
    size_t bytes_len, bytes_cap;
    uint64_t rows_done; /* rows this lane has finished its part of (guarded by owner->lock) */
    pthread_t thread;
    int has_thread;
    sy_status status; /* the first failure, on the lane's thread; later rows are skipped, still counted done */
    sy_error err;
    sy_status failed; /* `status` as the caller may read it: published with rows_done (guarded by owner->lock) */
    sy_error failed_err;
} lane;

struct sy__tile_lanes {
    sy_context *ctx;
    lane lane[SY__TILE_LANES_MAX];
    uint32_t lanes;
    sy__hevc_sink sink;
    void *user;
    int64_t next_pts; /* the next tile to sink */
    int parallel;     /* each lane runs on a thread of its own, from open to destroy */
    /* Rows in flight: rows_started - rows_finished of them (at most
     * SY__TILE_LANES_ROWS), in job[row % SY__TILE_LANES_ROWS]. */
    row_job job[SY__TILE_LANES_ROWS];
    uint64_t rows_started, rows_finished;
    uint64_t early_starts; /* a lane began a row before another lane had finished the one before */
    pthread_mutex_t lock;
    pthread_cond_t work; /* a row started, or quitting */
    pthread_cond_t done; /* a lane finished its part of a row */
    atomic_int quit;     /* destroy: lanes stop at the next tile */
};

/* ---- holding finished tiles (on the lane's thread) ---- */

/* x265's sink, on the lane's thread (or the caller's, in a flush): the
 * caller's drain reads the held tiles at the same time, so under the lock. */
static sy_status hold(void *user, const sy__hevc_packet *tile, sy_error *err) {
    lane *l = user;
    sy_context *ctx = l->owner->ctx;
    pthread_mutex_lock(&l->owner->lock);
    void *held = l->held, *bytes = l->bytes;
    sy_status st = sy__grow(ctx, &held, &l->cap, (size_t)l->count + 1, sizeof *l->held, 16, "held tiles", err);
    l->held = held;
    if (st == SY_OK) st = sy__grow(ctx, &bytes, &l->bytes_cap, l->bytes_len + tile->len, 1, 16, "held tile bytes", err);
    l->bytes = bytes;
    if (st == SY_OK) {
        memcpy(l->bytes + l->bytes_len, tile->data, tile->len);
        l->held[l->count++] = (held_tile){tile->pts, l->bytes_len, tile->len, tile->keyframe};
        l->bytes_len += tile->len;
    }
    pthread_mutex_unlock(&l->owner->lock);
    return st;
}

/* ---- sinking in tile order (on the caller's thread, under the lock) ---- */

static void compact(lane *l) {
    if (l->head == 0) return;
    uint32_t left = l->count - l->head;
    size_t from = left ? l->held[l->head].offset : l->bytes_len;
    memmove(l->bytes, l->bytes + from, l->bytes_len - from);
    l->bytes_len -= from;
    for (uint32_t i = 0; i < left; i++) {
        l->held[i] = l->held[l->head + i];
        l->held[i].offset -= from;
    }
    l->head = 0;
    l->count = left;
}

static sy_status drain(sy__tile_lanes *t, sy_error *err) {
    for (;;) {
        lane *l = &t->lane[t->next_pts % t->lanes];
        if (l->head == l->count || l->held[l->head].pts != t->next_pts) break;
        const held_tile *h = &l->held[l->head];
        sy__hevc_packet packet = {l->bytes + h->offset, h->len, h->pts, h->keyframe};
        sy_status st = t->sink(t->user, &packet, err);
        if (st != SY_OK) return st;
        l->head++;
        t->next_pts++;
    }
    for (uint32_t i = 0; i < t->lanes; i++) compact(&t->lane[i]);
    return SY_OK;
}

/* ---- encoding a lane's part of a row ---- */

static void encode_part(lane *l, const row_job *job) {
    sy__tile_lanes *t = l->owner;
    uint32_t step = t->lanes;
    /* lane i takes the tiles with (first_pts + c) % lanes == i */
    uint32_t first = (uint32_t)(((uint64_t)(l - t->lane) + t->lanes - (uint64_t)job->first_pts % t->lanes) % t->lanes);
    for (uint32_t c = first; c < job->cols && l->status == SY_OK; c += step) {
        if (atomic_load(&t->quit)) return;
        if ((l->status = sy__check_cancel(t->ctx, &l->err)) != SY_OK) return;
        size_t chroma = (size_t)c * (job->tile_w / 2);
        uint8_t *planes[3] = {job->plane[0] + (size_t)c * job->tile_w, job->plane[1] ? job->plane[1] + chroma : NULL,
                              job->plane[2] ? job->plane[2] + chroma : NULL};
        l->status = sy__hevc_encoder_push(l->enc, planes, job->stride, job->first_pts + c, &l->err);
    }
}

/* Makes the lane's failure, if any, readable by the caller (under the lock):
 * the lane writes `status` and `err` while the caller may already look at
 * the row before. */
static void publish(lane *l) {
    if (l->status != SY_OK && l->failed == SY_OK) {
        l->failed_err = l->err;
        l->failed = l->status;
    }
}

static uint64_t rows_all_lanes_did(const sy__tile_lanes *t) {
    uint64_t least = t->lane[0].rows_done;
    for (uint32_t i = 1; i < t->lanes; i++)
        if (t->lane[i].rows_done < least) least = t->lane[i].rows_done;
    return least;
}

/* A lane's thread: its part of each row as the rows start, in order; it does
 * not wait for the other lanes, so a lane with fewer tiles in this row starts
 * the next one. */
static void *lane_main(void *arg) {
    lane *l = arg;
    sy__tile_lanes *t = l->owner;
    pthread_mutex_lock(&t->lock);
    for (;;) {
        while (!atomic_load(&t->quit) && l->rows_done == t->rows_started) pthread_cond_wait(&t->work, &t->lock);
        if (atomic_load(&t->quit)) break;
        row_job job = t->job[l->rows_done % SY__TILE_LANES_ROWS];
        if (rows_all_lanes_did(t) < l->rows_done) t->early_starts++;
        pthread_mutex_unlock(&t->lock);
        if (l->status == SY_OK) encode_part(l, &job);
        pthread_mutex_lock(&t->lock);
        publish(l);
        l->rows_done++;
        pthread_cond_broadcast(&t->done);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

/* ---- open ---- */

static uint32_t pool_threads(const sy__hevc_encoder_options *o, uint32_t lanes) {
    long all = o->threads ? (long)o->threads : sysconf(_SC_NPROCESSORS_ONLN);
    long each = all / (long)lanes;
    return each < 1 ? 1 : (uint32_t)each;
}

static int same_hvcc(const sy__hevc_encoder *a, const sy__hevc_encoder *b) {
    size_t la, lb;
    const uint8_t *ha = sy__hevc_encoder_hvcc(a, &la), *hb = sy__hevc_encoder_hvcc(b, &lb);
    return la == lb && memcmp(ha, hb, la) == 0;
}

/* Stops and joins the lanes' threads; rows in flight are abandoned. */
static void stop_threads(sy__tile_lanes *t) {
    pthread_mutex_lock(&t->lock);
    atomic_store(&t->quit, 1);
    pthread_cond_broadcast(&t->work);
    pthread_mutex_unlock(&t->lock);
    for (uint32_t i = 0; i < t->lanes; i++) {
        if (t->lane[i].has_thread) pthread_join(t->lane[i].thread, NULL);
        t->lane[i].has_thread = 0;
    }
    t->parallel = 0;
}

/* One thread per lane; when one cannot start, none runs (the caller's thread
 * encodes every lane's part, the same bytes). */
static void start_threads(sy__tile_lanes *t) {
    for (uint32_t i = 0; i < t->lanes; i++) {
        lane *l = &t->lane[i];
        l->has_thread = pthread_create(&l->thread, NULL, lane_main, l) == 0;
        if (!l->has_thread) {
            stop_threads(t);
            atomic_store(&t->quit, 0);
            return;
        }
    }
}

sy_status sy__tile_lanes_open(sy_context *ctx, const sy__hevc_encoder_options *o, uint32_t lanes, sy__hevc_sink sink,
                              void *user, sy__tile_lanes **out, sy_error *err) {
    *out = NULL;
    if (lanes < 1) lanes = 1;
    if (lanes > SY__TILE_LANES_MAX) lanes = SY__TILE_LANES_MAX;
    sy__tile_lanes *t = sy__calloc(ctx, 1, sizeof *t, "tile lanes", err);
    if (!t) return err ? err->code : SY_E_BUDGET;
    t->ctx = ctx;
    t->sink = sink;
    t->user = user;
    atomic_init(&t->quit, 0);
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->work, NULL);
    pthread_cond_init(&t->done, NULL);
    sy__hevc_encoder_options each = *o;
    each.threads = pool_threads(o, lanes);
    for (uint32_t i = 0; i < lanes; i++) {
        lane *l = &t->lane[i];
        l->owner = t;
        sy_error spare;
        sy_status st = sy__hevc_encoder_open(ctx, &each, hold, l, &l->enc, i == 0 ? err : &spare);
        if (st != SY_OK && i == 0) {
            sy__tile_lanes_destroy(t);
            return st;
        }
        /* A lane more that does not fit the budget, or whose parameter sets
         * differ, is left out: fewer lanes only take longer. */
        if (st != SY_OK || !same_hvcc(t->lane[0].enc, l->enc)) {
            sy__hevc_encoder_destroy(l->enc);
            l->enc = NULL;
            break;
        }
        t->lanes++;
    }
    t->parallel = o->threads != 1;
    if (t->parallel) start_threads(t);
    *out = t;
    return SY_OK;
}

uint64_t sy__tile_lanes_early_starts(sy__tile_lanes *t) {
    pthread_mutex_lock(&t->lock);
    uint64_t n = t->early_starts;
    pthread_mutex_unlock(&t->lock);
    return n;
}

const uint8_t *sy__tile_lanes_hvcc(const sy__tile_lanes *t, size_t *len) {
    return sy__hevc_encoder_hvcc(t->lane[0].enc, len);
}

/* ---- rows ---- */

/* The first failed lane's error, by lane order (under the lock). */
static sy_status first_failure(sy__tile_lanes *t, sy_error *err) {
    for (uint32_t i = 0; i < t->lanes; i++)
        if (t->lane[i].failed != SY_OK) {
            if (err) *err = t->lane[i].failed_err;
            return t->lane[i].failed;
        }
    return SY_OK;
}

void sy__tile_lanes_start_row(sy__tile_lanes *t, uint8_t *const plane[3], const size_t stride[3], uint32_t cols,
                              uint32_t tile_w, int64_t first_pts) {
    pthread_mutex_lock(&t->lock);
    row_job *job = &t->job[t->rows_started % SY__TILE_LANES_ROWS];
    memcpy(job->plane, plane, sizeof job->plane);
    memcpy(job->stride, stride, sizeof job->stride);
    job->cols = cols;
    job->tile_w = tile_w;
    job->first_pts = first_pts;
    t->rows_started++;
    pthread_cond_broadcast(&t->work);
    pthread_mutex_unlock(&t->lock);
}

/* Without threads the caller encodes each lane's part of the rows it waits for. */
static void encode_here(sy__tile_lanes *t, uint64_t until) {
    for (uint32_t i = 0; i < t->lanes; i++) {
        lane *l = &t->lane[i];
        while (l->rows_done < until) {
            if (l->status == SY_OK) encode_part(l, &t->job[l->rows_done % SY__TILE_LANES_ROWS]);
            pthread_mutex_lock(&t->lock);
            publish(l);
            l->rows_done++;
            pthread_mutex_unlock(&t->lock);
        }
    }
}

sy_status sy__tile_lanes_finish_rows(sy__tile_lanes *t, uint32_t keep, sy_error *err) {
    if (t->rows_started - t->rows_finished <= keep) return SY_OK;
    uint64_t until = t->rows_started - keep;
    if (!t->parallel) encode_here(t, until);
    pthread_mutex_lock(&t->lock);
    while (rows_all_lanes_did(t) < until) pthread_cond_wait(&t->done, &t->lock);
    t->rows_finished = until;
    sy_status st = first_failure(t, err);
    if (st == SY_OK) st = drain(t, err);
    pthread_mutex_unlock(&t->lock);
    return st;
}

sy_status sy__tile_lanes_finish_row(sy__tile_lanes *t, sy_error *err) { return sy__tile_lanes_finish_rows(t, 0, err); }

sy_status sy__tile_lanes_encode_row(sy__tile_lanes *t, uint8_t *const plane[3], const size_t stride[3], uint32_t cols,
                                    uint32_t tile_w, int64_t first_pts, sy_error *err) {
    sy_status st = sy__tile_lanes_finish_row(t, err);
    if (st != SY_OK) return st;
    sy__tile_lanes_start_row(t, plane, stride, cols, tile_w, first_pts);
    return sy__tile_lanes_finish_row(t, err);
}

sy_status sy__tile_lanes_flush(sy__tile_lanes *t, sy_error *err) {
    sy_status st = sy__tile_lanes_finish_row(t, err);
    if (st != SY_OK) return st;
    for (uint32_t i = 0; i < t->lanes; i++) {
        if ((st = sy__hevc_encoder_flush(t->lane[i].enc, err)) != SY_OK) return st;
    }
    pthread_mutex_lock(&t->lock);
    st = drain(t, err);
    for (uint32_t i = 0; i < t->lanes && st == SY_OK; i++)
        if (t->lane[i].count != 0)
            st = sy__fail(err, SY_E_CODEC, "x265: tile %lld finished but tile %lld never did",
                          (long long)t->lane[i].held[0].pts, (long long)t->next_pts);
    pthread_mutex_unlock(&t->lock);
    return st;
}

void sy__tile_lanes_destroy(sy__tile_lanes *t) {
    if (!t) return;
    stop_threads(t); /* never free what a lane still reads or writes */
    for (uint32_t i = 0; i < SY__TILE_LANES_MAX; i++) {
        lane *l = &t->lane[i];
        sy__hevc_encoder_destroy(l->enc);
        sy__free(t->ctx, l->held);
        sy__free(t->ctx, l->bytes);
    }
    pthread_cond_destroy(&t->done);
    pthread_cond_destroy(&t->work);
    pthread_mutex_destroy(&t->lock);
    sy__free(t->ctx, t);
}
