/* exif_jpeg_tags.c — the tags a JPEG's Exif must carry, added when absent
 * (sy_exif.h).
 *
 * Exif 2.3 makes some tags mandatory for compressed (JPEG) files that a
 * HEIC's Exif leaves out: YCbCrPositioning in IFD0, ExifVersion,
 * ComponentsConfiguration and FlashpixVersion in the Exif IFD, GPSVersionID
 * in a GPS IFD. An iPhone HEIC saved as JPEG kept the HEIC's Exif as it was,
 * and exiftool's validation flagged all of them. The values are the ones our
 * JPEGs are: Y'CbCr centred (libjpeg's 4:2:0 siting), components Y Cb Cr,
 * Flashpix 1.0, Exif 2.32, GPS 2.2.0.0 — or 2.3.0.0 when the IFD holds a tag
 * Exif 2.3 added (GPSHPositioningError, 0x1F, in every iPhone photo).
 *
 * The IFDs that gain entries are copied, with them, after the block's end and
 * the pointers to them moved; the old tables stay as unused bytes and every
 * value stays where it lies — a vendor MakerNote whose offsets count from the
 * TIFF start included (a fresh layout, as exif_fit.c makes one, would break
 * it). */
#include <string.h>

#include "exif/sy_exif.h"

#define TAG_YCBCR_POSITIONING 0x0213
#define TAG_EXIF_VERSION 0x9000
#define TAG_COMPONENTS 0x9101
#define TAG_FLASHPIX_VERSION 0xA000
#define TAG_GPS_VERSION 0x0000
#define NO_TAG 0xFFFFu /* skips nothing when copying an IFD */

typedef struct required {
    uint16_t tag, type;
    const uint8_t *bytes; /* 4 bytes, or NULL for a SHORT of `number` */
    uint16_t number;
} required;

static const required IFD0_TAGS[] = {{TAG_YCBCR_POSITIONING, SY__TIFF_SHORT, NULL, 1}};
static const required EXIF_TAGS[] = {{TAG_EXIF_VERSION, SY__TIFF_UNDEFINED, (const uint8_t *)"0232", 0},
                                     {TAG_COMPONENTS, SY__TIFF_UNDEFINED, (const uint8_t *)"\1\2\3\0", 0},
                                     {TAG_FLASHPIX_VERSION, SY__TIFF_UNDEFINED, (const uint8_t *)"0100", 0}};
static const required GPS_TAGS[] = {{TAG_GPS_VERSION, SY__TIFF_BYTE, (const uint8_t *)"\2\2\0\0", 0}};
#define GPS_FIRST_2_3_TAG 0x001F /* GPSHPositioningError */

/* GPSVersionID 2.3.0.0 when the GPS IFD uses a tag of that version. */
static const uint8_t *gps_version(const sy__tiff *t, const sy__tiff_ifd *gps) {
    for (uint32_t i = 0; i < gps->count; i++) {
        sy__tiff_entry e;
        sy__tiff_entry_at(t, gps, i, &e);
        if (e.tag >= GPS_FIRST_2_3_TAG) return (const uint8_t *)"\2\3\0\0";
    }
    return GPS_TAGS[0].bytes;
}

/* One IFD of the block and what it lacks. */
typedef struct ifd_plan {
    sy__tiff_ifd ifd;
    int present;
    const required *tags;
    uint32_t tag_count, missing;
    uint64_t at; /* where its copy goes; 0 = not copied */
} ifd_plan;

static void count_missing(const sy__tiff *t, ifd_plan *p) {
    p->missing = 0;
    for (uint32_t i = 0; p->present && i < p->tag_count; i++) {
        sy__tiff_entry e;
        if (!sy__tiff_find(t, &p->ifd, p->tags[i].tag, &e)) p->missing++;
    }
}

/* 1 when every value and link the IFD names lies inside the block. A block
 * with a dangling one is left as it is: after the copies are appended, an
 * offset past the old end would name their bytes. */
static int whole_ifd(const sy__tiff *t, const sy__tiff_ifd *ifd) {
    for (uint32_t i = 0; i < ifd->count; i++) {
        sy__tiff_entry e;
        sy__tiff_entry_at(t, ifd, i, &e);
        if (e.size > 4 && !sy__tiff_value(t, &e)) return 0;
    }
    return 1;
}

static int whole_block(const sy__tiff *t, const ifd_plan *ifd0, const ifd_plan *exif, const ifd_plan *gps,
                       int exif_link, int gps_link) {
    sy__tiff_ifd next, interop;
    uint32_t next_at = sy__tiff_next_ifd(t, &ifd0->ifd);
    if (exif_link < 0 || gps_link < 0 || (next_at && !sy__tiff_ifd_at(t, next_at, &next))) return 0;
    if (exif->present && sy__tiff_sub_ifd(t, &exif->ifd, SY__TIFF_TAG_INTEROP_IFD, &interop) < 0) return 0;
    return whole_ifd(t, &ifd0->ifd) && (!exif->present || whole_ifd(t, &exif->ifd)) &&
           (!gps->present || whole_ifd(t, &gps->ifd));
}

/* The IFD's entries, the missing ones added, a moved sub-IFD's pointer
 * changed; sorted. `fields` has room for ifd.count + tag_count. */
static uint32_t fields_of(const sy__tiff *t, const ifd_plan *p, const ifd_plan *exif, const ifd_plan *gps,
                          sy__tiff_field *fields) {
    int le = t->little_endian;
    uint32_t n = sy__tiff_fields_copy(t, &p->ifd, NO_TAG, fields);
    for (uint32_t i = 0; i < n; i++) {
        const ifd_plan *moved = fields[i].tag == SY__TIFF_TAG_EXIF_IFD ? exif
                                : fields[i].tag == SY__TIFF_TAG_GPS_IFD ? gps : NULL;
        if (moved && moved->at) fields[i] = sy__tiff_field_uint(fields[i].tag, SY__TIFF_LONG, (uint32_t)moved->at, le);
    }
    for (uint32_t i = 0; i < p->tag_count; i++) {
        sy__tiff_entry e;
        if (sy__tiff_find(t, &p->ifd, p->tags[i].tag, &e)) continue;
        const required *r = &p->tags[i];
        const uint8_t *bytes = r->tag == TAG_GPS_VERSION && p->tags == GPS_TAGS ? gps_version(t, &p->ifd) : r->bytes;
        fields[n++] = bytes ? sy__tiff_field_bytes(r->tag, r->type, 4, bytes)
                            : sy__tiff_field_uint(r->tag, r->type, r->number, le);
    }
    sy__tiff_fields_sort(fields, n);
    return n;
}

sy_status sy__exif_add_jpeg_tags(sy_context *ctx, const uint8_t *tiff, size_t len, uint8_t **out, size_t *out_len,
                                 sy_error *err) {
    *out = NULL, *out_len = 0;
    sy__tiff t;
    ifd_plan ifd0 = {.tags = IFD0_TAGS, .tag_count = 1}, exif = {.tags = EXIF_TAGS, .tag_count = 3},
             gps = {.tags = GPS_TAGS, .tag_count = 1};
    if (!sy__tiff_open(&t, tiff, len) || !sy__tiff_ifd0(&t, &ifd0.ifd)) return SY_OK; /* nothing we can read */
    ifd0.present = 1;
    int exif_link = sy__exif_ifd(&t, &ifd0.ifd, &exif.ifd), gps_link = sy__tiff_sub_ifd(&t, &ifd0.ifd, SY__TIFF_TAG_GPS_IFD, &gps.ifd);
    exif.present = exif_link == 1, gps.present = gps_link == 1;
    count_missing(&t, &ifd0), count_missing(&t, &exif), count_missing(&t, &gps);
    if (!ifd0.missing && !exif.missing && !gps.missing) return SY_OK;
    if (!whole_block(&t, &ifd0, &exif, &gps, exif_link, gps_link)) return SY_OK;

    /* layout: old bytes | Exif IFD | GPS IFD | IFD0 (each copied only when it gains entries or, IFD0, pointers) */
    uint64_t end = sy__tiff_align4(len);
    ifd_plan *order[] = {&exif, &gps};
    for (int i = 0; i < 2; i++)
        if (order[i]->missing) {
            order[i]->at = end;
            end = sy__tiff_align4(end + sy__tiff_ifd_bytes(order[i]->ifd.count + order[i]->missing));
        }
    if (ifd0.missing) {
        ifd0.at = end;
        end = sy__tiff_align4(end + sy__tiff_ifd_bytes(ifd0.ifd.count + ifd0.missing));
    }
    if (end > UINT32_MAX) return SY_OK; /* offsets could not name the copies: the block stays as it is */
    size_t most = SY__MAX(SY__MAX(ifd0.ifd.count, exif.ifd.count), gps.ifd.count) + 3;
    sy__tiff_field *fields = sy__alloc(ctx, most, sizeof *fields, "exif fields", err);
    uint8_t *buf = fields ? sy__calloc(ctx, (size_t)end, 1, "exif with jpeg tags", err) : NULL;
    if (!buf) {
        sy__free(ctx, fields);
        return err ? err->code : SY_E_BUDGET;
    }
    memcpy(buf, tiff, len);
    int le = t.little_endian;
    for (int i = 0; i < 2; i++) {
        if (!order[i]->at) continue;
        uint32_t n = fields_of(&t, order[i], &exif, &gps, fields);
        sy__tiff_ifd_write(buf, (size_t)order[i]->at, fields, n, 0, le);
        if (!ifd0.at) { /* the pointer in the old IFD0, moved in place */
            sy__tiff_entry e;
            uint16_t tag = order[i] == &exif ? SY__TIFF_TAG_EXIF_IFD : SY__TIFF_TAG_GPS_IFD;
            if (sy__tiff_find(&t, &ifd0.ifd, tag, &e)) { /* as a LONG whatever it was (a SHORT could not say it) */
                sy__tiff_put16(buf + e.at + 2, SY__TIFF_LONG, le);
                sy__tiff_put32(buf + e.at + 4, 1, le);
                sy__tiff_put32(buf + e.at + 8, (uint32_t)order[i]->at, le);
            }
        }
    }
    if (ifd0.at) {
        uint32_t n = fields_of(&t, &ifd0, &exif, &gps, fields);
        sy__tiff_ifd_write(buf, (size_t)ifd0.at, fields, n, sy__tiff_next_ifd(&t, &ifd0.ifd), le);
        sy__tiff_put32(buf + 4, (uint32_t)ifd0.at, le);
    }
    sy__free(ctx, fields);
    *out = buf, *out_len = (size_t)end;
    return SY_OK;
}
