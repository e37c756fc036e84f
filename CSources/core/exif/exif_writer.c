/* exif_writer.c — see sy_exif_writer.h. A two-pass layout: every IFD's size
 * (entries + its data area) is known before anything is written, so the Exif
 * IFD pointer in IFD0 can be filled in directly. */
#include <string.h>

#include "exif/sy_exif_writer.h"
#include "exif/sy_tiff.h"

#define MAX_FIELDS 12

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

size_t sy__exif_build_tiff(const sy__exif_info *info, uint8_t *buf, size_t cap) {
    static const uint8_t resolution[8] = {72, 0, 0, 0, 1, 0, 0, 0}; /* 72/1 */
    static const uint8_t exif_version[4] = {'0', '2', '3', '2'};
    static const uint8_t flashpix_version[4] = {'0', '1', '0', '0'};
    static const uint8_t components[4] = {1, 2, 3, 0}; /* Y Cb Cr - */
    int bad = 0;
    if (!info || !buf || info->orientation < 1 || info->orientation > 8) return 0;
    const char *make = usable(info->make, &bad);
    const char *model = usable(info->model, &bad);
    const char *datetime = info->datetime;
    if (bad || (datetime && !datetime_ok(datetime))) return 0;

    ifd ifd0 = {.n = 0}, exif = {.n = 0};
    /* ASCII counts include the terminating NUL. */
    if (make) add_bytes(&ifd0, 0x010F, SY__TIFF_ASCII, (uint32_t)strlen(make) + 1, (const uint8_t *)make);
    if (model) add_bytes(&ifd0, 0x0110, SY__TIFF_ASCII, (uint32_t)strlen(model) + 1, (const uint8_t *)model);
    add_uint(&ifd0, 0x0112, SY__TIFF_SHORT, info->orientation);
    add_bytes(&ifd0, 0x011A, SY__TIFF_RATIONAL, 1, resolution);
    add_bytes(&ifd0, 0x011B, SY__TIFF_RATIONAL, 1, resolution);
    add_uint(&ifd0, 0x0128, SY__TIFF_SHORT, 2); /* inches */
    if (datetime) add_bytes(&ifd0, 0x0132, SY__TIFF_ASCII, 20, (const uint8_t *)datetime);
    add_uint(&ifd0, 0x0213, SY__TIFF_SHORT, 1); /* YCbCrPositioning: centered */
    uint32_t exif_pointer = ifd0.n;
    add_uint(&ifd0, SY__TIFF_TAG_EXIF_IFD, SY__TIFF_LONG, 0); /* filled below */

    add_bytes(&exif, 0x9000, SY__TIFF_UNDEFINED, 4, exif_version);
    if (datetime) add_bytes(&exif, 0x9003, SY__TIFF_ASCII, 20, (const uint8_t *)datetime);
    add_bytes(&exif, 0x9101, SY__TIFF_UNDEFINED, 4, components);
    add_bytes(&exif, 0xA000, SY__TIFF_UNDEFINED, 4, flashpix_version);
    add_uint(&exif, 0xA001, SY__TIFF_SHORT, info->uncalibrated ? 0xFFFF : 1); /* ColorSpace */
    if (info->pixel_x) add_uint(&exif, 0xA002, SY__TIFF_LONG, info->pixel_x);
    if (info->pixel_y) add_uint(&exif, 0xA003, SY__TIFF_LONG, info->pixel_y);

    uint32_t ifd0_at = 8;
    uint64_t exif_at = ifd0_at + sy__tiff_ifd_size(ifd0.f, ifd0.n);
    uint64_t total = exif_at + sy__tiff_ifd_size(exif.f, exif.n);
    if (total > cap) return 0;
    ifd0.f[exif_pointer] = sy__tiff_field_uint(SY__TIFF_TAG_EXIF_IFD, SY__TIFF_LONG, (uint32_t)exif_at, 1);
    /* TIFF wants ascending tags (the lists above are already; this keeps it so) */
    sy__tiff_fields_sort(ifd0.f, ifd0.n);
    sy__tiff_fields_sort(exif.f, exif.n);

    sy__tiff_put_header(buf, 1, ifd0_at);
    sy__tiff_ifd_write(buf, ifd0_at, ifd0.f, ifd0.n, 0, 1); /* no next IFD */
    sy__tiff_ifd_write(buf, (size_t)exif_at, exif.f, exif.n, 0, 1);
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
