/* sy_content_id.h — the Live photo content identifier inside a TIFF/Exif block
 * (engine-private): the Apple MakerNote (ExifIFD tag 0x927C, "Apple iOS\0",
 * big-endian IFD, offsets relative to the MakerNote start) and its tag 0x0011,
 * ASCII with a trailing NUL (live-photo.md §3.1). */
#ifndef SY_CONTENT_ID_H
#define SY_CONTENT_ID_H

#include "base/sy_internal.h"

#define SY__CONTENT_ID_LEN 36

/* 1 and the identifier in out[37] when the Exif carries one; 0 when not.
 * Bounded: never reads outside [tiff, tiff + len). */
int sy__content_id_read(const uint8_t *tiff, size_t len, char out[SY__CONTENT_ID_LEN + 1]);

/* Removes MakerNote entry 0x0011 in place (same length: the entries after it
 * move up, the count drops, the freed entry and the string are zeroed).
 * 1 = removed, 0 = there was none, -1 = the MakerNote is malformed. */
int sy__content_id_remove(uint8_t *tiff, size_t len);

/* A copy of the Exif (NULL = none: a minimal one is built) whose MakerNote
 * carries `id` (36 characters): the old Exif bytes are kept, a new Exif IFD
 * and an Apple MakerNote (the old one's other entries kept, its bytes zeroed)
 * are appended, and the IFD0 pointer is patched. *out is engine-allocated. */
sy_status sy__content_id_with(sy_context *ctx, const uint8_t *tiff, size_t len, const char *id, uint8_t **out,
                                size_t *out_len, sy_error *err);

/* 1 when `id` is a canonical 8-4-4-4-12 hex UUID string. */
int sy__content_id_valid(const char *id);

#endif
