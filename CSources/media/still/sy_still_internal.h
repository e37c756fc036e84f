/* sy_still_internal.h — stills as a whole, below every pipeline
 * (engine-private): opening any still as a row source, decoding it upright,
 * writing one with its metadata, and a file's identity. The editor, the
 * conversions, Live stills and the organize fingerprints are built on these. */
#ifndef SY_STILL_INTERNAL_H
#define SY_STILL_INTERNAL_H

#include <stdio.h>

#include "base/sy_internal.h"
#include "base/sy_source.h"
#include "still/sy_metadata.h"
#include "sy_still.h"

/* ---- row-source dispatch (image_probe.c) ---- */

/* Opens `path` (probed as `info`) with its codec's row source. JPEG picks
 * the smallest DCT scale whose stored-frame size is >= min_width x
 * min_height, HEIF the largest power-of-two reduction of the primary or of a
 * thumbnail that still covers it; PNG and libheif's fallback deliver full
 * size. `means` (NULL: the calling thread only) lets HEIF decode a tile row
 * on several threads. Close with (*out)->close. */
sy_status sy__source_open(sy_context *ctx, const char *path, const sy_image_info *info, uint32_t min_width,
                          uint32_t min_height, const sy__source_means *means, sy__source **out, sy_error *err);

/* ---- upright decode (upright.c) ---- */

/* A decoded still, upright (orientation applied), RGB8, tightly packed. */
typedef struct sy__upright {
    uint8_t *rgb;
    size_t stride;
    uint32_t width, height;
} sy__upright;

/* Decodes `path` (probed as `info`) at the smallest decoder scale whose
 * upright size is at least min_w x min_h (0 x 0, or anything at or above the
 * full size, decodes at full size). YCbCr is converted with the engine's JFIF
 * matrix (sy_color.h), like collage cells and conversions. `threads` (0 or 1:
 * the calling thread alone) is what the codec may decode on: a grid HEIC's
 * tiles, within the image's own size again (at least 32 MiB) as working memory. */
sy_status sy__upright_decode(sy_context *ctx, const char *path, const sy_image_info *info, uint32_t min_w,
                             uint32_t min_h, uint32_t threads, sy__upright *out, sy_error *err);
void sy__upright_free(sy_context *ctx, sy__upright *img);

/* ---- still writer (still_writer.c) ---- */

/* Streams RGB rows into a JPEG (4:2:0, JFIF matrix), PNG or HEIC file with
 * the given metadata (Exif, XMP, ICC), through a temp file that finish
 * renames into place. Destroy without finish removes the temp file.
 * Order: open, write (height rows in all, any run lengths), finish, destroy. */
typedef struct sy__still_writer sy__still_writer;

/* What a gain-map save adds around the still (issue 7): an XMP joined to (or replacing)
 * the source's, one more JPEG APP2 payload after the metadata (the MPF index),
 * and a last step before the file is committed (JPEG: the complete primary is
 * in `file`, positioned at its end; HEIC: before the HEIF writer's finish). */
struct sy_heif_writer;
typedef struct sy__still_extra {
    const uint8_t *xmp;
    size_t xmp_len;
    uint8_t xmp_join;               /* 1: xmp's descriptions are added to the source's XMP (sy__xmp_carry_with_gainmap) */
    const uint8_t *jpeg_app2_first; /* an APP2 written before jpeg_app2 (the ISO 21496-1 version block) */
    size_t jpeg_app2_first_len;
    const uint8_t *jpeg_app2;
    size_t jpeg_app2_len;
    sy_status (*jpeg_finish)(void *user, FILE *file, sy_error *err);
    sy_status (*heic_finish)(void *user, struct sy_heif_writer *w, sy_error *err);
    void *user;
    uint8_t heic_one_encoder;       /* 1: one x265 encoder for a HEIC's tiles (~9 MB less; strip-wise collages) */
} sy__still_extra;

/* `md` may be NULL (no metadata); it is written during open. */
sy_status sy__still_writer_open(sy_context *ctx, const char *path, sy_still_format format, int quality,
                                const char *heic_preset, uint32_t width, uint32_t height, const sy__metadata *md,
                                sy__still_writer **out, sy_error *err);
/* sy__still_writer_open with `extra` (may be NULL; borrowed until destroy). */
sy_status sy__still_writer_open_extra(sy_context *ctx, const char *path, sy_still_format format, int quality,
                                      const char *heic_preset, uint32_t width, uint32_t height,
                                      const sy__metadata *md, const sy__still_extra *extra, sy__still_writer **out,
                                      sy_error *err);
/* `count` rows, `stride` bytes apart, top to bottom; height rows in all. */
sy_status sy__still_writer_write(sy__still_writer *w, const uint8_t *rgb, size_t stride, uint32_t count,
                                 sy_error *err);
/* A HEIC's thumbnail of the primary ('thmb'): `height` RGB rows `stride`
 * bytes apart, before finish. SY_E_USAGE for other formats. */
sy_status sy__still_writer_add_thumbnail(sy__still_writer *w, const uint8_t *rgb, size_t stride, uint32_t width,
                                         uint32_t height, sy_error *err);
sy_status sy__still_writer_finish(sy__still_writer *w, sy_error *err);
void sy__still_writer_destroy(sy__still_writer *w);

/* ---- file identity (file_identity.c) ---- */

/* What identifies a file's version cheaply: used to prove a file did not
 * change between hashing it and decoding it. */
typedef struct sy__file_stamp {
    uint64_t dev, ino, size;
    int64_t mtime_ns;
} sy__file_stamp;

sy_status sy__file_stamp_fd(int fd, const char *path, sy__file_stamp *stamp, sy_error *err);
sy_status sy__file_stamp_path(const char *path, sy__file_stamp *stamp, sy_error *err);
/* Size and SHA-256 of `path`; `stamp` (may be NULL) gets the file's stamp as opened. */
sy_status sy__file_identity(sy_context *ctx, const char *path, sy__file_stamp *stamp, uint64_t *bytes,
                            char sha256_hex[65], sy_error *err);

#endif
