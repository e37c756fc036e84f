/* xmp_split.c — one XMP packet split for a JPEG (XMP Part 3, sy_exif.h):
 * a main packet that fits one APP1 and an extended packet in the
 * "http://ns.adobe.com/xmp/extension/" chunks, named by the main packet's
 * xmpNote:HasExtendedXMP = the extension's MD5.
 *
 * Which properties stay in the main packet (the rule, kept simple):
 *  - always: what readers look for in the main packet only — Ultra HDR's
 *    hdrgm:* and its Container/Item directory (Ultra HDR readers never read
 *    the extension), a Motion Photo's GCamera:*, and the note itself;
 *  - preferably: small facts every viewer reads — xmp:Rating/Label/dates,
 *    dc:title/description/subject/creator/rights, photoshop:DateCreated,
 *    every exif:* and tiff:* (orientation included). These move only when
 *    moving everything else was not enough;
 *  - everything else (histories, develop settings, face regions, depth maps)
 *    moves first, largest first, until the main packet fits.
 * Properties are whole top-level ones (an attribute or an element of an
 * rdf:Description, children and all), copied byte for byte: XMP is parsed as
 * text, as everywhere in exif/, and every scan stays inside the packet. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sy_md5.h"
#include "exif/sy_exif.h"
#include "exif/sy_xmp_text.h"

#define NS_NOTE "http://ns.adobe.com/xmp/note/"
#define NOTE_ROOM 110 /* ` xmlns:xmpNote="…/note/" xmpNote:HasExtendedXMP="<32>"` */

typedef struct property {
    size_t from, to;   /* the bytes, leading whitespace included */
    size_t desc;       /* its rdf:Description */
    int attribute;     /* in the start tag, else an element of the body */
    int rank;          /* 0 pinned, 1 preferred, 2 moves first */
    int moves;
} property;

typedef struct description {
    size_t tag, tag_end; /* "<rdf:Description" .. just past its '>' */
} description;

typedef struct scan {
    const uint8_t *p;
    size_t len;
    property *props;
    size_t count, cap;
    description *descs;
    size_t desc_count, desc_cap;
} scan;

static int space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Index just past the '>' closing the tag that starts at `at`, quotes respected; 0 when cut off. */
static size_t tag_end(const scan *s, size_t at) {
    uint8_t quote = 0;
    for (size_t i = at; i < s->len; i++) {
        if (quote) quote = s->p[i] == quote ? 0 : quote;
        else if (s->p[i] == '"' || s->p[i] == '\'') quote = s->p[i];
        else if (s->p[i] == '>') return i + 1;
    }
    return 0;
}

static size_t name_end(const scan *s, size_t at) {
    while (at < s->len && (sy__xmp_name_char(s->p[at]) || s->p[at] == ':')) at++;
    return at;
}

/* Just past the element starting at `at` ("<qname ..."), nested elements of the same name counted; 0 when cut off. */
static size_t element_end(const scan *s, size_t at) {
    size_t qn_from = at + 1, qn_to = name_end(s, qn_from), qn = qn_to - qn_from, gt = tag_end(s, at);
    if (!qn || !gt) return 0;
    if (s->p[gt - 2] == '/') return gt;
    int depth = 1;
    for (size_t i = gt; i + qn + 2 <= s->len; i++) {
        if (s->p[i] != '<') continue;
        int closing = s->p[i + 1] == '/';
        size_t n = i + 1 + (size_t)closing;
        if (n + qn > s->len || memcmp(s->p + n, s->p + qn_from, qn) != 0 || (n + qn < s->len &&
            (sy__xmp_name_char(s->p[n + qn]) || s->p[n + qn] == ':')))
            continue;
        size_t e = tag_end(s, i);
        if (!e) return 0;
        if (closing && --depth == 0) return e;
        if (!closing && s->p[e - 2] != '/') depth++;
        i = e - 1;
    }
    return 0;
}

static int add_property(sy_context *ctx, scan *s, property p, sy_error *err) {
    void *items = s->props;
    if (sy__grow(ctx, &items, &s->cap, s->count + 1, sizeof p, 64, "XMP split properties", err) != SY_OK) return 0;
    s->props = items;
    s->props[s->count++] = p;
    return 1;
}

static int add_description(sy_context *ctx, scan *s, description d, sy_error *err) {
    void *items = s->descs;
    if (sy__grow(ctx, &items, &s->desc_cap, s->desc_count + 1, sizeof d, 8, "XMP split descriptions", err) != SY_OK)
        return 0;
    s->descs = items;
    s->descs[s->desc_count++] = d;
    return 1;
}

/* 1 for the start tag's attributes that are not properties. */
static int declaration(const uint8_t *name, size_t n) {
    return (n > 6 && memcmp(name, "xmlns:", 6) == 0) || (n > 4 && memcmp(name, "rdf:", 4) == 0) ||
           (n > 4 && memcmp(name, "xml:", 4) == 0);
}

/* The properties of the rdf:Description whose start tag spans [tag, gt); returns the index past its end, 0 when
 * the text is not what this scan understands (then nothing is split). */
static size_t scan_description(sy_context *ctx, scan *s, size_t tag, size_t gt, int *failed, sy_error *err) {
    size_t desc = s->desc_count;
    if (!add_description(ctx, s, (description){tag, gt}, err)) return *failed = 1, 0;
    for (size_t i = tag + strlen("<rdf:Description"); i < gt;) { /* attributes */
        size_t from = i;
        while (i < gt && space(s->p[i])) i++;
        if (i >= gt || s->p[i] == '/' || s->p[i] == '>') break;
        size_t name = i, stop = name_end(s, i);
        for (i = stop; i < gt && s->p[i] != '"' && s->p[i] != '\'';) i++;
        if (i >= gt || stop == name) return 0;
        const uint8_t *close = memchr(s->p + i + 1, s->p[i], gt - i - 1);
        if (!close) return 0;
        i = (size_t)(close - s->p) + 1;
        if (!declaration(s->p + name, stop - name) &&
            !add_property(ctx, s, (property){from, i, desc, 1, 2, 0}, err))
            return *failed = 1, 0;
    }
    if (s->p[gt - 2] == '/') return gt;
    for (size_t i = gt;;) { /* elements */
        size_t from = i;
        while (i < s->len && space(s->p[i])) i++;
        if (i + 1 >= s->len || s->p[i] != '<') return 0;
        if (s->len - i >= 18 && memcmp(s->p + i, "</rdf:Description>", 18) == 0) return i + 18;
        size_t stop = element_end(s, i);
        if (!stop) return 0;
        if (!add_property(ctx, s, (property){from, stop, desc, 0, 2, 0}, err)) return *failed = 1, 0;
        i = stop;
    }
}

/* Every top-level property of the packet's rdf:RDF; 0 when it has none this scan understands. */
static int scan_packet(sy_context *ctx, scan *s, size_t *rdf_tag, size_t *rdf_gt, int *failed, sy_error *err) {
    const uint8_t *end = s->p + s->len, *rdf = sy__xmp_find(s->p, end, "<rdf:RDF");
    if (!rdf) return 0;
    *rdf_tag = (size_t)(rdf - s->p);
    if (!(*rdf_gt = tag_end(s, *rdf_tag))) return 0;
    for (size_t at = *rdf_gt;;) {
        const uint8_t *d = sy__xmp_find(s->p + at, end, "<rdf:Description"), *close = sy__xmp_find(s->p + at, end,
                                                                                              "</rdf:RDF>");
        if (!d || !close || d > close) return s->desc_count > 0;
        size_t tag = (size_t)(d - s->p), gt = tag_end(s, tag);
        if (!gt || !(at = scan_description(ctx, s, tag, gt, failed, err))) return 0;
    }
}

/* The namespaces that decide a property's rank (see the top of this file): pinned first, then preferred with the
 * local names that are (NULL: the whole namespace). */
static const struct { const char *ns, *names; int rank; } ranked[] = {
    {"http://ns.adobe.com/hdr-gain-map/1.0/", NULL, 0},
    {SY__XMP_NS_CONTAINER, NULL, 0},
    {SY__XMP_NS_ITEM, NULL, 0},
    {SY__XMP_NS_CAMERA, NULL, 0},
    {NS_NOTE, NULL, 0},
    {"http://ns.adobe.com/xap/1.0/", " Rating Label CreateDate ModifyDate MetadataDate CreatorTool ", 1},
    {"http://purl.org/dc/elements/1.1/", " title description subject creator rights ", 1},
    {"http://ns.adobe.com/photoshop/1.0/", " DateCreated ", 1},
    {"http://ns.adobe.com/exif/1.0/", NULL, 1},
    {"http://ns.adobe.com/tiff/1.0/", NULL, 1},
};
#define RANKED (sizeof ranked / sizeof ranked[0])

/* Ranks every property. The prefixes are looked up once per description (its start tag) and once for the
 * packet, so a packet of many small properties costs no more than a few passes over it. */
static void rank_all(scan *s) {
    char packet[RANKED][SY__XMP_MAX_PREFIX], tag[RANKED][SY__XMP_MAX_PREFIX];
    for (size_t k = 0; k < RANKED; k++) sy__xmp_prefix_for(s->p, s->len, ranked[k].ns, "", packet[k]);
    size_t desc = (size_t)-1;
    for (size_t i = 0; i < s->count; i++) {
        property *p = &s->props[i];
        if (p->desc != desc) {
            desc = p->desc;
            const description *d = &s->descs[desc];
            for (size_t k = 0; k < RANKED; k++) {
                sy__xmp_prefix_for(s->p + d->tag, d->tag_end - d->tag, ranked[k].ns, "", tag[k]);
                if (!tag[k][0]) memcpy(tag[k], packet[k], SY__XMP_MAX_PREFIX);
            }
        }
        size_t at = p->from;
        while (at < p->to && (space(s->p[at]) || s->p[at] == '<')) at++;
        size_t stop = name_end(s, at);
        const uint8_t *colon = memchr(s->p + at, ':', stop - at);
        p->rank = 2;
        if (!colon) continue;
        size_t pn = (size_t)(colon - s->p) - at, ln = stop - (size_t)(colon - s->p) - 1;
        for (size_t k = 0; k < RANKED; k++) {
            if (strlen(tag[k]) != pn || memcmp(tag[k], s->p + at, pn) != 0) continue;
            const char *names = ranked[k].names;
            for (const char *n = names ? strchr(names, ' ') : NULL; n && n[1]; n = strchr(n + 1, ' '))
                if (strncmp(n + 1, (const char *)colon + 1, ln) == 0 && n[1 + ln] == ' ') p->rank = ranked[k].rank;
            if (!names) p->rank = ranked[k].rank;
            break;
        }
    }
}

/* Movers first: rank 2 before rank 1, then the largest first. */
static int move_order(const void *a, const void *b) {
    const property *x = *(const property *const *)a, *y = *(const property *const *)b;
    if (x->rank != y->rank) return y->rank - x->rank;
    size_t nx = x->to - x->from, ny = y->to - y->from;
    return nx < ny ? 1 : nx > ny ? -1 : 0;
}

/* Marks properties to move in move_order until `main` bytes fit `limit`. 1 when they do; -1 on the budget. */
static int choose_moves(sy_context *ctx, scan *s, size_t main, size_t limit, sy_error *err) {
    property **order = sy__alloc(ctx, s->count ? s->count : 1, sizeof *order, "XMP split order", err);
    if (!order) return -1;
    for (size_t i = 0; i < s->count; i++) order[i] = &s->props[i];
    qsort(order, s->count, sizeof *order, move_order);
    for (size_t i = 0; i < s->count && main > limit && order[i]->rank > 0; i++) {
        order[i]->moves = 1;
        main -= order[i]->to - order[i]->from;
    }
    sy__free(ctx, order);
    return main <= limit;
}

/* Appends [p, p + n) to *buf (sized beforehand: never past cap). */
static void put(uint8_t *buf, size_t *at, const void *p, size_t n) {
    memcpy(buf + *at, p, n);
    *at += n;
}

/* The extended packet: the rdf:RDF start tag as the source has it, one rdf:Description per source description
 * that lost properties, with that description's declarations and the moved properties. */
static uint8_t *build_extension(sy_context *ctx, const scan *s, size_t rdf_tag, size_t rdf_gt, size_t *len,
                                sy_error *err) {
    static const char head[] = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">", tail[] = "</rdf:RDF></x:xmpmeta>",
                      about[] = " rdf:about=\"\"", open[] = "<rdf:Description", close[] = "</rdf:Description>";
    size_t cap = sizeof head + (rdf_gt - rdf_tag) + sizeof tail;
    for (size_t i = 0; i < s->count; i++)
        if (s->props[i].moves) cap += s->props[i].to - s->props[i].from;
    for (size_t d = 0; d < s->desc_count; d++)
        cap += s->descs[d].tag_end - s->descs[d].tag + sizeof about + sizeof close;
    uint8_t *out = sy__alloc(ctx, cap, 1, "extended XMP", err);
    if (!out) return NULL;
    size_t at = 0;
    put(out, &at, head, sizeof head - 1);
    put(out, &at, s->p + rdf_tag, rdf_gt - rdf_tag);
    for (size_t d = 0, i = 0; d < s->desc_count; d++) {
        size_t first = i;
        int any = 0;
        for (; i < s->count && s->props[i].desc == d; i++) any |= s->props[i].moves;
        if (!any) continue;
        put(out, &at, open, sizeof open - 1);
        const description *desc = &s->descs[d];
        int has_about = sy__xmp_find(s->p + desc->tag, s->p + desc->tag_end, "rdf:about") != NULL;
        if (!has_about) put(out, &at, about, sizeof about - 1);
        /* the start tag's declarations: its bytes between the properties that stay and move */
        size_t from = desc->tag + sizeof open - 1, tag_stop = desc->tag_end - 1 - (s->p[desc->tag_end - 2] == '/');
        for (size_t k = first; k < i && s->props[k].attribute; k++) {
            put(out, &at, s->p + from, s->props[k].from - from);
            if (s->props[k].moves) put(out, &at, s->p + s->props[k].from, s->props[k].to - s->props[k].from);
            from = s->props[k].to;
        }
        put(out, &at, s->p + from, tag_stop - from);
        put(out, &at, ">", 1);
        for (size_t k = first; k < i; k++)
            if (!s->props[k].attribute && s->props[k].moves)
                put(out, &at, s->p + s->props[k].from, s->props[k].to - s->props[k].from);
        put(out, &at, close, sizeof close - 1);
    }
    put(out, &at, tail, sizeof tail - 1);
    *len = at;
    return out;
}

/* The main packet: the source without the moved properties, the note naming `guid` in its first description. */
static uint8_t *build_main(sy_context *ctx, const scan *s, const char guid[33], size_t *len, sy_error *err) {
    uint8_t *out = sy__alloc(ctx, s->len + NOTE_ROOM + SY__XMP_MAX_PREFIX * 2, 1, "main XMP", err);
    if (!out) return NULL;
    const description *first = &s->descs[0];
    char prefix[SY__XMP_MAX_PREFIX], note[NOTE_ROOM + SY__XMP_MAX_PREFIX * 2];
    sy__xmp_prefix_for(s->p + first->tag, first->tag_end - first->tag, NS_NOTE, "", prefix);
    int declared = prefix[0] != 0;
    if (!declared) /* a prefix of that name bound to something else would clash */
        snprintf(prefix, sizeof prefix, "%s",
                 sy__xmp_find(s->p + first->tag, s->p + first->tag_end, "xmlns:xmpNote=") ? "syNote" : "xmpNote");
    int n = snprintf(note, sizeof note, "%s%s%s%s %s:HasExtendedXMP=\"%s\"", declared ? "" : " xmlns:",
                     declared ? "" : prefix, declared ? "" : "=\"" NS_NOTE "\"", "", prefix, guid);
    size_t at = 0, from = 0, insert = first->tag + strlen("<rdf:Description");
    put(out, &at, s->p, insert);
    put(out, &at, note, (size_t)n);
    from = insert;
    for (size_t i = 0; i < s->count; i++) {
        if (!s->props[i].moves) continue;
        put(out, &at, s->p + from, s->props[i].from - from);
        from = s->props[i].to;
    }
    put(out, &at, s->p + from, s->len - from);
    *len = at;
    return out;
}

/* The packet with its trailing padding (whitespace before "<?xpacket end", room for in-place edits) cut to one
 * newline, in a copy (sy__free). */
static uint8_t *without_padding(sy_context *ctx, const uint8_t *xmp, size_t len, size_t *out_len, sy_error *err) {
    uint8_t *copy = sy__alloc_copy(ctx, xmp, len, "XMP to split", err);
    if (!copy) return NULL;
    int removed = 0;
    len = sy__xmp_strip_extended_note(copy, len, &removed); /* a note the split names anew */
    const uint8_t *trailer = sy__xmp_find(copy, copy + len, "<?xpacket end");
    if (trailer) {
        size_t stop = (size_t)(trailer - copy), start = stop;
        while (start > 0 && space(copy[start - 1])) start--;
        if (stop - start > 1) {
            copy[start] = '\n';
            memmove(copy + start + 1, copy + stop, len - stop);
            len -= stop - start - 1;
        }
    }
    *out_len = len;
    return copy;
}

void sy__xmp_split_free(sy_context *ctx, sy__xmp_split *split) {
    sy__free(ctx, split->main);
    sy__free(ctx, split->ext);
    memset(split, 0, sizeof *split);
}

sy_status sy__xmp_split_for_jpeg(sy_context *ctx, const uint8_t *xmp, size_t len, size_t main_limit,
                                 sy__xmp_split *out, sy_error *err) {
    memset(out, 0, sizeof *out);
    if (!xmp || len <= main_limit) return SY_OK;
    scan s = {0};
    size_t rdf_tag = 0, rdf_gt = 0;
    int failed = 0;
    sy_status st = SY_OK;
    if (!(s.p = without_padding(ctx, xmp, len, &s.len, err))) return err ? err->code : SY_E_BUDGET;
    int understood = scan_packet(ctx, &s, &rdf_tag, &rdf_gt, &failed, err);
    if (understood && !failed) rank_all(&s);
    int fits = understood && !failed ? choose_moves(ctx, &s, s.len + NOTE_ROOM + SY__XMP_MAX_PREFIX, main_limit, err) : 0;
    if (failed || fits < 0) {
        st = err ? err->code : SY_E_BUDGET;
    } else if (!understood) {
        st = sy__fail(err, SY_E_UNSUPPORTED, "XMP (%zu bytes): no rdf:Description to split for extended XMP", len);
    } else if (!fits) {
        st = sy__fail(err, SY_E_UNSUPPORTED, "XMP (%zu bytes): what must stay in the main packet exceeds %zu bytes",
                      len, main_limit);
    } else if (!(out->ext = build_extension(ctx, &s, rdf_tag, rdf_gt, &out->ext_len, err))) {
        st = err ? err->code : SY_E_BUDGET;
    } else if (out->ext_len > UINT32_MAX) { /* the chunks' 32-bit full length */
        st = sy__fail(err, SY_E_UNSUPPORTED, "extended XMP of %zu bytes is past 4 GB", out->ext_len);
    } else {
        sy__md5_hex_upper(out->ext, out->ext_len, out->guid);
        if (!(out->main = build_main(ctx, &s, out->guid, &out->main_len, err))) st = err ? err->code : SY_E_BUDGET;
    }
    if (st != SY_OK) sy__xmp_split_free(ctx, out);
    sy__free(ctx, (void *)s.p);
    sy__free(ctx, s.props);
    sy__free(ctx, s.descs);
    return st;
}
