/* heif_file_props.c — item properties for the HEIF structure reader
 * (heif_file.c): ipco's boxes, assigned to items in ipma order, the first of
 * each kind winning (hvcC, av1C, ispe, irot, imir, clap, colr nclx / ICC,
 * pixi, auxC); a clap that does not describe a rectangle inside the image is
 * ignored. */
#include <stdlib.h>
#include <string.h>

#include "base/sy_hdr_static.h"
#include "heif/sy_heif_file_state.h"

/* ---- iprp: ipco + ipma ---- */

static int64_t floor_div(int64_t a, int64_t b) { /* b > 0 */
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* clap fractions → a pixel rectangle inside width × height; 0 when impossible. */
static int clap_rect(const int32_t c[8], uint32_t width, uint32_t height, uint32_t *x, uint32_t *y, uint32_t *w,
                     uint32_t *h) {
    const int64_t wn = c[0], wd = c[1], hn = c[2], hd = c[3], xn = c[4], xd = c[5], yn = c[6], yd = c[7];
    if (wd <= 0 || hd <= 0 || xd <= 0 || yd <= 0 || wn <= 0 || hn <= 0) return 0;
    if (width == 0 || height == 0) return 0;
    /* rounded size: floor(n/d + 1/2) */
    int64_t cw = floor_div(2 * wn + wd, 2 * wd), ch = floor_div(2 * hn + hd, 2 * hd);
    if (cw <= 0 || ch <= 0 || cw > (int64_t)width || ch > (int64_t)height) return 0;
    /* left = round(xn/xd + (W - w)/2) = floor((2*xn + (W-w)*xd + xd) / (2*xd)) */
    int64_t t, left, top;
    if (__builtin_mul_overflow((int64_t)width - cw, xd, &t) || __builtin_add_overflow(t, 2 * xn + xd, &t)) return 0;
    left = floor_div(t, 2 * xd);
    if (__builtin_mul_overflow((int64_t)height - ch, yd, &t) || __builtin_add_overflow(t, 2 * yn + yd, &t)) return 0;
    top = floor_div(t, 2 * yd);
    if (left < 0 || top < 0 || left + cw > (int64_t)width || top + ch > (int64_t)height) return 0;
    *x = (uint32_t)left;
    *y = (uint32_t)top;
    *w = (uint32_t)cw;
    *h = (uint32_t)ch;
    return 1;
}

static void apply_property(sy_heif_file *f, heif_item *it, const heif_prop *p) {
    sy_bmff_span s = {f->meta + p->payload_offset, p->payload_size};
    uint8_t v, u8;
    uint32_t flags;
    sy_heif_item_info *info = &it->info;
    switch (p->type) {
    case FCC('h', 'v', 'c', 'C'):
        if (!it->seen_hvcc && p->payload_size > 0) {
            it->seen_hvcc = 1;
            it->hvcc = s.p;
            it->hvcc_len = (size_t)p->payload_size;
        }
        break;
    case FCC('a', 'v', '1', 'C'):
        if (!it->seen_av1c && p->payload_size > 0) {
            it->seen_av1c = 1;
            it->av1c = s.p;
            it->av1c_len = (size_t)p->payload_size;
        }
        break;
    case FCC('i', 's', 'p', 'e'): {
        uint32_t w, h;
        if (!it->seen_ispe && sy_bmff_full_header(&s, &v, &flags) && v == 0 && sy_bmff_u32(&s, &w) && sy_bmff_u32(&s, &h)) {
            it->seen_ispe = 1;
            info->has_ispe = 1;
            info->width = w;
            info->height = h;
        }
        break;
    }
    case FCC('i', 'r', 'o', 't'):
        if (!it->seen_irot && sy_bmff_u8(&s, &u8)) {
            it->seen_irot = 1;
            info->rotation = u8 & 3;
            if (it->seen_imir) info->transform_order = 1; /* mirror was listed first */
        }
        break;
    case FCC('i', 'm', 'i', 'r'):
        if (!it->seen_imir && sy_bmff_u8(&s, &u8)) {
            it->seen_imir = 1;
            info->mirror = (int8_t)(u8 & 1); /* ISO 23008-12:2022: 0 top<->bottom, 1 left<->right */
        }
        break;
    case FCC('c', 'l', 'a', 'p'):
        if (!it->seen_clap && p->payload_size >= 32) {
            it->seen_clap = 1;
            for (int i = 0; i < 8; i++) {
                uint32_t w;
                sy_bmff_u32(&s, &w);
                it->clap[i] = (int32_t)w;
            }
        }
        break;
    case FCC('c', 'o', 'l', 'r'): {
        uint32_t kind;
        if (!sy_bmff_u32(&s, &kind)) break;
        if (kind == FCC('n', 'c', 'l', 'x')) {
            uint16_t pr, tr, mx;
            if (!it->seen_nclx && sy_bmff_u16(&s, &pr) && sy_bmff_u16(&s, &tr) && sy_bmff_u16(&s, &mx) &&
                sy_bmff_u8(&s, &u8)) {
                it->seen_nclx = 1;
                info->nclx.present = 1;
                info->nclx.primaries = pr;
                info->nclx.transfer = tr;
                info->nclx.matrix = mx;
                info->nclx.full_range = u8 >> 7;
            }
        } else if ((kind == FCC('p', 'r', 'o', 'f') || kind == FCC('r', 'I', 'C', 'C')) && !it->seen_icc && s.left > 0) {
            it->seen_icc = 1;
            info->has_icc = 1;
            it->icc = s.p;
            it->icc_len = (size_t)s.left;
        }
        break;
    }
    case FCC('p', 'i', 'x', 'i'):
        if (!it->seen_pixi && sy_bmff_full_header(&s, &v, &flags) && sy_bmff_u8(&s, &u8)) {
            uint8_t bits = 0;
            if (u8 == 0 || sy_bmff_u8(&s, &bits)) {
                it->seen_pixi = 1;
                info->channels = u8;
                info->bits_per_channel = bits;
            }
        }
        break;
    case FCC('m', 'd', 'c', 'v'):
    case FCC('c', 'l', 'l', 'i'): /* HDR10 static metadata of a PQ picture (the ISO sample-entry boxes' layout) */
        if (s.left <= 64) (void)sy__hdr_static_from_box(p->type, s.p, (size_t)s.left, &info->hdr);
        break;
    case FCC('a', 'u', 'x', 'C'):
        if (!it->seen_auxc && sy_bmff_full_header(&s, &v, &flags)) {
            it->seen_auxc = 1;
            sy_bmff_cstring(&s, info->aux_type, sizeof info->aux_type);
        }
        break;
    default:
        break;
    }
}

static sy_status parse_ipma(sy_heif_file *f, const sy_bmff_box *b, const heif_prop *props, uint32_t nprops,
                            sy_error *err) {
    const uint64_t at = abs_off(f, b->offset);
    sy_bmff_span s = payload_span(f, b);
    uint8_t v;
    uint32_t flags, entries;
    if (!sy_bmff_full_header(&s, &v, &flags) || v > 1 || !sy_bmff_u32(&s, &entries))
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, at, "bad ipma header (version %u)", v);
    const unsigned id_size = v == 0 ? 2 : 4, index_size = (flags & 1) ? 2 : 1;
    if (entries > s.left / (id_size + 1))
        return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, at, "ipma claims %u entries but has only %llu bytes", entries,
                   (unsigned long long)s.left);
    for (uint32_t e = 0; e < entries; e++) {
        uint64_t id;
        uint8_t n;
        if (!sy_bmff_uN(&s, id_size, &id) || !sy_bmff_u8(&s, &n) || n > s.left / index_size)
            return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, at, "ipma entry %u cut off", e);
        heif_item *it = sy__heif_find_item(f, (uint32_t)id);
        for (unsigned k = 0; k < n; k++) {
            uint64_t raw;
            sy_bmff_uN(&s, index_size, &raw);
            uint32_t index = (uint32_t)(index_size == 2 ? raw & 0x7FFF : raw & 0x7F);
            if (index == 0) continue; /* "no property" */
            if (index > nprops)
                return sy__heif_bad(f, err, SY_E_INVALID_INPUT, b->type, at,
                           "item %llu: property index %u out of range (%u properties)", (unsigned long long)id, index,
                           nprops);
            if (it) apply_property(f, it, &props[index - 1]);
        }
    }
    return SY_OK;
}

sy_status sy__heif_parse_iprp(sy_heif_file *f, const sy_bmff_cursor *meta, const sy_bmff_box *b, sy_error *err) {
    sy_bmff_cursor c, pc;
    sy_bmff_box child, prop;
    sy_status st;
    sy_bmff_box ipco = {0};
    /* ipco first (ipma indexes into it). */
    sy_bmff_cursor_children(&c, meta, b, 0);
    for (;;) {
        if ((st = sy__heif_next_box(f, &c, &child, err)) != SY_OK) return st;
        if (child.type == 0) break;
        if (child.type == FCC('i', 'p', 'c', 'o')) {
            if (ipco.type) return sy__heif_bad(f, err, SY_E_INVALID_INPUT, child.type, abs_off(f, child.offset), "second ipco");
            ipco = child;
        }
    }
    uint32_t nprops = 0;
    heif_prop *props = NULL;
    if (ipco.type) {
        sy_bmff_cursor_children(&pc, &c, &ipco, 0);
        for (;;) {
            if ((st = sy__heif_next_box(f, &pc, &prop, err)) != SY_OK) return st;
            if (prop.type == 0) break;
            nprops++;
        }
        if (nprops > 0) {
            props = sy__calloc(f->ctx, nprops, sizeof *props, "heif properties", err);
            if (!props) return err ? err->code : SY_E_BUDGET;
            sy_bmff_cursor_children(&pc, &c, &ipco, 0);
            for (uint32_t i = 0; i < nprops; i++) {
                if ((st = sy__heif_next_box(f, &pc, &prop, err)) != SY_OK || prop.type == 0) break;
                props[i].type = prop.type;
                props[i].payload_offset = prop.payload_offset;
                props[i].payload_size = prop.payload_size;
                props[i].box_offset = prop.offset;
            }
        }
    }
    sy_bmff_cursor_children(&c, meta, b, 0);
    st = SY_OK;
    while (st == SY_OK) {
        if ((st = sy__heif_next_box(f, &c, &child, err)) != SY_OK) break;
        if (child.type == 0) break;
        if (child.type == FCC('i', 'p', 'm', 'a')) st = parse_ipma(f, &child, props, nprops, err);
    }
    sy__free(f->ctx, props);
    if (st != SY_OK) return st;
    for (uint32_t i = 0; i < f->item_count; i++) {
        heif_item *it = &f->items[i];
        if (it->seen_clap && it->info.has_ispe &&
            clap_rect(it->clap, it->info.width, it->info.height, &it->info.clap_x, &it->info.clap_y,
                      &it->info.clap_width, &it->info.clap_height))
            it->info.has_clap = 1;
    }
    return SY_OK;
}
