/* sy_base.h — context, errors, accounting allocator, cancellation, progress.
 *
 * Every engine call takes an sy_context: it owns the allocator, the memory
 * budget and its statistics, the cancellation flag and the progress callback.
 * There is no global mutable state in the engine (libheif's reference-counted
 * init is paired inside context create/destroy).
 *
 * Thread safety: one context may be used from several threads at once
 * (the compositor decodes cells on worker threads); statistics are atomic.
 */
#ifndef SY_BASE_H
#define SY_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Status of every fallible call: SY_OK (0) or one of the categories below. */
typedef int32_t sy_status;

enum {
    SY_OK = 0,
    SY_E_INVALID_INPUT = 1, /* corrupt, truncated, hostile or wrong-type input */
    SY_E_UNSUPPORTED = 2,   /* valid input using a feature we do not handle */
    SY_E_USAGE = 3,         /* caller error: bad argument, impossible layout */
    SY_E_BUDGET = 4,        /* memory budget or dimension limit exceeded */
    SY_E_CODEC = 5,         /* a codec library reported a failure */
    SY_E_IO = 6,            /* open/read/write/rename failed */
    SY_E_CANCELLED = 7,     /* sy_context_cancel was called */
};

/** Caller-owned error record; every fallible call fills it on failure.
 *  May be passed as NULL. `message` is "function: reason and numbers". */
typedef struct sy_error {
    sy_status code;
    int32_t subcode; /* codec-specific detail (libjpeg msg_code, errno, ...) */
    char message[256];
} sy_error;

/** Optional allocator hooks (versioned; version must be 1). */
typedef struct sy_allocator {
    uint32_t version;
    void *(*alloc)(void *user, size_t bytes);
    void (*free)(void *user, void *ptr, size_t bytes);
    void *user;
} sy_allocator;

/** Progress callback: `done` of `total` units of `phase` ("strips", ...).
 *  Called from the thread running the job, or from a helper thread of it (a
 *  Live edit writes its still while the movie encodes), never two at once: a
 *  report arriving while another is being delivered is dropped. Must not call
 *  back into the engine. */
typedef void (*sy_progress_fn)(void *user, const char *phase, uint64_t done, uint64_t total);

typedef struct sy_context_options {
    uint32_t version;            /* 1 */
    const sy_allocator *allocator; /* NULL = malloc/free (mmap for large blocks) */
    size_t budget_bytes;         /* 0 = unlimited; hard cap for engine allocations */
    sy_progress_fn progress;     /* may be NULL */
    void *progress_user;
} sy_context_options;

typedef struct sy_context sy_context;

typedef struct sy_memory_stats {
    uint64_t current_bytes;  /* engine allocations alive now */
    uint64_t peak_bytes;     /* high-water mark of current_bytes (+ charged codec estimates) */
    uint64_t allocations;    /* number of allocations since create / last reset */
} sy_memory_stats;

/** Fills defaults: version 1, no allocator, no budget, no progress. */
void sy_context_options_init(sy_context_options *opts);

/** Creates a context. `opts` may be NULL. Free with sy_context_destroy. */
sy_status sy_context_create(const sy_context_options *opts, sy_context **out, sy_error *err);

/** Destroys a context; NULL does nothing. All engine objects must be gone. */
void sy_context_destroy(sy_context *ctx);

/** Reads the accounting allocator's statistics (thread-safe). */
void sy_context_memory_stats(const sy_context *ctx, sy_memory_stats *out);

/** Restarts the peak and the allocation count from the current usage. */
void sy_context_reset_peak(sy_context *ctx);

/** Requests cancellation; running jobs stop at the next strip with SY_E_CANCELLED.
 *  Safe to call from any thread. */
void sy_context_cancel(sy_context *ctx);

/** Clears the cancellation flag so the context can run another job. */
void sy_context_clear_cancel(sy_context *ctx);

/** Returns 1 when cancellation was requested. */
int sy_context_is_cancelled(const sy_context *ctx);

/** Cancels every context of the process, now and later, for good: for a
 *  process being interrupted (SIGINT), so each running job stops at its next
 *  strip and removes its temporary files. Safe from any thread. */
void sy_cancel_everything(void);

/** Before any work: may a job reading `inputs` (NULLs skipped) write
 *  `output_path`? Refuses (SY_E_USAGE, naming the file) an output that is one
 *  of the inputs — the same device and inode, so links and other spellings
 *  count — or a directory, FIFO, socket or device; and (SY_E_IO) a folder that
 *  is missing or cannot be written. For callers that write under a name of
 *  their own first and rename it to `output_path` later (the engine's own
 *  writers check the path they are given). */
sy_status sy_output_check(const char *output_path, const char *const *inputs, size_t count, sy_error *err);

/** Short English name of a status ("invalid input", "budget", ...). Static string. */
const char *sy_status_name(sy_status status);

#ifdef __cplusplus
}
#endif
#endif
