/* xmp_gps.c — a position stated only in XMP (sy_exif.h sy__xmp_gps_position):
 * exif:GPSLatitude / exif:GPSLongitude as the XMP specification writes a
 * GPSCoordinate, "DDD,MM,SSk" or "DDD,MM.mmk" (k = N, S, E, W), as exiftool,
 * Lightroom and photo managers write it into files whose Exif has no GPS IFD
 * (or into sidecar-merged XMP). */
#include <stdlib.h>
#include <string.h>

#include "exif/sy_exif.h"
#include "exif/sy_xmp_text.h"

/* A GPSCoordinate in signed degrees; 0 when it is not one. `limit`: 90 or 180. */
static int coordinate(const char *v, double limit, const char *positive, const char *negative, double *out) {
    char *end = NULL;
    long degrees = strtol(v, &end, 10);
    if (end == v || *end != ',' || degrees < 0 || degrees > (long)limit) return 0;
    const char *m = end + 1;
    double minutes = strtod(m, &end);
    if (end == m || minutes < 0 || minutes >= 60) return 0;
    double seconds = 0;
    if (*end == ',') { /* DDD,MM,SSk: whole minutes, then seconds */
        const char *s = end + 1;
        if (strchr(m, '.') && strchr(m, '.') < end) return 0;
        seconds = strtod(s, &end);
        if (end == s || seconds < 0 || seconds >= 60) return 0;
    }
    if (!end[0] || end[1]) return 0;
    int sign = strchr(positive, end[0]) ? 1 : strchr(negative, end[0]) ? -1 : 0;
    double value = degrees + minutes / 60 + seconds / 3600;
    if (!sign || value > limit) return 0;
    *out = sign * value;
    return 1;
}

int sy__xmp_gps_position(const uint8_t *xmp, size_t len, double *latitude, double *longitude) {
    if (!xmp || !len) return 0;
    char prefix[SY__XMP_MAX_PREFIX], lat[48], lon[48];
    sy__xmp_prefix_for(xmp, len, "http://ns.adobe.com/exif/1.0/", "exif", prefix);
    if (sy__xmp_value(xmp, xmp + len, prefix, "GPSLatitude", lat, sizeof lat) != 1 ||
        sy__xmp_value(xmp, xmp + len, prefix, "GPSLongitude", lon, sizeof lon) != 1)
        return 0;
    double la, lo;
    if (!coordinate(lat, 90, "Nn", "Ss", &la) || !coordinate(lon, 180, "Ee", "Ww", &lo)) return 0;
    *latitude = la, *longitude = lo;
    return 1;
}
