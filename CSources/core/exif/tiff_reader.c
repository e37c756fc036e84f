/* tiff_reader.c — see sy_tiff.h. Offsets are uint64_t so `at + n` cannot wrap. */
#include "exif/sy_tiff.h"

uint32_t sy__tiff_type_size(uint32_t type) {
    switch (type) {
    case SY__TIFF_BYTE: case SY__TIFF_ASCII: case SY__TIFF_SBYTE: case SY__TIFF_UNDEFINED: return 1;
    case SY__TIFF_SHORT: case SY__TIFF_SSHORT: return 2;
    case SY__TIFF_LONG: case SY__TIFF_SLONG: case SY__TIFF_FLOAT: case SY__TIFF_IFD: return 4;
    case SY__TIFF_RATIONAL: case SY__TIFF_SRATIONAL: case SY__TIFF_DOUBLE: return 8;
    default: return 0;
    }
}

static int inside(const sy__tiff *t, uint64_t at, uint64_t n) { return at <= t->len && n <= t->len - at; }

uint32_t sy__tiff_u16(const sy__tiff *t, uint64_t at) {
    if (!inside(t, at, 2)) return 0;
    const uint8_t *b = t->data + at;
    return t->little_endian ? (uint32_t)b[0] | (uint32_t)b[1] << 8 : (uint32_t)b[0] << 8 | b[1];
}

uint32_t sy__tiff_u32(const sy__tiff *t, uint64_t at) {
    if (!inside(t, at, 4)) return 0;
    const uint8_t *b = t->data + at;
    return t->little_endian ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24
                            : (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

void sy__tiff_view(sy__tiff *t, const uint8_t *data, size_t len, int little_endian) {
    *t = (sy__tiff){data, data ? len : 0, little_endian, 0};
}

int sy__tiff_open(sy__tiff *t, const uint8_t *data, size_t len) {
    if (!data || len < 8) return 0;
    if (data[0] == 'I' && data[1] == 'I') sy__tiff_view(t, data, len, 1);
    else if (data[0] == 'M' && data[1] == 'M') sy__tiff_view(t, data, len, 0);
    else return 0;
    if (sy__tiff_u16(t, 2) != 42) return 0;
    t->ifd0 = sy__tiff_u32(t, 4);
    return t->ifd0 >= 8 && inside(t, t->ifd0, 2);
}

int sy__tiff_ifd_at(const sy__tiff *t, uint64_t at, sy__tiff_ifd *out) {
    if (at == 0 || !inside(t, at, 2)) return 0;
    uint32_t count = sy__tiff_u16(t, at);
    if (!inside(t, at + 2, (uint64_t)count * SY__TIFF_ENTRY_BYTES + 4)) return 0;
    *out = (sy__tiff_ifd){(size_t)at, count};
    return 1;
}

int sy__tiff_ifd0(const sy__tiff *t, sy__tiff_ifd *out) { return sy__tiff_ifd_at(t, t->ifd0, out); }

uint32_t sy__tiff_next_ifd(const sy__tiff *t, const sy__tiff_ifd *ifd) {
    return sy__tiff_u32(t, ifd->at + 2 + (uint64_t)ifd->count * SY__TIFF_ENTRY_BYTES);
}

void sy__tiff_entry_at(const sy__tiff *t, const sy__tiff_ifd *ifd, uint32_t index, sy__tiff_entry *out) {
    size_t at = ifd->at + 2 + (size_t)index * SY__TIFF_ENTRY_BYTES;
    out->at = at;
    out->tag = (uint16_t)sy__tiff_u16(t, at);
    out->type = (uint16_t)sy__tiff_u16(t, at + 2);
    out->count = sy__tiff_u32(t, at + 4);
    out->size = (uint64_t)out->count * sy__tiff_type_size(out->type);
    out->value_at = out->size <= 4 ? at + 8 : sy__tiff_u32(t, at + 8);
}

int sy__tiff_find(const sy__tiff *t, const sy__tiff_ifd *ifd, uint16_t tag, sy__tiff_entry *out) {
    for (uint32_t i = 0; i < ifd->count; i++) {
        sy__tiff_entry_at(t, ifd, i, out);
        if (out->tag == tag) return 1;
    }
    return 0;
}

int sy__tiff_sub_ifd(const sy__tiff *t, const sy__tiff_ifd *parent, uint16_t tag, sy__tiff_ifd *out) {
    sy__tiff_entry e;
    if (!sy__tiff_find(t, parent, tag, &e)) return 0;
    return sy__tiff_ifd_at(t, sy__tiff_u32(t, e.at + 8), out) ? 1 : -1;
}

const uint8_t *sy__tiff_value(const sy__tiff *t, const sy__tiff_entry *e) {
    if (!sy__tiff_type_size(e->type) || !inside(t, e->value_at, e->size)) return NULL;
    return t->data + e->value_at;
}

int sy__tiff_uint(const sy__tiff *t, const sy__tiff_entry *e, uint32_t *out) {
    if (e->count != 1) return 0;
    if (e->type == SY__TIFF_SHORT) *out = sy__tiff_u16(t, e->value_at);
    else if (e->type == SY__TIFF_LONG) *out = sy__tiff_u32(t, e->value_at);
    else return 0;
    return 1;
}

int sy__tiff_srational(const sy__tiff *t, const sy__tiff_entry *e, int32_t *num, int32_t *den) {
    if (e->type != SY__TIFF_SRATIONAL || e->count != 1 || !sy__tiff_value(t, e)) return 0;
    *num = (int32_t)sy__tiff_u32(t, e->value_at);
    *den = (int32_t)sy__tiff_u32(t, e->value_at + 4);
    return 1;
}
