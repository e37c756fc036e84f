/* sy_avcodec.h — one FFmpeg libavcodec decoder, as the HEVC still decoder
 * (hevc_decoder.c), the HEVC stream decoder (hevc_stream.c) and the H.264
 * stream decoder (h264/h264_stream.c) use it (engine-private). libavcodec's
 * headers are included by avcodec_support.c only: callers see no libavcodec
 * type.
 *
 * Order of operations: open (configuration record as extradata), then per
 * sample send() and receive() until nothing is ready; end of stream is
 * send(NULL), then receive() until *got = 0; close(). Samples are
 * length-prefixed NAL units whose framing the caller has already checked
 * (sy__nal_framing, or the tile walk in hevc_decoder.c), or AV1 OBUs
 * (av1_params.c walks them; the configuration record is av1C).
 *
 * Damage: libavcodec runs with AV_EF_EXPLODE, and every message it logs at
 * error level for this decoder is kept (the log callback sees which sample
 * the logging thread was decoding) and turned into an error naming that
 * sample, so damaged data fails instead of being concealed. Messages of our
 * decoders are never printed; other users' go to libavcodec's default log.
 *
 * Threads: `threads` > 1 runs libavcodec's frame threads (that many pictures
 * decoded at once, in the background between calls; output is bit-exact with
 * one thread). One sy__avdec is used by one thread at a time.
 *
 * Memory: libavcodec allocates outside the engine's allocator (except the
 * pictures of an open_picture() decoder); callers charge a measured estimate
 * of the rest (sy__avcodec_picture_bytes helps). The packet copies
 * libavcodec keeps (one per frame thread plus one) are charged here. */
#ifndef SY_AVCODEC_H
#define SY_AVCODEC_H

#include "base/sy_internal.h"
#include "base/sy_video_stream.h"
#include "base/sy_yuv.h"

/* AV1 is libavcodec's libdav1d wrapper (its native "av1" decoder decodes
 * through a hardware accelerator only); its pictures are dav1d's own, never
 * engine blocks (open_picture() acts as open() with one thread). */
typedef enum sy__avcodec_id { SY__AVCODEC_HEVC, SY__AVCODEC_H264, SY__AVCODEC_AV1 } sy__avcodec_id;

typedef struct sy__avdec sy__avdec;

/* `label` starts error messages ("hevc"); NULL names the sample instead
 * ("sample 12: ..."). `config` (hvcC / avcC payload) is copied. */
sy_status sy__avdec_open(sy_context *ctx, sy__avcodec_id codec, const uint8_t *config, size_t config_len,
                         int threads, const char *label, sy__avdec **out, sy_error *err);

/* open() for one still picture (one thread): libavcodec's pictures are
 * engine blocks, charged to ctx as they are allocated, and the one received
 * can be taken over by sy__avdec_take_picture instead of copied. */
sy_status sy__avdec_open_picture(sy_context *ctx, sy__avcodec_id codec, const uint8_t *config, size_t config_len,
                                 const char *label, sy__avdec **out, sy_error *err);

/* After receive() on an open_picture() decoder: the received picture's block
 * becomes the caller's (free it with sy__free on the same context, after
 * close() — the view's planes point into it), or NULL when it cannot be taken. */
uint8_t *sy__avdec_take_picture(sy__avdec *d);
/* Gives a taken picture's block back once the caller is done with it: kept
 * (one) for the next picture of the same size, or freed — by libavcodec's
 * last unref when it still refers to the block. */
void sy__avdec_recycle_picture(sy__avdec *d, uint8_t *block);

/* Hands one sample (tagged `tag`, given back with its picture) to libavcodec;
 * data = NULL starts the drain at the end of the stream. */
sy_status sy__avdec_send(sy__avdec *d, const uint8_t *data, size_t len, uint32_t tag, sy_error *err);

/* The next picture in presentation order, if one is ready (*got = 1): a
 * borrowed view (planes libavcodec's, cropped to the conformance window,
 * valid until sy__avdec_release) in *out, each plane's bit depth in depth[],
 * out->bit_depth the deepest, out->vui the frame's colour description
 * (present = 1; unspecified values as the stream left them), *tag its sample. */
sy_status sy__avdec_receive(sy__avdec *d, sy__yuv *out, int depth[3], uint32_t *tag, int *got, sy_error *err);
void sy__avdec_release(sy__avdec *d);
/* After the drain (send(NULL), receive() until nothing): back to a decoder
 * that has seen only its configuration record, for the next independent
 * stream (the next tile); libavcodec's tables and pictures are kept. */
void sy__avdec_reset(sy__avdec *d);

/* A movie's stream decoder (base/sy_video_stream.h) whose codec is
 * libavcodec (HEVC, H.264): each codec's stream struct starts with this one
 * and shares the four operations below; its own send() checks the samples
 * before libavcodec sees them. */
typedef struct sy__avdec_vstream {
    sy__vstream base;
    sy__avdec *av;
} sy__avdec_vstream;
sy_status sy__avdec_vstream_finish(sy__vstream *s, sy_error *err);
/* receive(): the picture must have the stream's size and one bit depth in every plane. */
sy_status sy__avdec_vstream_receive(sy__vstream *s, sy__yuv *pic, uint32_t *tag, int *got, sy_error *err);
void sy__avdec_vstream_release(sy__vstream *s);
/* Closes the decoder, gives back the stream's charge and frees the stream (NULL: nothing). */
void sy__avdec_vstream_destroy(sy__vstream *s);

void sy__avdec_close(sy__avdec *d);

/* Routes libavcodec's log through the engine once per process: a decoder's
 * errors become its status, other contexts print warnings and errors only. */
void sy__avcodec_install_logging(void);

/* Bytes of one picture's samples at a size, chroma format (0..3) and depth. */
size_t sy__avcodec_picture_bytes(uint32_t width, uint32_t height, unsigned chroma, unsigned bit_depth);

#endif
