/* cube.c — the Adobe / Resolve `.cube` 3D LUT text format.
 *
 * Accepted: `TITLE "text"`, `LUT_3D_SIZE n` (2..65), `DOMAIN_MIN r g b`,
 * `DOMAIN_MAX r g b`, `LUT_3D_INPUT_RANGE lo hi` (Resolve), other upper-case
 * keywords before the data (ignored, as Resolve writes a few of its own),
 * `#` comments, blank lines, CR LF endings; then exactly n^3 lines of three
 * finite numbers, red index fastest. Anything else is SY_E_INVALID_INPUT
 * with the 1-based line number; `LUT_1D_SIZE` is SY_E_UNSUPPORTED.
 * Memory: the table is allocated once the size is known (at most 65^3
 * triples); numbers are parsed without the C locale (no strtod). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/sy_input.h"
#include "render/sy_render_internal.h"

typedef struct cursor {
    const char *p, *end;
} cursor;

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static void skip_space(cursor *c) {
    while (c->p < c->end && is_space(*c->p)) c->p++;
}
/* Up to 16 bytes at p for an error message (the text is not NUL-terminated). */
static int snippet_len(const cursor *c, const char *p) {
    ptrdiff_t n = c->end - p;
    return n < 0 ? 0 : n > 16 ? 16 : (int)n;
}

static int at_end(cursor *c) {
    skip_space(c);
    return c->p >= c->end || *c->p == '#';
}

/* Decimal number: [+-] digits [. digits] [(e|E) [+-] digits]. */
static int parse_number(cursor *c, double *out) {
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    skip_space(c);
    const char *p = c->p, *end = c->end;
    int negative = 0;
    if (p < end && (*p == '+' || *p == '-')) negative = *p++ == '-';
    uint64_t mantissa = 0;
    int digits = 0, exponent = 0;
    for (; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
        if (mantissa < 100000000000000000ull) mantissa = mantissa * 10 + (uint64_t)(*p - '0');
        else exponent++; /* beyond 17 significant digits */
    }
    if (p < end && *p == '.') {
        p++;
        for (; p < end && *p >= '0' && *p <= '9'; p++, digits++)
            if (mantissa < 100000000000000000ull) {
                mantissa = mantissa * 10 + (uint64_t)(*p - '0');
                exponent--;
            }
    }
    if (digits == 0) return 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        int eneg = 0, e = 0, edigits = 0;
        if (p < end && (*p == '+' || *p == '-')) eneg = *p++ == '-';
        for (; p < end && *p >= '0' && *p <= '9'; p++, edigits++)
            if (e < 100000) e = e * 10 + (*p - '0');
        if (edigits == 0) return 0;
        exponent += eneg ? -e : e;
    }
    if (p < end && !is_space(*p) && *p != '#') return 0; /* junk glued to the number */
    double v = (double)mantissa;
    if (mantissa != 0) {
        if (exponent > 400) v = INFINITY;
        else if (exponent < -400) v = 0;
        else if (exponent >= 0 && exponent <= 22) v *= pow10[exponent];
        else if (exponent < 0 && exponent >= -22) v /= pow10[-exponent];
        else v *= pow(10.0, exponent);
    }
    c->p = p;
    *out = negative ? -v : v;
    return 1;
}

/* Reads exactly `n` finite numbers and nothing else on the line. */
static sy_status parse_numbers(cursor *c, int n, double *out, uint32_t line, const char *what, sy_error *err) {
    for (int i = 0; i < n; i++) {
        if (at_end(c))
            return sy__fail(err, SY_E_INVALID_INPUT, "cube: line %u: %s needs %d numbers, found %d", line, what, n, i);
        if (!parse_number(c, &out[i]))
            return sy__fail(err, SY_E_INVALID_INPUT, "cube: line %u: %s: '%.*s' is not a number", line, what,
                            snippet_len(c, c->p), c->p);
        if (!isfinite((float)out[i])) /* stored as float */
            return sy__fail(err, SY_E_INVALID_INPUT, "cube: line %u: %s: number out of range", line, what);
    }
    if (!at_end(c)) return sy__fail(err, SY_E_INVALID_INPUT, "cube: line %u: %s has more than %d numbers", line, what, n);
    return SY_OK;
}

static int keyword_is(const char *word, size_t len, const char *name) {
    return strlen(name) == len && memcmp(word, name, len) == 0;
}

typedef struct cube_state {
    sy_context *ctx;
    sy_lut *lut;
    uint32_t size, size_line;
    size_t count, total;
    double dmin[3], dmax[3];
    uint32_t domain_line;
    char title[128];
} cube_state;

static sy_status keyword_line(cube_state *s, cursor *c, uint32_t line, sy_error *err) {
    const char *word = c->p;
    while (c->p < c->end && ((*c->p >= 'A' && *c->p <= 'Z') || (*c->p >= '0' && *c->p <= '9') || *c->p == '_')) c->p++;
    size_t len = (size_t)(c->p - word);
    if (c->p < c->end && !is_space(*c->p))
        return sy__fail(err, SY_E_INVALID_INPUT, "cube: line %u: unexpected text '%.*s'", line, snippet_len(c, word),
                        word);
    if (s->count > 0)
        return sy__fail(err, SY_E_INVALID_INPUT, "cube: line %u: keyword '%.*s' after the table data", line,
                        (int)(len < 32 ? len : 32), word);
    if (keyword_is(word, len, "TITLE")) {
        skip_space(c);
        const char *t = c->p, *e = c->end;
        if (t < e && *t == '"') {
            t++;
            const char *q = memchr(t, '"', (size_t)(e - t));
            if (!q) return sy__fail(err, SY_E_INVALID_INPUT, "cube: line %u: TITLE without closing quote", line);
            e = q;
        } else {
            while (e > t && is_space(e[-1])) e--;
        }
        size_t n = (size_t)(e - t);
        if (n >= sizeof s->title) n = sizeof s->title - 1;
        memcpy(s->title, t, n);
        s->title[n] = 0;
        return SY_OK;
    }
    if (keyword_is(word, len, "LUT_1D_SIZE"))
        return sy__fail(err, SY_E_UNSUPPORTED, "cube: line %u: 1D LUTs (LUT_1D_SIZE) are not supported", line);
    if (keyword_is(word, len, "LUT_3D_SIZE")) {
        if (s->size) return sy__fail(err, SY_E_INVALID_INPUT, "cube: line %u: second LUT_3D_SIZE", line);
        double n;
        sy_status st = parse_numbers(c, 1, &n, line, "LUT_3D_SIZE", err);
        if (st != SY_OK) return st;
        if (n != floor(n) || n < 2 || n > SY_LUT_MAX_SIZE)
            return sy__fail(err, SY_E_INVALID_INPUT, "cube: line %u: LUT_3D_SIZE %g is outside 2..%d", line, n,
                            SY_LUT_MAX_SIZE);
        s->size = (uint32_t)n;
        s->size_line = line;
        s->total = (size_t)s->size * s->size * s->size;
        return sy__lut_create(s->ctx, s->size, &s->lut, err);
    }
    if (keyword_is(word, len, "DOMAIN_MIN") || keyword_is(word, len, "DOMAIN_MAX")) {
        s->domain_line = line;
        return parse_numbers(c, 3, word[7] == 'M' && word[8] == 'I' ? s->dmin : s->dmax, line, "DOMAIN", err);
    }
    if (keyword_is(word, len, "LUT_3D_INPUT_RANGE")) {
        double r[2];
        sy_status st = parse_numbers(c, 2, r, line, "LUT_3D_INPUT_RANGE", err);
        if (st != SY_OK) return st;
        s->domain_line = line;
        for (int i = 0; i < 3; i++) s->dmin[i] = r[0], s->dmax[i] = r[1];
        return SY_OK;
    }
    if (keyword_is(word, len, "LUT_1D_INPUT_RANGE"))
        return sy__fail(err, SY_E_UNSUPPORTED, "cube: line %u: 1D LUT shaper (LUT_1D_INPUT_RANGE) is not supported",
                        line);
    return SY_OK; /* another tool's keyword: ignored */
}

sy_status sy_lut_parse_cube(sy_context *ctx, const char *text, size_t length, sy_lut **out, sy_error *err) {
    if (!ctx || !out || (!text && length)) return sy__fail(err, SY_E_USAGE, "sy_lut_parse_cube: NULL argument");
    *out = NULL;
    if (length > SY_CUBE_MAX_BYTES)
        return sy__fail(err, SY_E_INVALID_INPUT, "cube: %zu bytes exceeds the %zu-byte limit", length,
                        SY_CUBE_MAX_BYTES);
    cube_state s;
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    for (int i = 0; i < 3; i++) s.dmax[i] = 1;
    sy_status st = SY_OK;
    const char *p = text, *end = text + length;
    uint32_t line = 0;
    /* A UTF-8 byte order mark is harmless. */
    if (length >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
    while (p < end && st == SY_OK) {
        line++;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        cursor c = {p, eol};
        p = nl ? nl + 1 : end;
        for (const char *q = c.p; q < c.end; q++) {
            unsigned char b = (unsigned char)*q;
            if ((b < 0x20 && b != '\t' && b != '\r') || b == 0x7F) {
                st = sy__fail(err, SY_E_INVALID_INPUT, "cube: line %u: binary data (byte 0x%02X)", line, b);
                break;
            }
        }
        if (st != SY_OK || at_end(&c)) continue;
        char first = *c.p;
        if (first >= 'A' && first <= 'Z') {
            st = keyword_line(&s, &c, line, err);
            continue;
        }
        if (!s.size) {
            st = sy__fail(err, SY_E_INVALID_INPUT, "cube: line %u: table data before LUT_3D_SIZE", line);
            continue;
        }
        if (s.count >= s.total) {
            st = sy__fail(err, SY_E_INVALID_INPUT, "cube: line %u: more than %zu table entries (LUT_3D_SIZE %u)", line,
                          s.total, s.size);
            continue;
        }
        double v[3];
        if ((st = parse_numbers(&c, 3, v, line, "table entry", err)) != SY_OK) continue;
        float *dst = s.lut->data + s.count * 3;
        for (int i = 0; i < 3; i++) dst[i] = (float)v[i];
        s.count++;
    }
    if (line == 0) line = 1; /* empty text: report the first line */
    if (st == SY_OK && !s.size) st = sy__fail(err, SY_E_INVALID_INPUT, "cube: line %u: no LUT_3D_SIZE", line);
    if (st == SY_OK && s.count < s.total)
        st = sy__fail(err, SY_E_INVALID_INPUT, "cube: line %u: truncated, %zu of %zu table entries (LUT_3D_SIZE %u)",
                      line, s.count, s.total, s.size);
    for (int i = 0; st == SY_OK && i < 3; i++)
        if (!(s.dmin[i] < s.dmax[i]) || !isfinite((float)s.dmin[i]) || !isfinite((float)s.dmax[i]))
            st = sy__fail(err, SY_E_INVALID_INPUT, "cube: line %u: domain %g..%g is empty", s.domain_line, s.dmin[i],
                          s.dmax[i]);
    if (st != SY_OK) {
        sy_lut_destroy(s.lut);
        return st;
    }
    for (int i = 0; i < 3; i++) {
        s.lut->domain_min[i] = (float)s.dmin[i];
        s.lut->domain_max[i] = (float)s.dmax[i];
    }
    memcpy(s.lut->title, s.title, sizeof s.title);
    *out = s.lut;
    return SY_OK;
}

sy_status sy_lut_load_cube(sy_context *ctx, const char *path, sy_lut **out, sy_error *err) {
    if (!ctx || !path || !out) return sy__fail(err, SY_E_USAGE, "sy_lut_load_cube: NULL argument");
    *out = NULL;
    FILE *f = NULL;
    sy_status opened = sy__input_open(path, &f, err);
    if (opened != SY_OK) return opened;
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0) {
        fclose(f);
        return sy__fail(err, SY_E_IO, "%s: cannot stat", path);
    }
    if ((uint64_t)sb.st_size > SY_CUBE_MAX_BYTES) {
        fclose(f);
        return sy__fail(err, SY_E_INVALID_INPUT, "%s: %lld bytes exceeds the %zu-byte .cube limit", path,
                        (long long)sb.st_size, SY_CUBE_MAX_BYTES);
    }
    size_t size = (size_t)sb.st_size;
    char *text = sy__alloc(ctx, size ? size : 1, 1, "cube text", err);
    if (!text) {
        fclose(f);
        return err ? err->code : SY_E_BUDGET;
    }
    size_t got = fread(text, 1, size, f);
    int failed = ferror(f);
    fclose(f);
    sy_status st;
    if (failed || got != size)
        st = sy__fail(err, SY_E_IO, "%s: read %zu of %zu bytes", path, got, size);
    else if ((st = sy_lut_parse_cube(ctx, text, size, out, err)) != SY_OK && err) {
        /* Name the file in front of the parser's message. */
        char msg[sizeof err->message];
        snprintf(msg, sizeof msg, "%s: %s", path, err->message);
        memcpy(err->message, msg, sizeof msg);
    }
    sy__free(ctx, text);
    return st;
}
