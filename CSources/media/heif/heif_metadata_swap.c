/* heif_metadata_swap.c — a HEIF file copied with a new Exif and/or XMP
 * payload for its primary image and every other byte kept
 * (sy_heif_metadata_swap.h).
 *
 * The new payloads go into an `mdat` appended after the kept bytes and each
 * item's one iloc extent is pointed at its payload, in place: the iloc
 * fields keep their sizes, so `meta` keeps its size and no other item moves.
 * The old payloads stay where they were, unreferenced. Only what can be
 * patched so is done: one extent stored in the file (construction method 0,
 * this file), offset and length fields of 4 or 8 bytes, every item's data
 * inside the kept bytes; anything else is SY_E_UNSUPPORTED and the caller
 * re-encodes. */
#include <string.h>

#include "base/sy_output.h"
#include "bmff/sy_bmff_file.h"
#include "heif/sy_heif.h"
#include "heif/sy_heif_metadata_swap.h"
#include "heif/sy_heif_file_internal.h"

#define COPY_CHUNK ((size_t)1 << 20)

/* Where a swapped item's iloc fields are, as offsets into the meta buffer. */
typedef struct exif_fields {
    int found;
    unsigned base_size, offset_size, length_size;
    size_t base_at, offset_at, length_at;
} exif_fields;

static sy_status unsupported(sy_error *err, const char *path, const char *why) {
    return sy__fail(err, SY_E_UNSUPPORTED, "%s: cannot rewrite the metadata in place: %s", path, why);
}

static void put_be(uint8_t *p, unsigned bytes, uint64_t v) {
    for (unsigned i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

/* Walks iloc (payload [at, at + len) of meta), finds the Exif item's fields
 * and the XMP's (ids[0], ids[1]; 0 = not swapped) and checks every item's
 * file extents end within `keep`. */
static sy_status scan_iloc(const char *path, const uint8_t *meta, size_t at, size_t len, const uint32_t ids[2],
                           uint64_t keep, exif_fields out[2], sy_error *err) {
    sy_bmff_span s = {meta + at, len};
    uint8_t version, sizes, sizes2;
    uint32_t flags;
    if (!sy_bmff_full_header(&s, &version, &flags) || version > 2 || !sy_bmff_u8(&s, &sizes) || !sy_bmff_u8(&s, &sizes2))
        return unsupported(err, path, "unreadable iloc");
    unsigned offset_size = sizes >> 4, length_size = sizes & 15, base_size = sizes2 >> 4;
    unsigned index_size = version ? (sizes2 & 15u) : 0;
    uint64_t items = 0;
    if (version < 2) {
        uint16_t n;
        if (!sy_bmff_u16(&s, &n)) return unsupported(err, path, "unreadable iloc");
        items = n;
    } else if (!sy_bmff_uN(&s, 4, &items)) {
        return unsupported(err, path, "unreadable iloc");
    }
    for (uint64_t i = 0; i < items; i++) {
        uint64_t id = 0, base = 0;
        uint16_t method = 0, dref, extents;
        if (!sy_bmff_uN(&s, version < 2 ? 2 : 4, &id) || (version && !sy_bmff_u16(&s, &method)) ||
            !sy_bmff_u16(&s, &dref))
            return unsupported(err, path, "unreadable iloc entry");
        method &= 15;
        size_t base_at = (size_t)(s.p - meta);
        if (!sy_bmff_uN(&s, base_size, &base) || !sy_bmff_u16(&s, &extents))
            return unsupported(err, path, "unreadable iloc entry");
        int which = ids[0] && id == ids[0] ? 0 : ids[1] && id == ids[1] ? 1 : -1, is_exif = which >= 0;
        if (is_exif && (method != 0 || dref != 0 || extents != 1 || (offset_size != 4 && offset_size != 8) ||
                        (length_size != 4 && length_size != 8) || (base_size && base_size != 4 && base_size != 8)))
            return unsupported(err, path, "a metadata item is not one extent in this file with 4- or 8-byte fields");
        for (uint16_t e = 0; e < extents; e++) {
            uint64_t index, offset = 0, length = 0;
            if (index_size && !sy_bmff_uN(&s, index_size, &index)) return unsupported(err, path, "unreadable iloc extent");
            size_t offset_at = (size_t)(s.p - meta);
            if (!sy_bmff_uN(&s, offset_size, &offset)) return unsupported(err, path, "unreadable iloc extent");
            size_t length_at = (size_t)(s.p - meta);
            if (!sy_bmff_uN(&s, length_size, &length)) return unsupported(err, path, "unreadable iloc extent");
            if (method == 0 && dref == 0 && (length == 0 || base > keep || offset > keep - base ||
                                             length > keep - base - offset))
                return unsupported(err, path, "an item's data lies past the picture (or runs to the end of the file)");
            if (is_exif) out[which] = (exif_fields){1, base_size, offset_size, length_size, base_at, offset_at, length_at};
        }
    }
    for (int k = 0; k < 2; k++)
        if (ids[k] && !out[k].found) return unsupported(err, path, "a metadata item has no iloc entry");
    return SY_OK;
}

/* The first top-level `meta` within [0, keep): its offset and size. */
static sy_status find_meta(int fd, const char *path, uint64_t keep, uint64_t *at, uint64_t *size, sy_error *err) {
    for (uint64_t pos = 0; keep - pos >= 8;) {
        uint8_t h[16];
        sy_status st = sy__bmff_read_at(fd, path, pos, h, 8, err);
        if (st != SY_OK) return st;
        uint64_t n = (uint64_t)h[0] << 24 | (uint64_t)h[1] << 16 | (uint64_t)h[2] << 8 | h[3];
        if (n == 1) {
            if ((st = sy__bmff_read_at(fd, path, pos + 8, h + 8, 8, err)) != SY_OK) return st;
            n = 0;
            for (int i = 8; i < 16; i++) n = n << 8 | h[i];
        }
        if (n < 8 || n > keep - pos) return unsupported(err, path, "a box runs past the picture");
        if (memcmp(h + 4, "meta", 4) == 0) {
            *at = pos, *size = n;
            return SY_OK;
        }
        pos += n;
    }
    return unsupported(err, path, "no meta box");
}

/* meta's iloc payload range (after meta's own version/flags). */
static sy_status find_iloc(const char *path, const uint8_t *meta, uint64_t meta_size, size_t *at, size_t *len,
                           sy_error *err) {
    sy_bmff_cursor top, kids;
    sy_bmff_box box, kid;
    sy_bmff_cursor_init(&top, meta, 0, 0, meta_size);
    sy_status st = sy__bmff_next_in(path, &top, &box, err);
    if (st != SY_OK) return st;
    sy_bmff_cursor_children(&kids, &top, &box, 4);
    while ((st = sy__bmff_next_in(path, &kids, &kid, err)) == SY_OK && kid.type) {
        if (kid.type == SY_FOURCC('i', 'l', 'o', 'c')) {
            *at = (size_t)kid.payload_offset, *len = (size_t)kid.payload_size;
            return SY_OK;
        }
    }
    return st != SY_OK ? st : unsupported(err, path, "no iloc box");
}

/* The primary's Exif item (its id and the bytes before the TIFF header) when
 * `want_exif`, and its XMP item's id when `want_xmp`; each must exist. */
static sy_status metadata_items(sy_context *ctx, const char *path, int want_exif, int want_xmp, uint32_t ids[2],
                                uint8_t prefix[64], size_t *prefix_len, sy_error *err) {
    sy_heif_file *f = NULL;
    sy_status st = sy_heif_open(ctx, path, &f, err);
    if (st != SY_OK) return st;
    uint32_t primary = sy_heif_primary_id(f), exif = 0, xmp = 0;
    for (uint32_t i = 0; i < sy_heif_item_count(f); i++) {
        const sy_heif_item_info *it = sy_heif_item_at(f, i);
        if (it->describes != primary) continue;
        if (!exif && it->type == SY_FOURCC('E', 'x', 'i', 'f')) exif = it->id;
        if (!xmp && it->type == SY_FOURCC('m', 'i', 'm', 'e') && strcmp(it->content_type, "application/rdf+xml") == 0)
            xmp = it->id;
    }
    ids[0] = want_exif ? exif : 0, ids[1] = want_xmp ? xmp : 0;
    *prefix_len = 0;
    uint8_t *data = NULL;
    size_t len = 0;
    if (want_exif && !exif) st = unsupported(err, path, "the primary has no Exif item");
    else if (want_xmp && !xmp) st = unsupported(err, path, "the primary has no XMP item");
    else if (want_exif) st = sy_heif_read_item(f, exif, &data, &len, err);
    if (st == SY_OK && want_exif) {
        /* payload: 32-bit offset to the TIFF header, then (usually "Exif\0\0") the TIFF */
        uint32_t skip = len >= 4 ? (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3] : 0;
        if (len < 4 || skip > 64 - 4 || skip > len - 4) {
            st = unsupported(err, path, "the Exif item's header offset is out of range");
        } else {
            *prefix_len = 4 + skip;
            memcpy(prefix, data, *prefix_len);
        }
    }
    if (data) sy_heif_free_data(f, data);
    sy_heif_close(f);
    return st;
}

static sy_status copy_range(int fd, const char *path, uint64_t from, uint64_t to, uint8_t *chunk, FILE *out,
                            const char *out_path, sy_error *err) {
    while (from < to) {
        size_t n = to - from < COPY_CHUNK ? (size_t)(to - from) : COPY_CHUNK;
        sy_status st = sy__bmff_read_at(fd, path, from, chunk, n, err);
        if (st != SY_OK) return st;
        if (fwrite(chunk, 1, n, out) != n) return sy__write_failed(err, out_path);
        from += n;
    }
    return SY_OK;
}

static void point_at(uint8_t *meta, const exif_fields *f, uint64_t offset, uint64_t length) {
    if (f->base_size) put_be(meta + f->base_at, f->base_size, 0);
    put_be(meta + f->offset_at, f->offset_size, offset);
    put_be(meta + f->length_at, f->length_size, length);
}

sy_status sy__heif_copy_with_metadata(sy_context *ctx, const char *input, uint64_t keep, const uint8_t *tiff,
                                      size_t tiff_len, const uint8_t *xmp, size_t xmp_len, FILE *out,
                                      const char *out_path, sy_error *err) {
    uint32_t ids[2];
    uint8_t prefix[64];
    size_t prefix_len = 0;
    sy_status st = metadata_items(ctx, input, tiff != NULL, xmp != NULL, ids, prefix, &prefix_len, err);
    if (st != SY_OK) return st;
    char *path_copy = NULL;
    FILE *fp = NULL;
    int fd = -1;
    uint64_t file_size = 0, meta_at = 0, meta_size = 0;
    uint8_t *meta = NULL, *chunk = NULL;
    if ((st = sy__bmff_file_open(ctx, input, &path_copy, &fp, &fd, &file_size, err)) != SY_OK) return st;
    if (keep > file_size) st = sy__fail(err, SY_E_USAGE, "sy__heif_copy_with_metadata: keep past the end of %s", input);
    if (st == SY_OK) st = find_meta(fd, input, keep, &meta_at, &meta_size, err);
    if (st == SY_OK && meta_size > SY__HEIF_META_CAP) st = unsupported(err, input, "meta box too large");
    if (st == SY_OK && !(meta = sy__alloc(ctx, (size_t)meta_size, 1, "heif meta copy", err))) st = err ? err->code : SY_E_BUDGET;
    if (st == SY_OK) st = sy__bmff_read_at(fd, input, meta_at, meta, (size_t)meta_size, err);
    size_t iloc_at = 0, iloc_len = 0;
    exif_fields fields[2] = {{0}, {0}};
    if (st == SY_OK) st = find_iloc(input, meta, meta_size, &iloc_at, &iloc_len, err);
    if (st == SY_OK) st = scan_iloc(input, meta, iloc_at, iloc_len, ids, keep, fields, err);
    /* the new mdat: [Exif header + TIFF][XMP] */
    uint64_t exif_len = tiff ? prefix_len + tiff_len : 0, box_len = 8 + exif_len + (xmp ? xmp_len : 0);
    uint64_t exif_at = keep + 8, xmp_at = exif_at + exif_len;
    if (st == SY_OK && (box_len > UINT32_MAX || ((fields[0].offset_size == 4 || fields[1].offset_size == 4) &&
                                                 keep + box_len > UINT32_MAX)))
        st = unsupported(err, input, "the new metadata would lie past 4 GB");
    if (st == SY_OK) {
        if (tiff) point_at(meta, &fields[0], exif_at, exif_len);
        if (xmp) point_at(meta, &fields[1], xmp_at, xmp_len);
        if (!(chunk = sy__alloc(ctx, COPY_CHUNK, 1, "heif copy chunk", err))) st = err ? err->code : SY_E_BUDGET;
    }
    if (st == SY_OK) st = copy_range(fd, input, 0, meta_at, chunk, out, out_path, err);
    if (st == SY_OK && fwrite(meta, 1, (size_t)meta_size, out) != meta_size)
        st = sy__write_failed(err, out_path);
    if (st == SY_OK) st = copy_range(fd, input, meta_at + meta_size, keep, chunk, out, out_path, err);
    if (st == SY_OK) {
        uint8_t h[8];
        put_be(h, 4, box_len);
        memcpy(h + 4, "mdat", 4);
        int ok = fwrite(h, 1, 8, out) == 8;
        if (ok && tiff) ok = fwrite(prefix, 1, prefix_len, out) == prefix_len && fwrite(tiff, 1, tiff_len, out) == tiff_len;
        if (ok && xmp) ok = fwrite(xmp, 1, xmp_len, out) == xmp_len;
        if (!ok) st = sy__write_failed(err, out_path);
    }
    sy__free(ctx, chunk);
    sy__free(ctx, meta);
    fclose(fp);
    sy__free(ctx, path_copy);
    return st;
}
