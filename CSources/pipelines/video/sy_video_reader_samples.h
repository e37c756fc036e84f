/* sy_video_reader_samples.h — frames as the decoder's own Y'CbCr samples
 * (engine-private; video_reader.c).
 *
 * A transcode that re-encodes the frames as they are, or a rectangle of
 * them, needs no RGB: converting 4:2:0 to RGB and back interpolates the
 * chroma up and filters it down again, a (1 6 1)/8 blur of every chroma
 * sample per generation (measured on ffmpeg's testsrc2: Cb 39.3 and Cr 36.4 dB
 * against the source, where the samples kept give 50.0 and 50.2), and it costs the
 * two conversions. Only 4:2:0 pictures of an upright track, at the track's
 * own bit depth (8, or 10: an HDR movie re-encoded as it is), come this way;
 * any other picture still comes as RGB. */
#ifndef SY_VIDEO_READER_SAMPLES_H
#define SY_VIDEO_READER_SAMPLES_H

#include "base/sy_yuv.h"
#include "sy_video.h"

/* From the next frame on, a 4:2:0 picture at the track's bit depth comes with
 * rgb NULL and its samples from sy__video_reader_samples. Returns 0 (nothing changes) for a
 * turned or mirrored track, a halved or pixel-less reader. */
int sy__video_reader_keep_samples(sy_video_reader *r);

/* The same for a track of any orientation: a turned or mirrored track's
 * pictures come as stored (coded_width x coded_height), for a caller that
 * keeps the track's matrix (a re-encode with no recipe). */
int sy__video_reader_keep_stored_samples(sy_video_reader *r);

/* The frame sy_video_reader_next just returned, when it came as samples (its
 * rgb NULL): the decoder's own picture, the frame being its top-left width x
 * height (the picture may be wider or taller), lent until the next call or
 * close — no copy is made. NULL otherwise. */
const sy__yuv *sy__video_reader_samples(const sy_video_reader *r);

#endif
