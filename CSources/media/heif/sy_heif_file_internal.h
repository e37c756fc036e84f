/* heif_file_internal.h — engine-private extras of the HEIF structure reader
 * (heif_file.c) for the tile decoder and the writer's tests. */
#ifndef SY_HEIF_FILE_INTERNAL_H
#define SY_HEIF_FILE_INTERNAL_H

#include "heif/sy_heif.h"

/** Limits of the structure reader. */
#define SY__HEIF_META_CAP (64u << 20)   /* whole `meta` box */
#define SY__HEIF_ITEM_CAP (256u << 20)  /* one item's payload */
#define SY__HEIF_MAX_EXTENTS (1u << 20) /* all iloc extents together */
#define SY__HEIF_MAX_GRID_SIDE 65535u   /* grid output width / height */

/** Targets of the first `type` reference (e.g. 'dimg', 'auxl', 'prem', 'base')
 *  from item `from_id`, in file order; NULL (*count = 0) when none. Ids may name
 *  items that do not exist (sy_heif_item returns NULL for them). Borrowed. */
const uint32_t *sy__heif_references(const sy_heif_file *file, uint32_t from_id, uint32_t type, uint32_t *count);

/** File size and the `major_brand` of `ftyp`. */
uint64_t sy__heif_file_size(const sy_heif_file *file);
uint32_t sy__heif_major_brand(const sy_heif_file *file);

#endif
