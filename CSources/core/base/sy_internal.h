/* sy_internal.h — engine-private helpers shared across components (sy__ prefix). */
#ifndef SY_INTERNAL_H
#define SY_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>
#include "sy_base.h"

/* Accounting allocator: every engine allocation goes through these.
 * Checks count*size overflow and the context budget, tracks current/peak.
 * Blocks of 256 KiB or more are mmap'ed so their pages go back to the OS on free.
 * Returns NULL and fills `err` (SY_E_BUDGET) on failure; `reason` names the use. */
void *sy__alloc(sy_context *ctx, size_t count, size_t size, const char *reason, sy_error *err);
void *sy__calloc(sy_context *ctx, size_t count, size_t size, const char *reason, sy_error *err);
/* A copy of `len` bytes from `src` (an empty copy is still a block, not NULL). */
void *sy__alloc_copy(sy_context *ctx, const void *src, size_t len, const char *reason, sy_error *err);
void sy__free(sy_context *ctx, void *ptr);
/* Room for `need` items of `unit` bytes in *buf (capacity *cap items): kept
 * when it is there, else a block of twice the capacity (from `first`) until
 * it fits, the old contents copied and the old block freed. On a refusal
 * *buf and *cap stay as they were and `err` says why. */
sy_status sy__grow(sy_context *ctx, void **buf, size_t *cap, size_t need, size_t unit, size_t first, const char *what,
                   sy_error *err);
/* Gives the whole pages of [from, from + len), inside `block` (an sy__alloc
 * block), back to the system while the block lives on: a reader done with the
 * first rows of a large buffer stops holding them (they read as zero after).
 * Only mmap'ed blocks shed pages; the block stays charged in full until freed. */
void sy__discard_pages(sy_context *ctx, void *block, const void *from, size_t len);

/* Charges memory a codec allocates on its own (estimated from the header) so
 * the peak and the budget see it. Pair with sy__discharge(ctx, same bytes). */
sy_status sy__charge(sy_context *ctx, size_t bytes, const char *reason, sy_error *err);
void sy__discharge(sy_context *ctx, size_t bytes);
/* Bytes the budget still allows now (SIZE_MAX without a budget). */
size_t sy__headroom(const sy_context *ctx);

/* libavcodec decoder contexts opened for this context so far (each
 * avcodec_open2): what a decoder kept warm across a grid's tiles saves,
 * asserted by tests (HevcTileDecodeTests, GainMapTileDecodeTests). */
void sy__count_codec_open(sy_context *ctx);
uint64_t sy__codec_opens(const sy_context *ctx);

/* Fills err (if non-NULL) with code and a printf-style message. Returns code. */
sy_status sy__fail(sy_error *err, sy_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Like sy__fail but keeps the subcode. */
sy_status sy__fail_sub(sy_error *err, sy_status code, int32_t subcode, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Returns SY_E_CANCELLED (filling err) when cancellation was requested, else SY_OK. */
sy_status sy__check_cancel(sy_context *ctx, sy_error *err);

void sy__progress(sy_context *ctx, const char *phase, uint64_t done, uint64_t total);

/* size_t multiply with overflow detection: returns 0 on overflow. */
static inline int sy__mul_ok(size_t a, size_t b, size_t *out) {
    return !__builtin_mul_overflow(a, b, out);
}

#define SY__MIN(a, b) ((a) < (b) ? (a) : (b))
#define SY__MAX(a, b) ((a) > (b) ? (a) : (b))

/* Greatest common divisor (0 when both are 0): to reduce a ratio. */
static inline uint32_t sy__gcd32(uint32_t a, uint32_t b) {
    while (b) {
        uint32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

#endif
