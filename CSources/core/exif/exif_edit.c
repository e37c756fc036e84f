/* exif_edit.c — the Exif changes the engine makes: in-place orientation and
 * pixel size, the stale embedded thumbnail removed, and an appended Exif IFD
 * that carries a new MakerNote. */
#include <string.h>

#include "exif/sy_exif.h"

#define TAG_ORIENTATION 0x0112
#define TAG_PIXEL_X 0xA002
#define TAG_PIXEL_Y 0xA003
#define TAG_MAKERNOTE 0x927C

int sy__exif_set_orientation(uint8_t *tiff, size_t len, uint8_t orientation) {
    sy__tiff t;
    sy__tiff_ifd ifd0;
    sy__tiff_entry e;
    if (!sy__tiff_open(&t, tiff, len) || !sy__tiff_ifd0(&t, &ifd0) || !sy__tiff_find(&t, &ifd0, TAG_ORIENTATION, &e) ||
        e.type != SY__TIFF_SHORT || e.count < 1) /* the entry sy__exif_orientation reads */
        return 0;
    sy__tiff_put16(tiff + e.at + 8, orientation, t.little_endian);
    return 1;
}

/* Writes `value` into a count-1 SHORT or LONG entry in place; 1 if written. */
static int set_uint(const sy__tiff *t, uint8_t *tiff, const sy__tiff_ifd *ifd, uint16_t tag, uint32_t value) {
    sy__tiff_entry e;
    if (!sy__tiff_find(t, ifd, tag, &e) || e.count != 1) return 0;
    if (e.type == SY__TIFF_SHORT && value <= 0xFFFF) sy__tiff_put16(tiff + e.at + 8, value, t->little_endian);
    else if (e.type == SY__TIFF_LONG) sy__tiff_put32(tiff + e.at + 8, value, t->little_endian);
    else return 0;
    return 1;
}

int sy__exif_set_dimensions(uint8_t *tiff, size_t len, uint32_t width, uint32_t height) {
    sy__tiff t;
    sy__tiff_ifd ifd0, exif;
    if (!sy__tiff_open(&t, tiff, len) || !sy__tiff_ifd0(&t, &ifd0) || sy__exif_ifd(&t, &ifd0, &exif) != 1) return 0;
    int a = set_uint(&t, tiff, &exif, TAG_PIXEL_X, width);
    int b = set_uint(&t, tiff, &exif, TAG_PIXEL_Y, height);
    return a || b;
}

sy_status sy__exif_with_makernote(sy_context *ctx, const sy__tiff *t, const uint8_t *makernote, size_t mn_len,
                                  size_t blank_at, size_t blank_len, uint8_t **out, size_t *out_len, sy_error *err) {
    *out = NULL;
    *out_len = 0;
    int le = t->little_endian;
    sy__tiff_ifd ifd0, exif = {0, 0};
    sy__tiff_entry pointer;
    if (!sy__tiff_ifd0(t, &ifd0)) return sy__fail(err, SY_E_INVALID_INPUT, "exif: IFD0 is truncated");
    int has_exif = sy__tiff_find(t, &ifd0, SY__TIFF_TAG_EXIF_IFD, &pointer);
    if (has_exif && sy__exif_ifd(t, &ifd0, &exif) != 1)
        return sy__fail(err, SY_E_INVALID_INPUT, "exif: Exif IFD at %u is truncated", sy__tiff_u32(t, pointer.at + 8));
    if (blank_len > t->len || blank_at > t->len - blank_len)
        return sy__fail(err, SY_E_USAGE, "exif: blanked range outside the Exif");

    sy__tiff_field *fields = sy__alloc(ctx, (size_t)ifd0.count + exif.count + 2, sizeof *fields, "exif fields", err);
    if (!fields) return err ? err->code : SY_E_BUDGET;
    sy__tiff_field *exif_fields = fields + ifd0.count + 1;
    uint32_t exif_n = has_exif ? sy__tiff_fields_copy(t, &exif, TAG_MAKERNOTE, exif_fields) : 0;

    /* layout: old bytes | IFD0 again (when it gains the pointer) | Exif IFD | MakerNote */
    uint64_t ifd0_at = sy__tiff_align4(t->len);
    uint64_t exif_at = has_exif ? ifd0_at : sy__tiff_align4(ifd0_at + sy__tiff_ifd_bytes(ifd0.count + 1));
    uint64_t mn_at = sy__tiff_align4(exif_at + sy__tiff_ifd_bytes(exif_n + 1));
    uint64_t total = mn_at + mn_len;
    uint8_t *buf = NULL;
    if (total > UINT32_MAX) {
        sy__free(ctx, fields);
        return sy__fail(err, SY_E_INVALID_INPUT, "exif: %llu bytes do not fit TIFF offsets", (unsigned long long)total);
    }
    if (!(buf = sy__calloc(ctx, (size_t)total, 1, "exif with makernote", err))) {
        sy__free(ctx, fields);
        return err ? err->code : SY_E_BUDGET;
    }
    memcpy(buf, t->data, t->len);
    memset(buf + blank_at, 0, blank_len);
    if (!has_exif) {
        uint32_t n = sy__tiff_fields_copy(t, &ifd0, SY__TIFF_TAG_EXIF_IFD, fields);
        fields[n++] = sy__tiff_field_uint(SY__TIFF_TAG_EXIF_IFD, SY__TIFF_LONG, (uint32_t)exif_at, le);
        sy__tiff_fields_sort(fields, n);
        sy__tiff_ifd_write(buf, (size_t)ifd0_at, fields, n, sy__tiff_next_ifd(t, &ifd0), le);
        sy__tiff_put32(buf + 4, (uint32_t)ifd0_at, le);
    } else {
        sy__tiff_put32(buf + pointer.at + 8, (uint32_t)exif_at, le);
    }
    exif_fields[exif_n++] = sy__tiff_field_at(TAG_MAKERNOTE, SY__TIFF_UNDEFINED, (uint32_t)mn_len, (uint32_t)mn_at, le);
    sy__tiff_fields_sort(exif_fields, exif_n);
    sy__tiff_ifd_write(buf, (size_t)exif_at, exif_fields, exif_n, 0, le);
    memcpy(buf + mn_at, makernote, mn_len);
    sy__free(ctx, fields);
    *out = buf;
    *out_len = (size_t)total;
    return SY_OK;
}

/* ---- the embedded thumbnail (IFD1) removed ---- */

#define TAG_STRIP_OFFSETS 0x0111
#define TAG_STRIP_BYTE_COUNTS 0x0117
#define TAG_THUMB_OFFSET 0x0201
#define TAG_THUMB_LENGTH 0x0202
#define KEPT_IFDS 4      /* IFD0, Exif, GPS, Interoperability */
#define MAX_LATER_IFDS 8 /* IFD1 and any after it; a longer chain is a loop or junk */

typedef struct kept_ifds {
    sy__tiff_ifd ifd[KEPT_IFDS];
    int n;
} kept_ifds;

/* The end of the kept range (an IFD table or a value of one) holding byte `p`, or 0. */
static uint64_t kept_end_at(const sy__tiff *t, const kept_ifds *k, uint64_t p) {
    for (int i = 0; i < k->n; i++) {
        const sy__tiff_ifd *ifd = &k->ifd[i];
        uint64_t table_end = ifd->at + sy__tiff_ifd_bytes(ifd->count);
        if (p >= ifd->at && p < table_end) return table_end;
        for (uint32_t j = 0; j < ifd->count; j++) {
            sy__tiff_entry e;
            sy__tiff_entry_at(t, ifd, j, &e);
            if (e.size > 4 && p >= e.value_at && p - e.value_at < e.size) return e.value_at + e.size;
        }
    }
    return 0;
}

/* Zeroes [at, at + n) clipped to the block, sparing the header and bytes a kept IFD
 * still uses (writers may share one value, say a resolution, between IFD0 and IFD1). */
static void zero_unkept(uint8_t *tiff, const sy__tiff *t, const kept_ifds *k, uint64_t at, uint64_t n) {
    if (at >= t->len) return;
    uint64_t end = n > t->len - at ? t->len : at + n;
    for (uint64_t p = at < 8 ? 8 : at; p < end;) {
        uint64_t kept = kept_end_at(t, k, p);
        if (kept) {
            p = kept;
            continue;
        }
        tiff[p++] = 0;
    }
}

/* Zeroes the strips an IFD's StripOffsets / StripByteCounts name (an uncompressed thumbnail). */
static void zero_strips(uint8_t *tiff, const sy__tiff *t, const kept_ifds *k, const sy__tiff_ifd *ifd) {
    sy__tiff_entry off, cnt;
    if (!sy__tiff_find(t, ifd, TAG_STRIP_OFFSETS, &off) || !sy__tiff_find(t, ifd, TAG_STRIP_BYTE_COUNTS, &cnt) ||
        off.count != cnt.count || !sy__tiff_value(t, &off) || !sy__tiff_value(t, &cnt))
        return;
    for (uint32_t i = 0; i < off.count; i++) {
        uint64_t o = off.type == SY__TIFF_SHORT ? sy__tiff_u16(t, off.value_at + 2u * (uint64_t)i)
                                                : sy__tiff_u32(t, off.value_at + 4u * (uint64_t)i);
        uint64_t c = cnt.type == SY__TIFF_SHORT ? sy__tiff_u16(t, cnt.value_at + 2u * (uint64_t)i)
                                                : sy__tiff_u32(t, cnt.value_at + 4u * (uint64_t)i);
        zero_unkept(tiff, t, k, o, c);
    }
}

int sy__exif_drop_thumbnail(uint8_t *tiff, size_t *len) {
    sy__tiff t;
    kept_ifds k = {.n = 0};
    if (!sy__tiff_open(&t, tiff, *len) || !sy__tiff_ifd0(&t, &k.ifd[0])) return 0;
    k.n = 1;
    uint32_t first = sy__tiff_next_ifd(&t, &k.ifd[0]);
    if (!first) return 0;
    static const uint16_t sub[] = {SY__TIFF_TAG_EXIF_IFD, SY__TIFF_TAG_GPS_IFD};
    for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++)
        if (sy__tiff_sub_ifd(&t, &k.ifd[0], sub[i], &k.ifd[k.n]) == 1) k.n++;
    sy__tiff_ifd exif;
    if (sy__exif_ifd(&t, &k.ifd[0], &exif) == 1 &&
        sy__tiff_sub_ifd(&t, &exif, SY__TIFF_TAG_INTEROP_IFD, &k.ifd[k.n]) == 1)
        k.n++;

    /* the link is cut first: whatever follows is no longer Exif, only bytes to clear */
    sy__tiff_put32(tiff + k.ifd[0].at + 2 + (size_t)SY__TIFF_ENTRY_BYTES * k.ifd[0].count, 0, t.little_endian);
    uint64_t at = first;
    for (int hops = 0; at && hops < MAX_LATER_IFDS; hops++) {
        sy__tiff_ifd ifd;
        if (!sy__tiff_ifd_at(&t, at, &ifd)) break;
        uint64_t next = sy__tiff_next_ifd(&t, &ifd);
        for (uint32_t i = 0; i < ifd.count; i++) {
            sy__tiff_entry e;
            sy__tiff_entry_at(&t, &ifd, i, &e);
            if (e.tag == TAG_THUMB_OFFSET) {
                sy__tiff_entry length;
                uint32_t off = 0, n = 0;
                if (sy__tiff_uint(&t, &e, &off) && sy__tiff_find(&t, &ifd, TAG_THUMB_LENGTH, &length) &&
                    sy__tiff_uint(&t, &length, &n))
                    zero_unkept(tiff, &t, &k, off, n);
            }
            if (e.size > 4) zero_unkept(tiff, &t, &k, e.value_at, e.size);
        }
        zero_strips(tiff, &t, &k, &ifd);
        zero_unkept(tiff, &t, &k, ifd.at, sy__tiff_ifd_bytes(ifd.count));
        at = next;
    }

    /* the block ends where its last kept or non-zero byte does */
    uint64_t end = 8;
    for (int i = 0; i < k.n; i++) {
        uint64_t table_end = k.ifd[i].at + sy__tiff_ifd_bytes(k.ifd[i].count);
        if (table_end > end) end = table_end;
        for (uint32_t j = 0; j < k.ifd[i].count; j++) {
            sy__tiff_entry e;
            sy__tiff_entry_at(&t, &k.ifd[i], j, &e);
            if (e.size > 4 && e.value_at + e.size <= t.len && e.value_at + e.size > end) end = e.value_at + e.size;
        }
    }
    size_t last = *len;
    while (last > end && tiff[last - 1] == 0) last--;
    *len = last;
    return 1;
}
