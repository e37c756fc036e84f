/* fuzz_support.h — what every libFuzzer harness does around its parser: the
 * input as a file path (the engine opens files), one context for the whole
 * run, corpus directories that may not exist yet, and a byte sum that makes
 * ASan see every returned byte. Header-only: each harness is one program. */
#ifndef FUZZ_SUPPORT_H
#define FUZZ_SUPPORT_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sy_base.h"

/* The input written to one memfd reused for the whole run (truncated each
 * time); returns its /proc/self/fd path, or NULL when the write fails. */
static inline const char *fuzz_input_path(const uint8_t *data, size_t size) {
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        if ((fd = memfd_create("fuzz-input", 0)) < 0) return NULL;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0) return NULL;
    for (size_t done = 0; done < size;) {
        ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
        if (n <= 0) return NULL;
        done += (size_t)n;
    }
    return path;
}

/* One context for the run: creating one per input re-runs libheif's global
 * init each time and slows a fuzzer ~50x. Each input must still give back
 * all it allocated (fuzz_require_released). */
static inline sy_context *fuzz_context(size_t budget_bytes) {
    static sy_context *ctx = NULL;
    if (!ctx) {
        sy_context_options opts;
        sy_context_options_init(&opts);
        opts.budget_bytes = budget_bytes;
        if (sy_context_create(&opts, &ctx, NULL) != SY_OK) __builtin_trap();
    }
    return ctx;
}

static inline void fuzz_require_released(sy_context *ctx) {
    sy_memory_stats stats;
    sy_context_memory_stats(ctx, &stats);
    if (stats.current_bytes != 0) __builtin_trap();
}

/* scripts/fuzz.sh passes $seeds/<kind> as a corpus directory; libFuzzer exits
 * when one is missing, so a harness whose seeds the script makes at run time
 * creates missing directory arguments named `kind` (from LLVMFuzzerInitialize). */
static inline void fuzz_make_corpus_dirs(int argc, char **argv, const char *kind) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *slash = strrchr(a, '/');
        if (a[0] != '-' && strcmp(slash ? slash + 1 : a, kind) == 0 && access(a, F_OK) != 0) mkdir(a, 0755);
    }
}

static inline uint32_t fuzz_sum(const uint8_t *p, size_t n) {
    uint32_t s = 0;
    for (size_t i = 0; i < n; i++) s += p[i];
    return s;
}

#endif
