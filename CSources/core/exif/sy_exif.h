/* sy_exif.h — the few Exif facts the engine reads (engine-private). */
#ifndef SY_EXIF_H
#define SY_EXIF_H

#include <stddef.h>
#include <stdint.h>

/* Orientation (1..8) from a TIFF-structured Exif payload (starting at "II*\0"
 * or "MM\0*", i.e. after the "Exif\0\0" APP1 prefix). Returns 1 when absent or
 * unreadable. Bounded: never reads outside [tiff, tiff+len). */
uint8_t sy__exif_orientation(const uint8_t *tiff, size_t len);

#endif
