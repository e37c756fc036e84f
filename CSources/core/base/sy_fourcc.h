/* sy_fourcc.h — four-character codes (box types, item types, codecs) as the
 * big-endian 32-bit values containers store them (engine-private). */
#ifndef SY_FOURCC_H
#define SY_FOURCC_H

#include <stdint.h>

#define SY_FOURCC(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

#endif
