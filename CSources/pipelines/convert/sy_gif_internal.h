/* sy_gif_internal.h — engine-private knobs of video -> GIF (gif.c), for tests. */
#ifndef SY_GIF_INTERNAL_H
#define SY_GIF_INTERNAL_H

#include <stdint.h>

/* The most bytes the first pass spools for the second (default 512 MB); 0
 * makes every conversion decode the movie twice. Returns the previous value. */
uint64_t sy__gif_set_spool_limit(uint64_t bytes);

#endif
