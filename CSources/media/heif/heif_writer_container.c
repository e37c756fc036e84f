/* heif_writer_container.c — the HEIF writer's container: when the writer
 * finishes, its images (grid tiles in the spool, hvcC, sizes), metadata and
 * auxiliary images become items and properties: ftyp + meta (built in memory
 * with sy_bmff_writer; iloc offsets patched once the header's length is known,
 * 8-byte offsets when 4 do not reach) + mdat, written to a temporary file
 * beside the target with the spool copied behind the metadata, then renamed
 * (see sy_heif_writer.h for the layout). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sy_output.h"
#include "bmff/sy_bmff.h"
#include "heif/sy_heif_writer_state.h"

enum { HW_MAX_PROPS_PER_ITEM = 8 };

typedef struct hw_item {
    uint32_t id, type;
    uint8_t hidden;
    uint8_t method;          /* iloc construction method: 0 mdat, 1 idat */
    uint64_t offset, length; /* method 0: offset inside the mdat payload; method 1: inside idat */
    const char *content_type;
    uint8_t nprops;
    uint8_t prop[HW_MAX_PROPS_PER_ITEM]; /* 1-based ipco index | 0x80 essential */
} hw_item;

typedef struct hw_props { /* ipco indices (1-based, 0 = absent) */
    uint8_t primary_hvcc, primary_tile_ispe, primary_ispe, pixi3, pixi1, nclx, prof, irot, imir;
    uint8_t aux_hvcc[SY_HEIF_WRITER_MAX_AUXILIARY], aux_ispe[SY_HEIF_WRITER_MAX_AUXILIARY],
        aux_tile_ispe[SY_HEIF_WRITER_MAX_AUXILIARY], aux_auxc[SY_HEIF_WRITER_MAX_AUXILIARY];
} hw_props;

typedef struct hw_layout {
    hw_item *items;
    uint32_t count;
    uint32_t exif_id, xmp_id, aux_xmp_id[SY_HEIF_WRITER_MAX_AUXILIARY];
    uint32_t items_total;  /* every planned item (image and metadata) */
    uint64_t mdat_payload; /* bytes of mdat after its header */
    uint64_t spool_base;   /* where the spool starts inside the mdat payload */
    uint8_t idat[SY_HEIF_WRITER_MAX_AUXILIARY * 12 + 12];
    size_t idat_len;
} hw_layout;

static void add_prop(hw_item *it, uint8_t index, int essential) {
    if (index && it->nprops < HW_MAX_PROPS_PER_ITEM) it->prop[it->nprops++] = (uint8_t)(index | (essential ? 0x80 : 0));
}

static uint32_t grid_descriptor(uint8_t *p, const hw_image *img) {
    int wide = img->width > 65535 || img->height > 65535;
    uint32_t n = 0;
    p[n++] = 0;                       /* version */
    p[n++] = (uint8_t)(wide ? 1 : 0); /* flags: 32-bit output size */
    p[n++] = (uint8_t)(img->rows - 1);
    p[n++] = (uint8_t)(img->cols - 1);
    for (int i = 0; i < 2; i++) {
        uint32_t v = i ? img->height : img->width;
        if (wide) {
            p[n++] = (uint8_t)(v >> 24);
            p[n++] = (uint8_t)(v >> 16);
        }
        p[n++] = (uint8_t)(v >> 8);
        p[n++] = (uint8_t)v;
    }
    return n;
}

/* Items of one image (grid + tiles, or the single item), IDs from *next_id. */
static void layout_image(hw_layout *L, hw_image *img, uint32_t *next_id, const hw_props *P, int aux_index) {
    const int thumb = aux_index >= 0 && img->thumb; /* shown like the primary: its colour and display transform */
    const int hidden = aux_index >= 0 && !thumb;     /* auxiliary images and a tmap-only gain map */
    const int aux = hidden && !img->tmap_only;       /* with auxC */
    uint8_t hvcc = aux_index >= 0 ? P->aux_hvcc[aux_index] : P->primary_hvcc;
    uint8_t pixi = img->channels == 1 ? P->pixi1 : P->pixi3;
    uint8_t nclx = img->channels == 3 ? P->nclx : 0;
    if (img->grid) {
        hw_item *g = &L->items[L->count++];
        memset(g, 0, sizeof *g);
        img->id = g->id = (*next_id)++;
        g->type = SY_FOURCC('g', 'r', 'i', 'd');
        g->hidden = hidden;
        g->method = 1;
        g->offset = L->idat_len;
        g->length = grid_descriptor(L->idat + L->idat_len, img);
        L->idat_len += g->length;
        add_prop(g, aux_index >= 0 ? P->aux_ispe[aux_index] : P->primary_ispe, 0);
        add_prop(g, pixi, 0);
        add_prop(g, nclx, 0);
        if (!hidden) add_prop(g, P->prof, 0);
        if (!hidden) add_prop(g, P->irot, 1), add_prop(g, P->imir, 1);
        if (aux) add_prop(g, P->aux_auxc[aux_index], 1);
    }
    img->first_tile_id = *next_id;
    uint32_t tiles = img->cols * img->rows;
    for (uint32_t t = 0; t < tiles; t++) {
        hw_item *it = &L->items[L->count++];
        memset(it, 0, sizeof *it);
        it->id = (*next_id)++;
        if (!img->grid) img->id = it->id;
        it->type = SY_FOURCC('h', 'v', 'c', '1');
        it->hidden = img->grid || hidden;
        it->method = 0;
        it->offset = L->spool_base + img->tile_offset[t];
        it->length = img->tile_length[t];
        add_prop(it, hvcc, 1);
        add_prop(it, img->grid ? (aux_index >= 0 ? P->aux_tile_ispe[aux_index] : P->primary_tile_ispe)
                               : P->aux_ispe[aux_index],
                 0);
        add_prop(it, pixi, 0);
        if (!img->grid) {
            add_prop(it, nclx, 0);
            if (aux) add_prop(it, P->aux_auxc[aux_index], 1);
            else if (!hidden) add_prop(it, P->prof, 0), add_prop(it, P->irot, 1), add_prop(it, P->imir, 1);
        }
    }
}

/* The 'tmap' item (an image item: it takes properties, so it follows the
 * image items): its data, u8 version 0 + the ISO payload, leads the mdat. */
static void layout_tmap(hw_layout *L, sy_heif_writer *w, uint32_t *next_id, const hw_props *P) {
    if (!w->tmap) return;
    hw_item *it = &L->items[L->count++];
    memset(it, 0, sizeof *it);
    w->tmap_id = it->id = (*next_id)++;
    it->type = SY_FOURCC('t', 'm', 'a', 'p');
    it->offset = 0;
    it->length = 1 + w->tmap_len;
    add_prop(it, P->primary_ispe, 0); /* the HDR rendition has the base's size and display transform */
    add_prop(it, P->pixi3, 0);
    add_prop(it, P->irot, 1), add_prop(it, P->imir, 1);
}

/* The image items from the first ID on: the primary, the auxiliary images,
 * the 'tmap' item. Returns the next free ID. */
static uint32_t layout_images(hw_layout *L, sy_heif_writer *w, const hw_props *P) {
    uint32_t next_id = 1;
    L->count = 0;
    L->idat_len = 0;
    layout_image(L, &w->primary, &next_id, P, -1);
    for (uint32_t i = 0; i < w->aux_count; i++) layout_image(L, &w->aux[i], &next_id, P, (int)i);
    layout_tmap(L, w, &next_id, P);
    return next_id;
}

static sy_status put_ispe(sy_bmff_writer *b, uint32_t width, uint32_t height, uint8_t *index, uint8_t *count,
                          sy_error *err) {
    sy_status st = sy_bmff_writer_begin(b, SY_FOURCC('i', 's', 'p', 'e'), 0, 0, err);
    if (st == SY_OK) st = sy_bmff_writer_u32(b, width, err);
    if (st == SY_OK) st = sy_bmff_writer_u32(b, height, err);
    if (st == SY_OK) st = sy_bmff_writer_end(b, err);
    if (st == SY_OK) *index = ++*count;
    return st;
}

static sy_status put_pixi(sy_bmff_writer *b, uint8_t channels, uint8_t *index, uint8_t *count, sy_error *err) {
    sy_status st = sy_bmff_writer_begin(b, SY_FOURCC('p', 'i', 'x', 'i'), 0, 0, err);
    if (st == SY_OK) st = sy_bmff_writer_u8(b, channels, err);
    for (uint8_t c = 0; c < channels && st == SY_OK; c++) st = sy_bmff_writer_u8(b, 8, err);
    if (st == SY_OK) st = sy_bmff_writer_end(b, err);
    if (st == SY_OK) *index = ++*count;
    return st;
}

static sy_status put_blob_box(sy_bmff_writer *b, uint32_t type, const void *data, size_t len, uint8_t *index,
                              uint8_t *count, sy_error *err) {
    sy_status st = sy_bmff_writer_begin(b, type, -1, 0, err);
    if (st == SY_OK) st = sy_bmff_writer_bytes(b, data, len, err);
    if (st == SY_OK) st = sy_bmff_writer_end(b, err);
    if (st == SY_OK) *index = ++*count;
    return st;
}

#define TRY(x)                                                                                                         \
    do {                                                                                                               \
        if ((st = (x)) != SY_OK) return st;                                                                            \
    } while (0)

/* The ipco box; fills the property indices. */
static sy_status put_ipco(sy_heif_writer *w, sy_bmff_writer *b, hw_props *P, sy_error *err) {
    sy_status st;
    uint8_t n = 0;
    memset(P, 0, sizeof *P);
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'p', 'c', 'o'), -1, 0, err));
    TRY(put_blob_box(b, SY_FOURCC('h', 'v', 'c', 'C'), w->primary.hvcc, w->primary.hvcc_len, &P->primary_hvcc, &n, err));
    TRY(put_ispe(b, w->primary.tile_w, w->primary.tile_h, &P->primary_tile_ispe, &n, err));
    TRY(put_ispe(b, w->primary.width, w->primary.height, &P->primary_ispe, &n, err));
    TRY(put_pixi(b, 3, &P->pixi3, &n, err));
    if (w->opts.write_nclx) {
        sy_cicp colour = sy__heif_writer_colour(w);
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('c', 'o', 'l', 'r'), -1, 0, err));
        TRY(sy_bmff_writer_u32(b, SY_FOURCC('n', 'c', 'l', 'x'), err));
        TRY(sy_bmff_writer_u16(b, colour.primaries, err));
        TRY(sy_bmff_writer_u16(b, colour.transfer, err));
        TRY(sy_bmff_writer_u16(b, colour.matrix, err));
        TRY(sy_bmff_writer_u8(b, (uint8_t)(w->opts.full_range ? 0x80 : 0), err));
        TRY(sy_bmff_writer_end(b, err));
        P->nclx = ++n;
    }
    if (w->icc) {
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('c', 'o', 'l', 'r'), -1, 0, err));
        TRY(sy_bmff_writer_u32(b, SY_FOURCC('p', 'r', 'o', 'f'), err));
        TRY(sy_bmff_writer_bytes(b, w->icc, w->icc_len, err));
        TRY(sy_bmff_writer_end(b, err));
        P->prof = ++n;
    }
    if (w->opts.rotation & 3) { /* irot: 6 reserved bits + 2-bit angle (a plain box) */
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'r', 'o', 't'), -1, 0, err));
        TRY(sy_bmff_writer_u8(b, (uint8_t)(w->opts.rotation & 3), err));
        TRY(sy_bmff_writer_end(b, err));
        P->irot = ++n;
    }
    if (w->opts.mirror == 0 || w->opts.mirror == 1) { /* imir: 7 reserved bits + axis */
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'm', 'i', 'r'), -1, 0, err));
        TRY(sy_bmff_writer_u8(b, (uint8_t)w->opts.mirror, err));
        TRY(sy_bmff_writer_end(b, err));
        P->imir = ++n;
    }
    for (uint32_t i = 0; i < w->aux_count; i++)
        if (w->aux[i].channels == 1) {
            TRY(put_pixi(b, 1, &P->pixi1, &n, err));
            break;
        }
    for (uint32_t i = 0; i < w->aux_count; i++) {
        const hw_image *a = &w->aux[i];
        TRY(put_blob_box(b, SY_FOURCC('h', 'v', 'c', 'C'), a->hvcc, a->hvcc_len, &P->aux_hvcc[i], &n, err));
        TRY(put_ispe(b, a->width, a->height, &P->aux_ispe[i], &n, err));
        if (a->grid) TRY(put_ispe(b, a->tile_w, a->tile_h, &P->aux_tile_ispe[i], &n, err));
        if (a->thumb || a->tmap_only) continue; /* no auxiliary images */
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('a', 'u', 'x', 'C'), 0, 0, err));
        TRY(sy_bmff_writer_bytes(b, a->urn, strlen(a->urn) + 1, err));
        TRY(sy_bmff_writer_end(b, err));
        P->aux_auxc[i] = ++n;
    }
    return sy_bmff_writer_end(b, err);
}

static sy_status put_ref(sy_bmff_writer *b, uint32_t type, uint32_t from, uint32_t first_to, uint32_t count,
                         const uint32_t *to_list, sy_error *err) {
    sy_status st;
    TRY(sy_bmff_writer_begin(b, type, -1, 0, err));
    TRY(sy_bmff_writer_u16(b, (uint16_t)from, err));
    TRY(sy_bmff_writer_u16(b, (uint16_t)count, err));
    for (uint32_t i = 0; i < count; i++)
        TRY(sy_bmff_writer_u16(b, (uint16_t)(to_list ? to_list[i] : first_to + i), err));
    return sy_bmff_writer_end(b, err);
}

/* ftyp + meta into `b`; iloc offsets of mdat items are written relative to
 * the mdat payload and their positions recorded in `patch` for the caller. */
static sy_status build_header(sy_heif_writer *w, hw_layout *L, sy_bmff_writer *b, unsigned offset_size,
                              size_t *patch, sy_error *err) {
    sy_status st;
    /* ftyp */
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('f', 't', 'y', 'p'), -1, 0, err));
    TRY(sy_bmff_writer_u32(b, SY_FOURCC('h', 'e', 'i', 'c'), err));
    TRY(sy_bmff_writer_u32(b, 0, err));
    TRY(sy_bmff_writer_u32(b, SY_FOURCC('m', 'i', 'f', '1'), err));
    TRY(sy_bmff_writer_u32(b, SY_FOURCC('h', 'e', 'i', 'c'), err));
    if (w->tmap) TRY(sy_bmff_writer_u32(b, SY_FOURCC('t', 'm', 'a', 'p'), err)); /* readers ignore tmap without it */
    TRY(sy_bmff_writer_end(b, err));

    TRY(sy_bmff_writer_begin(b, SY_FOURCC('m', 'e', 't', 'a'), 0, 0, err));
    /* hdlr */
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('h', 'd', 'l', 'r'), 0, 0, err));
    TRY(sy_bmff_writer_u32(b, 0, err));
    TRY(sy_bmff_writer_u32(b, SY_FOURCC('p', 'i', 'c', 't'), err));
    for (int i = 0; i < 3; i++) TRY(sy_bmff_writer_u32(b, 0, err));
    TRY(sy_bmff_writer_u8(b, 0, err));
    TRY(sy_bmff_writer_end(b, err));
    /* pitm */
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('p', 'i', 't', 'm'), 0, 0, err));
    TRY(sy_bmff_writer_u16(b, (uint16_t)w->primary.id, err));
    TRY(sy_bmff_writer_end(b, err));
    /* iloc v1: offset_size, length_size 4, no base offset, no index */
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'l', 'o', 'c'), 1, 0, err));
    TRY(sy_bmff_writer_u8(b, (uint8_t)(offset_size << 4 | 4), err));
    TRY(sy_bmff_writer_u8(b, 0, err));
    TRY(sy_bmff_writer_u16(b, (uint16_t)L->count, err));
    for (uint32_t i = 0; i < L->count; i++) {
        const hw_item *it = &L->items[i];
        TRY(sy_bmff_writer_u16(b, (uint16_t)it->id, err));
        TRY(sy_bmff_writer_u16(b, it->method, err));
        TRY(sy_bmff_writer_u16(b, 0, err)); /* data_reference_index: this file */
        TRY(sy_bmff_writer_u16(b, 1, err)); /* extent_count */
        patch[i] = sy_bmff_writer_length(b);
        if (offset_size == 8)
            TRY(sy_bmff_writer_u64(b, it->offset, err));
        else
            TRY(sy_bmff_writer_u32(b, (uint32_t)it->offset, err));
        TRY(sy_bmff_writer_u32(b, (uint32_t)it->length, err));
    }
    TRY(sy_bmff_writer_end(b, err));
    /* iinf */
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'i', 'n', 'f'), 0, 0, err));
    TRY(sy_bmff_writer_u16(b, (uint16_t)L->count, err));
    for (uint32_t i = 0; i < L->count; i++) {
        const hw_item *it = &L->items[i];
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'n', 'f', 'e'), 2, it->hidden ? 1 : 0, err));
        TRY(sy_bmff_writer_u16(b, (uint16_t)it->id, err));
        TRY(sy_bmff_writer_u16(b, 0, err)); /* item_protection_index */
        TRY(sy_bmff_writer_u32(b, it->type, err));
        TRY(sy_bmff_writer_u8(b, 0, err)); /* item_name "" */
        if (it->content_type) TRY(sy_bmff_writer_bytes(b, it->content_type, strlen(it->content_type) + 1, err));
        TRY(sy_bmff_writer_end(b, err));
    }
    TRY(sy_bmff_writer_end(b, err));
    /* iref */
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'r', 'e', 'f'), 0, 0, err));
    const hw_image *p = &w->primary;
    TRY(put_ref(b, SY_FOURCC('d', 'i', 'm', 'g'), p->id, p->first_tile_id, p->cols * p->rows, NULL, err));
    for (uint32_t i = 0; i < w->aux_count; i++) {
        const hw_image *a = &w->aux[i];
        if (a->grid)
            TRY(put_ref(b, SY_FOURCC('d', 'i', 'm', 'g'), a->id, a->first_tile_id, a->cols * a->rows, NULL, err));
        if (!a->tmap_only)
            TRY(put_ref(b, a->thumb ? SY_FOURCC('t', 'h', 'm', 'b') : SY_FOURCC('a', 'u', 'x', 'l'), a->id, p->id, 1,
                        NULL, err));
        if (L->aux_xmp_id[i]) TRY(put_ref(b, SY_FOURCC('c', 'd', 's', 'c'), L->aux_xmp_id[i], a->id, 1, NULL, err));
    }
    if (w->tmap) { /* dimg: [base, gain map], in that order */
        uint32_t inputs[2] = {p->id, w->aux[w->tmap_aux].id};
        TRY(put_ref(b, SY_FOURCC('d', 'i', 'm', 'g'), w->tmap_id, 0, 2, inputs, err));
    }
    if (L->exif_id) TRY(put_ref(b, SY_FOURCC('c', 'd', 's', 'c'), L->exif_id, p->id, 1, NULL, err));
    if (L->xmp_id) TRY(put_ref(b, SY_FOURCC('c', 'd', 's', 'c'), L->xmp_id, p->id, 1, NULL, err));
    TRY(sy_bmff_writer_end(b, err));
    /* iprp: ipco + ipma */
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'p', 'r', 'p'), -1, 0, err));
    hw_props P;
    TRY(put_ipco(w, b, &P, err));
    /* Property indices are only known now: fill in each item's list. */
    layout_images(L, w, &P);
    uint32_t with_props = L->count;
    TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'p', 'm', 'a'), 0, 0, err));
    TRY(sy_bmff_writer_u32(b, with_props, err));
    for (uint32_t i = 0; i < with_props; i++) {
        const hw_item *it = &L->items[i];
        TRY(sy_bmff_writer_u16(b, (uint16_t)it->id, err));
        TRY(sy_bmff_writer_u8(b, it->nprops, err));
        TRY(sy_bmff_writer_bytes(b, it->prop, it->nprops, err));
    }
    TRY(sy_bmff_writer_end(b, err)); /* ipma */
    TRY(sy_bmff_writer_end(b, err)); /* iprp */
    if (w->tmap) { /* grpl/altr: ISO readers show the tone-mapped rendition, others the primary */
        uint32_t group_id = 0;
        for (uint32_t i = 0; i < L->items_total; i++) group_id = L->items[i].id > group_id ? L->items[i].id : group_id;
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('g', 'r', 'p', 'l'), -1, 0, err));
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('a', 'l', 't', 'r'), 0, 0, err));
        TRY(sy_bmff_writer_u32(b, group_id + 1, err));
        TRY(sy_bmff_writer_u32(b, 2, err));
        TRY(sy_bmff_writer_u32(b, w->tmap_id, err));
        TRY(sy_bmff_writer_u32(b, p->id, err));
        TRY(sy_bmff_writer_end(b, err));
        TRY(sy_bmff_writer_end(b, err));
    }
    /* idat */
    if (L->idat_len) {
        TRY(sy_bmff_writer_begin(b, SY_FOURCC('i', 'd', 'a', 't'), -1, 0, err));
        TRY(sy_bmff_writer_bytes(b, L->idat, L->idat_len, err));
        TRY(sy_bmff_writer_end(b, err));
    }
    return sy_bmff_writer_end(b, err); /* meta */
}

/* Assigns item IDs and mdat offsets (image items first, then metadata). */
static uint32_t plan_items(sy_heif_writer *w, hw_layout *L) {
    hw_props none;
    memset(&none, 0, sizeof none);
    uint64_t meta_bytes = w->tmap ? 1 + w->tmap_len : 0;
    if (w->exif) meta_bytes += 4 + w->exif_len;
    if (w->xmp) meta_bytes += w->xmp_len;
    for (uint32_t i = 0; i < w->aux_count; i++) meta_bytes += w->aux[i].xmp_len;
    L->spool_base = meta_bytes;
    L->mdat_payload = meta_bytes + w->spool_len;
    uint32_t next_id = layout_images(L, w, &none);
    uint64_t at = w->tmap ? 1 + w->tmap_len : 0;
    if (w->exif) {
        hw_item *it = &L->items[L->count++];
        memset(it, 0, sizeof *it);
        L->exif_id = it->id = next_id++;
        it->type = SY_FOURCC('E', 'x', 'i', 'f');
        it->offset = at;
        it->length = 4 + w->exif_len;
        at += it->length;
    }
    if (w->xmp) {
        hw_item *it = &L->items[L->count++];
        memset(it, 0, sizeof *it);
        L->xmp_id = it->id = next_id++;
        it->type = SY_FOURCC('m', 'i', 'm', 'e');
        it->content_type = "application/rdf+xml";
        it->offset = at;
        it->length = w->xmp_len;
        at += it->length;
    }
    for (uint32_t i = 0; i < w->aux_count; i++) {
        if (!w->aux[i].xmp) continue;
        hw_item *it = &L->items[L->count++];
        memset(it, 0, sizeof *it);
        L->aux_xmp_id[i] = it->id = next_id++;
        it->type = SY_FOURCC('m', 'i', 'm', 'e');
        it->content_type = "application/rdf+xml";
        it->offset = at;
        it->length = w->aux[i].xmp_len;
        at += it->length;
    }
    return L->count;
}

static sy_status write_all(FILE *f, const void *data, size_t len, const char *path, sy_error *err) {
    if (len && fwrite(data, 1, len, f) != len) {
        int e = errno;
        return sy__fail_sub(err, SY_E_IO, e, "%s: write failed: %s", path, strerror(e));
    }
    return SY_OK;
}

static sy_status write_file(sy_heif_writer *w, hw_layout *L, const uint8_t *header, size_t header_len, sy_error *err) {
    sy__output out;
    sy_status st = sy__output_open(w->ctx, w->path, &out, err);
    if (st != SY_OK) return st;
    uint8_t *copy = NULL;
    uint8_t mdat[16];
    size_t mdat_len;
    if (L->mdat_payload + 8 <= UINT32_MAX) {
        uint32_t size = (uint32_t)(L->mdat_payload + 8);
        uint8_t h[8] = {(uint8_t)(size >> 24), (uint8_t)(size >> 16), (uint8_t)(size >> 8), (uint8_t)size,
                        'm', 'd', 'a', 't'};
        memcpy(mdat, h, 8);
        mdat_len = 8;
    } else {
        uint64_t size = L->mdat_payload + 16;
        uint8_t h[8] = {0, 0, 0, 1, 'm', 'd', 'a', 't'};
        memcpy(mdat, h, 8);
        for (int i = 0; i < 8; i++) mdat[8 + i] = (uint8_t)(size >> (56 - 8 * i));
        mdat_len = 16;
    }
    if ((st = write_all(out.file, header, header_len, w->path, err)) != SY_OK) goto fail;
    if ((st = write_all(out.file, mdat, mdat_len, w->path, err)) != SY_OK) goto fail;
    if (w->tmap) {
        uint8_t version = 0;
        if ((st = write_all(out.file, &version, 1, w->path, err)) != SY_OK) goto fail;
        if ((st = write_all(out.file, w->tmap, w->tmap_len, w->path, err)) != SY_OK) goto fail;
    }
    if (w->exif) {
        uint8_t off[4] = {0, 0, 0, (uint8_t)w->exif_tiff_offset};
        if ((st = write_all(out.file, off, 4, w->path, err)) != SY_OK) goto fail;
        if ((st = write_all(out.file, w->exif, w->exif_len, w->path, err)) != SY_OK) goto fail;
    }
    if (w->xmp && (st = write_all(out.file, w->xmp, w->xmp_len, w->path, err)) != SY_OK) goto fail;
    for (uint32_t i = 0; i < w->aux_count; i++)
        if (w->aux[i].xmp && (st = write_all(out.file, w->aux[i].xmp, w->aux[i].xmp_len, w->path, err)) != SY_OK)
            goto fail;
    /* the spool: tiles */
    const size_t chunk = 1 << 16;
    copy = sy__alloc(w->ctx, chunk, 1, "HEIF spool copy", err);
    if (!copy) {
        st = err ? err->code : SY_E_BUDGET;
        goto fail;
    }
    if (fflush(w->spool) != 0 || fseeko(w->spool, 0, SEEK_SET) != 0) {
        int e = errno;
        st = sy__fail_sub(err, SY_E_IO, e, "%s: rewinding the tile spool failed: %s", w->path, strerror(e));
        goto fail;
    }
    for (uint64_t left = w->spool_len; left > 0;) {
        size_t n = left < chunk ? (size_t)left : chunk;
        if (fread(copy, 1, n, w->spool) != n) {
            int e = errno;
            st = sy__fail_sub(err, SY_E_IO, e, "%s: reading the tile spool failed: %s", w->path,
                              ferror(w->spool) ? strerror(e) : "short file");
            goto fail;
        }
        if ((st = write_all(out.file, copy, n, w->path, err)) != SY_OK) goto fail;
        left -= n;
    }
    sy__free(w->ctx, copy);
    copy = NULL;
    if ((st = sy__check_cancel(w->ctx, err)) != SY_OK) goto fail;
    return sy__output_commit(&out, err);
fail:
    sy__free(w->ctx, copy);
    sy__output_abort(&out);
    return st;
}

sy_status sy__heif_writer_write_container(sy_heif_writer *w, uint32_t max_items, sy_error *err) {
    sy_status st = SY_OK;
    hw_layout L;
    memset(&L, 0, sizeof L);
    L.items = sy__calloc(w->ctx, max_items, sizeof *L.items, "HEIF item table", err);
    size_t *patch = sy__calloc(w->ctx, max_items, sizeof *patch, "HEIF iloc patch list", err);
    sy_bmff_writer *b = NULL;
    if (!L.items || !patch) {
        st = err ? err->code : SY_E_BUDGET;
        goto done;
    }
    uint32_t count = plan_items(w, &L);
    for (unsigned offset_size = 4;; offset_size = 8) {
        sy_bmff_writer_destroy(b);
        b = NULL;
        if ((st = sy_bmff_writer_create(w->ctx, &b, err)) != SY_OK) goto done;
        /* build_header re-derives the image items (with property indices); the
         * metadata items planned above stay at the end of the table. */
        L.count = count;
        L.items_total = count;
        if ((st = build_header(w, &L, b, offset_size, patch, err)) != SY_OK) goto done;
        L.count = count;
        size_t header_len = sy_bmff_writer_length(b);
        uint64_t base = header_len + (L.mdat_payload + 8 <= UINT32_MAX ? 8 : 16);
        int fits = 1;
        for (uint32_t i = 0; i < count; i++) {
            const hw_item *it = &L.items[i];
            if (it->method != 0) continue;
            uint64_t abs = base + it->offset;
            if (offset_size == 4 && abs + it->length > UINT32_MAX) {
                fits = 0;
                break;
            }
            uint8_t *p = sy_bmff_writer_at(b, patch[i]);
            for (unsigned k = 0; k < offset_size; k++) p[k] = (uint8_t)(abs >> (8 * (offset_size - 1 - k)));
        }
        if (fits) break;
        if (offset_size == 8) {
            st = sy__fail(err, SY_E_UNSUPPORTED, "sy_heif_writer_finish: file too large");
            goto done;
        }
    }
    st = write_file(w, &L, sy_bmff_writer_data(b), sy_bmff_writer_length(b), err);
done:
    sy_bmff_writer_destroy(b);
    sy__free(w->ctx, patch);
    sy__free(w->ctx, L.items);
    return st;
}
