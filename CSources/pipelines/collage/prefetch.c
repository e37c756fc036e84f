/* prefetch.c — see sy_prefetch.h. */
#include <pthread.h>
#include <string.h>

#include "base/sy_internal.h"
#include "collage/sy_prefetch.h"

/* STREAMING: begun and handed out, rows [0, rows_ready) final, still building. */
enum slot_state { SLOT_WAITING, SLOT_BUILDING, SLOT_STREAMING, SLOT_READY, SLOT_RELEASED };

typedef struct slot {
    enum slot_state state;
    sy__cell cell;
    size_t held;         /* bytes counted against the cap for this slot */
    uint32_t rows_ready; /* STREAMING */
    int release_wanted;  /* released by the strip loop while still STREAMING */
} slot;

struct sy__prefetch {
    sy_context *ctx;
    sy__cell_job *jobs;
    slot *slots;
    uint32_t count, chroma_shift;
    size_t cap, held, peak_held;
    uint32_t next;           /* next cell a worker will start */
    int64_t needed_through;  /* highest index the strip loop waits for */
    int stopping;
    int exclusive_building;  /* a cell that uses every thread is being built */
    sy_status fatal;         /* a worker could not even paint grey */
    sy_error fatal_err;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pthread_t threads[8];
    struct worker_arg {
        struct sy__prefetch *pf;
        int index;
    } args[8];
    int thread_count;
    int threads_wanted;      /* set before any worker starts: what cells may decode on */
};

/* A HEIC cell decodes each tile row on every worker thread, within the job's
 * memory less its cell (sy__cell_build), so it starts only when the strip
 * loop needs it, and nothing starts early while it builds. Such cells are
 * all built by worker 0: the HEVC decoder's heap then stays in one thread's
 * malloc arena instead of one per worker (resident memory, not the engine's). */
static int uses_every_thread(const sy__prefetch *pf, const sy__cell_job *job) {
    return pf->threads_wanted > 1 && job->info && job->info->format == SY_FORMAT_HEIF;
}

/* Estimate used to decide whether a cell may start early. */
static size_t estimate(const sy__prefetch *pf, const sy__cell_job *job) {
    size_t planes = sy__cell_plane_bytes(job->rect.width, job->rect.height, pf->chroma_shift);
    if (!job->info) return planes;
    size_t pixels = (size_t)job->info->stored_width * job->info->stored_height;
    /* One thread: one decoded tile, the decoder's state and a tile row of
     * pixels; with this estimate HEIC cells mostly decode one at a time. */
    if (job->info->format == SY_FORMAT_HEIF) return planes + 2560u * 1024;
    if (job->info->progressive) return planes + pixels * 3;
    return planes + 256 * 1024;
}

/* ---- streamed cells (sy__cell_stream, on the building worker) ---- */

typedef struct stream_target {
    sy__prefetch *pf;
    uint32_t index;
} stream_target;

static void stream_begin(void *user, const sy__cell *cell) {
    stream_target *t = user;
    pthread_mutex_lock(&t->pf->lock);
    slot *s = &t->pf->slots[t->index];
    s->cell = *cell;
    s->rows_ready = 0;
    s->state = SLOT_STREAMING;
    pthread_cond_broadcast(&t->pf->changed);
    pthread_mutex_unlock(&t->pf->lock);
}

static void stream_rows(void *user, uint32_t ready) {
    stream_target *t = user;
    pthread_mutex_lock(&t->pf->lock);
    t->pf->slots[t->index].rows_ready = ready;
    pthread_cond_broadcast(&t->pf->changed);
    pthread_mutex_unlock(&t->pf->lock);
}

/* Whether slot i was begun as a stream (its cell's planes are the reader's too). */
static int streaming(sy__prefetch *pf, uint32_t i) {
    pthread_mutex_lock(&pf->lock);
    int on = pf->slots[i].state == SLOT_STREAMING;
    pthread_mutex_unlock(&pf->lock);
    return on;
}

static void build(sy__prefetch *pf, uint32_t i, sy__cell *cell) {
    sy__cell_job *job = &pf->jobs[i];
    sy_error err = {0};
    sy_status st = SY_E_INVALID_INPUT;
    stream_target target = {pf, i};
    const sy__cell_stream stream = {stream_begin, stream_rows, &target};
    if (job->info) {
        st = sy__cell_build(pf->ctx, job->path, job->info, job->rect.width, job->rect.height, pf->chroma_shift,
                            (uint32_t)pf->threads_wanted, job->space,
                            job->alone && uses_every_thread(pf, job) ? &stream : NULL, cell, &job->working_bytes,
                            &err);
    }
    if (st == SY_OK) return;
    if (st == SY_E_CANCELLED) {
        job->failure = st;
        return;
    }
    if (job->info) { /* decode failed after a good probe: grey, with the reason */
        job->failure = st;
        snprintf(job->reason, sizeof job->reason, "%s", err.message);
    }
    if (streaming(pf, i)) { /* rows already read stay; the rest goes grey */
        *cell = pf->slots[i].cell;
        sy__cell_grey_rows(cell, pf->slots[i].rows_ready);
        return;
    }
    st = sy__cell_grey(pf->ctx, job->rect.width, job->rect.height, pf->chroma_shift, cell, &err);
    if (st != SY_OK) {
        pthread_mutex_lock(&pf->lock);
        if (!pf->fatal) pf->fatal = st, pf->fatal_err = err;
        pthread_mutex_unlock(&pf->lock);
    }
}

static void *worker(void *arg) {
    struct worker_arg *self = arg;
    sy__prefetch *pf = self->pf;
    pthread_mutex_lock(&pf->lock);
    for (;;) {
        /* Start the next cell when the strip loop needs it, or when it is at most
         * one cell per worker ahead and fits under the cap. */
        while (!pf->stopping && pf->next < pf->count &&
               ((self->index != 0 && uses_every_thread(pf, &pf->jobs[pf->next])) ||
                ((int64_t)pf->next > pf->needed_through &&
                 ((int64_t)pf->next > pf->needed_through + pf->thread_count || pf->exclusive_building ||
                  uses_every_thread(pf, &pf->jobs[pf->next]) ||
                  pf->held + estimate(pf, &pf->jobs[pf->next]) > pf->cap))))
            pthread_cond_wait(&pf->changed, &pf->lock);
        if (pf->stopping || pf->next >= pf->count) break;
        uint32_t i = pf->next++;
        size_t guess = estimate(pf, &pf->jobs[i]);
        pf->held += guess;
        if (pf->held > pf->peak_held) pf->peak_held = pf->held;
        pf->slots[i].state = SLOT_BUILDING;
        int exclusive = uses_every_thread(pf, &pf->jobs[i]);
        if (exclusive) pf->exclusive_building++;
        pthread_mutex_unlock(&pf->lock);

        sy__cell cell = {0};
        build(pf, i, &cell);

        pthread_mutex_lock(&pf->lock);
        if (exclusive) pf->exclusive_building--;
        slot *done = &pf->slots[i];
        if (done->release_wanted) { /* read to the end while it was finishing */
            sy__cell_release(pf->ctx, &cell);
            memset(&done->cell, 0, sizeof done->cell);
            pf->held -= guess;
            done->state = SLOT_RELEASED;
        } else {
            pf->held = pf->held - guess + cell.bytes;
            done->held = cell.bytes;
            /* A streamed slot holds this cell since stream_begin, and the
             * strip loop reads its fields through sy__prefetch_get's pointer
             * without the lock: storing them again (same values) would race. */
            if (done->state != SLOT_STREAMING) done->cell = cell;
            done->state = SLOT_READY;
        }
        pthread_cond_broadcast(&pf->changed);
    }
    pthread_cond_broadcast(&pf->changed);
    pthread_mutex_unlock(&pf->lock);
    return NULL;
}

sy_status sy__prefetch_start(sy_context *ctx, sy__cell_job *jobs, uint32_t count, uint32_t chroma_shift,
                             int threads, size_t cap, sy__prefetch **out, sy_error *err) {
    *out = NULL;
    sy__prefetch *pf = sy__calloc(ctx, 1, sizeof *pf, "prefetch", err);
    if (!pf) return err ? err->code : SY_E_BUDGET;
    pf->slots = sy__calloc(ctx, count ? count : 1, sizeof *pf->slots, "prefetch slots", err);
    if (!pf->slots) {
        sy__free(ctx, pf);
        return err ? err->code : SY_E_BUDGET;
    }
    pf->ctx = ctx;
    pf->jobs = jobs;
    pf->count = count;
    pf->chroma_shift = chroma_shift;
    pf->cap = cap;
    pf->needed_through = -1;
    pthread_mutex_init(&pf->lock, NULL);
    pthread_cond_init(&pf->changed, NULL);
    if (threads < 1) threads = 1;
    if (threads > 8) threads = 8;
    pf->threads_wanted = threads;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 1u << 20);
    for (int t = 0; t < threads; t++) {
        pf->args[t] = (struct worker_arg){.pf = pf, .index = t};
        if (pthread_create(&pf->threads[t], &attr, worker, &pf->args[t]) != 0) break;
        pf->thread_count++;
    }
    pthread_attr_destroy(&attr);
    if (pf->thread_count == 0) {
        sy__prefetch_stop(pf);
        return sy__fail(err, SY_E_BUDGET, "collage: cannot start a decode thread");
    }
    *out = pf;
    return SY_OK;
}

const sy__cell *sy__prefetch_get(sy__prefetch *pf, uint32_t index, sy_error *err) {
    pthread_mutex_lock(&pf->lock);
    if ((int64_t)index > pf->needed_through) {
        pf->needed_through = index;
        pthread_cond_broadcast(&pf->changed);
    }
    while (pf->slots[index].state != SLOT_READY && pf->slots[index].state != SLOT_STREAMING && !pf->fatal) {
        if (pf->slots[index].state == SLOT_RELEASED) break;
        pthread_cond_wait(&pf->changed, &pf->lock);
    }
    const sy__cell *cell = NULL;
    /* A job's failure is written by its worker without the lock, before the
     * slot turns READY (under it): read only then, never while STREAMING. */
    int built = pf->slots[index].state != SLOT_STREAMING;
    if (pf->fatal) {
        if (err) *err = pf->fatal_err;
    } else if (built && pf->jobs[index].failure == SY_E_CANCELLED) {
        sy__fail(err, SY_E_CANCELLED, "cancelled");
    } else if (pf->slots[index].state == SLOT_READY || pf->slots[index].state == SLOT_STREAMING) {
        cell = &pf->slots[index].cell;
    } else {
        sy__fail(err, SY_E_USAGE, "collage: cell %u used after release", index);
    }
    pthread_mutex_unlock(&pf->lock);
    return cell;
}

sy_status sy__prefetch_rows(sy__prefetch *pf, uint32_t index, uint32_t rows, sy_error *err) {
    pthread_mutex_lock(&pf->lock);
    slot *s = &pf->slots[index];
    while (s->state == SLOT_STREAMING && s->rows_ready < rows && !pf->fatal)
        pthread_cond_wait(&pf->changed, &pf->lock);
    sy_status st = SY_OK;
    if (pf->fatal) {
        st = pf->fatal;
        if (err) *err = pf->fatal_err;
    } else if (s->state != SLOT_STREAMING && pf->jobs[index].failure == SY_E_CANCELLED) { /* see _get */
        st = sy__fail(err, SY_E_CANCELLED, "cancelled");
    }
    pthread_mutex_unlock(&pf->lock);
    return st;
}

void sy__prefetch_done_rows(sy__prefetch *pf, uint32_t index, uint32_t rows) {
    pthread_mutex_lock(&pf->lock);
    slot *s = &pf->slots[index];
    sy__cell cell = s->state == SLOT_READY || s->state == SLOT_STREAMING ? s->cell : (sy__cell){0};
    pthread_mutex_unlock(&pf->lock);
    /* rows the builder wrote and the strip loop read: neither touches them again */
    if (cell.plane[0]) sy__cell_discard_rows(pf->ctx, &cell, rows);
}

void sy__prefetch_release(sy__prefetch *pf, uint32_t index) {
    pthread_mutex_lock(&pf->lock);
    slot *s = &pf->slots[index];
    if (s->state == SLOT_STREAMING) s->release_wanted = 1;
    if (s->state == SLOT_READY) {
        sy__cell_release(pf->ctx, &s->cell);
        pf->held -= s->held;
        s->held = 0;
        s->state = SLOT_RELEASED;
        pthread_cond_broadcast(&pf->changed);
    }
    pthread_mutex_unlock(&pf->lock);
}

size_t sy__prefetch_stop(sy__prefetch *pf) {
    if (!pf) return 0;
    pthread_mutex_lock(&pf->lock);
    pf->stopping = 1;
    pthread_cond_broadcast(&pf->changed);
    pthread_mutex_unlock(&pf->lock);
    for (int t = 0; t < pf->thread_count; t++) pthread_join(pf->threads[t], NULL);
    for (uint32_t i = 0; i < pf->count; i++) sy__cell_release(pf->ctx, &pf->slots[i].cell);
    size_t peak = pf->peak_held;
    pthread_mutex_destroy(&pf->lock);
    pthread_cond_destroy(&pf->changed);
    sy_context *ctx = pf->ctx;
    sy__free(ctx, pf->slots);
    sy__free(ctx, pf);
    return peak;
}
