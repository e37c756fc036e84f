/* heif_file.c — HEIF/HEIC structure reader over the bounded BMFF cursor.
 *
 * sy_heif_open walks the top-level boxes by their headers only (mdat is never
 * loaded), loads the first top-level `meta` box whole (≤ 64 MiB, one engine
 * allocation) and indexes it: hdlr, pitm, iinf/infe, iloc, idat, iref and
 * iprp (ipco + ipma). Properties are decoded per item in ipma order; hvcC and
 * ICC payloads stay borrowed pointers into the meta buffer. Item payloads are
 * read on demand with pread, extent by extent. Properties: heif_file_props.c;
 * payloads and grids: heif_file_items.c; the handle they share:
 * sy_heif_file_state.h.
 *
 * Hostile-input rules: every count is checked against the bytes actually left
 * before anything is allocated from it; every offset/length sum is overflow
 * checked; iloc extents are validated against the file (method 0) or idat
 * (method 1) and an item with a bad location fails only when it is read;
 * dimg reference loops fail the open; a clap that does not describe a
 * rectangle inside the image is ignored.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "bmff/sy_bmff.h"
#include "bmff/sy_bmff_file.h"
#include "heif/sy_heif.h"
#include "base/sy_internal.h"
#include "heif/sy_heif_file_internal.h"
#include "heif/sy_heif_file_state.h"

/* ---- errors and helpers (sy_heif_file_state.h) ---- */

/* "path: reason ('box', offset N)". `offset` is absolute in the file. */
sy_status sy__heif_bad(const sy_heif_file *f, sy_error *err, sy_status code, uint32_t box, uint64_t offset,
                       const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sy_status st = sy__bmff_fail(err, code, f->path, box, offset, fmt, ap);
    va_end(ap);
    return st;
}

sy_status sy__heif_next_box(const sy_heif_file *f, sy_bmff_cursor *c, sy_bmff_box *b, sy_error *err) {
    return sy__bmff_next_in(f->path, c, b, err);
}

/* ---- small helpers ---- */

heif_item *sy__heif_find_item(const sy_heif_file *f, uint32_t id) {
    if (!f || !f->items) return NULL;
    uint32_t lo = 0, hi = f->item_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint32_t v = f->items[mid].info.id;
        if (v == id) return &f->items[mid];
        if (v < id) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

static int cmp_items(const void *a, const void *b) {
    uint32_t x = ((const heif_item *)a)->info.id, y = ((const heif_item *)b)->info.id;
    return x < y ? -1 : x > y;
}

sy_status sy__heif_read_at(const sy_heif_file *f, uint64_t offset, void *dst, size_t n, sy_error *err) {
    return sy__bmff_read_at(f->fd, f->path, offset, dst, n, err);
}

/* ---- ftyp ---- */

static int heif_brand(uint32_t b) {
    switch (b) {
    case FCC('m', 'i', 'f', '1'): case FCC('m', 'i', 'f', '2'): case FCC('m', 'i', 'f', '3'):
    case FCC('m', 's', 'f', '1'): case FCC('m', 'i', 'a', 'f'): case FCC('h', 'e', 'i', 'c'):
    case FCC('h', 'e', 'i', 'x'): case FCC('h', 'e', 'i', 'm'): case FCC('h', 'e', 'i', 's'):
    case FCC('h', 'e', 'v', 'c'): case FCC('h', 'e', 'v', 'x'): case FCC('a', 'v', 'i', 'f'):
    case FCC('a', 'v', 'i', 's'):
        return 1;
    default:
        return 0;
    }
}

static sy_status parse_ftyp(sy_heif_file *f, uint64_t box_offset, uint64_t payload_offset, uint64_t payload_size,
                            sy_error *err) {
    uint8_t buf[1024];
    size_t n = (size_t)SY__MIN(payload_size, (uint64_t)sizeof buf);
    if (n < 8) return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('f', 't', 'y', 'p'), box_offset, "ftyp too short (%zu bytes)", n);
    sy_status st = sy__heif_read_at(f, payload_offset, buf, n, err);
    if (st != SY_OK) return st;
    sy_bmff_span s = {buf, n};
    uint32_t major = 0, brand;
    sy_bmff_u32(&s, &major);
    sy_bmff_skip(&s, 4); /* minor version */
    int ok = heif_brand(major);
    while (!ok && sy_bmff_u32(&s, &brand)) ok = heif_brand(brand);
    f->major_brand = major;
    if (!ok) {
        char name[16];
        return sy__heif_bad(f, err, SY_E_UNSUPPORTED, FCC('f', 't', 'y', 'p'), box_offset,
                   "not a HEIF file: major brand '%s' and no mif1/heic/avif compatible brand", sy_bmff_fourcc_text(major, name));
    }
    return SY_OK;
}

/* ---- hdlr, pitm ---- */

static sy_status parse_hdlr(sy_heif_file *f, const sy_bmff_box *b, sy_error *err) {
    sy_bmff_span s = payload_span(f, b);
    uint8_t v;
    uint32_t flags, handler;
    if (!sy_bmff_full_header(&s, &v, &flags) || !sy_bmff_skip(&s, 4) || !sy_bmff_u32(&s, &handler))
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, abs_off(f, b->offset), "hdlr too short");
    if (handler != FCC('p', 'i', 'c', 't')) {
        char name[16];
        return sy__heif_bad(f, err, SY_E_UNSUPPORTED, b->type, abs_off(f, b->offset), "handler '%s' is not 'pict'",
                   sy_bmff_fourcc_text(handler, name));
    }
    return SY_OK;
}

static sy_status parse_pitm(sy_heif_file *f, const sy_bmff_box *b, sy_error *err) {
    sy_bmff_span s = payload_span(f, b);
    uint8_t v;
    uint32_t flags;
    if (!sy_bmff_full_header(&s, &v, &flags) || v > 1)
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, abs_off(f, b->offset), "bad pitm header (version %u)", v);
    uint16_t id16;
    uint32_t id32;
    if (v == 0 ? !sy_bmff_u16(&s, &id16) : !sy_bmff_u32(&s, &id32))
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, abs_off(f, b->offset), "pitm too short");
    f->primary = v == 0 ? id16 : id32;
    return SY_OK;
}

/* ---- iinf / infe ---- */

static sy_status parse_infe(sy_heif_file *f, const sy_bmff_box *b, heif_item *it, int *used, sy_error *err) {
    sy_bmff_span s = payload_span(f, b);
    uint8_t v;
    uint32_t flags;
    *used = 0;
    if (!sy_bmff_full_header(&s, &v, &flags))
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, abs_off(f, b->offset), "infe too short");
    if (v > 3) return SY_OK; /* unknown version: skip the entry */
    memset(it, 0, sizeof *it);
    uint16_t u16 = 0, protection = 0;
    uint32_t id = 0, type = 0;
    int ok;
    if (v < 2) {
        ok = sy_bmff_u16(&s, &u16) && sy_bmff_u16(&s, &protection);
        id = u16;
    } else if (v == 2) {
        ok = sy_bmff_u16(&s, &u16) && sy_bmff_u16(&s, &protection) && sy_bmff_u32(&s, &type);
        id = u16;
    } else {
        ok = sy_bmff_u32(&s, &id) && sy_bmff_u16(&s, &protection) && sy_bmff_u32(&s, &type);
    }
    if (!ok) return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, abs_off(f, b->offset), "infe v%u too short", v);
    if (id == 0) return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, abs_off(f, b->offset), "infe with item_ID 0");
    it->info.id = id;
    it->info.type = type;
    it->info.hidden = (flags & 1) != 0;
    it->info.mirror = -1;
    it->dimg_ref = -1;
    sy_bmff_cstring(&s, it->info.name, sizeof it->info.name); /* may be absent */
    if (v < 2 || type == FCC('m', 'i', 'm', 'e')) sy_bmff_cstring(&s, it->info.content_type, sizeof it->info.content_type);
    *used = 1;
    return SY_OK;
}

static sy_status parse_iinf(sy_heif_file *f, const sy_bmff_cursor *meta, const sy_bmff_box *b, sy_error *err) {
    sy_bmff_span s = payload_span(f, b);
    uint8_t v;
    uint32_t flags;
    if (!sy_bmff_full_header(&s, &v, &flags) || v > 1)
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, abs_off(f, b->offset), "bad iinf header (version %u)", v);
    uint64_t skip = 4 + (v == 0 ? 2 : 4);
    if (b->payload_size < skip) return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, abs_off(f, b->offset), "iinf too short");
    /* Pass 1: count the infe children (the declared entry_count is not trusted). */
    sy_bmff_cursor c;
    sy_bmff_box child;
    uint32_t count = 0;
    sy_status st;
    sy_bmff_cursor_children(&c, meta, b, skip);
    for (;;) {
        if ((st = sy__heif_next_box(f, &c, &child, err)) != SY_OK) return st;
        if (child.type == 0) break;
        if (child.type == FCC('i', 'n', 'f', 'e')) count++;
    }
    if (count == 0) return SY_OK;
    f->items = sy__calloc(f->ctx, count, sizeof *f->items, "heif items", err);
    if (!f->items) return err ? err->code : SY_E_BUDGET;
    /* Pass 2: parse. */
    sy_bmff_cursor_children(&c, meta, b, skip);
    uint32_t n = 0;
    for (;;) {
        if ((st = sy__heif_next_box(f, &c, &child, err)) != SY_OK) return st;
        if (child.type == 0) break;
        if (child.type != FCC('i', 'n', 'f', 'e') || n >= count) continue;
        int used;
        if ((st = parse_infe(f, &child, &f->items[n], &used, err)) != SY_OK) return st;
        n += (uint32_t)used;
    }
    f->item_count = n;
    qsort(f->items, n, sizeof *f->items, cmp_items);
    for (uint32_t i = 1; i < n; i++)
        if (f->items[i].info.id == f->items[i - 1].info.id)
            return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, abs_off(f, b->offset), "duplicate item_ID %u",
                       f->items[i].info.id);
    return SY_OK;
}

/* ---- iloc ---- */

/* Resolves one extent of `it` against its source; records a bad location on the item. */
static void place_extent(sy_heif_file *f, heif_item *it, uint64_t base, uint64_t offset, uint64_t length,
                         heif_extent *out) {
    uint64_t source = it->method == 0 ? f->file_size : f->idat_size;
    uint64_t start;
    if (__builtin_add_overflow(base, offset, &start)) start = UINT64_MAX;
    if (length == 0 && start <= source) length = source - start; /* 0 = to the end of the source */
    uint64_t end, sum;
    out->offset = start;
    out->length = length;
    if (it->loc_status != SY_OK) return;
    if (start > source || __builtin_add_overflow(start, length, &end) || end > source ||
        __builtin_add_overflow(it->info.data_size, length, &sum)) {
        it->loc_status = SY_E_INVALID_INPUT;
        it->loc_bad_offset = start;
        it->loc_bad_length = length;
        it->info.data_size = 0; /* nothing of this item is readable */
        return;
    }
    it->info.data_size = sum;
}

/* Two passes: fill == 0 validates the syntax and counts extents; fill == 1 stores them. */
static sy_status walk_iloc(sy_heif_file *f, const sy_bmff_box *b, int fill, uint64_t *total_extents, sy_error *err) {
    const uint64_t at = abs_off(f, b->offset);
    sy_bmff_span s = payload_span(f, b);
    uint8_t v, sizes1, sizes2;
    uint32_t flags;
    if (!sy_bmff_full_header(&s, &v, &flags) || v > 2)
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, at, "bad iloc header (version %u)", v);
    if (!sy_bmff_u8(&s, &sizes1) || !sy_bmff_u8(&s, &sizes2))
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, at, "iloc too short");
    unsigned offset_size = sizes1 >> 4, length_size = sizes1 & 15, base_size = sizes2 >> 4;
    unsigned index_size = v >= 1 ? (sizes2 & 15u) : 0;
#define SIZE_OK(x) ((x) == 0 || (x) == 4 || (x) == 8)
    if (!SIZE_OK(offset_size) || !SIZE_OK(length_size) || !SIZE_OK(base_size) || !SIZE_OK(index_size))
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, at, "iloc field sizes %u/%u/%u/%u not 0, 4 or 8", offset_size,
                   length_size, base_size, index_size);
#undef SIZE_OK
    uint32_t item_count;
    uint16_t u16;
    if (v < 2) {
        if (!sy_bmff_u16(&s, &u16)) return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, at, "iloc too short");
        item_count = u16;
    } else if (!sy_bmff_u32(&s, &item_count)) {
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, at, "iloc too short");
    }
    const uint64_t id_size = v < 2 ? 2 : 4;
    const uint64_t min_entry = id_size + (v >= 1 ? 2 : 0) + 2 + base_size + 2;
    if (item_count > s.left / min_entry)
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, at, "iloc claims %u items but has only %llu bytes", item_count,
                   (unsigned long long)s.left);
    const uint64_t extent_bytes = index_size + offset_size + length_size;
    uint64_t total = 0;
    for (uint32_t i = 0; i < item_count; i++) {
        uint64_t id, base = 0;
        uint16_t method_field = 0, dref, extent_count;
        int ok = sy_bmff_uN(&s, (unsigned)id_size, &id);
        if (ok && v >= 1) ok = sy_bmff_u16(&s, &method_field);
        ok = ok && sy_bmff_u16(&s, &dref) && sy_bmff_uN(&s, base_size, &base) && sy_bmff_u16(&s, &extent_count);
        if (!ok) return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, at, "iloc entry %u cut off", i);
        if (extent_bytes == 0 && extent_count > 1) /* zero-byte extents all mean "the whole source" */
            return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, at, "iloc item %llu: %u extents with no offset or length",
                       (unsigned long long)id, extent_count);
        if (extent_bytes > 0 && extent_count > s.left / extent_bytes)
            return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, at, "iloc item %llu claims %u extents, %llu bytes left",
                       (unsigned long long)id, extent_count, (unsigned long long)s.left);
        heif_item *it = fill ? sy__heif_find_item(f, (uint32_t)id) : NULL;
        if (it && it->in_iloc) it = NULL; /* a second entry for the same item is ignored */
        if (it) {
            it->in_iloc = 1;
            it->iloc_offset = at;
            it->method = (uint8_t)(method_field & 15);
            it->extent_first = f->extent_count;
            it->extent_count = extent_count;
            if (it->method > 1 || dref != 0) {
                it->loc_status = SY_E_UNSUPPORTED;
            } else if (it->method == 1 && !f->idat) {
                it->loc_status = SY_E_INVALID_INPUT;
            }
        }
        for (uint32_t e = 0; e < extent_count; e++) {
            uint64_t index, offset, length;
            if (!sy_bmff_uN(&s, index_size, &index) || !sy_bmff_uN(&s, offset_size, &offset) ||
                !sy_bmff_uN(&s, length_size, &length))
                return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, at, "iloc extent cut off");
            if (!fill) {
                if (++total > SY__HEIF_MAX_EXTENTS)
                    return sy__heif_bad(f, err, SY_E_BUDGET, b->type, at, "more than %u iloc extents", SY__HEIF_MAX_EXTENTS);
            } else if (f->extent_count < *total_extents) {
                heif_extent *x = &f->extents[f->extent_count++];
                if (it) place_extent(f, it, base, offset, length, x);
                else x->offset = x->length = 0;
            }
        }
    }
    if (!fill) *total_extents = total;
    return SY_OK;
}

static sy_status parse_iloc(sy_heif_file *f, const sy_bmff_box *b, sy_error *err) {
    uint64_t total = 0;
    sy_status st = walk_iloc(f, b, 0, &total, err);
    if (st != SY_OK) return st;
    if (total > 0) {
        f->extents = sy__calloc(f->ctx, (size_t)total, sizeof *f->extents, "heif iloc extents", err);
        if (!f->extents) return err ? err->code : SY_E_BUDGET;
    }
    return walk_iloc(f, b, 1, &total, err);
}

/* ---- iref ---- */

static sy_status walk_iref(sy_heif_file *f, const sy_bmff_cursor *meta, const sy_bmff_box *b, int fill,
                           uint32_t *refs, uint32_t *targets, sy_error *err) {
    const uint64_t at = abs_off(f, b->offset);
    sy_bmff_span s = payload_span(f, b);
    uint8_t v;
    uint32_t flags;
    if (!sy_bmff_full_header(&s, &v, &flags) || v > 1)
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, at, "bad iref header (version %u)", v);
    const unsigned id_size = v == 0 ? 2 : 4;
    sy_bmff_cursor c;
    sy_bmff_box child;
    sy_status st;
    uint64_t nrefs = 0, ntargets = 0;
    sy_bmff_cursor_children(&c, meta, b, 4);
    for (;;) {
        if ((st = sy__heif_next_box(f, &c, &child, err)) != SY_OK) return st;
        if (child.type == 0) break;
        sy_bmff_span r = payload_span(f, &child);
        uint64_t from;
        uint16_t count;
        if (!sy_bmff_uN(&r, id_size, &from) || !sy_bmff_u16(&r, &count) || count > r.left / id_size)
            return sy__heif_bad(f, err, SY_E_INVALID_INPUT, child.type, abs_off(f, child.offset),
                       "item reference cut off or count too large");
        if (!fill) {
            nrefs++;
            ntargets += count;
            continue;
        }
        if (nrefs >= *refs || ntargets + count > *targets) break; /* cannot happen: same walk as pass 1 */
        heif_ref *ref = &f->refs[nrefs];
        ref->type = child.type;
        ref->from = (uint32_t)from;
        ref->first = (uint32_t)ntargets;
        ref->count = count;
        ref->box_offset = abs_off(f, child.offset);
        for (uint16_t i = 0; i < count; i++) {
            uint64_t to;
            sy_bmff_uN(&r, id_size, &to);
            f->targets[ntargets + i] = (uint32_t)to;
        }
        nrefs++;
        ntargets += count;
    }
    *refs = (uint32_t)nrefs; /* ≤ SY_BMFF_MAX_CHILDREN */
    *targets = (uint32_t)ntargets; /* each target holds ≥ 2 bytes of a ≤ 64 MiB meta */
    return SY_OK;
}

static sy_status parse_iref(sy_heif_file *f, const sy_bmff_cursor *meta, const sy_bmff_box *b, sy_error *err) {
    uint32_t nrefs = 0, ntargets = 0;
    sy_status st = walk_iref(f, meta, b, 0, &nrefs, &ntargets, err);
    if (st != SY_OK || nrefs == 0) return st;
    f->refs = sy__calloc(f->ctx, nrefs, sizeof *f->refs, "heif references", err);
    if (!f->refs) return err ? err->code : SY_E_BUDGET;
    if (ntargets > 0) {
        f->targets = sy__calloc(f->ctx, ntargets, sizeof *f->targets, "heif reference targets", err);
        if (!f->targets) return err ? err->code : SY_E_BUDGET;
    }
    st = walk_iref(f, meta, b, 1, &nrefs, &ntargets, err);
    f->ref_count = nrefs;
    f->target_count = ntargets;
    return st;
}

/* First existing target of ref that is not the item itself, or 0. */
static uint32_t first_target(const sy_heif_file *f, const heif_ref *ref) {
    for (uint32_t i = 0; i < ref->count; i++) {
        uint32_t to = f->targets[ref->first + i];
        if (to != ref->from && sy__heif_find_item(f, to)) return to;
    }
    return 0;
}

static void apply_references(sy_heif_file *f) {
    for (uint32_t r = 0; r < f->ref_count; r++) {
        const heif_ref *ref = &f->refs[r];
        heif_item *it = sy__heif_find_item(f, ref->from);
        if (!it) continue; /* reference from a missing item: ignored */
        switch (ref->type) {
        case FCC('d', 'i', 'm', 'g'):
            if (it->dimg_ref < 0) {
                it->dimg_ref = (int32_t)r;
                it->info.derived_count = ref->count;
            }
            break;
        case FCC('a', 'u', 'x', 'l'):
            if (!it->info.aux_of) it->info.aux_of = first_target(f, ref);
            break;
        case FCC('c', 'd', 's', 'c'):
            if (!it->info.describes) it->info.describes = first_target(f, ref);
            break;
        case FCC('t', 'h', 'm', 'b'):
            if (!it->info.thumbnail_of) it->info.thumbnail_of = first_target(f, ref);
            break;
        default:
            break; /* kept in f->refs for sy__heif_references */
        }
    }
}

/* Fails when the dimg graph has a loop (a grid that contains itself, directly or not). */
static sy_status check_dimg_loops(sy_heif_file *f, sy_error *err) {
    const uint32_t n = f->item_count;
    if (n == 0 || f->ref_count == 0) return SY_OK;
    uint8_t *color = sy__calloc(f->ctx, n, 1, "heif dimg check", err);
    uint32_t *stack = sy__alloc(f->ctx, n, 2 * sizeof(uint32_t), "heif dimg check", err);
    if (!color || !stack) {
        sy__free(f->ctx, color);
        sy__free(f->ctx, stack);
        return err ? err->code : SY_E_BUDGET;
    }
    sy_status st = SY_OK;
    for (uint32_t root = 0; root < n && st == SY_OK; root++) {
        if (color[root]) continue;
        uint32_t depth = 0;
        stack[0] = root;
        stack[1] = 0;
        color[root] = 1;
        depth = 1;
        while (depth > 0 && st == SY_OK) {
            uint32_t idx = stack[2 * (depth - 1)], edge = stack[2 * (depth - 1) + 1];
            const heif_item *it = &f->items[idx];
            uint32_t edges = it->dimg_ref >= 0 ? f->refs[it->dimg_ref].count : 0;
            if (edge >= edges) {
                color[idx] = 2;
                depth--;
                continue;
            }
            stack[2 * (depth - 1) + 1] = edge + 1;
            const heif_ref *ref = &f->refs[it->dimg_ref];
            const heif_item *to = sy__heif_find_item(f, f->targets[ref->first + edge]);
            if (!to) continue;
            uint32_t t = (uint32_t)(to - f->items);
            if (color[t] == 1) {
                st = sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('d', 'i', 'm', 'g'), ref->box_offset,
                         "dimg reference loop: item %u reaches item %u again", it->info.id, to->info.id);
            } else if (color[t] == 0) {
                color[t] = 1;
                stack[2 * depth] = t; /* depth < n: each item is on the stack at most once */
                stack[2 * depth + 1] = 0;
                depth++;
            }
        }
    }
    sy__free(f->ctx, color);
    sy__free(f->ctx, stack);
    return st;
}

/* ---- meta ---- */

static sy_status parse_meta(sy_heif_file *f, uint64_t header, sy_error *err) {
    const uint64_t at = f->meta_offset;
    sy_bmff_span s = {f->meta + header, f->meta_size - header};
    uint8_t v;
    uint32_t flags;
    if (!sy_bmff_full_header(&s, &v, &flags) || v != 0)
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('m', 'e', 't', 'a'), at, "bad meta header (version %u)", v);
    sy_bmff_cursor meta;
    sy_bmff_cursor_init(&meta, f->meta, f->meta_offset, header + 4, f->meta_size);
    enum { HDLR, PITM, IINF, ILOC, IREF, IPRP, IDAT, NBOX };
    static const uint32_t types[NBOX] = {FCC('h', 'd', 'l', 'r'), FCC('p', 'i', 't', 'm'), FCC('i', 'i', 'n', 'f'),
                                         FCC('i', 'l', 'o', 'c'), FCC('i', 'r', 'e', 'f'), FCC('i', 'p', 'r', 'p'),
                                         FCC('i', 'd', 'a', 't')};
    sy_bmff_box boxes[NBOX];
    memset(boxes, 0, sizeof boxes);
    sy_bmff_box b;
    sy_status st;
    for (;;) {
        if ((st = sy__heif_next_box(f, &meta, &b, err)) != SY_OK) return st;
        if (b.type == 0) break;
        for (int k = 0; k < NBOX; k++) {
            if (b.type != types[k]) continue;
            if (boxes[k].type)
                return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b.type, abs_off(f, b.offset), "second '%c%c%c%c' box in meta",
                           (char)(b.type >> 24), (char)(b.type >> 16), (char)(b.type >> 8), (char)b.type);
            boxes[k] = b;
        }
    }
    /* the cursor's data/base are what children need; position is irrelevant */
    if (!boxes[HDLR].type) return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('m', 'e', 't', 'a'), at, "no hdlr box");
    if ((st = parse_hdlr(f, &boxes[HDLR], err)) != SY_OK) return st;
    if (!boxes[PITM].type) return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('m', 'e', 't', 'a'), at, "no pitm box");
    if ((st = parse_pitm(f, &boxes[PITM], err)) != SY_OK) return st;
    if (!boxes[IINF].type) return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('m', 'e', 't', 'a'), at, "no iinf box");
    if ((st = parse_iinf(f, &meta, &boxes[IINF], err)) != SY_OK) return st;
    if (boxes[IDAT].type) {
        f->idat = f->meta + boxes[IDAT].payload_offset;
        f->idat_size = boxes[IDAT].payload_size;
    }
    if (!boxes[ILOC].type) return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('m', 'e', 't', 'a'), at, "no iloc box");
    f->iloc_offset = abs_off(f, boxes[ILOC].offset);
    f->iref_offset = boxes[IREF].type ? abs_off(f, boxes[IREF].offset) : 0;
    if ((st = parse_iloc(f, &boxes[ILOC], err)) != SY_OK) return st;
    if (boxes[IREF].type && (st = parse_iref(f, &meta, &boxes[IREF], err)) != SY_OK) return st;
    apply_references(f);
    if (boxes[IPRP].type && (st = sy__heif_parse_iprp(f, &meta, &boxes[IPRP], err)) != SY_OK) return st;
    if (!sy__heif_find_item(f, f->primary))
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('p', 'i', 't', 'm'), abs_off(f, boxes[PITM].offset),
                   "primary item %u does not exist (%u items)", f->primary, f->item_count);
    if ((st = check_dimg_loops(f, err)) != SY_OK) return st;
    f->signalled = f->primary;
    const heif_item *p = sy__heif_find_item(f, f->primary);
    if (p->info.type == FCC('t', 'm', 'a', 'p') && p->dimg_ref >= 0 && f->refs[p->dimg_ref].count == 2) {
        uint32_t base = f->targets[f->refs[p->dimg_ref].first];
        const heif_item *b = sy__heif_find_item(f, base);
        if (!b || b->info.type == FCC('t', 'm', 'a', 'p'))
            return sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('p', 'i', 't', 'm'), abs_off(f, boxes[PITM].offset),
                       "primary 'tmap' item %u has no base image (item %u)", f->primary, base);
        f->primary = base;
    }
    return SY_OK;
}

/* ---- open / close ---- */

sy_status sy_heif_open(sy_context *ctx, const char *path, sy_heif_file **out, sy_error *err) {
    if (out) *out = NULL;
    if (!ctx || !path || !out) return sy__fail(err, SY_E_USAGE, "sy_heif_open: ctx, path and out are required");
    sy_heif_file *f = sy__calloc(ctx, 1, sizeof *f, "heif file", err);
    if (!f) return err ? err->code : SY_E_BUDGET;
    f->ctx = ctx;
    f->fd = -1;
    sy_status st = sy__bmff_file_open(ctx, path, &f->path, &f->fp, &f->fd, &f->file_size, err);
    if (st != SY_OK) goto fail;

    /* Top-level walk by headers only. */
    uint64_t pos = 0;
    uint32_t boxes = 0;
    int have_ftyp = 0;
    for (;;) {
        if (pos >= f->file_size) break;
        uint64_t left = f->file_size - pos;
        if (left < 8) {
            st = sy__heif_bad(f, err, SY_E_INVALID_INPUT, 0, pos, "%llu stray bytes at the end of the file",
                     (unsigned long long)left);
            goto fail;
        }
        if (++boxes > SY_BMFF_MAX_CHILDREN) {
            st = sy__heif_bad(f, err, SY_E_INVALID_INPUT, 0, pos, "more than %u top-level boxes", SY_BMFF_MAX_CHILDREN);
            goto fail;
        }
        uint8_t h[16];
        if ((st = sy__heif_read_at(f, pos, h, 8, err)) != SY_OK) goto fail;
        uint64_t size = (uint64_t)h[0] << 24 | (uint64_t)h[1] << 16 | (uint64_t)h[2] << 8 | h[3];
        uint32_t type = (uint32_t)h[4] << 24 | (uint32_t)h[5] << 16 | (uint32_t)h[6] << 8 | h[7];
        uint64_t header = 8;
        if (size == 1) {
            if (left < 16) {
                st = sy__heif_bad(f, err, SY_E_INVALID_INPUT, type, pos, "64-bit box size cut off");
                goto fail;
            }
            if ((st = sy__heif_read_at(f, pos + 8, h + 8, 8, err)) != SY_OK) goto fail;
            size = 0;
            for (int i = 8; i < 16; i++) size = size << 8 | h[i];
            header = 16;
        } else if (size == 0) {
            size = left;
        }
        if (type == FCC('u', 'u', 'i', 'd')) header += 16;
        if (size < header) {
            st = sy__heif_bad(f, err, SY_E_INVALID_INPUT, type, pos, "box size %llu smaller than its %llu-byte header",
                     (unsigned long long)size, (unsigned long long)header);
            goto fail;
        }
        if (size > left) {
            st = sy__heif_bad(f, err, SY_E_INVALID_INPUT, type, pos, "box size %llu runs past the end of the file (%llu bytes)",
                     (unsigned long long)size, (unsigned long long)f->file_size);
            goto fail;
        }
        if (type == FCC('f', 't', 'y', 'p')) {
            if (have_ftyp) {
                st = sy__heif_bad(f, err, SY_E_INVALID_INPUT, type, pos, "second ftyp box");
                goto fail;
            }
            have_ftyp = 1;
            if ((st = parse_ftyp(f, pos, pos + header, size - header, err)) != SY_OK) goto fail;
        } else if (!have_ftyp && type != FCC('f', 'r', 'e', 'e') && type != FCC('s', 'k', 'i', 'p') &&
                   type != FCC('w', 'i', 'd', 'e')) {
            st = sy__heif_bad(f, err, SY_E_INVALID_INPUT, type, pos, "file does not start with an ftyp box");
            goto fail;
        } else if (type == FCC('m', 'e', 't', 'a')) {
            if (size > SY__HEIF_META_CAP) {
                st = sy__heif_bad(f, err, SY_E_BUDGET, type, pos, "meta box of %llu bytes exceeds the %u MiB cap",
                         (unsigned long long)size, SY__HEIF_META_CAP >> 20);
                goto fail;
            }
            f->meta = sy__alloc(ctx, (size_t)size, 1, "heif meta box", err);
            if (!f->meta) {
                st = err ? err->code : SY_E_BUDGET;
                goto fail;
            }
            f->meta_size = size;
            f->meta_offset = pos;
            if ((st = sy__heif_read_at(f, pos, f->meta, (size_t)size, err)) != SY_OK) goto fail;
            if ((st = parse_meta(f, header, err)) != SY_OK) goto fail;
            break; /* everything else (mdat, ...) is reached through iloc */
        }
        pos += size;
    }
    if (!f->meta) {
        st = have_ftyp ? sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('m', 'e', 't', 'a'), 0, "no meta box")
                       : sy__heif_bad(f, err, SY_E_INVALID_INPUT, FCC('f', 't', 'y', 'p'), 0, "no ftyp box");
        goto fail;
    }
    *out = f;
    return SY_OK;
fail:
    sy_heif_close(f);
    return st;
}

void sy_heif_close(sy_heif_file *f) {
    if (!f) return;
    sy_context *ctx = f->ctx;
    if (f->fp) fclose(f->fp);
    sy__free(ctx, f->meta);
    sy__free(ctx, f->items);
    sy__free(ctx, f->extents);
    sy__free(ctx, f->refs);
    sy__free(ctx, f->targets);
    sy__free(ctx, f->path);
    sy__free(ctx, f);
}

/* ---- accessors ---- */

uint32_t sy_heif_primary_id(const sy_heif_file *f) { return f ? f->primary : 0; }

uint32_t sy_heif_signalled_primary_id(const sy_heif_file *f) { return f ? f->signalled : 0; }

uint32_t sy_heif_item_count(const sy_heif_file *f) { return f ? f->item_count : 0; }

const sy_heif_item_info *sy_heif_item_at(const sy_heif_file *f, uint32_t index) {
    return f && index < f->item_count ? &f->items[index].info : NULL;
}

const sy_heif_item_info *sy_heif_item(const sy_heif_file *f, uint32_t id) {
    const heif_item *it = sy__heif_find_item(f, id);
    return it ? &it->info : NULL;
}

const uint32_t *sy__heif_references(const sy_heif_file *f, uint32_t from_id, uint32_t type, uint32_t *count) {
    if (count) *count = 0;
    if (!f) return NULL;
    for (uint32_t r = 0; r < f->ref_count; r++) {
        const heif_ref *ref = &f->refs[r];
        if (ref->from == from_id && ref->type == type) {
            if (count) *count = ref->count;
            return ref->count ? &f->targets[ref->first] : NULL;
        }
    }
    return NULL;
}

uint64_t sy__heif_file_size(const sy_heif_file *f) { return f ? f->file_size : 0; }

uint32_t sy__heif_major_brand(const sy_heif_file *f) { return f ? f->major_brand : 0; }

const uint32_t *sy_heif_derived(const sy_heif_file *f, uint32_t id, uint32_t *count) {
    if (count) *count = 0;
    const heif_item *it = sy__heif_find_item(f, id);
    if (!it || it->dimg_ref < 0) return NULL;
    const heif_ref *ref = &f->refs[it->dimg_ref];
    if (count) *count = ref->count;
    return ref->count ? &f->targets[ref->first] : NULL;
}

const uint8_t *sy_heif_hvcc(const sy_heif_file *f, uint32_t id, size_t *len) {
    if (len) *len = 0;
    const heif_item *it = sy__heif_find_item(f, id);
    if (!it || !it->hvcc) return NULL;
    if (len) *len = it->hvcc_len;
    return it->hvcc;
}

const uint8_t *sy_heif_av1c(const sy_heif_file *f, uint32_t id, size_t *len) {
    if (len) *len = 0;
    const heif_item *it = sy__heif_find_item(f, id);
    if (!it || !it->av1c) return NULL;
    if (len) *len = it->av1c_len;
    return it->av1c;
}

const uint8_t *sy_heif_icc(const sy_heif_file *f, uint32_t id, size_t *len) {
    if (len) *len = 0;
    const heif_item *it = sy__heif_find_item(f, id);
    if (it && !it->icc && it->dimg_ref >= 0 && f->refs[it->dimg_ref].count) {
        /* A derived image without its own profile is in its inputs' space:
         * Samsung puts the ICC only on the tiles of a grid. */
        const heif_item *first = sy__heif_find_item(f, f->targets[f->refs[it->dimg_ref].first]);
        if (first && first != it && first->icc) it = first;
    }
    if (!it || !it->icc) return NULL;
    if (len) *len = it->icc_len;
    return it->icc;
}
