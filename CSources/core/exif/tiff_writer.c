/* tiff_writer.c — see sy_tiff.h: the IFD layout every TIFF the engine writes
 * uses (the Exif writer, the Live MakerNote, the MPF index). */
#include <string.h>

#include "exif/sy_tiff.h"

void sy__tiff_put16(uint8_t *p, uint32_t v, int little_endian) {
    if (little_endian) p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
    else p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v;
}

void sy__tiff_put32(uint8_t *p, uint32_t v, int little_endian) {
    if (little_endian) sy__tiff_put16(p, v & 0xFFFF, 1), sy__tiff_put16(p + 2, v >> 16, 1);
    else sy__tiff_put16(p, v >> 16, 0), sy__tiff_put16(p + 2, v & 0xFFFF, 0);
}

void sy__tiff_put_header(uint8_t *p, int little_endian, uint32_t ifd0) {
    memcpy(p, little_endian ? "II" : "MM", 2);
    sy__tiff_put16(p + 2, 42, little_endian);
    sy__tiff_put32(p + 4, ifd0, little_endian);
}

sy__tiff_field sy__tiff_field_uint(uint16_t tag, uint16_t type, uint32_t value, int little_endian) {
    sy__tiff_field f = {.tag = tag, .type = type, .count = 1};
    if (type == SY__TIFF_SHORT) sy__tiff_put16(f.value, value, little_endian); /* the other two bytes stay 0 */
    else sy__tiff_put32(f.value, value, little_endian);
    return f;
}

static uint64_t payload_bytes(const sy__tiff_field *f) { return (uint64_t)f->count * sy__tiff_type_size(f->type); }

sy__tiff_field sy__tiff_field_bytes(uint16_t tag, uint16_t type, uint32_t count, const uint8_t *bytes) {
    sy__tiff_field f = {.tag = tag, .type = type, .count = count};
    uint64_t n = payload_bytes(&f);
    if (n > 4) f.data = bytes;
    else if (n) memcpy(f.value, bytes, (size_t)n);
    return f;
}

sy__tiff_field sy__tiff_field_at(uint16_t tag, uint16_t type, uint32_t count, uint32_t offset, int little_endian) {
    sy__tiff_field f = {.tag = tag, .type = type, .count = count};
    sy__tiff_put32(f.value, offset, little_endian);
    return f;
}

sy__tiff_field sy__tiff_field_copy(const sy__tiff *t, const sy__tiff_entry *e) {
    sy__tiff_field f = {.tag = e->tag, .type = e->type, .count = e->count};
    memcpy(f.value, t->data + e->at + 8, 4); /* an IFD entry always lies inside its view */
    return f;
}

uint32_t sy__tiff_fields_copy(const sy__tiff *t, const sy__tiff_ifd *ifd, uint16_t skip, sy__tiff_field *out) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < ifd->count; i++) {
        sy__tiff_entry e;
        sy__tiff_entry_at(t, ifd, i, &e);
        if (e.tag != skip) out[n++] = sy__tiff_field_copy(t, &e);
    }
    return n;
}

void sy__tiff_fields_sort(sy__tiff_field *fields, uint32_t n) {
    for (uint32_t i = 1; i < n; i++) /* insertion sort: stable, and IFDs are small */
        for (uint32_t j = i; j > 0 && fields[j - 1].tag > fields[j].tag; j--) {
            sy__tiff_field tmp = fields[j];
            fields[j] = fields[j - 1];
            fields[j - 1] = tmp;
        }
}

/* Data-area bytes of one field: its payload rounded up to a word. */
static uint64_t out_of_line(const sy__tiff_field *f) { return f->data ? (payload_bytes(f) + 1) & ~(uint64_t)1 : 0; }

uint64_t sy__tiff_ifd_size(const sy__tiff_field *fields, uint32_t n) {
    uint64_t size = sy__tiff_ifd_bytes(n);
    for (uint32_t i = 0; i < n; i++) size += out_of_line(&fields[i]);
    return size;
}

void sy__tiff_ifd_write(uint8_t *base, size_t at, const sy__tiff_field *fields, uint32_t n, uint32_t next,
                        int little_endian) {
    uint8_t *p = base + at;
    size_t data = at + (size_t)sy__tiff_ifd_bytes(n);
    sy__tiff_put16(p, n, little_endian);
    p += 2;
    for (uint32_t i = 0; i < n; i++, p += SY__TIFF_ENTRY_BYTES) {
        const sy__tiff_field *f = &fields[i];
        sy__tiff_put16(p, f->tag, little_endian);
        sy__tiff_put16(p + 2, f->type, little_endian);
        sy__tiff_put32(p + 4, f->count, little_endian);
        if (!f->data) {
            memcpy(p + 8, f->value, 4);
            continue;
        }
        size_t bytes = (size_t)payload_bytes(f);
        sy__tiff_put32(p + 8, (uint32_t)data, little_endian);
        memcpy(base + data, f->data, bytes);
        if (bytes & 1) base[data + bytes] = 0;
        data += (size_t)out_of_line(f);
    }
    sy__tiff_put32(p, next, little_endian);
}
