/* sy_de265.h — what the two libde265 users in hevc/ share (hevc-private):
 * the still decoder (hevc_decoder.c: one short-lived context per tile) and
 * the stream decoder (hevc_stream.c: one context per movie track). Both read
 * the parameter sets first (sy_hevc_params.h), then use these to set up
 * libde265, feed it, and check what it hands back before anything reads the
 * planes. */
#ifndef SY_DE265_H
#define SY_DE265_H

#include <libde265/de265.h>

#include "base/sy_internal.h"
#include "base/sy_yuv.h"
#include "hevc/sy_hevc_params.h"

/* libde265's global tables are reference-counted (mutex-guarded inside
 * libde265): a decoder holds one reference for its lifetime so they are not
 * rebuilt per context. hold returns whether a reference was taken; pass that
 * to drop. */
int sy__de265_hold(void);
void sy__de265_drop(int held);

/* A decoder context with the engine's settings (SEI picture hashes not
 * checked); NULL when libde265 cannot make one. Free with de265_free_decoder. */
de265_decoder_context *sy__de265_new_decoder(void);

/* Pushes the parameter-set NAL units of a parsed hvcC record (pts 0). */
de265_error sy__de265_push_parameter_sets(de265_decoder_context *de, const uint8_t *record, const sy__hvcc *hvcc);

/* Pushes the length-prefixed NAL units of `data` (framing already checked),
 * each with `pts`; empty units are skipped. */
de265_error sy__de265_push_nals(de265_decoder_context *de, const uint8_t *data, size_t len, uint32_t length_size,
                                de265_PTS pts);

/* Bytes of one picture's samples at the bound's size, chroma format and depth. */
size_t sy__hevc_picture_bytes(const sy__hevc_bound *b);

/* A borrowed view of a picture libde265 returned: chroma format 4:0:0 to
 * 4:4:4, every plane present, within the luma size, 8..16 bits per sample,
 * and its stride covering a row; plane pointers and strides are libde265's
 * (valid until the picture is released), depth[c] each plane's bit depth,
 * out->bit_depth the deepest, out->vui the picture's colour description.
 * `where` starts the messages ("hevc", "sample 12"). */
sy_status sy__de265_view(const struct de265_image *img, sy__yuv *out, int depth[3], const char *where,
                         sy_error *err);

#endif
