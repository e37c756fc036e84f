/* sy_md5.h — MD5 (RFC 1321), engine-private. Not for security: XMP Part 3
 * names a JPEG's extended XMP by the MD5 of its bytes (the GUID). */
#ifndef SY_MD5_H
#define SY_MD5_H

#include <stddef.h>
#include <stdint.h>

/* The MD5 of [p, p + n) as 32 upper-case hex digits + NUL, the form
 * xmpNote:HasExtendedXMP and the extension's chunks carry. */
void sy__md5_hex_upper(const uint8_t *p, size_t n, char out[33]);

#endif
