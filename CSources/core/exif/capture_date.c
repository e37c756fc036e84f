/* capture_date.c — when a still was taken, from whichever of its metadata
 * says so (sy_exif.h sy__capture_date). The order is the one photo apps use:
 * Exif DateTimeOriginal, Exif DateTimeDigitized (CreateDate: a scan's or an
 * editor's export of the shot keeps it when the original date is gone), the
 * XMP dates (exif:DateTimeOriginal, xmp:CreateDate, photoshop:DateCreated:
 * files whose Exif was stripped or never written), and last Exif DateTime
 * (ModifyDate, which an editor sets to the time of the last save). A
 * placeholder ("0000:00:00 00:00:00", blanks) is no date and never stops the
 * search. */
#include <stdio.h>
#include <string.h>

#include "exif/sy_exif.h"
#include "exif/sy_xmp_text.h"

#define TAG_DATETIME 0x0132
#define TAG_DATETIME_ORIGINAL 0x9003
#define TAG_DATETIME_DIGITIZED 0x9004

static int digits(const char *s, int n, int *out) {
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 1;
}

int sy__capture_date_valid(const char date[20]) {
    int y, mo, d, h, mi, s;
    if (!digits(date, 4, &y) || !digits(date + 5, 2, &mo) || !digits(date + 8, 2, &d) ||
        !digits(date + 11, 2, &h) || !digits(date + 14, 2, &mi) || !digits(date + 17, 2, &s))
        return 0;
    if (date[4] != ':' || date[7] != ':' || date[10] != ' ' || date[13] != ':' || date[16] != ':') return 0;
    /* 24:00:00 is how some cameras write midnight (the next day's start) */
    return y >= 1 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && (h < 24 || (h == 24 && mi == 0 && s == 0)) &&
           mi < 60 && s < 61;
}

/* An ASCII Exif date of `ifd`, when it is a real one. */
static int exif_date(const sy__tiff *t, const sy__tiff_ifd *ifd, uint16_t tag, char out[20]) {
    sy__tiff_entry e;
    if (!sy__tiff_find(t, ifd, tag, &e) || e.type != SY__TIFF_ASCII || e.count < 19) return 0;
    const uint8_t *p = sy__tiff_value(t, &e);
    if (!p) return 0;
    memcpy(out, p, 19);
    out[19] = 0;
    return sy__capture_date_valid(out);
}

/* An XMP date ("YYYY-MM-DDThh:mm[:ss[.s]][zone]" or a bare "YYYY-MM-DD") as
 * Exif's local "YYYY:MM:DD HH:MM:SS": the wall-clock time the value says, its
 * zone left out as Exif DateTimeOriginal leaves it out. */
static int from_xmp_date(const char *v, char out[20]) {
    size_t n = strlen(v);
    if (n < 10 || v[4] != '-' || v[7] != '-') return 0;
    char hms[9] = "00:00:00";
    if (n > 10) {
        if (v[10] != 'T' || n < 16 || v[13] != ':') return 0;
        memcpy(hms, v + 11, 5);
        if (n >= 19 && v[16] == ':') memcpy(hms + 5, v + 16, 3);
    }
    snprintf(out, 20, "%.4s:%.2s:%.2s %s", v, v + 5, v + 8, hms);
    return sy__capture_date_valid(out);
}

static int xmp_date(const uint8_t *xmp, size_t len, const char *ns, const char *prefix, const char *name,
                    char out[20]) {
    char bound[SY__XMP_MAX_PREFIX], value[64];
    sy__xmp_prefix_for(xmp, len, ns, prefix, bound);
    return sy__xmp_value(xmp, xmp + len, bound, name, value, sizeof value) == 1 && from_xmp_date(value, out);
}

int sy__capture_date(const uint8_t *exif, size_t exif_len, const uint8_t *xmp, size_t xmp_len, char out[20]) {
    sy__tiff t;
    sy__tiff_ifd ifd0, ifd;
    int has_ifd0 = exif && sy__tiff_open(&t, exif, exif_len) && sy__tiff_ifd0(&t, &ifd0);
    if (has_ifd0 && sy__exif_ifd(&t, &ifd0, &ifd) == 1 &&
        (exif_date(&t, &ifd, TAG_DATETIME_ORIGINAL, out) || exif_date(&t, &ifd, TAG_DATETIME_DIGITIZED, out)))
        return 1;
    if (xmp && (xmp_date(xmp, xmp_len, "http://ns.adobe.com/exif/1.0/", "exif", "DateTimeOriginal", out) ||
                xmp_date(xmp, xmp_len, "http://ns.adobe.com/xap/1.0/", "xmp", "CreateDate", out) ||
                xmp_date(xmp, xmp_len, "http://ns.adobe.com/photoshop/1.0/", "photoshop", "DateCreated", out)))
        return 1;
    if (has_ifd0 && exif_date(&t, &ifd0, TAG_DATETIME, out)) return 1;
    out[0] = 0;
    return 0;
}

int sy__exif_capture_date(const uint8_t *tiff, size_t len, char out[20]) {
    return sy__capture_date(tiff, len, NULL, 0, out);
}
