/* content_id.c — read, remove and set the Live photo content identifier in an
 * Exif (TIFF) block: ExifIFD 0x927C -> Apple MakerNote -> tag 0x0011
 * (live-photo.md §3.1). The walks and the IFD layout are exif/'s; every read
 * is bounded by the block. */
#include <ctype.h>
#include <string.h>

#include "exif/sy_exif.h"
#include "exif/sy_exif_writer.h"
#include "exif/sy_tiff.h"
#include "exif/sy_content_id.h"

#define TAG_CONTENT_ID 0x0011
#define MAX_ENTRIES 512
#define MAX_ID_BYTES 64

int sy__content_id_valid(const char *id) {
    if (!id || strlen(id) != SY__CONTENT_ID_LEN) return 0;
    for (int i = 0; i < SY__CONTENT_ID_LEN; i++) {
        int dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? id[i] != '-' : !isxdigit((unsigned char)id[i])) return 0;
    }
    return 1;
}

/* The MakerNote's IFD and the entry 0x0011 in it: 1 found, 0 none, -1 malformed IFD. */
static int id_entry(const sy__tiff *mn, sy__tiff_ifd *ifd, sy__tiff_entry *e) {
    if (!sy__tiff_ifd_at(mn, SY__EXIF_APPLE_IFD, ifd) || ifd->count > MAX_ENTRIES) return -1;
    return sy__tiff_find(mn, ifd, TAG_CONTENT_ID, e);
}

int sy__content_id_read(const uint8_t *tiff, size_t len, char out[SY__CONTENT_ID_LEN + 1]) {
    sy__tiff t, mn;
    sy__tiff_ifd ifd;
    sy__tiff_entry e;
    size_t mn_at;
    out[0] = 0;
    if (!sy__tiff_open(&t, tiff, len) || !sy__exif_apple_makernote(&t, &mn, &mn_at) || id_entry(&mn, &ifd, &e) != 1)
        return 0;
    const uint8_t *p = sy__tiff_value(&mn, &e);
    if (e.type != SY__TIFF_ASCII || e.count < SY__CONTENT_ID_LEN || e.count > MAX_ID_BYTES || !p) return 0;
    memcpy(out, p, SY__CONTENT_ID_LEN);
    out[SY__CONTENT_ID_LEN] = 0;
    return memchr(out, 0, SY__CONTENT_ID_LEN) == NULL;
}

/* Removes one 0x0011 entry: 1 removed, 0 none, -1 malformed. */
static int remove_one(uint8_t *tiff, size_t len) {
    sy__tiff t, mn;
    sy__tiff_ifd ifd;
    sy__tiff_entry e;
    size_t mn_at;
    if (!sy__tiff_open(&t, tiff, len) || !sy__exif_apple_makernote(&t, &mn, &mn_at)) return 0;
    int found = id_entry(&mn, &ifd, &e);
    if (found != 1) return found;
    uint8_t *m = tiff + mn_at;
    if (e.size > 4) {
        if (!sy__tiff_value(&mn, &e)) return -1;
        memset(m + e.value_at, 0, (size_t)e.size); /* no trace of the identifier stays in the file */
    }
    /* later entries and the next-IFD link move up one entry */
    uint32_t index = (uint32_t)((e.at - ifd.at - 2) / SY__TIFF_ENTRY_BYTES);
    size_t tail = SY__TIFF_ENTRY_BYTES * (size_t)(ifd.count - 1 - index) + 4;
    memmove(m + e.at, m + e.at + SY__TIFF_ENTRY_BYTES, tail);
    memset(m + e.at + tail, 0, SY__TIFF_ENTRY_BYTES);
    sy__tiff_put16(m + ifd.at, ifd.count - 1, 0);
    return 1;
}

int sy__content_id_remove(uint8_t *tiff, size_t len) {
    int removed = 0, r;
    while ((r = remove_one(tiff, len)) == 1) removed = 1; /* a hostile MakerNote may repeat the tag */
    return r < 0 ? -1 : removed;
}

/* ---- setting: appended Exif IFD + Apple MakerNote ---- */

/* The Apple MakerNote with `id`, keeping an old one's other entries (values
 * re-based into its own data area; dangling ones dropped). *out is engine-allocated. */
static sy_status build_makernote(sy_context *ctx, const sy__tiff *old, const char *id, uint8_t **out, size_t *out_len,
                                 sy_error *err) {
    sy__tiff_field *kept = sy__alloc(ctx, MAX_ENTRIES + 1, sizeof *kept, "makernote fields", err);
    uint32_t n = 0;
    if (!kept) return err ? err->code : SY_E_BUDGET;
    sy__tiff_ifd ifd;
    if (old && sy__tiff_ifd_at(old, SY__EXIF_APPLE_IFD, &ifd) && ifd.count <= MAX_ENTRIES) {
        for (uint32_t i = 0; i < ifd.count; i++) {
            sy__tiff_entry e;
            sy__tiff_entry_at(old, &ifd, i, &e);
            if (e.tag == TAG_CONTENT_ID || !sy__tiff_type_size(e.type) || e.count > old->len) continue;
            const uint8_t *value = sy__tiff_value(old, &e);
            if (!value) continue;
            kept[n++] = e.size > 4 ? sy__tiff_field_bytes(e.tag, e.type, e.count, value) : sy__tiff_field_copy(old, &e);
        }
    }
    /* the identifier with its NUL (id is a validated 36-character string) */
    kept[n++] = sy__tiff_field_bytes(TAG_CONTENT_ID, SY__TIFF_ASCII, SY__CONTENT_ID_LEN + 1, (const uint8_t *)id);
    sy__tiff_fields_sort(kept, n);
    size_t len = SY__EXIF_APPLE_IFD + (size_t)sy__tiff_ifd_size(kept, n);
    uint8_t *m = sy__calloc(ctx, len, 1, "apple makernote", err);
    if (m) {
        memcpy(m, "Apple iOS\0\0\1MM", SY__EXIF_APPLE_IFD); /* magic, version 1, big-endian */
        sy__tiff_ifd_write(m, SY__EXIF_APPLE_IFD, kept, n, 0, 0);
    }
    sy__free(ctx, kept);
    if (!m) return err ? err->code : SY_E_BUDGET;
    *out = m;
    *out_len = len;
    return SY_OK;
}

sy_status sy__content_id_with(sy_context *ctx, const uint8_t *tiff, size_t len, const char *id, uint8_t **out,
                                size_t *out_len, sy_error *err) {
    *out = NULL;
    *out_len = 0;
    if (!sy__content_id_valid(id)) return sy__fail(err, SY_E_USAGE, "live exif: \"%s\" is not an 8-4-4-4-12 UUID", id ? id : "");
    uint8_t base[512];
    sy__tiff t, old = {0};
    if (!sy__tiff_open(&t, tiff, len)) { /* none (or unreadable): a minimal Exif */
        sy__exif_info info = {.orientation = 1};
        size_t n = sy__exif_build_tiff(&info, base, sizeof base);
        if (!n || !sy__tiff_open(&t, base, n)) return sy__fail(err, SY_E_USAGE, "live exif: cannot build a minimal Exif");
    }
    size_t old_at = 0;
    int had_apple = sy__exif_apple_makernote(&t, &old, &old_at);
    uint8_t *mn = NULL;
    size_t mn_len = 0;
    sy_status st = build_makernote(ctx, had_apple ? &old : NULL, id, &mn, &mn_len, err);
    /* the old MakerNote (and its identifier) is zeroed: it is no longer referenced */
    if (st == SY_OK)
        st = sy__exif_with_makernote(ctx, &t, mn, mn_len, old_at, had_apple ? old.len : 0, out, out_len, err);
    sy__free(ctx, mn);
    /* the old bytes are reused as they are: a hostile layout (IFDs overlapping
     * the old MakerNote) could hide the new entry, so read it back */
    char check[SY__CONTENT_ID_LEN + 1];
    if (st == SY_OK && (!sy__content_id_read(*out, *out_len, check) || strcmp(check, id) != 0)) {
        sy__free(ctx, *out);
        *out = NULL;
        *out_len = 0;
        st = sy__fail(err, SY_E_INVALID_INPUT, "live exif: the Exif layout cannot take an identifier");
    }
    return st;
}
