/* vstream_threads.c — how many decoding threads a movie's stream decoder
 * starts with (base/sy_video_stream.h). */
#include <stdatomic.h>
#include <unistd.h>

#include "base/sy_video_stream.h"

static atomic_int requested; /* 0 = automatic */

void sy__vstream_set_threads(int threads) {
    atomic_store(&requested, threads < 0 ? 0 : threads > SY__VSTREAM_MAX_THREADS ? SY__VSTREAM_MAX_THREADS : threads);
}

int sy__vstream_threads(void) {
    int n = atomic_load(&requested);
    if (n > 0) return n;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores < 1 ? 1 : cores > SY__VSTREAM_MAX_THREADS ? SY__VSTREAM_MAX_THREADS : (int)cores;
}
