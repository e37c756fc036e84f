/* apple_makernote.c — HDRHeadroom (tag 33) and HDRGain (tag 48) from the Apple
 * MakerNote inside Exif: "Apple iOS\0" + u16 1 + "MM", then a big-endian IFD
 * whose offsets count from the MakerNote start. Both are SRATIONAL. */
#include <math.h>

#include "exif/sy_exif.h"
#include "gainmap/sy_gainmap_internal.h"

/* The SRATIONAL value of `tag` in the MakerNote's IFD. */
static int srational(const sy__tiff *mn, const sy__tiff_ifd *ifd, uint16_t tag, double *out) {
    sy__tiff_entry e;
    int32_t n, d;
    if (!sy__tiff_find(mn, ifd, tag, &e) || !sy__tiff_srational(mn, &e, &n, &d) || d == 0) return 0;
    *out = (double)n / d;
    return isfinite(*out);
}

int sy__apple_makernote_headroom(const uint8_t *p, size_t len, double *m33, double *m48) {
    sy__tiff t, mn;
    sy__tiff_ifd ifd;
    size_t at;
    if (!sy__tiff_open(&t, p, len) || !sy__exif_apple_makernote(&t, &mn, &at) ||
        !sy__tiff_ifd_at(&mn, SY__EXIF_APPLE_IFD, &ifd))
        return 0;
    return srational(&mn, &ifd, 33, m33) && srational(&mn, &ifd, 48, m48);
}

double sy__apple_headroom_from_makernote(double m33, double m48) {
    double stops;
    if (m33 < 1) stops = m48 <= 0.01 ? 1.8 - 20 * m48 : 1.601 - 0.101 * m48;
    else stops = m48 <= 0.01 ? 3.0 - 70 * m48 : 2.303 - 0.303 * m48;
    return exp2(stops > 0 ? stops : 0);
}
