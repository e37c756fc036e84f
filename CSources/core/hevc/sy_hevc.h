/* sy_hevc.h — HEVC decoding with libavcodec (engine-private): one still (a HEIF
 * tile or image item) into an engine-owned sy__yuv, a movie track as a stream
 * decoder behind sy_video_reader, and the conversion of decoded pictures to
 * 8-bit 3-channel rows. */
#ifndef SY_HEVC_H
#define SY_HEVC_H

#include "base/sy_internal.h"
#include "base/sy_cicp.h"
#include "base/sy_video_stream.h"
#include "base/sy_yuv.h"

/* ---- stills ---- */

typedef struct sy__hevc_decoder sy__hevc_decoder;

/* A decoder configured from an hvcC record (parameter-set NAL arrays). Reusable
 * for every tile sharing that hvcC. */
sy_status sy__hevc_decoder_create(sy_context *ctx, const uint8_t *hvcc, size_t hvcc_len, sy__hevc_decoder **out,
                                  sy_error *err);
/* Decodes one image item's data (length-prefixed NAL units, prefix size from
 * hvcC lengthSizeMinusOne) into `out` (one engine block, released with
 * sy__yuv_release). */
sy_status sy__hevc_decode(sy__hevc_decoder *dec, const uint8_t *data, size_t len, sy__yuv *out, sy_error *err);
void sy__hevc_decoder_destroy(sy__hevc_decoder *dec);
/* on = 1: keeps the decoder's libavcodec context from one picture to the
 * next (the tiles of a grid) instead of opening one per picture: ~10 % less
 * CPU per 512x512 tile and no fresh pages to fault in, same pixels; its
 * memory stays charged to the context meanwhile. on = 0: a kept context is
 * freed now (and none is kept again). */
void sy__hevc_decoder_keep_warm(sy__hevc_decoder *dec, int on);
/* sy__yuv_release for a picture this decoder gave: a warm decoder keeps its
 * block for the next picture (no fresh pages per tile); `yuv` is emptied. */
void sy__hevc_recycle(sy__hevc_decoder *dec, sy__yuv *yuv);
/* What one sy__hevc_decode of a width x height picture holds at its peak:
 * the codec's charged estimate and the engine copy of the picture (for
 * callers that plan how many decodes may run at once). */
size_t sy__hevc_decode_peak_bytes(uint32_t width, uint32_t height, uint8_t chroma, uint8_t bit_depth);
/* Copies a decoder's borrowed picture (sy__avdec_receive) into one engine
 * block, each plane at the deepest plane's bit depth (a shallower plane is
 * scaled up to it); at most SY__HEVC_MAX_SIDE a side. */
sy_status sy__yuv_copy(sy_context *ctx, const sy__yuv *view, const int depth[3], sy__yuv *out, sy_error *err);
/* Frees a picture sy__hevc_decode made and clears it. */
void sy__yuv_release(sy_context *ctx, sy__yuv *yuv);

/* ---- movie tracks ---- */

/* A stream decoder (protocol in base/sy_video_stream.h) through one libavcodec
 * decoder. `config` is the hvcC payload; when it carries no SPS (hev1 may
 * keep them in-band), `first` (sample 0) is searched for one. `threads`:
 * frame threads, 0 = sy__vstream_threads(). */
sy_status sy__hevc_stream_create(sy_context *ctx, const uint8_t *config, size_t config_len, const uint8_t *first,
                                 size_t first_len, int threads, sy__vstream **out, sy_error *err);

/* ---- conversion ---- */

/* Converts rows [y0, y0+rows) of `yuv` into interleaved 8-bit rows:
 * to_rgb = 1 -> R'G'B' using the colour's matrix/range (when `colour` is NULL
 * or not present, the VUI's in yuv->vui, which is BT.601 limited range when
 * the stream says nothing, as HEIF defaults; BT.709, BT.2020 NCL supported),
 * to_rgb = 0 -> full-range BT.601 YCbCr (JFIF) for the JPEG pipeline. 4:0:0
 * gives grey. Chroma is upsampled bilinearly (HEVC siting: co-sited
 * horizontally, centred vertically). `out` rows are width*3 bytes. R'G'B' is
 * always SDR: an HDR signal (PQ, HLG transfer) comes out tone-mapped to
 * Display P3 (base/sy_hdr_tone.h; sy__cicp_frame_primaries names it). */
void sy__yuv_rows(const sy__yuv *yuv, const sy_cicp *colour, int to_rgb, uint32_t y0, uint32_t rows,
                  uint8_t *const *out);

/* For a picture with an HDR signal (sy__yuv_rows tone-maps it): rows [y0,
 * y0+rows) of its gain, HDR over SDR, per pixel (sy__hdr_gain), `out` rows
 * width floats. 0 (nothing written) when the picture is not HDR. */
int sy__yuv_hdr_gain_rows(const sy__yuv *yuv, const sy_cicp *colour, uint32_t y0, uint32_t rows, float *const *out);

#endif
