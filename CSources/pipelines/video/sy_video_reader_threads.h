/* sy_video_reader_threads.h — a video reader with a chosen number of
 * decoding threads (engine-private; video_reader.c).
 *
 * sy_video_reader_open starts the stream decoder with frame threads on every
 * core and one more (sy__vstream_threads). A consumer that runs several
 * readers at once on its own threads (the moving collage's cells) gets its
 * parallelism across the readers instead, and one thread each saves the
 * frame threads' extra pictures and contexts. The frames are the same for
 * any thread count. */
#ifndef SY_VIDEO_READER_THREADS_H
#define SY_VIDEO_READER_THREADS_H

#include "sy_video.h"

/* sy_video_reader_open with `threads` frame threads (0 = automatic). */
sy_status sy__video_reader_open_threads(sy_context *ctx, const char *path, int32_t track, int threads,
                                        sy_video_reader **out, sy_error *err);

#endif
