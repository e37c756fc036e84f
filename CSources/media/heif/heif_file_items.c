/* heif_file_items.c — item payloads for the HEIF structure reader
 * (heif_file.c): an item's extents checked against the file or idat when it
 * is read (a bad location fails that item only), read extent by extent with
 * pread; and a grid item's descriptor with its tiles. */
#include <stdlib.h>
#include <string.h>

#include "bmff/sy_bmff_file.h"
#include "heif/sy_heif_file_internal.h"
#include "heif/sy_heif_file_state.h"

/* ---- payloads ---- */

static sy_status check_location(const sy_heif_file *f, const heif_item *it, sy_error *err) {
    char name[16];
    if (!it->in_iloc)
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('i', 'l', 'o', 'c'), f->iloc_offset, "item %u has no iloc entry",
                   it->info.id);
    if (it->loc_status == SY_E_UNSUPPORTED)
        return sy__heif_bad(f, err, SY_E_UNSUPPORTED, FCC('i', 'l', 'o', 'c'), it->iloc_offset,
                   "item %u ('%s') uses construction method %u or an external data reference", it->info.id,
                   sy_bmff_fourcc_text(it->info.type, name), it->method);
    if (it->loc_status != SY_OK) {
        if (it->method == 1 && !f->idat)
            return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('i', 'l', 'o', 'c'), it->iloc_offset,
                       "item %u is stored in idat but there is no idat box", it->info.id);
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('i', 'l', 'o', 'c'), it->iloc_offset,
                   "item %u extent at %llu, length %llu lies outside its %s (%llu bytes)", it->info.id,
                   (unsigned long long)it->loc_bad_offset, (unsigned long long)it->loc_bad_length,
                   it->method == 0 ? "file" : "idat",
                   (unsigned long long)(it->method == 0 ? f->file_size : f->idat_size));
    }
    return SY_OK;
}

/* Copies the item's extents into dst (exactly it->info.data_size bytes). */
static sy_status read_extents(const sy_heif_file *f, const heif_item *it, uint8_t *dst, sy_error *err) {
    uint64_t done = 0;
    for (uint32_t e = 0; e < it->extent_count; e++) {
        const heif_extent *x = &f->extents[it->extent_first + e];
        if (x->length == 0) continue;
        if (it->method == 1) {
            memcpy(dst + done, f->idat + x->offset, (size_t)x->length);
        } else {
            sy_status st = sy__heif_read_at(f, x->offset, dst + done, (size_t)x->length, err);
            if (st != SY_OK) return st;
        }
        done += x->length;
    }
    return SY_OK;
}

sy_status sy_heif_item_located(const sy_heif_file *f, uint32_t id, sy_error *err) {
    const heif_item *it = f ? sy__heif_find_item(f, id) : NULL;
    if (!it) return sy__fail(err, SY_E_USAGE, "sy_heif_item_located: no item %u", id);
    return check_location(f, it, err);
}

sy_status sy_heif_read_item(sy_heif_file *f, uint32_t id, uint8_t **data, size_t *len, sy_error *err) {
    if (data) *data = NULL;
    if (len) *len = 0;
    if (!f || !data || !len) return sy__fail(err, SY_E_USAGE, "sy_heif_read_item: file, data and len are required");
    const heif_item *it = sy__heif_find_item(f, id);
    if (!it) return sy__fail(err, SY_E_USAGE, "%s: sy_heif_read_item: no item %u", sy__short_path(f->path), id);
    sy_status st = check_location(f, it, err);
    if (st != SY_OK) return st;
    if (it->info.data_size > SY__HEIF_ITEM_CAP)
        return sy__heif_bad(f, err, SY_E_BUDGET, FCC('i', 'l', 'o', 'c'), it->iloc_offset,
                   "item %u has %llu bytes, over the %u MiB item cap", id, (unsigned long long)it->info.data_size,
                   SY__HEIF_ITEM_CAP >> 20);
    uint8_t *buf = sy__alloc(f->ctx, (size_t)it->info.data_size, 1, "heif item data", err);
    if (!buf) return err ? err->code : SY_E_BUDGET;
    if ((st = read_extents(f, it, buf, err)) != SY_OK) {
        sy__free(f->ctx, buf);
        return st;
    }
    *data = buf;
    *len = (size_t)it->info.data_size;
    return SY_OK;
}

void sy_heif_free_data(sy_heif_file *f, uint8_t *data) {
    if (f && data) sy__free(f->ctx, data);
}

static int is_derived_type(uint32_t type) {
    return type == FCC('g', 'r', 'i', 'd') || type == FCC('i', 'o', 'v', 'l') || type == FCC('i', 'd', 'e', 'n') ||
           type == FCC('t', 'm', 'a', 'p');
}

sy_status sy_heif_read_grid(sy_heif_file *f, uint32_t id, sy_heif_grid *out, sy_error *err) {
    if (out) memset(out, 0, sizeof *out);
    if (!f || !out) return sy__fail(err, SY_E_USAGE, "sy_heif_read_grid: file and out are required");
    const heif_item *it = sy__heif_find_item(f, id);
    char name[16];
    if (!it) return sy__fail(err, SY_E_USAGE, "%s: sy_heif_read_grid: no item %u", sy__short_path(f->path), id);
    if (it->info.type != FCC('g', 'r', 'i', 'd'))
        return sy__fail(err, SY_E_USAGE, "%s: sy_heif_read_grid: item %u is '%s', not a grid", sy__short_path(f->path), id,
                        sy_bmff_fourcc_text(it->info.type, name));
    sy_status st = check_location(f, it, err);
    if (st != SY_OK) return st;
    uint8_t buf[64];
    if (it->info.data_size < 8 || it->info.data_size > sizeof buf)
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('g', 'r', 'i', 'd'), it->iloc_offset,
                   "grid %u descriptor has %llu bytes", id, (unsigned long long)it->info.data_size);
    if ((st = read_extents(f, it, buf, err)) != SY_OK) return st;
    sy_bmff_span s = {buf, it->info.data_size};
    uint8_t version, flags, rows1, cols1;
    uint64_t w, h;
    sy_bmff_u8(&s, &version);
    sy_bmff_u8(&s, &flags);
    sy_bmff_u8(&s, &rows1);
    sy_bmff_u8(&s, &cols1);
    unsigned field = (flags & 1) ? 4 : 2;
    if (version != 0)
        return sy__heif_bad(f, err, SY_E_UNSUPPORTED, FCC('g', 'r', 'i', 'd'), it->iloc_offset, "grid %u version %u", id,
                   version);
    if (!sy_bmff_uN(&s, field, &w) || !sy_bmff_uN(&s, field, &h))
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('g', 'r', 'i', 'd'), it->iloc_offset,
                   "grid %u descriptor cut off", id);
    if (w == 0 || h == 0)
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('g', 'r', 'i', 'd'), it->iloc_offset, "grid %u output is %llux%llu",
                   id, (unsigned long long)w, (unsigned long long)h);
    if (w > SY__HEIF_MAX_GRID_SIDE || h > SY__HEIF_MAX_GRID_SIDE)
        return sy__heif_bad(f, err, SY_E_BUDGET, FCC('g', 'r', 'i', 'd'), it->iloc_offset,
                   "grid %u output %llux%llu exceeds %ux%u", id, (unsigned long long)w, (unsigned long long)h,
                   SY__HEIF_MAX_GRID_SIDE, SY__HEIF_MAX_GRID_SIDE);
    if (it->info.has_ispe && (it->info.width > SY__HEIF_MAX_GRID_SIDE || it->info.height > SY__HEIF_MAX_GRID_SIDE))
        return sy__heif_bad(f, err, SY_E_BUDGET, FCC('g', 'r', 'i', 'd'), it->iloc_offset, "grid %u ispe %ux%u exceeds %ux%u", id,
                   it->info.width, it->info.height, SY__HEIF_MAX_GRID_SIDE, SY__HEIF_MAX_GRID_SIDE);
    const uint32_t rows = rows1 + 1u, cols = cols1 + 1u;
    uint32_t ntiles;
    const uint32_t *tiles = sy_heif_derived(f, id, &ntiles);
    const uint64_t ref_at = it->dimg_ref >= 0 ? f->refs[it->dimg_ref].box_offset : f->iref_offset;
    if (ntiles != rows * cols)
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('d', 'i', 'm', 'g'), ref_at,
                   "grid %u is %ux%u tiles but has %u dimg references", id, cols, rows, ntiles);
    const sy_heif_item_info *first = NULL;
    for (uint32_t i = 0; i < ntiles; i++) {
        const heif_item *t = sy__heif_find_item(f, tiles[i]);
        if (!t)
            return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('d', 'i', 'm', 'g'), ref_at, "grid %u tile %u: item %u does not exist",
                       id, i, tiles[i]);
        if (t == it || t->info.derived_count > 0 || is_derived_type(t->info.type))
            return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('d', 'i', 'm', 'g'), ref_at,
                       "grid %u tile %u: item %u ('%s') is a derived image, not a coded tile", id, i, tiles[i],
                       sy_bmff_fourcc_text(t->info.type, name));
        if (!t->info.has_ispe) continue;
        if (!first) {
            first = &t->info;
        } else if (t->info.width != first->width || t->info.height != first->height) {
            return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('d', 'i', 'm', 'g'), ref_at,
                       "grid %u tile %u is %ux%u, tile 0 is %ux%u", id, i, t->info.width, t->info.height, first->width,
                       first->height);
        }
    }
    if (first && ((uint64_t)first->width * cols < w || (uint64_t)first->height * rows < h))
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('g', 'r', 'i', 'd'), it->iloc_offset,
                   "grid %u: %ux%u tiles of %ux%u do not cover %llux%llu", id, cols, rows, first->width, first->height,
                   (unsigned long long)w, (unsigned long long)h);
    out->rows = rows;
    out->columns = cols;
    out->output_width = (uint32_t)w;
    out->output_height = (uint32_t)h;
    return SY_OK;
}
