/* exif_writer.c — see sy_exif_writer.h. A two-pass layout: every IFD's size
 * (entries + its data area) is known before anything is written, so the Exif
 * IFD pointer in IFD0 can be filled in directly. */
#include <string.h>

#include "exif/sy_exif_writer.h"

enum { T_ASCII = 2, T_SHORT = 3, T_LONG = 4, T_RATIONAL = 5, T_UNDEFINED = 7 };

typedef struct ifd_entry {
    uint16_t tag;
    uint16_t type;
    uint32_t count;
    uint32_t value;       /* SHORT / LONG scalar (count 1) */
    const uint8_t *bytes; /* ASCII / UNDEFINED / RATIONAL payload (count * type size bytes) */
} ifd_entry;

#define MAX_ENTRIES 12

typedef struct ifd {
    ifd_entry e[MAX_ENTRIES];
    int n;
} ifd;

static uint32_t type_size(uint16_t type) {
    switch (type) {
    case T_SHORT: return 2;
    case T_LONG: return 4;
    case T_RATIONAL: return 8;
    default: return 1;
    }
}

static uint32_t payload_bytes(const ifd_entry *e) { return e->count * type_size(e->type); }

/* Bytes the data area needs for this entry (0 when the value fits in the entry). */
static uint32_t out_of_line(const ifd_entry *e) {
    uint32_t n = payload_bytes(e);
    return n <= 4 ? 0 : (n + 1u) & ~1u; /* word-aligned, as TIFF asks */
}

static uint32_t ifd_size(const ifd *d) {
    uint32_t size = 2 + 12u * (uint32_t)d->n + 4;
    for (int i = 0; i < d->n; i++) size += out_of_line(&d->e[i]);
    return size;
}

static void add(ifd *d, uint16_t tag, uint16_t type, uint32_t count, uint32_t value, const uint8_t *bytes) {
    /* Keep ascending tag order (TIFF requires it); insertion into a tiny array. */
    int i = d->n++;
    while (i > 0 && d->e[i - 1].tag > tag) {
        d->e[i] = d->e[i - 1];
        i--;
    }
    d->e[i] = (ifd_entry){tag, type, count, value, bytes};
}

static void put16(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Writes the IFD at tiff offset `at` (the caller checked the room). */
static void write_ifd(uint8_t *tiff, uint32_t at, const ifd *d) {
    uint8_t *p = tiff + at;
    uint32_t data = at + 2 + 12u * (uint32_t)d->n + 4;
    put16(p, (uint32_t)d->n);
    p += 2;
    for (int i = 0; i < d->n; i++, p += 12) {
        const ifd_entry *e = &d->e[i];
        uint32_t n = payload_bytes(e);
        put16(p, e->tag);
        put16(p + 2, e->type);
        put32(p + 4, e->count);
        memset(p + 8, 0, 4);
        if (!e->bytes) {
            if (e->type == T_SHORT) put16(p + 8, e->value);
            else put32(p + 8, e->value);
        } else if (n <= 4) {
            memcpy(p + 8, e->bytes, n);
        } else {
            put32(p + 8, data);
            memcpy(tiff + data, e->bytes, n);
            if (n & 1) tiff[data + n] = 0;
            data += out_of_line(e);
        }
    }
    put32(p, 0); /* no next IFD */
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
    if (make) add(&ifd0, 0x010F, T_ASCII, (uint32_t)strlen(make) + 1, 0, (const uint8_t *)make);
    if (model) add(&ifd0, 0x0110, T_ASCII, (uint32_t)strlen(model) + 1, 0, (const uint8_t *)model);
    add(&ifd0, 0x0112, T_SHORT, 1, info->orientation, NULL);
    add(&ifd0, 0x011A, T_RATIONAL, 1, 0, resolution);
    add(&ifd0, 0x011B, T_RATIONAL, 1, 0, resolution);
    add(&ifd0, 0x0128, T_SHORT, 1, 2, NULL); /* inches */
    if (datetime) add(&ifd0, 0x0132, T_ASCII, 20, 0, (const uint8_t *)datetime);
    add(&ifd0, 0x0213, T_SHORT, 1, 1, NULL); /* YCbCrPositioning: centered */
    add(&ifd0, 0x8769, T_LONG, 1, 0, NULL);  /* ExifIFD offset, filled below */

    add(&exif, 0x9000, T_UNDEFINED, 4, 0, exif_version);
    if (datetime) add(&exif, 0x9003, T_ASCII, 20, 0, (const uint8_t *)datetime);
    add(&exif, 0x9101, T_UNDEFINED, 4, 0, components);
    add(&exif, 0xA000, T_UNDEFINED, 4, 0, flashpix_version);
    add(&exif, 0xA001, T_SHORT, 1, 1, NULL); /* ColorSpace: sRGB */
    if (info->pixel_x) add(&exif, 0xA002, T_LONG, 1, info->pixel_x, NULL);
    if (info->pixel_y) add(&exif, 0xA003, T_LONG, 1, info->pixel_y, NULL);

    uint32_t ifd0_at = 8;
    uint32_t exif_at = ifd0_at + ifd_size(&ifd0);
    uint32_t total = exif_at + ifd_size(&exif);
    if (total > cap) return 0;
    for (int i = 0; i < ifd0.n; i++)
        if (ifd0.e[i].tag == 0x8769) ifd0.e[i].value = exif_at;

    memcpy(buf, "II*\0", 4);
    put32(buf + 4, ifd0_at);
    write_ifd(buf, ifd0_at, &ifd0);
    write_ifd(buf, exif_at, &exif);
    return total;
}

size_t sy__exif_build_app1(const sy__exif_info *info, uint8_t *buf, size_t cap) {
    if (!buf || cap < 6) return 0;
    if (cap > SY__EXIF_APP1_MAX) cap = SY__EXIF_APP1_MAX;
    size_t n = sy__exif_build_tiff(info, buf + 6, cap - 6);
    if (!n) return 0;
    memcpy(buf, "Exif\0\0", 6);
    return n + 6;
}
