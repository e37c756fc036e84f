/* sy_video_encoder_stage.h — sy_video_encoder_push_rgb in two steps
 * (engine-private; video_encoder.c).
 *
 * Staging converts the RGB frame into the encoder's own 4:2:0 frame; after
 * it the caller's pixels are free to change. Encoding the staged frame hands
 * it to x265, which may wait for the frame before it. A caller that prepares
 * the next frame on other threads during that wait keeps the cores busy
 * without a second canvas. push_rgb is stage + encode. */
#ifndef SY_VIDEO_ENCODER_STAGE_H
#define SY_VIDEO_ENCODER_STAGE_H

#include "base/sy_yuv.h"
#include "sy_video.h"

/* The largest frame the encoder takes: sides to 16,384 (x265's CTU grid),
 * 35,651,584 luma samples (HEVC level 6.2's MaxLumaPs; no level takes more). */
#define SY__VIDEO_MAX_SIDE 16384u
#define SY__VIDEO_MAX_LUMA_PICTURE 35651584ull

sy_status sy__video_encoder_stage_rgb(sy_video_encoder *enc, const uint8_t *rgb, size_t stride, int64_t pts,
                                      sy_error *err);
/* A rectangle of the frame, in pixels. */
typedef struct sy__video_rect {
    uint32_t x, y, width, height;
} sy__video_rect;

/* Staging a frame that differs from the one staged before it only inside
 * `rects` (none: the same pixels): only the samples those rectangles
 * determine are converted again, the rest of the encoder's frame is kept —
 * the same planes a whole stage gives, for less work when most of a moving
 * collage stands still. The first frame is always converted whole. */
sy_status sy__video_encoder_stage_rgb_rects(sy_video_encoder *enc, const uint8_t *rgb, size_t stride, int64_t pts,
                                            const sy__video_rect *rects, uint32_t count, sy_error *err);
/* Staging the decoder's own samples instead (sy_video_reader_samples.h):
 * the encoder's width x height rectangle of 8-bit 4:2:0 `src` from (x0, y0),
 * both even, copied as they are, so the frame keeps the source's chroma. The
 * encoder's colour description must be the source's. */
sy_status sy__video_encoder_stage_samples(sy_video_encoder *enc, const sy__yuv *src, uint32_t x0, uint32_t y0,
                                          int64_t pts, sy_error *err);
/* The staged frame carries this user_data_registered_itu_t_t35 SEI message
 * (its source picture's HDR10+ message, base/sy_hdr10plus.h) into its access unit. */
sy_status sy__video_encoder_stage_t35(sy_video_encoder *enc, const uint8_t *payload, size_t len, sy_error *err);
/* The staged frame's access unit ends with this Dolby Vision RPU NAL unit
 * (its source picture's, header included, as stored). */
sy_status sy__video_encoder_stage_rpu(sy_video_encoder *enc, const uint8_t *nal, size_t len, sy_error *err);
sy_status sy__video_encoder_encode_staged(sy_video_encoder *enc, sy_error *err);
/* The x265 QP offsets per block that go with every frame encoded from now
 * on, written by the caller before each encode (sy__hevc_encoder_block_offsets:
 * asked before the first frame; NULL with the reason otherwise). */
float *sy__video_encoder_block_offsets(sy_video_encoder *enc, uint32_t *cols, uint32_t *rows, uint32_t *block,
                                       sy_error *err);

#endif
