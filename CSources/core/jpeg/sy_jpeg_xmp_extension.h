/* sy_jpeg_xmp_extension.h — a JPEG's extended XMP (engine-private): XMP
 * Part 3's APP1 chunks "http://ns.adobe.com/xmp/extension/\0", GUID (32 hex
 * digits), full length and offset (big-endian 32-bit), then the data. */
#ifndef SY_JPEG_XMP_EXTENSION_H
#define SY_JPEG_XMP_EXTENSION_H

#include <stdio.h>
#include <jpeglib.h>

#include "base/sy_internal.h"

#define SY__XMP_EXT_SIGNATURE "http://ns.adobe.com/xmp/extension/" /* written with its NUL */
#define SY__XMP_EXT_HEADER 75u                                     /* signature + NUL, GUID, length, offset */
#define SY__XMP_EXT_CHUNK 65400u /* data bytes per APP1 (what Adobe's and Google's writers use) */

/* The extended packet `guid` names, reassembled from the saved APP1 markers
 * into *out (engine-allocated, sy__free) and *len. Chunks of other GUIDs are
 * ignored (the spec: only the one the main packet names counts). *out stays
 * NULL when there is none, or when its chunks do not cover it exactly once
 * (a damaged or cut file: nothing half-read is carried). Fails only on the budget. */
sy_status sy__jpeg_xmp_extension_read(sy_context *ctx, jpeg_saved_marker_ptr markers, const char guid[33],
                                      uint8_t **out, size_t *len, sy_error *err);

#endif
