/* mpf.c — the Multi-Picture Format index (CIPA DC-007) in JPEG APP2 "MPF\0":
 * a TIFF header, an index IFD with MPFVersion / NumberOfImages / MPEntry, and
 * 16 bytes per image (attribute, size, offset from the TIFF header, two
 * dependent-image entries). */
#include <string.h>

#include "exif/sy_tiff.h"
#include "gainmap/sy_gainmap_internal.h"

#define TAG_VERSION 0xB000
#define TAG_IMAGES 0xB001
#define TAG_ENTRIES 0xB002
#define ENTRY_BYTES 16u

int sy__mpf_parse(const uint8_t *p, size_t len, sy__mpf_entry *entries, uint32_t max) {
    sy__tiff t;
    sy__tiff_ifd ifd;
    sy__tiff_entry count, table;
    uint32_t images = 0;
    if (!sy__tiff_open(&t, p, len) || !sy__tiff_ifd0(&t, &ifd)) return -1;
    if (!sy__tiff_find(&t, &ifd, TAG_IMAGES, &count) || count.type != SY__TIFF_LONG ||
        !sy__tiff_uint(&t, &count, &images) || images == 0)
        return -1;
    if (!sy__tiff_find(&t, &ifd, TAG_ENTRIES, &table) || table.type != SY__TIFF_UNDEFINED ||
        table.size != (uint64_t)images * ENTRY_BYTES || !sy__tiff_value(&t, &table))
        return -1;
    uint32_t k = images < max ? images : max;
    for (uint32_t i = 0; i < k; i++) {
        uint64_t e = table.value_at + (uint64_t)i * ENTRY_BYTES;
        entries[i] = (sy__mpf_entry){sy__tiff_u32(&t, e), sy__tiff_u32(&t, e + 4), sy__tiff_u32(&t, e + 8)};
    }
    return (int)k;
}

int sy__mpf_add_primary_size(uint8_t *p, size_t len, int64_t delta) {
    sy__tiff t;
    sy__tiff_ifd ifd;
    sy__tiff_entry count, table;
    uint32_t images = 0;
    if (!sy__tiff_open(&t, p, len) || !sy__tiff_ifd0(&t, &ifd)) return 0;
    if (!sy__tiff_find(&t, &ifd, TAG_IMAGES, &count) || count.type != SY__TIFF_LONG ||
        !sy__tiff_uint(&t, &count, &images) || images == 0)
        return 0;
    if (!sy__tiff_find(&t, &ifd, TAG_ENTRIES, &table) || table.type != SY__TIFF_UNDEFINED ||
        table.size != (uint64_t)images * ENTRY_BYTES || !sy__tiff_value(&t, &table))
        return 0;
    int64_t size = (int64_t)sy__tiff_u32(&t, table.value_at + 4) + delta;
    if (size <= 0 || size > UINT32_MAX) return 0;
    sy__tiff_put32(p + table.value_at + 4, (uint32_t)size, t.little_endian);
    return 1;
}

void sy__mpf_build(uint8_t out[SY__MPF_PAYLOAD_LEN], uint32_t primary_size, uint32_t map_size, uint32_t map_offset) {
    uint8_t table[2 * ENTRY_BYTES] = {0}; /* dependent-image entries stay 0 */
    sy__tiff_put32(table, 0x00030000u, 0); /* Baseline MP Primary Image, offset 0 */
    sy__tiff_put32(table + 4, primary_size, 0);
    sy__tiff_put32(table + ENTRY_BYTES + 4, map_size, 0); /* attribute 0 "Undefined": the gain map */
    sy__tiff_put32(table + ENTRY_BYTES + 8, map_offset, 0);
    sy__tiff_field fields[3] = {
        sy__tiff_field_bytes(TAG_VERSION, SY__TIFF_UNDEFINED, 4, (const uint8_t *)"0100"),
        sy__tiff_field_uint(TAG_IMAGES, SY__TIFF_LONG, 2, 0),
        sy__tiff_field_bytes(TAG_ENTRIES, SY__TIFF_UNDEFINED, sizeof table, table), /* right after the IFD */
    };
    uint8_t *tiff = out + 4;
    memcpy(out, "MPF\0", 4);
    sy__tiff_put_header(tiff, 0, 8); /* big-endian, IFD right after the header */
    sy__tiff_ifd_write(tiff, 8, fields, 3, 0, 0); /* no attribute IFD */
}
