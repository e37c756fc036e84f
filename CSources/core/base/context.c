/* context.c — the engine context: accounting allocator, budget, errors,
 * cancellation and progress. */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/sy_internal.h"

/* Blocks at least this large are mmap'ed: freeing them returns the pages at
 * once, so peak-RSS measurements follow the engine's real working set. */
#define SY__MMAP_THRESHOLD (256u * 1024u)

/* Every block carries its size in a 16-byte header (keeps 16-byte alignment). */
typedef struct block_header {
    size_t bytes;
    size_t mapped;
} block_header;

struct sy_context {
    sy_allocator allocator;
    int has_allocator;
    size_t budget;
    sy_progress_fn progress;
    void *progress_user;
    _Atomic uint64_t current;
    _Atomic uint64_t peak;
    _Atomic uint64_t count;
    _Atomic uint64_t codec_opens; /* libavcodec contexts opened (sy__count_codec_open) */
    atomic_int cancelled;
    atomic_flag reporting; /* set while the progress callback runs */
};

void sy_context_options_init(sy_context_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
}

sy_status sy_context_create(const sy_context_options *opts, sy_context **out, sy_error *err) {
    if (!out) return sy__fail(err, SY_E_USAGE, "sy_context_create: out is NULL");
    *out = NULL;
    sy_context_options defaults;
    if (!opts) {
        sy_context_options_init(&defaults);
        opts = &defaults;
    }
    if (opts->version != 1)
        return sy__fail(err, SY_E_USAGE, "sy_context_create: options version %u, expected 1", opts->version);
    if (opts->allocator && (opts->allocator->version != 1 || !opts->allocator->alloc || !opts->allocator->free))
        return sy__fail(err, SY_E_USAGE, "sy_context_create: allocator must be version 1 with alloc and free");
    sy_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return sy__fail(err, SY_E_BUDGET, "sy_context_create: out of memory");
    if (opts->allocator) {
        ctx->allocator = *opts->allocator;
        ctx->has_allocator = 1;
    }
    atomic_flag_clear(&ctx->reporting);
    ctx->budget = opts->budget_bytes;
    ctx->progress = opts->progress;
    ctx->progress_user = opts->progress_user;
    *out = ctx;
    return SY_OK;
}

void sy_context_destroy(sy_context *ctx) {
    if (!ctx) return;
    free(ctx);
}

void sy_context_memory_stats(const sy_context *ctx, sy_memory_stats *out) {
    sy_context *c = (sy_context *)ctx;
    out->current_bytes = atomic_load(&c->current);
    out->peak_bytes = atomic_load(&c->peak);
    out->allocations = atomic_load(&c->count);
}

void sy_context_reset_peak(sy_context *ctx) {
    atomic_store(&ctx->peak, atomic_load(&ctx->current));
    atomic_store(&ctx->count, 0);
}

/* sy_cancel_everything: the process is being interrupted; every context, running or not, is cancelled. */
static atomic_int everything_cancelled;

void sy_cancel_everything(void) { atomic_store(&everything_cancelled, 1); }
void sy_context_cancel(sy_context *ctx) { atomic_store(&ctx->cancelled, 1); }
void sy_context_clear_cancel(sy_context *ctx) { atomic_store(&ctx->cancelled, 0); }
int sy_context_is_cancelled(const sy_context *ctx) {
    return atomic_load(&((sy_context *)ctx)->cancelled) || atomic_load(&everything_cancelled);
}

const char *sy_status_name(sy_status status) {
    switch (status) {
    case SY_OK: return "ok";
    case SY_E_INVALID_INPUT: return "invalid input";
    case SY_E_UNSUPPORTED: return "unsupported";
    case SY_E_USAGE: return "usage";
    case SY_E_BUDGET: return "budget";
    case SY_E_CODEC: return "codec";
    case SY_E_IO: return "io";
    case SY_E_CANCELLED: return "cancelled";
    default: return "unknown";
    }
}

/* ---- accounting ---- */

static void note_peak(sy_context *ctx, uint64_t now) {
    uint64_t peak = atomic_load(&ctx->peak);
    while (now > peak && !atomic_compare_exchange_weak(&ctx->peak, &peak, now)) {
    }
}

/* Adds `bytes` to the current use within the budget; *now = the use with them.
 * The peak is noted by the caller once the bytes really exist, so a refused or
 * failed allocation never shows in it. */
static sy_status reserve(sy_context *ctx, size_t bytes, const char *reason, uint64_t *now, sy_error *err) {
    *now = atomic_fetch_add(&ctx->current, bytes) + bytes;
    if (ctx->budget && *now > ctx->budget) {
        atomic_fetch_sub(&ctx->current, bytes);
        return sy__fail(err, SY_E_BUDGET, "%s: %zu bytes would exceed the budget (%llu in use, budget %zu)",
                        reason, bytes, (unsigned long long)(*now - bytes), ctx->budget);
    }
    return SY_OK;
}

sy_status sy__charge(sy_context *ctx, size_t bytes, const char *reason, sy_error *err) {
    uint64_t now;
    sy_status st = reserve(ctx, bytes, reason, &now, err);
    if (st == SY_OK) note_peak(ctx, now);
    return st;
}

void sy__discharge(sy_context *ctx, size_t bytes) { atomic_fetch_sub(&ctx->current, bytes); }

void sy__count_codec_open(sy_context *ctx) { atomic_fetch_add(&ctx->codec_opens, 1); }

uint64_t sy__codec_opens(const sy_context *ctx) { return atomic_load(&ctx->codec_opens); }

size_t sy__headroom(const sy_context *ctx) {
    if (!ctx->budget) return SIZE_MAX;
    uint64_t now = atomic_load(&ctx->current);
    return now >= ctx->budget ? 0 : (size_t)(ctx->budget - now);
}

void *sy__alloc(sy_context *ctx, size_t count, size_t size, const char *reason, sy_error *err) {
    size_t bytes, total;
    if (!sy__mul_ok(count, size, &bytes) || bytes > SIZE_MAX - sizeof(block_header)) {
        sy__fail(err, SY_E_BUDGET, "%s: size overflow (%zu x %zu)", reason, count, size);
        return NULL;
    }
    if (bytes == 0) bytes = 1;
    total = bytes + sizeof(block_header);
    uint64_t now;
    if (reserve(ctx, bytes, reason, &now, err) != SY_OK) return NULL;
    block_header *h;
    size_t mapped = 0;
    if (ctx->has_allocator) {
        h = ctx->allocator.alloc(ctx->allocator.user, total);
    } else if (total >= SY__MMAP_THRESHOLD) {
        void *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        h = p == MAP_FAILED ? NULL : p;
        mapped = 1;
    } else {
        h = malloc(total);
    }
    if (!h) {
        atomic_fetch_sub(&ctx->current, bytes);
        sy__fail(err, SY_E_BUDGET, "%s: out of memory allocating %zu bytes", reason, bytes);
        return NULL;
    }
    note_peak(ctx, now);
    h->bytes = bytes;
    h->mapped = mapped;
    atomic_fetch_add(&ctx->count, 1);
    return h + 1;
}

sy_status sy__grow(sy_context *ctx, void **buf, size_t *cap, size_t need, size_t unit, size_t first, const char *what,
                   sy_error *err) {
    if (need <= *cap) return SY_OK;
    size_t n = *cap ? *cap : SY__MAX(first, (size_t)1);
    while (n < need) {
        if (n > SIZE_MAX / 2) return sy__fail(err, SY_E_BUDGET, "%s: %zu items overflow", what, need);
        n *= 2;
    }
    void *bigger = sy__alloc(ctx, n, unit, what, err);
    if (!bigger) return err ? err->code : SY_E_BUDGET;
    if (*buf && *cap) memcpy(bigger, *buf, *cap * unit);
    sy__free(ctx, *buf);
    *buf = bigger, *cap = n;
    return SY_OK;
}

void *sy__alloc_copy(sy_context *ctx, const void *src, size_t len, const char *reason, sy_error *err) {
    void *p = sy__alloc(ctx, len, 1, reason, err);
    if (p && len) memcpy(p, src, len);
    return p;
}

void *sy__calloc(sy_context *ctx, size_t count, size_t size, const char *reason, sy_error *err) {
    void *p = sy__alloc(ctx, count, size, reason, err);
    if (p) {
        block_header *h = (block_header *)p - 1;
        if (!h->mapped) memset(p, 0, h->bytes); /* fresh mmap pages are already zero */
    }
    return p;
}

void sy__free(sy_context *ctx, void *ptr) {
    if (!ptr) return;
    block_header *h = (block_header *)ptr - 1;
    size_t bytes = h->bytes;
    atomic_fetch_sub(&ctx->current, bytes);
    if (ctx->has_allocator)
        ctx->allocator.free(ctx->allocator.user, h, bytes + sizeof *h);
    else if (h->mapped)
        munmap(h, bytes + sizeof *h);
    else
        free(h);
}

void sy__discard_pages(sy_context *ctx, void *block, const void *from, size_t len) {
    if (!ctx || !block || !len || ctx->has_allocator) return;
    const block_header *h = (const block_header *)block - 1;
    if (!h->mapped) return;
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = ((uintptr_t)from + page - 1) & ~(page - 1), end = ((uintptr_t)from + len) & ~(page - 1);
    if (end > start) madvise((void *)start, end - start, MADV_DONTNEED);
}

/* ---- errors, cancel, progress ---- */

/* A UTF-8 string's start moved back (or end moved forward) off continuation bytes. */
static size_t char_start(const char *s, size_t i) {
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80) i--;
    return i;
}

/* A message longer than sy_error's buffer keeps its head (the file, usually)
 * and its tail (the reason), with "…" between: cutting the end off would drop
 * the reason, e.g. after a 240-byte file name. */
static sy_status vfail(sy_error *err, sy_status code, int32_t sub, const char *fmt, va_list ap) {
    if (err) {
        err->code = code;
        err->subcode = sub;
        char full[4096];
        int n = vsnprintf(full, sizeof full, fmt, ap);
        size_t len = n < 0 ? 0 : (size_t)n < sizeof full ? (size_t)n : sizeof full - 1;
        full[len] = 0; /* also when formatting failed */
        if (len < sizeof err->message) {
            memcpy(err->message, full, len + 1);
        } else {
            static const char gap[] = "\xe2\x80\xa6"; /* … */
            const size_t cap = sizeof err->message - 1, head = char_start(full, 96);
            size_t tail = len - (cap - head - (sizeof gap - 1));
            while (tail < len && ((unsigned char)full[tail] & 0xC0) == 0x80) tail++;
            size_t at = 0;
            memcpy(err->message, full, head), at += head;
            memcpy(err->message + at, gap, sizeof gap - 1), at += sizeof gap - 1;
            memcpy(err->message + at, full + tail, len - tail), at += len - tail;
            err->message[at] = 0;
        }
    }
    return code;
}

sy_status sy__fail(sy_error *err, sy_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(err, code, 0, fmt, ap);
    va_end(ap);
    return code;
}

sy_status sy__fail_sub(sy_error *err, sy_status code, int32_t subcode, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(err, code, subcode, fmt, ap);
    va_end(ap);
    return code;
}

sy_status sy__check_cancel(sy_context *ctx, sy_error *err) {
    if (atomic_load(&ctx->cancelled) || atomic_load(&everything_cancelled))
        return sy__fail(err, SY_E_CANCELLED, "cancelled");
    return SY_OK;
}

/* One report at a time: a job's helper thread may report too; progress is
 * advisory, so a report that would overlap another is dropped. */
void sy__progress(sy_context *ctx, const char *phase, uint64_t done, uint64_t total) {
    if (!ctx->progress || atomic_flag_test_and_set(&ctx->reporting)) return;
    ctx->progress(ctx->progress_user, phase, done, total);
    atomic_flag_clear(&ctx->reporting);
}
