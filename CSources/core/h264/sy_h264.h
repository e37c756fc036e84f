/* sy_h264.h — H.264 decoding with libavcodec (engine-private, through
 * hevc/sy_avcodec.h): a movie track as a stream decoder behind sy_video_reader. */
#ifndef SY_H264_H
#define SY_H264_H

#include "base/sy_video_stream.h"

/* A stream decoder (protocol in base/sy_video_stream.h), progressive streams
 * of any chroma format and 8..14 bits. `config` is the avcC payload; `first`
 * is sample 0. `threads`: frame threads, 0 = sy__vstream_threads(). */
sy_status sy__h264_stream_create(sy_context *ctx, const uint8_t *config, size_t config_len, const uint8_t *first,
                                 size_t first_len, int threads, sy__vstream **out, sy_error *err);

#endif
