/* sy_video_reader_decode_only.h — decoding a movie's frames without their
 * pixels (engine-private; video_reader.c).
 *
 * A consumer that only needs to know that the frames up to a moment decode
 * (SPEC C3's check of a Live pair) need not convert any picture to RGB, nor
 * decode pictures that nothing is predicted from and that are shown before
 * that moment (B-frames no reference uses: about half of an x265 movie with
 * its 3 B-frames): such samples are left unsent, so the frames that do come
 * out are the target's whole reference chain, the first frame (never
 * skipped) and every frame from the moment on. Nor need it decode what lies
 * before the last random-access picture (a sync sample the stream confirms
 * as an IDR or BLA) shown at or before that moment: nothing after it refers
 * back, so after the first sample sending resumes there (a Live movie whose
 * key photo is an IDR is checked from its key photo on). Timing and order
 * checks stay those of sy_video_reader_next. */
#ifndef SY_VIDEO_READER_DECODE_ONLY_H
#define SY_VIDEO_READER_DECODE_ONLY_H

#include "sy_video.h"

/* From the next frame on, frames come with rgb NULL (stride, width and height
 * still given), and disposable samples presented after the first frame and
 * before `needed_from` seconds (the frame time sy_video_frame.seconds uses)
 * are skipped; `needed_from` < 0 skips none. Frees the reader's RGB frame. */
sy_status sy__video_reader_decode_only(sy_video_reader *r, double needed_from, sy_error *err);

/* Samples skipped so far. */
uint32_t sy__video_reader_skipped(const sy_video_reader *r);

#endif
