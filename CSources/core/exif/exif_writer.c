/* exif_writer.c — see sy_exif_writer.h. A two-pass layout: every IFD's size
 * (entries + its data area) is known before anything is written, so the Exif
 * IFD pointer in IFD0 can be filled in directly. */
#include <string.h>

#include "exif/sy_exif_writer.h"
#include "exif/sy_tiff.h"

#define MAX_FIELDS 20

typedef struct ifd {
    sy__tiff_field f[MAX_FIELDS];
    uint32_t n;
} ifd;

static void add_uint(ifd *d, uint16_t tag, uint16_t type, uint32_t value) {
    d->f[d->n++] = sy__tiff_field_uint(tag, type, value, 1);
}

static void add_bytes(ifd *d, uint16_t tag, uint16_t type, uint32_t count, const uint8_t *bytes) {
    d->f[d->n++] = sy__tiff_field_bytes(tag, type, count, bytes);
}

/* NULL when the string is absent/empty; sets *bad for unusable strings. */
static const char *usable(const char *s, int *bad) {
    if (!s || !s[0]) return NULL;
    size_t n = strlen(s);
    if (n > 255) *bad = 1;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e) *bad = 1;
    return s;
}

static int datetime_ok(const char *s) {
    static const char shape[] = "dddd:dd:dd dd:dd:dd";
    if (strlen(s) != 19) return 0;
    for (int i = 0; i < 19; i++) {
        if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i]) return 0;
    }
    return 1;
}

static int offset_ok(const char *s) {
    return strlen(s) == 6 && (s[0] == '+' || s[0] == '-') && s[1] >= '0' && s[1] <= '9' && s[2] >= '0' &&
           s[2] <= '9' && s[3] == ':' && s[4] >= '0' && s[4] <= '5' && s[5] >= '0' && s[5] <= '9';
}

static int subsec_ok(const char *s) {
    size_t n = strlen(s);
    if (n < 1 || n > 9) return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

static void put_rational(uint8_t *p, uint32_t num, uint32_t den) {
    sy__tiff_put32(p, num, 1);
    sy__tiff_put32(p + 4, den, 1);
}

/* Degrees as degrees, minutes, seconds (1/10000 s: what cameras write). */
static void put_dms(uint8_t p[24], double deg) {
    double a = deg < 0 ? -deg : deg;
    uint64_t tenk = (uint64_t)(a * 3600.0 * 10000.0 + 0.5); /* ten-thousandths of a second */
    uint32_t d = (uint32_t)(tenk / 36000000u), m = (uint32_t)(tenk / 600000u % 60u);
    uint32_t s = (uint32_t)(tenk % 600000u);
    put_rational(p, d, 1);
    put_rational(p + 8, m, 1);
    put_rational(p + 16, s, 10000);
}

size_t sy__exif_build_tiff(const sy__exif_info *info, uint8_t *buf, size_t cap) {
    static const uint8_t resolution[8] = {72, 0, 0, 0, 1, 0, 0, 0}; /* 72/1 */
    static const uint8_t exif_version[4] = {'0', '2', '3', '2'};
    static const uint8_t flashpix_version[4] = {'0', '1', '0', '0'};
    static const uint8_t components[4] = {1, 2, 3, 0}; /* Y Cb Cr - */
    int bad = 0;
    if (!info || !buf || info->orientation < 1 || info->orientation > 8) return 0;
    const char *make = usable(info->make, &bad);
    const char *model = usable(info->model, &bad);
    const char *software = usable(info->software, &bad);
    const char *datetime = info->datetime;
    const char *offset = info->offset && info->offset[0] ? info->offset : NULL;
    const char *subsec = info->subsec && info->subsec[0] ? info->subsec : NULL;
    if (bad || (datetime && !datetime_ok(datetime)) || (offset && !offset_ok(offset)) || (subsec && !subsec_ok(subsec)))
        return 0;
    int gps = info->has_gps;
    if (gps && !(info->latitude >= -90 && info->latitude <= 90 && info->longitude >= -180 && info->longitude <= 180))
        return 0;
    if (gps && info->has_altitude && !(info->altitude > -1e6 && info->altitude < 1e6)) return 0;

    ifd ifd0 = {.n = 0}, exif = {.n = 0}, gpsd = {.n = 0};
    static const uint8_t gps_version[4] = {2, 2, 0, 0};
    uint8_t lat[24], lon[24], alt[8];
    char lat_ref[2] = {0}, lon_ref[2] = {0};
    uint8_t alt_ref[4] = {0};
    /* ASCII counts include the terminating NUL. */
    if (make) add_bytes(&ifd0, 0x010F, SY__TIFF_ASCII, (uint32_t)strlen(make) + 1, (const uint8_t *)make);
    if (model) add_bytes(&ifd0, 0x0110, SY__TIFF_ASCII, (uint32_t)strlen(model) + 1, (const uint8_t *)model);
    add_uint(&ifd0, 0x0112, SY__TIFF_SHORT, info->orientation);
    add_bytes(&ifd0, 0x011A, SY__TIFF_RATIONAL, 1, resolution);
    add_bytes(&ifd0, 0x011B, SY__TIFF_RATIONAL, 1, resolution);
    add_uint(&ifd0, 0x0128, SY__TIFF_SHORT, 2); /* inches */
    if (software) add_bytes(&ifd0, 0x0131, SY__TIFF_ASCII, (uint32_t)strlen(software) + 1, (const uint8_t *)software);
    if (datetime) add_bytes(&ifd0, 0x0132, SY__TIFF_ASCII, 20, (const uint8_t *)datetime);
    add_uint(&ifd0, 0x0213, SY__TIFF_SHORT, 1); /* YCbCrPositioning: centered */
    uint32_t exif_pointer = ifd0.n;
    add_uint(&ifd0, SY__TIFF_TAG_EXIF_IFD, SY__TIFF_LONG, 0); /* filled below */
    uint32_t gps_pointer = ifd0.n;
    if (gps) add_uint(&ifd0, 0x8825, SY__TIFF_LONG, 0); /* filled below */

    add_bytes(&exif, 0x9000, SY__TIFF_UNDEFINED, 4, exif_version);
    if (datetime) add_bytes(&exif, 0x9003, SY__TIFF_ASCII, 20, (const uint8_t *)datetime);
    if (datetime && (offset || subsec)) add_bytes(&exif, 0x9004, SY__TIFF_ASCII, 20, (const uint8_t *)datetime);
    if (datetime && offset) {
        add_bytes(&exif, 0x9010, SY__TIFF_ASCII, 7, (const uint8_t *)offset);
        add_bytes(&exif, 0x9011, SY__TIFF_ASCII, 7, (const uint8_t *)offset);
        add_bytes(&exif, 0x9012, SY__TIFF_ASCII, 7, (const uint8_t *)offset);
    }
    if (datetime && subsec) add_bytes(&exif, 0x9291, SY__TIFF_ASCII, (uint32_t)strlen(subsec) + 1, (const uint8_t *)subsec);
    add_bytes(&exif, 0x9101, SY__TIFF_UNDEFINED, 4, components);
    add_bytes(&exif, 0xA000, SY__TIFF_UNDEFINED, 4, flashpix_version);
    add_uint(&exif, 0xA001, SY__TIFF_SHORT, info->uncalibrated ? 0xFFFF : 1); /* ColorSpace */
    if (info->pixel_x) add_uint(&exif, 0xA002, SY__TIFF_LONG, info->pixel_x);
    if (info->pixel_y) add_uint(&exif, 0xA003, SY__TIFF_LONG, info->pixel_y);

    if (gps) {
        add_bytes(&gpsd, 0x0000, SY__TIFF_BYTE, 4, gps_version);
        lat_ref[0] = info->latitude < 0 ? 'S' : 'N';
        lon_ref[0] = info->longitude < 0 ? 'W' : 'E';
        put_dms(lat, info->latitude);
        put_dms(lon, info->longitude);
        add_bytes(&gpsd, 0x0001, SY__TIFF_ASCII, 2, (const uint8_t *)lat_ref);
        add_bytes(&gpsd, 0x0002, SY__TIFF_RATIONAL, 3, lat);
        add_bytes(&gpsd, 0x0003, SY__TIFF_ASCII, 2, (const uint8_t *)lon_ref);
        add_bytes(&gpsd, 0x0004, SY__TIFF_RATIONAL, 3, lon);
        if (info->has_altitude) {
            double a = info->altitude < 0 ? -info->altitude : info->altitude;
            alt_ref[0] = info->altitude < 0;
            put_rational(alt, (uint32_t)(a * 1000 + 0.5), 1000);
            add_bytes(&gpsd, 0x0005, SY__TIFF_BYTE, 1, alt_ref);
            add_bytes(&gpsd, 0x0006, SY__TIFF_RATIONAL, 1, alt);
        }
    }

    uint32_t ifd0_at = 8;
    uint64_t exif_at = ifd0_at + sy__tiff_ifd_size(ifd0.f, ifd0.n);
    uint64_t gps_at = exif_at + sy__tiff_ifd_size(exif.f, exif.n);
    uint64_t total = gps_at + (gps ? sy__tiff_ifd_size(gpsd.f, gpsd.n) : 0);
    if (total > cap) return 0;
    ifd0.f[exif_pointer] = sy__tiff_field_uint(SY__TIFF_TAG_EXIF_IFD, SY__TIFF_LONG, (uint32_t)exif_at, 1);
    if (gps) ifd0.f[gps_pointer] = sy__tiff_field_uint(0x8825, SY__TIFF_LONG, (uint32_t)gps_at, 1);
    /* TIFF wants ascending tags (the lists above are already; this keeps it so) */
    sy__tiff_fields_sort(ifd0.f, ifd0.n);
    sy__tiff_fields_sort(exif.f, exif.n);

    sy__tiff_put_header(buf, 1, ifd0_at);
    sy__tiff_ifd_write(buf, ifd0_at, ifd0.f, ifd0.n, 0, 1); /* no next IFD */
    sy__tiff_ifd_write(buf, (size_t)exif_at, exif.f, exif.n, 0, 1);
    if (gps) {
        sy__tiff_fields_sort(gpsd.f, gpsd.n);
        sy__tiff_ifd_write(buf, (size_t)gps_at, gpsd.f, gpsd.n, 0, 1);
    }
    return (size_t)total;
}

size_t sy__exif_build_app1(const sy__exif_info *info, uint8_t *buf, size_t cap) {
    if (!buf || cap < 6) return 0;
    if (cap > SY__EXIF_APP1_MAX) cap = SY__EXIF_APP1_MAX;
    size_t n = sy__exif_build_tiff(info, buf + 6, cap - 6);
    if (!n) return 0;
    memcpy(buf, "Exif\0\0", 6);
    return n + 6;
}
