/* gainmap_xmp.c — the gain-map XMP fields: Adobe/Google hdrgm:* (attribute or
 * element form, one value or an rdf:Seq of three), Apple HDRGainMap:*, and the
 * packets we write. A bounded substring scan, not a general XML parser: the
 * fields are found by their conventional prefixes (hdrgm:, HDRGainMap:). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gainmap/sy_gainmap_internal.h"

static const char *find_in(const char *hay, size_t len, const char *needle, size_t from) {
    size_t n = strlen(needle);
    for (size_t i = from; i + n <= len; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, n) == 0) return hay + i;
    return NULL;
}

/* The raw text of field `name` ("hdrgm:GainMapMax"): an attribute value
 * (quoted) or an element's content up to its closing tag. Copies at most
 * cap-1 bytes into out; 1 when found. */
static int field_text(const char *xml, size_t len, const char *name, char *out, size_t cap) {
    size_t n = strlen(name), from = 0;
    for (const char *p; (p = find_in(xml, len, name, from)) != NULL; from = (size_t)(p - xml) + 1) {
        size_t at = (size_t)(p - xml) + n;
        char prev = p > xml ? p[-1] : ' ';
        if (prev != '<' && prev != ' ' && prev != '\t' && prev != '\n' && prev != '\r') continue;
        size_t i = at;
        while (i < len && (xml[i] == ' ' || xml[i] == '\t' || xml[i] == '\n' || xml[i] == '\r')) i++;
        if (i >= len) return 0;
        size_t start, end;
        if (xml[i] == '=' && prev != '<') { /* attribute */
            i++;
            while (i < len && (xml[i] == ' ' || xml[i] == '\n')) i++;
            if (i >= len || (xml[i] != '"' && xml[i] != '\'')) continue;
            char q = xml[i++];
            start = i;
            while (i < len && xml[i] != q) i++;
            if (i >= len) return 0;
            end = i;
        } else if (xml[i] == '>' && prev == '<') { /* element */
            start = i + 1;
            char close[64];
            snprintf(close, sizeof close, "</%s", name);
            const char *c = find_in(xml, len, close, start);
            if (!c) return 0;
            end = (size_t)(c - xml);
        } else {
            continue;
        }
        size_t k = end - start < cap - 1 ? end - start : cap - 1;
        memcpy(out, xml + start, k);
        out[k] = 0;
        return 1;
    }
    return 0;
}

/* Numbers of a field: one plain value, or up to 3 rdf:li values. Returns the
 * count (0 = absent), -1 when a value is not a finite number. */
static int field_numbers(const char *xml, size_t len, const char *name, double v[3]) {
    char text[512];
    if (!field_text(xml, len, name, text, sizeof text)) return 0;
    int count = 0;
    const char *li = strstr(text, "<rdf:li");
    if (!li) {
        char *end;
        v[0] = strtod(text, &end);
        while (*end == ' ' || *end == '\n' || *end == '\t' || *end == '\r') end++;
        return end == text || *end || !isfinite(v[0]) ? -1 : 1;
    }
    while (li && count < 3) {
        const char *gt = strchr(li, '>');
        if (!gt) return -1;
        char *end;
        v[count] = strtod(gt + 1, &end);
        if (end == gt + 1 || *end != '<' || !isfinite(v[count])) return -1;
        count++;
        li = strstr(end, "<rdf:li");
    }
    return count == 1 || count == 3 ? count : -1;
}

int sy__xmp_has_hdrgm(const char *xml, size_t len) {
    char v[32];
    return xml && field_text(xml, len, "hdrgm:Version", v, sizeof v);
}

static int per_channel(const char *xml, size_t len, const char *name, double def, double out[3], int *channels,
                       char *why, size_t why_len) {
    double v[3];
    int n = field_numbers(xml, len, name, v);
    if (n < 0) return snprintf(why, why_len, "%s is not a number or a list of 1 or 3", name), -1;
    if (n == 0) v[0] = v[1] = v[2] = def;
    if (n == 1) v[1] = v[2] = v[0];
    if (n == 3) *channels = 3;
    memcpy(out, v, sizeof v);
    return 0;
}

int sy__xmp_hdrgm_parse(const char *xml, size_t len, sy_gainmap_params *p, char *why, size_t why_len) {
    char version[32];
    memset(p, 0, sizeof *p);
    if (!xml || !field_text(xml, len, "hdrgm:Version", version, sizeof version)) return 0;
    if (strcmp(version, "1.0") != 0) return snprintf(why, why_len, "hdrgm:Version \"%.16s\" is not 1.0", version), -1;
    int channels = 1;
    if (!find_in(xml, len, "hdrgm:GainMapMax", 0) || !find_in(xml, len, "hdrgm:HDRCapacityMax", 0))
        return snprintf(why, why_len, "hdrgm:GainMapMax or hdrgm:HDRCapacityMax missing"), -1;
    if (per_channel(xml, len, "hdrgm:GainMapMin", 0, p->min_log2, &channels, why, why_len) < 0 ||
        per_channel(xml, len, "hdrgm:GainMapMax", 0, p->max_log2, &channels, why, why_len) < 0 ||
        per_channel(xml, len, "hdrgm:Gamma", 1, p->gamma, &channels, why, why_len) < 0 ||
        per_channel(xml, len, "hdrgm:OffsetSDR", 1.0 / 64, p->offset_sdr, &channels, why, why_len) < 0 ||
        per_channel(xml, len, "hdrgm:OffsetHDR", 1.0 / 64, p->offset_hdr, &channels, why, why_len) < 0)
        return -1;
    double v[3];
    int n = field_numbers(xml, len, "hdrgm:HDRCapacityMin", v);
    if (n < 0) return snprintf(why, why_len, "hdrgm:HDRCapacityMin is not a number"), -1;
    p->capacity_min = n ? v[0] : 0;
    if (field_numbers(xml, len, "hdrgm:HDRCapacityMax", v) != 1)
        return snprintf(why, why_len, "hdrgm:HDRCapacityMax is not a number"), -1;
    p->capacity_max = v[0];
    char flag[16];
    p->base_is_hdr = field_text(xml, len, "hdrgm:BaseRenditionIsHDR", flag, sizeof flag) &&
                     (strcmp(flag, "True") == 0 || strcmp(flag, "true") == 0);
    p->channels = (uint32_t)channels;
    return sy__gainmap_params_check(p, "hdrgm", why, why_len) < 0 ? -1 : 1;
}

int sy__gainmap_params_check(const sy_gainmap_params *p, const char *form, char *why, size_t why_len) {
    for (int c = 0; c < 3; c++) {
        if (!(p->max_log2[c] >= p->min_log2[c]) || !(p->gamma[c] > 0) || !(fabs(p->max_log2[c]) <= 16) ||
            !(fabs(p->min_log2[c]) <= 16) || !(p->offset_sdr[c] >= 0) || !(p->offset_hdr[c] >= 0) ||
            !(p->gamma[c] >= 1e-3) || !(p->gamma[c] <= 1e3))
            return snprintf(why, why_len, "%s values out of range (channel %d: min %g max %g gamma %g)", form, c,
                            p->min_log2[c], p->max_log2[c], p->gamma[c]), -1;
    }
    if (!(p->capacity_max >= p->capacity_min + 1e-4) || !(p->capacity_min >= -16) || !(p->capacity_max <= 16))
        return snprintf(why, why_len, "%s HDR capacity %g..%g is not an increasing range within 16 stops", form,
                        p->capacity_min, p->capacity_max), -1;
    return 0;
}

void sy__xmp_apple_parse(const char *xml, size_t len, uint32_t *version, double *headroom) {
    double v[3];
    *version = 0;
    *headroom = 0;
    if (!xml) return;
    if (field_numbers(xml, len, "HDRGainMap:HDRGainMapVersion", v) == 1 && v[0] > 0 && v[0] < 4294967296.0)
        *version = (uint32_t)v[0];
    if (field_numbers(xml, len, "HDRGainMap:HDRGainMapHeadroom", v) == 1 && v[0] >= 1 && v[0] < 65536) *headroom = v[0];
}

/* ---- writing ---- */

static char *finish(sy_context *ctx, const char *text, int n, size_t *len, sy_error *err) {
    if (n < 0) return sy__fail(err, SY_E_USAGE, "gain map XMP: formatting failed"), NULL;
    char *out = sy__alloc(ctx, (size_t)n + 1, 1, "gain map XMP", err);
    if (out) memcpy(out, text, (size_t)n + 1), *len = (size_t)n;
    return out;
}

#define XMP_HEAD "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\" x:xmptk=\"Shiying\">\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n"
#define XMP_TAIL "</rdf:RDF>\n</x:xmpmeta>\n"

char *sy__xmp_build_primary(sy_context *ctx, uint64_t map_length, size_t *len, sy_error *err) {
    char text[2048];
    int n = snprintf(text, sizeof text,
                     XMP_HEAD
                     "<rdf:Description rdf:about=\"\"\n"
                     " xmlns:Container=\"http://ns.google.com/photos/1.0/container/\"\n"
                     " xmlns:Item=\"http://ns.google.com/photos/1.0/container/item/\"\n"
                     " xmlns:hdrgm=\"http://ns.adobe.com/hdr-gain-map/1.0/\"\n"
                     " hdrgm:Version=\"1.0\">\n"
                     "<Container:Directory>\n<rdf:Seq>\n"
                     "<rdf:li rdf:parseType=\"Resource\">\n<Container:Item Item:Semantic=\"Primary\" Item:Mime=\"image/jpeg\"/>\n</rdf:li>\n"
                     "<rdf:li rdf:parseType=\"Resource\">\n<Container:Item Item:Semantic=\"GainMap\" Item:Mime=\"image/jpeg\" Item:Length=\"%llu\"/>\n</rdf:li>\n"
                     "</rdf:Seq>\n</Container:Directory>\n</rdf:Description>\n" XMP_TAIL,
                     (unsigned long long)map_length);
    return finish(ctx, text, n, len, err);
}

static int differs(const double v[3], uint32_t channels) { return channels == 3 && (v[0] != v[1] || v[1] != v[2]); }

/* One value as an attribute of the description; three that differ as an
 * rdf:Seq element. libultrahdr takes hdrgm values only as attributes (as
 * Adobe's and Android's examples write them), so that is the form for every
 * single value. */
char *sy__xmp_build_gainmap(sy_context *ctx, const sy_gainmap_params *p, size_t *len, sy_error *err) {
    char text[4096];
    const char *names[5] = {"GainMapMin", "GainMapMax", "Gamma", "OffsetSDR", "OffsetHDR"};
    const double *vals[5] = {p->min_log2, p->max_log2, p->gamma, p->offset_sdr, p->offset_hdr};
    int n = snprintf(text, sizeof text,
                     XMP_HEAD "<rdf:Description rdf:about=\"\" xmlns:hdrgm=\"http://ns.adobe.com/hdr-gain-map/1.0/\"\n"
                     " hdrgm:Version=\"1.0\" hdrgm:BaseRenditionIsHDR=\"%s\" hdrgm:HDRCapacityMin=\"%.9g\" hdrgm:HDRCapacityMax=\"%.9g\"",
                     p->base_is_hdr ? "True" : "False", p->capacity_min, p->capacity_max);
    for (int i = 0; i < 5 && n > 0 && (size_t)n < sizeof text; i++)
        if (!differs(vals[i], p->channels))
            n += snprintf(text + n, sizeof text - (size_t)n, "\n hdrgm:%s=\"%.9g\"", names[i], vals[i][0]);
    if (n > 0 && (size_t)n < sizeof text) n += snprintf(text + n, sizeof text - (size_t)n, ">\n");
    for (int i = 0; i < 5 && n > 0 && (size_t)n < sizeof text; i++)
        if (differs(vals[i], p->channels))
            n += snprintf(text + n, sizeof text - (size_t)n,
                          "<hdrgm:%s><rdf:Seq><rdf:li>%.9g</rdf:li><rdf:li>%.9g</rdf:li><rdf:li>%.9g</rdf:li></rdf:Seq></hdrgm:%s>\n",
                          names[i], vals[i][0], vals[i][1], vals[i][2], names[i]);
    if (n > 0 && (size_t)n < sizeof text) n += snprintf(text + n, sizeof text - (size_t)n, "</rdf:Description>\n" XMP_TAIL);
    if (n <= 0 || (size_t)n >= sizeof text) n = -1;
    return finish(ctx, text, n, len, err);
}

char *sy__xmp_build_apple(sy_context *ctx, uint32_t version, double headroom, size_t *len, sy_error *err) {
    char text[2048], room[128] = "";
    if (headroom >= 1 && version >= 131072)
        snprintf(room, sizeof room, "<HDRGainMap:HDRGainMapHeadroom>%.9g</HDRGainMap:HDRGainMapHeadroom>\n", headroom);
    int n = snprintf(text, sizeof text,
                     XMP_HEAD "<rdf:Description rdf:about=\"\"\n"
                     " xmlns:apdi=\"http://ns.apple.com/pixeldatainfo/1.0/\"\n"
                     " xmlns:HDRGainMap=\"http://ns.apple.com/HDRGainMap/1.0/\">\n"
                     "<apdi:AuxiliaryImageType>" SY_APPLE_GAINMAP_URN "</apdi:AuxiliaryImageType>\n"
                     "<apdi:NativeFormat>1278226488</apdi:NativeFormat>\n"
                     "<apdi:StoredFormat>1278226488</apdi:StoredFormat>\n"
                     "<HDRGainMap:HDRGainMapVersion>%u</HDRGainMap:HDRGainMapVersion>\n%s"
                     "</rdf:Description>\n" XMP_TAIL,
                     version, room);
    return finish(ctx, text, n, len, err);
}

/* The body of a packet's rdf:RDF (between its start tag and "</rdf:RDF>"). */
static int rdf_body(const char *x, size_t len, size_t *start, size_t *end) {
    const char *open = find_in(x, len, "<rdf:RDF", 0), *close = NULL;
    if (!open) return 0;
    const char *gt = memchr(open, '>', len - (size_t)(open - x));
    for (const char *c = gt; c && (c = find_in(x, len, "</rdf:RDF>", (size_t)(c - x))) != NULL; c++) close = c;
    if (!gt || !close || close < gt) return 0;
    *start = (size_t)(gt - x) + 1, *end = (size_t)(close - x);
    return 1;
}

char *sy__xmp_join(sy_context *ctx, const char *base, size_t base_len, const char *add, size_t add_len, size_t *len,
                   sy_error *err) {
    size_t bs, be, as, ae;
    if (!rdf_body(add, add_len, &as, &ae)) return sy__fail(err, SY_E_USAGE, "gain map XMP: no rdf:RDF to add"), NULL;
    int joinable = base && rdf_body(base, base_len, &bs, &be);
    const char *head = joinable ? base : add;
    size_t at = joinable ? be : ae, tail = (joinable ? base_len : add_len) - at, body = joinable ? ae - as : 0;
    char *out = sy__alloc(ctx, at + body + tail + 1, 1, "joined XMP", err);
    if (!out) return NULL;
    memcpy(out, head, at);
    memcpy(out + at, add + as, body);
    memcpy(out + at + body, head + at, tail);
    out[at + body + tail] = 0;
    *len = at + body + tail;
    return out;
}
