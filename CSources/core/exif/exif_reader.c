/* exif_reader.c — the Exif facts the engine reads: orientation, capture
 * GPS, the camera's name, and the sub-IFDs the other readers start from. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "exif/sy_exif.h"

#define TAG_MAKE 0x010F
#define TAG_MODEL 0x0110
#define TAG_ORIENTATION 0x0112
#define TAG_MAKERNOTE 0x927C
#define TAG_GPS_LATITUDE_REF 0x0001 /* GPS IFD */
#define TAG_GPS_LATITUDE 0x0002
#define TAG_GPS_LONGITUDE_REF 0x0003
#define TAG_GPS_LONGITUDE 0x0004
#define APPLE_MAGIC "Apple iOS\0"
#define APPLE_MIN_LEN 20u /* magic, 00 01, "MM", entry count, next-IFD link */

int sy__exif_ifd(const sy__tiff *t, const sy__tiff_ifd *ifd0, sy__tiff_ifd *out) {
    return sy__tiff_sub_ifd(t, ifd0, SY__TIFF_TAG_EXIF_IFD, out);
}

int sy__exif_apple_makernote(const sy__tiff *t, sy__tiff *mn, size_t *offset) {
    sy__tiff_ifd ifd0, exif;
    sy__tiff_entry e;
    if (!sy__tiff_ifd0(t, &ifd0) || sy__exif_ifd(t, &ifd0, &exif) != 1) return 0;
    if (!sy__tiff_find(t, &exif, TAG_MAKERNOTE, &e)) return 0;
    /* a MakerNote is `count` bytes whatever type it claims (Exif says UNDEFINED) */
    uint64_t at = sy__tiff_u32(t, e.at + 8);
    if (e.count < APPLE_MIN_LEN || at > t->len || e.count > t->len - at) return 0;
    const uint8_t *p = t->data + at;
    if (memcmp(p, APPLE_MAGIC, sizeof APPLE_MAGIC - 1) != 0 || p[12] != 'M' || p[13] != 'M') return 0;
    sy__tiff_view(mn, p, e.count, 0);
    *offset = (size_t)at;
    return 1;
}

uint8_t sy__exif_orientation(const uint8_t *tiff, size_t len) {
    sy__tiff t;
    sy__tiff_ifd ifd0;
    sy__tiff_entry e;
    if (!sy__tiff_open(&t, tiff, len) || !sy__tiff_ifd0(&t, &ifd0) || !sy__tiff_find(&t, &ifd0, TAG_ORIENTATION, &e))
        return 1;
    if (e.type != SY__TIFF_SHORT || e.count < 1) return 1;
    uint32_t v = sy__tiff_u16(&t, e.at + 8); /* one SHORT: inline, where sy__exif_set_orientation writes it */
    return v >= 1 && v <= 8 ? (uint8_t)v : 1;
}

/* 1 when IFD0 has the tag. */
static int ifd0_has(const uint8_t *tiff, size_t len, uint16_t tag) {
    sy__tiff t;
    sy__tiff_ifd ifd0;
    sy__tiff_entry e;
    return sy__tiff_open(&t, tiff, len) && sy__tiff_ifd0(&t, &ifd0) && sy__tiff_find(&t, &ifd0, tag, &e);
}

int sy__exif_has_gps(const uint8_t *tiff, size_t len) { return ifd0_has(tiff, len, SY__TIFF_TAG_GPS_IFD); }

/* Degrees from a GPS coordinate: 3 RATIONALs (degrees, minutes, seconds), signed by its
 * one-letter reference (`negative` is the letter that means south or west). */
static int gps_coordinate(const sy__tiff *t, const sy__tiff_ifd *gps, uint16_t ref_tag, uint16_t value_tag,
                          char positive, char negative, double limit, double *out) {
    sy__tiff_entry ref, value;
    if (!sy__tiff_find(t, gps, ref_tag, &ref) || ref.type != SY__TIFF_ASCII || ref.count < 1) return 0;
    if (!sy__tiff_find(t, gps, value_tag, &value) || value.type != SY__TIFF_RATIONAL || value.count != 3) return 0;
    const uint8_t *letter = sy__tiff_value(t, &ref);
    if (!letter || (*letter != positive && *letter != negative) || !sy__tiff_value(t, &value)) return 0;
    double parts[3];
    for (int i = 0; i < 3; i++) {
        uint32_t num = sy__tiff_u32(t, value.value_at + 8u * (uint64_t)i);
        uint32_t den = sy__tiff_u32(t, value.value_at + 8u * (uint64_t)i + 4);
        if (den == 0) return 0;
        parts[i] = (double)num / (double)den;
    }
    double degrees = parts[0] + parts[1] / 60.0 + parts[2] / 3600.0;
    if (degrees > limit) return 0;
    *out = *letter == negative ? -degrees : degrees;
    return 1;
}

int sy__exif_gps_position(const uint8_t *tiff, size_t len, double *latitude, double *longitude) {
    sy__tiff t;
    sy__tiff_ifd ifd0, gps;
    if (!sy__tiff_open(&t, tiff, len) || !sy__tiff_ifd0(&t, &ifd0)) return 0;
    if (sy__tiff_sub_ifd(&t, &ifd0, SY__TIFF_TAG_GPS_IFD, &gps) != 1) return 0;
    double lat, lon;
    if (!gps_coordinate(&t, &gps, TAG_GPS_LATITUDE_REF, TAG_GPS_LATITUDE, 'N', 'S', 90.0, &lat)) return 0;
    if (!gps_coordinate(&t, &gps, TAG_GPS_LONGITUDE_REF, TAG_GPS_LONGITUDE, 'E', 'W', 180.0, &lon)) return 0;
    *latitude = lat, *longitude = lon;
    return 1;
}

int sy__exif_has_camera(const uint8_t *tiff, size_t len) {
    return ifd0_has(tiff, len, TAG_MAKE) || ifd0_has(tiff, len, TAG_MODEL);
}

/* An IFD0 ASCII value as printable ASCII (others dropped), trimmed, into out[cap]. */
static size_t ifd0_text(const sy__tiff *t, const sy__tiff_ifd *ifd0, uint16_t tag, char *out, size_t cap) {
    sy__tiff_entry e;
    size_t n = 0;
    out[0] = 0;
    if (!sy__tiff_find(t, ifd0, tag, &e) || e.type != SY__TIFF_ASCII || e.count < 1) return 0;
    const uint8_t *p = sy__tiff_value(t, &e);
    if (!p) return 0;
    for (uint32_t i = 0; i < e.count && p[i] && n + 1 < cap; i++) {
        if (p[i] < 0x20 || p[i] > 0x7E || (p[i] == ' ' && (n == 0 || out[n - 1] == ' '))) continue;
        out[n++] = (char)p[i];
    }
    while (n > 0 && out[n - 1] == ' ') n--;
    out[n] = 0;
    return n;
}

size_t sy__exif_camera(const uint8_t *tiff, size_t len, char *out, size_t cap) {
    sy__tiff t;
    sy__tiff_ifd ifd0;
    if (!out || cap == 0) return 0;
    out[0] = 0;
    if (!sy__tiff_open(&t, tiff, len) || !sy__tiff_ifd0(&t, &ifd0)) return 0;
    char make[64], model[64];
    size_t make_len = ifd0_text(&t, &ifd0, TAG_MAKE, make, sizeof make);
    size_t model_len = ifd0_text(&t, &ifd0, TAG_MODEL, model, sizeof model);
    /* "Canon" + "Canon EOS R5" names the maker once */
    int repeats = make_len > 0 && model_len >= make_len && strncasecmp(model, make, make_len) == 0;
    int n = repeats || make_len == 0 ? snprintf(out, cap, "%s", model)
            : model_len == 0         ? snprintf(out, cap, "%s", make)
                                     : snprintf(out, cap, "%s %s", make, model);
    return n < 0 ? 0 : ((size_t)n < cap ? (size_t)n : cap - 1);
}
