/* sy_jpeg_complete.h — whether a JPEG file holds its whole image (engine-private). */
#ifndef SY_JPEG_COMPLETE_H
#define SY_JPEG_COMPLETE_H

#include <stdio.h>

#include "base/sy_internal.h"

/* Walks `file`'s markers from its start and every scan's entropy-coded data
 * to the end-of-image marker: SY_OK when it is there, SY_E_INVALID_INPUT
 * (naming `path` and the byte where the file ends) when the file stops
 * before it — a truncated copy, whose header alone reads fine. Bytes after
 * the marker (a Motion Photo's movie, an MPF gain map) are not looked at.
 * Reads the file through once, 16 KiB at a time (a buffer on the stack);
 * leaves its position anywhere. */
sy_status sy__jpeg_complete(FILE *file, const char *path, sy_error *err);

#endif
