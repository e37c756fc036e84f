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
    uint16_t peak;                        /* PQ: the content's peak in cd/m² (its MaxCLL, else its mastering
                                             display's), where the tone mapping reaches white; 0 = 1000 */
} sy_cicp;

/* The code point every one of the three fields uses for "unspecified". */
#define SY_CICP_UNSPECIFIED 2u

/* Code points of the primaries the engine renders into. */
#define SY_CICP_PRIMARIES_BT709 1u        /* sRGB's */
#define SY_CICP_PRIMARIES_DISPLAY_P3 12u  /* P3-D65, what iPhones shoot in */

/* x, y of R, G, B and the white point of `primaries`; 0 when the code point
 * is not one with known chromaticities (cicp_primaries.c). */
int sy__cicp_chromaticities(uint16_t primaries, double xy[8]);

/* Linear RGB in `primaries` -> CIE XYZ (white Y = 1), row-major; 0 when the
 * code point is not one with known chromaticities (cicp_primaries.c). */
int sy__cicp_rgb_to_xyz(uint16_t primaries, double m[9]);

/* Linear RGB in `from` primaries -> linear RGB in `to` primaries, row-major,
 * Bradford-adapted when the white points differ (as a matrix/shaper ICC
 * transform does it); 0 when either code point is unknown. */
int sy__cicp_gamut_matrix(uint16_t from, uint16_t to, double m[9]);

/* For a movie's frames in `from` primaries (0 or 2, not said: BT.709's, as
 * viewers take them) shown in `to`: the matrix as floats, for the renderer
 * (render/sy_render_gamut.h); 0 when there is nothing to convert (the same
 * primaries, or ones without known chromaticities: the values as they are). */
int sy__cicp_frame_gamut(uint16_t from, uint16_t to, float m[9]);

#endif
