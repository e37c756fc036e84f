/* sy_video_reader_gain.h — an HDR movie's frames with their gain (engine-private;
 * video_reader.c, hdr_gain_plane.c).
 *
 * The reader's RGB frames of an HDR movie are its SDR rendition (base/sy_hdr_tone.h).
 * A still made of such a frame can keep the HDR as a gain map: the reader
 * also records, for the frame it returns, how much brighter the HDR display
 * shows each part of it (log2 of HDR over SDR, averaged over scale x scale
 * boxes of the picture as stored) — computed from the decoded signal, not
 * guessed back from 8-bit SDR pixels. */
#ifndef SY_VIDEO_READER_GAIN_H
#define SY_VIDEO_READER_GAIN_H

#include "base/sy_yuv.h"
#include "sy_video.h"

/* A frame's gain plane: width x height log2 gains, stored as the picture is
 * (orientation: the EXIF orientation that makes it upright, as the frame). */
typedef struct sy__gain_plane {
    float *log2;
    uint32_t width, height;
    uint8_t orientation;
    uint16_t peak;     /* the frame's content peak (sy_cicp.peak): its map's headroom */
} sy__gain_plane;

/* From the next frame on, an HDR movie's frames come with their gain plane
 * (boxes of `scale` pixels, 1..16). Returns 0 (nothing changes) when the movie
 * is not HDR or the reader makes no pixels. */
int sy__video_reader_keep_gain(sy_video_reader *r, uint32_t scale);

/* Hands over the gain plane of the frame sy_video_reader_next just returned
 * (the caller frees it with sy__gain_plane_free); 0 (out zeroed) when none
 * was asked or the frame has none. */
int sy__video_reader_take_gain(sy_video_reader *r, sy__gain_plane *out);

/* hdr_gain_plane.c: the plane of `pic` into `plane` (its buffer grown with
 * ctx as needed, freed by sy__gain_plane_free). SY_OK with plane->log2 NULL
 * when the picture is not HDR. */
sy_status sy__gain_plane_make(sy_context *ctx, const sy__yuv *pic, uint32_t scale, sy__gain_plane *plane,
                              sy_error *err);
void sy__gain_plane_free(sy_context *ctx, sy__gain_plane *plane);

/* The plane of a picture whose stored samples are num:den as wide as tall
 * made square, as the reader's frames are (an anamorphic movie's): its long
 * axis resampled linearly to the nearest whole box (never shrunk). Nothing
 * for square samples or an empty plane. */
sy_status sy__gain_plane_stretch(sy_context *ctx, sy__gain_plane *plane, uint32_t num, uint32_t den, sy_error *err);

#endif
