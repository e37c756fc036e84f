/* sy_cicp.h — colour description code points (ISO/IEC 23091-2, ITU-T H.273:
 * "CICP"), the vocabulary HEIF colr 'nclx', MP4/QuickTime colr and the HEVC
 * and H.264 VUI share. Engine-private, header-only. */
#ifndef SY_CICP_H
#define SY_CICP_H

#include <stdint.h>

/* A colour description. `present` = 0 means nobody said anything (the other
 * fields are then meaningless). */
typedef struct sy_cicp {
    uint8_t present;
    uint16_t primaries, transfer, matrix; /* colour_primaries, transfer_characteristics, matrix_coefficients */
    uint8_t full_range;                   /* video_full_range_flag */
} sy_cicp;

/* The code point every one of the three fields uses for "unspecified". */
#define SY_CICP_UNSPECIFIED 2u

#endif
