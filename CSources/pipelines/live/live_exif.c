/* live_exif.c — read, remove and set the Live photo content identifier in an
 * Exif (TIFF) block: ExifIFD 0x927C -> Apple MakerNote -> tag 0x0011
 * (live-photo.md §3.1). Every read is bounded by the block. */
#include <ctype.h>
#include <string.h>

#include "exif/sy_exif_writer.h"
#include "live/sy_live_exif.h"

#define TAG_EXIF_IFD 0x8769
#define TAG_MAKERNOTE 0x927C
#define TAG_CONTENT_ID 0x0011
#define APPLE_MAGIC "Apple iOS\0"
#define APPLE_MAGIC_LEN 10
#define APPLE_HEADER 16 /* magic, 00 01, "MM", entry count */
#define MAX_ENTRIES 512

static uint32_t rd16(const uint8_t *p, int le) { return le ? p[0] | p[1] << 8 : p[0] << 8 | p[1]; }
static uint32_t rd32(const uint8_t *p, int le) {
    return le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
              : (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}
static void wr16(uint8_t *p, uint32_t v, int le) {
    if (le) p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
    else p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v;
}
static void wr32(uint8_t *p, uint32_t v, int le) {
    if (le) wr16(p, v & 0xFFFF, 1), wr16(p + 2, v >> 16, 1);
    else wr16(p, v >> 16, 0), wr16(p + 2, v & 0xFFFF, 0);
}

static size_t type_size(uint32_t type) {
    switch (type) {
    case 1: case 2: case 6: case 7: return 1;
    case 3: case 8: return 2;
    case 4: case 9: case 11: case 13: return 4;
    case 5: case 10: case 12: return 8;
    default: return 0;
    }
}

/* TIFF header: byte order and IFD0 offset; 0 when not a TIFF. */
static int tiff_header(const uint8_t *t, size_t len, int *le, uint32_t *ifd0) {
    if (!t || len < 8) return 0;
    if (t[0] == 'I' && t[1] == 'I') *le = 1;
    else if (t[0] == 'M' && t[1] == 'M') *le = 0;
    else return 0;
    if (rd16(t + 2, *le) != 42) return 0;
    *ifd0 = rd32(t + 4, *le);
    return *ifd0 >= 8 && (uint64_t)*ifd0 + 2 <= len;
}

/* Entry count of the IFD at `off` when its entries and next link fit. */
static int ifd_entries(const uint8_t *t, size_t len, uint32_t off, int le, uint32_t *count) {
    if ((uint64_t)off + 2 > len) return 0;
    *count = rd16(t + off, le);
    return *count <= MAX_ENTRIES && (uint64_t)off + 2 + 12ull * *count + 4 <= len;
}

/* Offset of the entry with `tag` in the IFD at `off`, or 0. */
static size_t find_entry(const uint8_t *t, size_t len, uint32_t off, int le, uint32_t tag) {
    uint32_t n;
    if (!ifd_entries(t, len, off, le, &n)) return 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t e = (size_t)off + 2 + (size_t)i * 12;
        if (rd16(t + e, le) == tag) return e;
    }
    return 0;
}

/* Locates the Apple MakerNote blob: offset and length inside the TIFF. */
static int find_apple_makernote(const uint8_t *t, size_t len, size_t *mn, size_t *mn_len) {
    int le;
    uint32_t ifd0;
    if (!tiff_header(t, len, &le, &ifd0)) return 0;
    size_t e = find_entry(t, len, ifd0, le, TAG_EXIF_IFD);
    if (!e) return 0;
    uint32_t exif = rd32(t + e + 8, le);
    size_t m = find_entry(t, len, exif, le, TAG_MAKERNOTE);
    if (!m) return 0;
    uint32_t count = rd32(t + m + 4, le), off = rd32(t + m + 8, le);
    if (count < APPLE_HEADER + 4 || (uint64_t)off + count > len) return 0;
    if (memcmp(t + off, APPLE_MAGIC, APPLE_MAGIC_LEN) != 0 || t[off + 12] != 'M' || t[off + 13] != 'M') return 0;
    *mn = off;
    *mn_len = count;
    return 1;
}

int sy__live_id_valid(const char *id) {
    if (!id || strlen(id) != SY__LIVE_ID_LEN) return 0;
    for (int i = 0; i < SY__LIVE_ID_LEN; i++) {
        int dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? id[i] != '-' : !isxdigit((unsigned char)id[i])) return 0;
    }
    return 1;
}

/* Entry index of 0x0011 in the MakerNote (big-endian IFD at +14), or -1. */
static int id_entry(const uint8_t *mn, size_t mn_len, uint32_t *count) {
    *count = rd16(mn + 14, 0);
    if (*count > MAX_ENTRIES || APPLE_HEADER + 12ull * *count + 4 > mn_len) return -2;
    for (uint32_t i = 0; i < *count; i++)
        if (rd16(mn + APPLE_HEADER + 12 * i, 0) == TAG_CONTENT_ID) return (int)i;
    return -1;
}

int sy__live_exif_read_id(const uint8_t *tiff, size_t len, char out[SY__LIVE_ID_LEN + 1]) {
    size_t mn, mn_len;
    out[0] = 0;
    if (!find_apple_makernote(tiff, len, &mn, &mn_len)) return 0;
    const uint8_t *m = tiff + mn;
    uint32_t count;
    int i = id_entry(m, mn_len, &count);
    if (i < 0) return 0;
    const uint8_t *e = m + APPLE_HEADER + 12 * i;
    uint32_t type = rd16(e + 2, 0), n = rd32(e + 4, 0), off = rd32(e + 8, 0);
    if (type != 2 || n < SY__LIVE_ID_LEN || n > 64 || (uint64_t)off + n > mn_len) return 0;
    memcpy(out, m + off, SY__LIVE_ID_LEN);
    out[SY__LIVE_ID_LEN] = 0;
    return memchr(out, 0, SY__LIVE_ID_LEN) == NULL;
}

/* Removes one 0x0011 entry: 1 removed, 0 none, -1 malformed. */
static int remove_one(uint8_t *tiff, size_t len) {
    size_t mn, mn_len;
    if (!find_apple_makernote(tiff, len, &mn, &mn_len)) return 0;
    uint8_t *m = tiff + mn;
    uint32_t count;
    int i = id_entry(m, mn_len, &count);
    if (i == -1) return 0;
    if (i < 0) return -1;
    uint8_t *e = m + APPLE_HEADER + 12 * i;
    uint32_t type = rd16(e + 2, 0), n = rd32(e + 4, 0), off = rd32(e + 8, 0);
    size_t bytes = type_size(type) * n;
    if (bytes > 4) {
        if ((uint64_t)off + bytes > mn_len) return -1;
        memset(m + off, 0, bytes); /* no trace of the identifier stays in the file */
    }
    /* later entries and the next-IFD link move up one entry */
    size_t tail = 12 * (count - 1 - (uint32_t)i) + 4;
    memmove(e, e + 12, tail);
    memset(e + tail, 0, 12);
    wr16(m + 14, count - 1, 0);
    return 1;
}

int sy__live_exif_remove_id(uint8_t *tiff, size_t len) {
    int removed = 0, r;
    while ((r = remove_one(tiff, len)) == 1) removed = 1; /* a hostile MakerNote may repeat the tag */
    return r < 0 ? -1 : removed;
}

/* ---- setting: appended Exif IFD + Apple MakerNote ---- */

typedef struct entry {
    uint8_t raw[12]; /* in the destination byte order */
    uint32_t tag;
} entry;

static void sort_entries(entry *e, uint32_t n) {
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && e[j - 1].tag > e[j].tag; j--) {
            entry tmp = e[j];
            e[j] = e[j - 1];
            e[j - 1] = tmp;
        }
}

static void make_entry(entry *e, uint32_t tag, uint32_t type, uint32_t count, uint32_t value, int le) {
    e->tag = tag;
    wr16(e->raw, tag, le);
    wr16(e->raw + 2, type, le);
    wr32(e->raw + 4, count, le);
    if (type == 3 && count == 1) {
        wr16(e->raw + 8, value, le);
        wr16(e->raw + 10, 0, le);
    } else {
        wr32(e->raw + 8, value, le);
    }
}

/* Copies the entries of an IFD, leaving out `skip`. */
static uint32_t copy_entries(const uint8_t *t, size_t len, uint32_t off, int le, uint32_t skip, entry *out) {
    uint32_t n, k = 0;
    if (!ifd_entries(t, len, off, le, &n)) return 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = t + off + 2 + 12 * i;
        if (rd16(e, le) == skip) continue;
        memcpy(out[k].raw, e, 12);
        out[k++].tag = rd16(e, le);
    }
    return k;
}

/* The Apple MakerNote with `id`, keeping an old one's other entries (values re-based). */
static size_t build_makernote(const uint8_t *old, size_t old_len, const char *id, uint8_t *out, size_t cap) {
    entry kept[MAX_ENTRIES + 1];
    uint32_t n = 0, old_count = 0;
    if (old && old_len >= APPLE_HEADER + 4) {
        old_count = rd16(old + 14, 0);
        if (old_count > MAX_ENTRIES || APPLE_HEADER + 12ull * old_count + 4 > old_len) old_count = 0;
    }
    for (uint32_t i = 0; i < old_count; i++) {
        const uint8_t *e = old + APPLE_HEADER + 12 * i;
        uint32_t tag = rd16(e, 0), type = rd16(e + 2, 0), count = rd32(e + 4, 0);
        size_t bytes = type_size(type) * (size_t)count;
        if (tag == TAG_CONTENT_ID || !type_size(type) || count > old_len) continue;
        if (bytes > 4 && (uint64_t)rd32(e + 8, 0) + bytes > old_len) continue; /* dangling: dropped */
        memcpy(kept[n].raw, e, 12);
        kept[n++].tag = tag;
    }
    kept[n].tag = TAG_CONTENT_ID;
    make_entry(&kept[n++], TAG_CONTENT_ID, 2, SY__LIVE_ID_LEN + 1, 0, 0);
    sort_entries(kept, n);
    size_t area = APPLE_HEADER + 12 * (size_t)n + 4;
    if (area > cap) return 0;
    memset(out, 0, area);
    memcpy(out, APPLE_MAGIC, APPLE_MAGIC_LEN);
    out[11] = 1;
    out[12] = 'M', out[13] = 'M';
    wr16(out + 14, n, 0);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *e = out + APPLE_HEADER + 12 * i;
        memcpy(e, kept[i].raw, 12);
        uint32_t type = rd16(e + 2, 0), count = rd32(e + 4, 0);
        size_t bytes = type_size(type) * (size_t)count;
        if (bytes <= 4) continue;
        const uint8_t *src = kept[i].tag == TAG_CONTENT_ID ? (const uint8_t *)id : old + rd32(e + 8, 0);
        if (area + bytes + 1 > cap) return 0;
        memcpy(out + area, src, bytes);
        if (kept[i].tag == TAG_CONTENT_ID) out[area + SY__LIVE_ID_LEN] = 0;
        wr32(e + 8, (uint32_t)area, 0);
        area += bytes;
        if (area & 1) out[area++] = 0;
    }
    return area;
}

static size_t align4(size_t v) { return (v + 3) & ~(size_t)3; }

sy_status sy__live_exif_with_id(sy_context *ctx, const uint8_t *tiff, size_t len, const char *id, uint8_t **out,
                                size_t *out_len, sy_error *err) {
    *out = NULL;
    *out_len = 0;
    if (!sy__live_id_valid(id)) return sy__fail(err, SY_E_USAGE, "live exif: \"%s\" is not an 8-4-4-4-12 UUID", id ? id : "");
    uint8_t base[512];
    int le;
    uint32_t ifd0;
    if (!tiff_header(tiff, len, &le, &ifd0)) { /* none (or unreadable): a minimal Exif */
        sy__exif_info info = {.orientation = 1};
        len = sy__exif_build_tiff(&info, base, sizeof base);
        tiff = base;
        if (!len || !tiff_header(tiff, len, &le, &ifd0))
            return sy__fail(err, SY_E_USAGE, "live exif: cannot build a minimal Exif");
    }
    uint32_t n0;
    if (!ifd_entries(tiff, len, ifd0, le, &n0)) return sy__fail(err, SY_E_INVALID_INPUT, "live exif: IFD0 is truncated");
    size_t exif_entry = find_entry(tiff, len, ifd0, le, TAG_EXIF_IFD);
    uint32_t exif_off = exif_entry ? rd32(tiff + exif_entry + 8, le) : 0;
    uint32_t exif_n = 0;
    if (exif_entry && !ifd_entries(tiff, len, exif_off, le, &exif_n))
        return sy__fail(err, SY_E_INVALID_INPUT, "live exif: Exif IFD at %u is truncated", exif_off);
    size_t old_mn = 0, old_mn_len = 0;
    int had_apple = find_apple_makernote(tiff, len, &old_mn, &old_mn_len);

    size_t cap = align4(len) + (2 + 12 * (size_t)(n0 + 1) + 4) + (2 + 12 * (size_t)(exif_n + 1) + 4) + 8 +
                 (had_apple ? 2 * old_mn_len : 0) + 256;
    uint8_t *buf = sy__calloc(ctx, cap, 1, "live exif", err);
    entry *entries = sy__alloc(ctx, MAX_ENTRIES + 2, sizeof(entry), "live exif entries", err);
    if (!buf || !entries) {
        sy__free(ctx, buf);
        sy__free(ctx, entries);
        return err ? err->code : SY_E_BUDGET;
    }
    memcpy(buf, tiff, len);
    size_t at = align4(len);
    if (had_apple) memset(buf + old_mn, 0, old_mn_len); /* the old MakerNote (and its identifier) is now unreferenced */
    if (!exif_entry) {
        /* IFD0 gains an Exif IFD pointer: rewritten at the end with the same next link */
        uint32_t k = copy_entries(tiff, len, ifd0, le, TAG_EXIF_IFD, entries);
        uint32_t next = rd32(tiff + ifd0 + 2 + 12 * n0, le);
        size_t new_ifd0 = at, new_exif = align4(at + 2 + 12 * (size_t)(k + 1) + 4);
        make_entry(&entries[k++], TAG_EXIF_IFD, 4, 1, (uint32_t)new_exif, le);
        sort_entries(entries, k);
        wr16(buf + at, k, le);
        for (uint32_t i = 0; i < k; i++) memcpy(buf + at + 2 + 12 * i, entries[i].raw, 12);
        wr32(buf + at + 2 + 12 * k, next, le);
        wr32(buf + 4, (uint32_t)new_ifd0, le);
        at = new_exif;
    } else {
        wr32(buf + exif_entry + 8, (uint32_t)at, le);
    }
    /* the Exif IFD: old entries but the MakerNote, plus the new MakerNote */
    uint32_t k = exif_entry ? copy_entries(tiff, len, exif_off, le, TAG_MAKERNOTE, entries) : 0;
    size_t mn_at = align4(at + 2 + 12 * (size_t)(k + 1) + 4);
    size_t mn_len = build_makernote(had_apple ? tiff + old_mn : NULL, old_mn_len, id, buf + mn_at, cap - mn_at);
    sy_status st = SY_OK;
    if (!mn_len) {
        st = sy__fail(err, SY_E_INVALID_INPUT, "live exif: MakerNote does not fit");
    } else {
        make_entry(&entries[k++], TAG_MAKERNOTE, 7, (uint32_t)mn_len, (uint32_t)mn_at, le);
        sort_entries(entries, k);
        wr16(buf + at, k, le);
        for (uint32_t i = 0; i < k; i++) memcpy(buf + at + 2 + 12 * i, entries[i].raw, 12);
        wr32(buf + at + 2 + 12 * k, 0, le);
        /* the old bytes are reused as they are: a hostile layout (IFDs overlapping
         * the old MakerNote) could hide the new entry, so read it back */
        char check[SY__LIVE_ID_LEN + 1];
        if (!sy__live_exif_read_id(buf, mn_at + mn_len, check) || strcmp(check, id) != 0) {
            st = sy__fail(err, SY_E_INVALID_INPUT, "live exif: the Exif layout cannot take an identifier");
        } else {
            *out = buf;
            *out_len = mn_at + mn_len;
        }
    }
    sy__free(ctx, entries);
    if (st != SY_OK) sy__free(ctx, buf);
    return st;
}
