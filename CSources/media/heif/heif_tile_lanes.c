/* heif_tile_lanes.c — tiles encoded on several x265 encoders at once, sunk
 * in tile order (see sy_heif_tile_lanes.h). */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "heif/sy_heif_tile_lanes.h"

typedef struct held_tile { /* a finished tile waiting for the tiles before it */
    int64_t pts;
    size_t offset, len; /* in the lane's bytes */
    int keyframe;
} held_tile;

typedef struct lane {
    sy__tile_lanes *owner;
    sy__hevc_encoder *enc;
    held_tile *held; /* in pts order; [head, count) not yet sunk */
    uint32_t head, count, cap;
    uint8_t *bytes;
    size_t bytes_len, bytes_cap;
    /* the row being encoded */
    uint8_t *plane[3];
    size_t stride[3];
    uint32_t first_col, cols, tile_w;
    pthread_t thread;
    int started; /* thread runs this lane's part of the row */
    int64_t first_pts;
    sy_status status;
    sy_error err;
} lane;

struct sy__tile_lanes {
    sy_context *ctx;
    lane lane[SY__TILE_LANES_MAX];
    uint32_t lanes;
    sy__hevc_sink sink;
    void *user;
    int64_t next_pts; /* the next tile to sink */
    int parallel;     /* lanes run on threads of their own */
    int in_flight;    /* a row was started and not finished */
};

/* ---- holding finished tiles (on the lane's thread) ---- */

/* `buf` with room for `need` units: itself, or a bigger copy (the old one
 * freed); NULL when the budget refuses (buf kept). */
static void *grown(sy_context *ctx, void *buf, size_t *cap, size_t need, size_t unit, const char *what,
                   sy_error *err) {
    if (need <= *cap) return buf;
    size_t n = *cap ? *cap : 16;
    while (n < need) n *= 2;
    void *bigger = sy__alloc(ctx, n, unit, what, err);
    if (!bigger) return NULL;
    if (buf) memcpy(bigger, buf, *cap * unit);
    sy__free(ctx, buf);
    *cap = n;
    return bigger;
}

static sy_status hold(void *user, const sy__hevc_packet *tile, sy_error *err) {
    lane *l = user;
    sy_context *ctx = l->owner->ctx;
    size_t cap = l->cap;
    held_tile *held = grown(ctx, l->held, &cap, (size_t)l->count + 1, sizeof *held, "held tiles", err);
    if (!held) return err ? err->code : SY_E_BUDGET;
    l->held = held;
    l->cap = (uint32_t)cap;
    uint8_t *bytes = grown(ctx, l->bytes, &l->bytes_cap, l->bytes_len + tile->len, 1, "held tile bytes", err);
    if (!bytes) return err ? err->code : SY_E_BUDGET;
    l->bytes = bytes;
    memcpy(l->bytes + l->bytes_len, tile->data, tile->len);
    l->held[l->count++] = (held_tile){tile->pts, l->bytes_len, tile->len, tile->keyframe};
    l->bytes_len += tile->len;
    return SY_OK;
}

/* ---- sinking in tile order (on the caller's thread) ---- */

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
    t->parallel = o->threads != 1;
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
    *out = t;
    return SY_OK;
}

const uint8_t *sy__tile_lanes_hvcc(const sy__tile_lanes *t, size_t *len) {
    return sy__hevc_encoder_hvcc(t->lane[0].enc, len);
}

/* ---- encoding a row ---- */

static void encode_lane(lane *l) {
    uint32_t step = l->owner->lanes;
    l->status = SY_OK;
    for (uint32_t c = l->first_col; c < l->cols; c += step) {
        if ((l->status = sy__check_cancel(l->owner->ctx, &l->err)) != SY_OK) return;
        size_t chroma = (size_t)c * (l->tile_w / 2);
        uint8_t *planes[3] = {l->plane[0] + (size_t)c * l->tile_w, l->plane[1] ? l->plane[1] + chroma : NULL,
                              l->plane[2] ? l->plane[2] + chroma : NULL};
        l->status = sy__hevc_encoder_push(l->enc, planes, l->stride, l->first_pts + c, &l->err);
        if (l->status != SY_OK) return;
    }
}

static void *lane_main(void *arg) {
    encode_lane(arg);
    return NULL;
}

/* The first failed lane's error, by lane order. */
static sy_status first_failure(sy__tile_lanes *t, sy_error *err) {
    for (uint32_t i = 0; i < t->lanes; i++)
        if (t->lane[i].status != SY_OK) {
            if (err) *err = t->lane[i].err;
            return t->lane[i].status;
        }
    return SY_OK;
}

void sy__tile_lanes_start_row(sy__tile_lanes *t, uint8_t *const plane[3], const size_t stride[3], uint32_t cols,
                              uint32_t tile_w, int64_t first_pts) {
    for (uint32_t i = 0; i < t->lanes; i++) {
        lane *l = &t->lane[i];
        memcpy(l->plane, plane, sizeof l->plane);
        memcpy(l->stride, stride, sizeof l->stride);
        l->cols = cols;
        l->tile_w = tile_w;
        l->first_pts = first_pts;
        /* lane i takes the tiles with (first_pts + c) % lanes == i */
        l->first_col = (uint32_t)((i + t->lanes - (uint64_t)first_pts % t->lanes) % t->lanes);
        l->status = SY_OK;
        l->started = t->parallel && l->first_col < cols && pthread_create(&l->thread, NULL, lane_main, l) == 0;
    }
    t->in_flight = 1;
}

/* Waits for the row's lanes; `encode_missing`: a lane without a thread (one
 * thread asked for, or none could start) is encoded here (when giving up, it
 * is not). */
static void join_row(sy__tile_lanes *t, int encode_missing) {
    if (!t->in_flight) return;
    for (uint32_t i = 0; i < t->lanes; i++) {
        lane *l = &t->lane[i];
        if (l->started)
            pthread_join(l->thread, NULL);
        else if (encode_missing)
            encode_lane(l);
        l->started = 0;
    }
    t->in_flight = 0;
}

sy_status sy__tile_lanes_finish_row(sy__tile_lanes *t, sy_error *err) {
    if (!t->in_flight) return SY_OK;
    join_row(t, 1);
    sy_status st = first_failure(t, err);
    return st != SY_OK ? st : drain(t, err);
}

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
    st = drain(t, err);
    if (st != SY_OK) return st;
    for (uint32_t i = 0; i < t->lanes; i++)
        if (t->lane[i].count != 0)
            return sy__fail(err, SY_E_CODEC, "x265: tile %lld finished but tile %lld never did",
                            (long long)t->lane[i].held[0].pts, (long long)t->next_pts);
    return SY_OK;
}

void sy__tile_lanes_destroy(sy__tile_lanes *t) {
    if (!t) return;
    join_row(t, 0); /* never free what a lane still reads or writes */
    for (uint32_t i = 0; i < SY__TILE_LANES_MAX; i++) {
        lane *l = &t->lane[i];
        sy__hevc_encoder_destroy(l->enc);
        sy__free(t->ctx, l->held);
        sy__free(t->ctx, l->bytes);
    }
    sy__free(t->ctx, t);
}
