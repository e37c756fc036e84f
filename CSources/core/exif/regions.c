/* regions.c — the places in a picture its metadata points at, carried
 * through an edit's geometry (sy_exif.h sy__region_map): Exif SubjectArea /
 * SubjectLocation (pixels of the stored frame) and the XMP face regions of
 * the Metadata Working Group schema (mwg-rs:Regions: normalized centre x, y
 * and size w, h, plus the AppliedToDimensions they were measured on), which
 * phones and photo apps write for the people in a picture (areas in pixels
 * of AppliedToDimensions too), and Microsoft's People Tagging regions
 * (MP:RegionInfo / MPRI:Regions, MPReg:Rectangle "x, y, w, h" normalized
 * from the top left), which Windows Photo Gallery wrote. A region the crop
 * cut away goes with it; one that cannot be mapped (pixels without the size
 * they count, a unit nobody defines) goes too rather than point at the wrong
 * face; the rest of the XMP is copied byte for byte. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exif/sy_exif.h"
#include "exif/sy_xmp_text.h"

#define TAG_SUBJECT_AREA 0x9214
#define TAG_SUBJECT_LOCATION 0xA214

#define NS_REGIONS "http://www.metadataworkinggroup.com/schemas/regions/"
#define NS_AREA "http://ns.adobe.com/xmp/sType/Area#"
#define NS_DIM "http://ns.adobe.com/xap/1.0/sType/Dimensions#"
#define NS_MP "http://ns.microsoft.com/photo/1.2/"
#define NS_MPRI "http://ns.microsoft.com/photo/1.2/t/RegionInfo#"
#define NS_MPREG "http://ns.microsoft.com/photo/1.2/t/Region#"

/* ---- the geometry ---- */

/* One clockwise quarter turn of a normalized top-left rectangle. */
static void turn(double r[4]) {
    double x = 1 - r[1] - r[3], y = r[0], w = r[3], h = r[2];
    r[0] = x, r[1] = y, r[2] = w, r[3] = h;
}

/* Turns, then flips (the order the renderer and the Exif orientations use). */
static void turn_flip(double r[4], uint32_t turns, int flip_h, int flip_v) {
    for (uint32_t k = 0; k < (turns & 3); k++) turn(r);
    if (flip_h) r[0] = 1 - r[0] - r[2];
    if (flip_v) r[1] = 1 - r[1] - r[3];
}

int sy__region_map_rect(const sy__region_map *m, double r[4]) {
    if (m->drop || !(r[2] >= 0) || !(r[3] >= 0)) return 0;
    static const uint8_t turns[9] = {0, 0, 0, 2, 0, 1, 1, 1, 3};
    uint8_t o = m->orientation >= 1 && m->orientation <= 8 ? m->orientation : 1;
    turn_flip(r, turns[o], o == 2 || o == 5, o == 4 || o == 7); /* stored frame -> upright source */
    /* into the crop, clipped to it */
    double x0 = (r[0] - m->crop[0]) / m->crop[2], y0 = (r[1] - m->crop[1]) / m->crop[3];
    double x1 = x0 + r[2] / m->crop[2], y1 = y0 + r[3] / m->crop[3];
    x0 = fmax(x0, 0), y0 = fmax(y0, 0), x1 = fmin(x1, 1), y1 = fmin(y1, 1);
    int point = r[2] == 0 || r[3] == 0; /* SubjectLocation: a point, kept while it is inside */
    if (point ? (x0 > x1 || y0 > y1) : (x0 >= x1 || y0 >= y1)) return 0;
    r[0] = x0, r[1] = y0, r[2] = x1 - x0, r[3] = y1 - y0;
    turn_flip(r, m->quarter_turns, m->flip_h, m->flip_v);
    /* the picture inside its border */
    r[0] = m->inner[0] + r[0] * m->inner[2], r[1] = m->inner[1] + r[1] * m->inner[3];
    r[2] *= m->inner[2], r[3] *= m->inner[3];
    return 1;
}

/* ---- Exif SubjectArea / SubjectLocation ---- */

/* Removes entry `index` of an IFD in place: later entries move up, the count
 * drops, the next-IFD link follows, and the freed 12 bytes are zeroed. */
static void remove_entry(uint8_t *tiff, const sy__tiff *t, const sy__tiff_ifd *ifd, uint32_t index) {
    uint8_t *table = tiff + ifd->at + 2;
    size_t tail = (size_t)(ifd->count - index - 1) * SY__TIFF_ENTRY_BYTES + 4; /* later entries and the link */
    memmove(table + (size_t)index * SY__TIFF_ENTRY_BYTES, table + (size_t)(index + 1) * SY__TIFF_ENTRY_BYTES, tail);
    memset(table + (size_t)(ifd->count - 1) * SY__TIFF_ENTRY_BYTES + 4, 0, SY__TIFF_ENTRY_BYTES);
    sy__tiff_put16(tiff + ifd->at, ifd->count - 1, t->little_endian);
}

/* Maps one subject entry (SHORTs: x, y[, diameter | width, height]) in place; 0 when it must go. */
static int map_subject(uint8_t *tiff, const sy__tiff *t, const sy__tiff_entry *e, const sy__region_map *m,
                       uint32_t stored_w, uint32_t stored_h) {
    if (e->type != SY__TIFF_SHORT || e->count < 2 || e->count > 4 || !sy__tiff_value(t, e)) return 1; /* not ours */
    uint32_t v[4] = {0};
    for (uint32_t i = 0; i < e->count; i++) v[i] = sy__tiff_u16(t, e->value_at + 2u * i);
    double w = e->count == 4 ? v[2] : e->count == 3 ? v[2] : 0, h = e->count == 4 ? v[3] : e->count == 3 ? v[2] : 0;
    double r[4] = {(v[0] - w / 2) / stored_w, (v[1] - h / 2) / stored_h, w / stored_w, h / stored_h};
    if (!sy__region_map_rect(m, r)) return 0;
    double cx = (r[0] + r[2] / 2) * m->out_w, cy = (r[1] + r[3] / 2) * m->out_h;
    double ow = r[2] * m->out_w, oh = r[3] * m->out_h;
    uint32_t out[4] = {(uint32_t)fmin(cx, m->out_w - 1), (uint32_t)fmin(cy, m->out_h - 1), 0, 0};
    if (e->count == 3) out[2] = (uint32_t)lround(fmin(ow, oh)); /* a circle stays one, inside what is left */
    if (e->count == 4) out[2] = (uint32_t)lround(ow), out[3] = (uint32_t)lround(oh);
    for (uint32_t i = 0; i < e->count; i++)
        sy__tiff_put16(tiff + e->value_at + 2u * i, out[i] > 0xFFFF ? 0xFFFF : out[i], t->little_endian);
    return 1;
}

int sy__exif_map_subject(uint8_t *tiff, size_t len, const sy__region_map *m, uint32_t stored_w, uint32_t stored_h) {
    sy__tiff t;
    sy__tiff_ifd ifd0, exif;
    if (!stored_w || !stored_h || !m->out_w || !m->out_h || !sy__tiff_open(&t, tiff, len) ||
        !sy__tiff_ifd0(&t, &ifd0) || sy__exif_ifd(&t, &ifd0, &exif) != 1)
        return 0;
    int changed = 0;
    static const uint16_t tags[] = {TAG_SUBJECT_AREA, TAG_SUBJECT_LOCATION};
    for (size_t k = 0; k < sizeof tags / sizeof tags[0]; k++) {
        for (uint32_t i = 0; i < exif.count; i++) {
            sy__tiff_entry e;
            sy__tiff_entry_at(&t, &exif, i, &e);
            if (e.tag != tags[k]) continue;
            changed = 1;
            if (!map_subject(tiff, &t, &e, m, stored_w, stored_h)) {
                if (e.size > 4 && sy__tiff_value(&t, &e)) memset(tiff + e.value_at, 0, (size_t)e.size);
                remove_entry(tiff, &t, &exif, i);
                exif.count--;
            }
            break;
        }
    }
    return changed;
}

/* ---- XMP mwg-rs:Regions ---- */

typedef struct span {
    const uint8_t *at, *end;
} span;

/* The value text of property `qname` in [from, end), attribute (q="v") or simple element (<q>v</q>). */
static int value_span(const uint8_t *from, const uint8_t *end, const char *qname, span *out) {
    size_t qn = strlen(qname);
    for (const uint8_t *s = sy__xmp_find(from, end, qname); s; s = sy__xmp_find(s + 1, end, qname)) {
        const uint8_t *q = s + qn;
        if (s == from || (q < end && sy__xmp_name_char(*q)) || sy__xmp_name_char(s[-1]) || s[-1] == ':') continue;
        if (s[-1] == '<') {
            const uint8_t *gt = memchr(q, '>', (size_t)(end - q));
            if (!gt || gt[-1] == '/') return 0;
            const uint8_t *lt = memchr(gt + 1, '<', (size_t)(end - gt - 1));
            if (!lt) return 0;
            *out = (span){gt + 1, lt};
            return 1;
        }
        while (q < end && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n')) q++;
        if (q >= end || *q != '=') continue;
        for (q++; q < end && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n');) q++;
        if (q >= end || (*q != '"' && *q != '\'')) return 0;
        const uint8_t *close = memchr(q + 1, *q, (size_t)(end - q - 1));
        if (!close) return 0;
        *out = (span){q + 1, close};
        return 1;
    }
    return 0;
}

static int span_number(span s, double *out) {
    char buf[48];
    size_t n = (size_t)(s.end - s.at);
    if (n == 0 || n >= sizeof buf) return 0;
    memcpy(buf, s.at, n);
    buf[n] = 0;
    char *stop;
    *out = strtod(buf, &stop);
    while (*stop == ' ' || *stop == '\t' || *stop == '\r' || *stop == '\n') stop++;
    return *stop == 0 && isfinite(*out);
}

/* The element <qname ...> ... </qname> that starts at or after `from`: its whole extent. */
static int element_span(const uint8_t *from, const uint8_t *end, const char *qname, span *out) {
    char open[SY__XMP_MAX_PREFIX + 32], close[SY__XMP_MAX_PREFIX + 32];
    snprintf(open, sizeof open, "<%s", qname);
    snprintf(close, sizeof close, "</%s>", qname);
    size_t on = strlen(open);
    for (const uint8_t *s = sy__xmp_find(from, end, open); s; s = sy__xmp_find(s + 1, end, open)) {
        if (s + on < end && sy__xmp_name_char(s[on])) continue; /* a longer name */
        const uint8_t *gt = memchr(s, '>', (size_t)(end - s));
        if (!gt) return 0;
        if (gt[-1] == '/') {
            *out = (span){s, gt + 1};
            return 1;
        }
        const uint8_t *c = sy__xmp_find(gt, end, close);
        if (!c) return 0;
        *out = (span){s, c + strlen(close)};
        return 1;
    }
    return 0;
}

/* The next top-level <rdf:li> of [from, end) (nested ones belong to it). */
static int next_item(const uint8_t *from, const uint8_t *end, span *out) {
    const uint8_t *s = from;
    for (;;) {
        s = sy__xmp_find(s, end, "<rdf:li");
        if (!s) return 0;
        if (s + 7 < end && !sy__xmp_name_char(s[7])) break;
        s++;
    }
    int depth = 0;
    for (const uint8_t *p = s; p < end;) {
        const uint8_t *lt = memchr(p, '<', (size_t)(end - p));
        if (!lt) return 0;
        const uint8_t *gt = memchr(lt, '>', (size_t)(end - lt));
        if (!gt) return 0;
        int is_li = (size_t)(end - lt) > 7 && memcmp(lt, "<rdf:li", 7) == 0 && !sy__xmp_name_char(lt[7]);
        int is_close = (size_t)(end - lt) >= 9 && memcmp(lt, "</rdf:li>", 9) == 0;
        if (is_li && gt[-1] != '/') depth++;
        if (is_close) depth--;
        if ((is_li && gt[-1] == '/' && depth == 0) || (is_close && depth == 0)) {
            *out = (span){s, gt + 1};
            return 1;
        }
        p = gt + 1;
    }
    return 0;
}

/* Text edits on the packet (sorted by position before they are applied). */
#define MAX_EDITS 512
typedef struct edit {
    const uint8_t *at, *end;
    char text[136]; /* a number, or an MPReg:Rectangle's four */
} edit;
typedef struct edits {
    edit e[MAX_EDITS];
    size_t n;
    int overflow;
} edits;

static void add_edit(edits *ed, const uint8_t *at, const uint8_t *end, const char *text) {
    if (ed->n == MAX_EDITS) {
        ed->overflow = 1;
        return;
    }
    edit *e = &ed->e[ed->n++];
    e->at = at, e->end = end;
    snprintf(e->text, sizeof e->text, "%s", text);
}

static int edit_order(const void *a, const void *b) {
    const edit *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

static void number_text(double v, char out[32]) {
    snprintf(out, 32, "%.8f", v);
    char *p = out + strlen(out) - 1;
    while (*p == '0' && p[-1] != '.') *p-- = 0; /* 0.25000000 -> 0.25 */
}

/* From the start of the line (its indentation) when only blanks precede `at`. */
static const uint8_t *line_start(const uint8_t *begin, const uint8_t *at) {
    const uint8_t *p = at;
    while (p > begin && (p[-1] == ' ' || p[-1] == '\t')) p--;
    if (p > begin && p[-1] == '\n') return p - 1 > begin && p[-2] == '\r' ? p - 2 : p - 1;
    return at;
}

static int span_is(span s, const char *text) {
    return (size_t)(s.end - s.at) == strlen(text) && memcmp(s.at, text, strlen(text)) == 0;
}

/* Plans the edits for one MWG region item; 0 when it is cut away or cannot be mapped. `applied` is
 * AppliedToDimensions (0 when not said): what an area in pixels counts in. */
static int map_item(span item, const char *area, const double applied[2], const sy__region_map *m, edits *ed) {
    static const char *names[4] = {"x", "y", "w", "h"};
    char qname[SY__XMP_MAX_PREFIX + 8];
    span v[4];
    double r[4];
    for (int i = 0; i < 4; i++) {
        snprintf(qname, sizeof qname, "%s:%s", area, names[i]);
        if (!value_span(item.at, item.end, qname, &v[i]) || !span_number(v[i], &r[i])) return 1; /* not an area */
    }
    snprintf(qname, sizeof qname, "%s:unit", area);
    span unit;
    double scale[2] = {1, 1}; /* normalized (also when no unit is said) */
    if (value_span(item.at, item.end, qname, &unit) && !span_is(unit, "normalized")) {
        if (!span_is(unit, "pixel") || !(applied[0] > 0) || !(applied[1] > 0)) return 0;
        scale[0] = applied[0], scale[1] = applied[1];
    }
    for (int i = 0; i < 4; i++) r[i] /= scale[i & 1];
    double rect[4] = {r[0] - r[2] / 2, r[1] - r[3] / 2, r[2], r[3]};
    if (!sy__region_map_rect(m, rect)) return 0;
    double out[4] = {rect[0] + rect[2] / 2, rect[1] + rect[3] / 2, rect[2], rect[3]};
    int pixels = scale[0] != 1 || scale[1] != 1; /* whole pixels of the output, which AppliedToDimensions now says */
    for (int i = 0; i < 4; i++) {
        char text[32];
        if (pixels) snprintf(text, sizeof text, "%ld", lround(out[i] * (i & 1 ? m->out_h : m->out_w)));
        else number_text(out[i], text);
        add_edit(ed, v[i].at, v[i].end, text);
    }
    return 1;
}

/* The whole property `whole` goes: the edits planned inside it since `first` are dropped. */
static void remove_whole(const uint8_t *xmp, span whole, size_t first, edits *ed) {
    ed->n = first;
    add_edit(ed, line_start(xmp, whole.at), whole.end, "");
}

/* mwg-rs:Regions: each area and AppliedToDimensions. */
static void plan_mwg(const uint8_t *xmp, size_t len, const sy__region_map *m, edits *ed) {
    const uint8_t *end = xmp + len;
    char rs[SY__XMP_MAX_PREFIX], area[SY__XMP_MAX_PREFIX], dim[SY__XMP_MAX_PREFIX], qname[SY__XMP_MAX_PREFIX + 32];
    sy__xmp_prefix_for(xmp, len, NS_REGIONS, "mwg-rs", rs);
    sy__xmp_prefix_for(xmp, len, NS_AREA, "stArea", area);
    sy__xmp_prefix_for(xmp, len, NS_DIM, "stDim", dim);
    snprintf(qname, sizeof qname, "%s:Regions", rs);
    span regions;
    if (!element_span(xmp, end, qname, &regions)) return;
    size_t first = ed->n;
    int kept = 0, any = 0;
    if (!m->drop) {
        span list, applied;
        double applied_wh[2] = {0, 0};
        snprintf(qname, sizeof qname, "%s:AppliedToDimensions", rs);
        if (element_span(regions.at, regions.end, qname, &applied)) {
            static const char *names[2] = {"w", "h"};
            for (int i = 0; i < 2; i++) {
                span v;
                char text[32];
                snprintf(qname, sizeof qname, "%s:%s", dim, names[i]);
                snprintf(text, sizeof text, "%u", i == 0 ? m->out_w : m->out_h);
                if (!value_span(applied.at, applied.end, qname, &v)) continue;
                if (!span_number(v, &applied_wh[i])) applied_wh[i] = 0;
                add_edit(ed, v.at, v.end, text);
            }
        }
        snprintf(qname, sizeof qname, "%s:RegionList", rs);
        if (element_span(regions.at, regions.end, qname, &list)) {
            span item;
            for (const uint8_t *p = list.at; next_item(p, list.end, &item); p = item.end) {
                any = 1;
                if (map_item(item, area, applied_wh, m, ed)) kept++;
                else add_edit(ed, line_start(list.at, item.at), item.end, "");
            }
        }
    }
    if (m->drop || (any && kept == 0)) remove_whole(xmp, regions, first, ed); /* nothing left to point at */
}

/* An MPReg:Rectangle "x, y, w, h" (commas, blanks between). */
static int mp_rectangle(span v, double r[4]) {
    char buf[160];
    size_t n = (size_t)(v.end - v.at);
    if (n == 0 || n >= sizeof buf) return 0;
    memcpy(buf, v.at, n);
    buf[n] = 0;
    char *p = buf;
    for (int i = 0; i < 4; i++) {
        char *stop;
        r[i] = strtod(p, &stop);
        if (stop == p || !isfinite(r[i])) return 0;
        while (*stop == ' ' || *stop == '\t' || *stop == '\r' || *stop == '\n') stop++;
        if (i < 3 && *stop++ != ',') return 0;
        p = stop;
    }
    return *p == 0;
}

/* MP:RegionInfo: each MPRI:Regions item's MPReg:Rectangle (an item with a name only stays). */
static void plan_mp(const uint8_t *xmp, size_t len, const sy__region_map *m, edits *ed) {
    const uint8_t *end = xmp + len;
    char mp[SY__XMP_MAX_PREFIX], mpri[SY__XMP_MAX_PREFIX], mpreg[SY__XMP_MAX_PREFIX], qname[SY__XMP_MAX_PREFIX + 32];
    sy__xmp_prefix_for(xmp, len, NS_MP, "MP", mp);
    sy__xmp_prefix_for(xmp, len, NS_MPRI, "MPRI", mpri);
    sy__xmp_prefix_for(xmp, len, NS_MPREG, "MPReg", mpreg);
    snprintf(qname, sizeof qname, "%s:RegionInfo", mp);
    span info, list, item;
    if (!element_span(xmp, end, qname, &info)) return;
    size_t first = ed->n;
    int kept = 0, any = 0;
    snprintf(qname, sizeof qname, "%s:Regions", mpri);
    if (!m->drop && element_span(info.at, info.end, qname, &list)) {
        snprintf(qname, sizeof qname, "%s:Rectangle", mpreg);
        for (const uint8_t *p = list.at; next_item(p, list.end, &item); p = item.end) {
            span v;
            double r[4];
            any = 1;
            if (!value_span(item.at, item.end, qname, &v)) {
                kept++; /* a person named, placed nowhere */
                continue;
            }
            if (!mp_rectangle(v, r) || !sy__region_map_rect(m, r)) {
                add_edit(ed, line_start(list.at, item.at), item.end, "");
                continue;
            }
            char text[4][32], all[32 * 4 + 8];
            for (int i = 0; i < 4; i++) number_text(r[i], text[i]);
            snprintf(all, sizeof all, "%s, %s, %s, %s", text[0], text[1], text[2], text[3]);
            add_edit(ed, v.at, v.end, all);
            kept++;
        }
    }
    if (m->drop || (any && kept == 0)) remove_whole(xmp, info, first, ed);
}

uint8_t *sy__xmp_map_regions(sy_context *ctx, const uint8_t *xmp, size_t len, const sy__region_map *m,
                             size_t *out_len, sy_error *err) {
    *out_len = 0;
    const uint8_t *end = xmp + len;
    edits *ed = sy__alloc(ctx, 1, sizeof *ed, "xmp region edits", err);
    if (!ed) return NULL;
    ed->n = 0, ed->overflow = 0;
    plan_mwg(xmp, len, m, ed);
    plan_mp(xmp, len, m, ed);
    qsort(ed->e, ed->n, sizeof ed->e[0], edit_order);
    uint8_t *out = NULL;
    size_t grow = 0;
    for (size_t i = 0; i < ed->n; i++) grow += strlen(ed->e[i].text);
    if (!ed->overflow && ed->n > 0 && (out = sy__alloc(ctx, len + grow + 1, 1, "xmp with regions", err))) {
        size_t n = 0;
        const uint8_t *p = xmp;
        for (size_t i = 0; i < ed->n; i++) {
            if (ed->e[i].at < p) continue; /* overlapping: cannot happen for well-formed input */
            memcpy(out + n, p, (size_t)(ed->e[i].at - p));
            n += (size_t)(ed->e[i].at - p);
            size_t tl = strlen(ed->e[i].text);
            memcpy(out + n, ed->e[i].text, tl);
            n += tl;
            p = ed->e[i].end;
        }
        memcpy(out + n, p, (size_t)(end - p));
        n += (size_t)(end - p);
        *out_len = n;
    }
    sy__free(ctx, ed);
    return out;
}
