/* exif_fit.c — an Exif block rebuilt to fit a size limit (sy_exif.h).
 *
 * A JPEG holds Exif in one APP1 segment (< 64 KB), while HEIC and PNG do
 * not limit it: a Xiaomi HEIC carries ~1 MB of Exif (mostly MakerNote), so
 * saving it as JPEG must shed something, never fail. The rebuild keeps the
 * standard structure — IFD0, the Exif, GPS and Interoperability IFDs — and
 * sheds, in this order, until the result fits: IFD1 and any later IFDs (the
 * embedded thumbnail, stale after an edit anyway), the MakerNote, then
 * every value longer than SY__EXIF_FIT_LARGE_VALUE bytes. Each step is
 * reported in `dropped`. Values are copied to a fresh layout (one IFD after
 * another, each followed by its data area), so offsets inside a vendor
 * MakerNote that count from the file start no longer hold — one more reason
 * it goes second. */
#include <string.h>

#include "exif/sy_exif.h"

#define TAG_MAKERNOTE 0x927C
#define SY__EXIF_FIT_LARGE_VALUE 4096u

enum { IFD0, EXIF, GPS, INTEROP, IFD_KINDS };

typedef struct fit_ifd {
    sy__tiff_ifd src;
    int present;
    sy__tiff_field *fields;
    uint32_t n;
    uint64_t at, size;
} fit_ifd;

typedef struct fit_plan {
    int drop_makernote;
    uint64_t max_value; /* 0 = no limit */
} fit_plan;

/* The IFD kind a pointer tag of `kind` names, or -1 when the tag is no sub-IFD pointer. */
static int pointer_target(int kind, uint16_t tag) {
    if (kind == IFD0 && tag == SY__TIFF_TAG_EXIF_IFD) return EXIF;
    if (kind == IFD0 && tag == SY__TIFF_TAG_GPS_IFD) return GPS;
    if (kind == EXIF && tag == SY__TIFF_TAG_INTEROP_IFD) return INTEROP;
    return -1;
}

/* The fields of one source IFD that the plan keeps; pointer tags are kept
 * as placeholders and patched once the layout is known. */
static void collect(const sy__tiff *t, int kind, const fit_plan *plan, fit_ifd ifds[IFD_KINDS],
                    uint32_t *shed_large, uint32_t *shed_makernote) {
    fit_ifd *ifd = &ifds[kind];
    ifd->n = 0;
    for (uint32_t i = 0; i < ifd->src.count; i++) {
        sy__tiff_entry e;
        sy__tiff_entry_at(t, &ifd->src, i, &e);
        int target = pointer_target(kind, e.tag);
        if (target >= 0) { /* kept when the IFD it names is: patched once the layout is known */
            if (ifds[target].present)
                ifd->fields[ifd->n++] = sy__tiff_field_uint(e.tag, SY__TIFF_LONG, 0, t->little_endian);
            continue;
        }
        if (kind == EXIF && e.tag == TAG_MAKERNOTE && plan->drop_makernote) {
            (*shed_makernote)++;
            continue;
        }
        if (e.size == 0) continue; /* unknown type: nothing a reader could use */
        if (plan->max_value && e.size > plan->max_value) {
            (*shed_large)++;
            continue;
        }
        if (e.size <= 4) {
            ifd->fields[ifd->n++] = sy__tiff_field_copy(t, &e);
            continue;
        }
        const uint8_t *value = sy__tiff_value(t, &e);
        if (!value) continue; /* points outside the block: already unreadable */
        ifd->fields[ifd->n++] = sy__tiff_field_bytes(e.tag, e.type, e.count, value);
    }
}

static void patch_pointers(fit_ifd ifds[IFD_KINDS], int kind, int le) {
    for (uint32_t i = 0; i < ifds[kind].n; i++) {
        int target = pointer_target(kind, ifds[kind].fields[i].tag);
        if (target >= 0) sy__tiff_put32(ifds[kind].fields[i].value, (uint32_t)ifds[target].at, le);
    }
}

/* Size of the rebuilt block under `plan`; fills the layout. */
static uint64_t lay_out(const sy__tiff *t, fit_ifd ifds[IFD_KINDS], const fit_plan *plan, uint32_t *shed_large,
                        uint32_t *shed_makernote) {
    *shed_large = *shed_makernote = 0;
    uint64_t at = 8;
    for (int k = 0; k < IFD_KINDS; k++) {
        if (!ifds[k].present) continue;
        collect(t, k, plan, ifds, shed_large, shed_makernote);
    }
    int le = t->little_endian;
    /* Pointers are inline LONGs, so sizes do not depend on where IFDs go. */
    for (int k = 0; k < IFD_KINDS; k++) {
        if (!ifds[k].present) continue;
        sy__tiff_fields_sort(ifds[k].fields, ifds[k].n);
        ifds[k].at = at;
        ifds[k].size = sy__tiff_ifd_size(ifds[k].fields, ifds[k].n);
        at = (at + ifds[k].size + 3) & ~(uint64_t)3;
    }
    patch_pointers(ifds, IFD0, le);
    if (ifds[EXIF].present) patch_pointers(ifds, EXIF, le);
    return at;
}

sy_status sy__exif_fit(sy_context *ctx, const uint8_t *tiff, size_t len, size_t limit, uint8_t **out,
                       size_t *out_len, uint32_t *dropped, sy_error *err) {
    *out = NULL;
    *out_len = 0;
    *dropped = 0;
    sy__tiff t;
    fit_ifd ifds[IFD_KINDS];
    memset(ifds, 0, sizeof ifds);
    if (!sy__tiff_open(&t, tiff, len) || !sy__tiff_ifd0(&t, &ifds[IFD0].src))
        return sy__fail(err, SY_E_INVALID_INPUT, "exif: the block has no readable IFD0");
    ifds[IFD0].present = 1;
    ifds[EXIF].present = sy__tiff_sub_ifd(&t, &ifds[IFD0].src, SY__TIFF_TAG_EXIF_IFD, &ifds[EXIF].src) == 1;
    ifds[GPS].present = sy__tiff_sub_ifd(&t, &ifds[IFD0].src, SY__TIFF_TAG_GPS_IFD, &ifds[GPS].src) == 1;
    ifds[INTEROP].present = ifds[EXIF].present &&
                            sy__tiff_sub_ifd(&t, &ifds[EXIF].src, SY__TIFF_TAG_INTEROP_IFD, &ifds[INTEROP].src) == 1;
    size_t total_entries = 0;
    for (int k = 0; k < IFD_KINDS; k++) total_entries += ifds[k].present ? ifds[k].src.count : 0;
    sy__tiff_field *pool = sy__alloc(ctx, total_entries + 1, sizeof *pool, "exif fit fields", err);
    if (!pool) return err ? err->code : SY_E_BUDGET;
    size_t used = 0;
    for (int k = 0; k < IFD_KINDS; k++) {
        ifds[k].fields = pool + used;
        used += ifds[k].present ? ifds[k].src.count : 0;
    }
    if (sy__tiff_next_ifd(&t, &ifds[IFD0].src)) *dropped |= SY__EXIF_FIT_THUMBNAIL;

    static const fit_plan plans[] = {{0, 0}, {1, 0}, {1, SY__EXIF_FIT_LARGE_VALUE}};
    uint64_t size = 0;
    uint32_t shed_large = 0, shed_makernote = 0;
    size_t p = 0;
    for (; p < sizeof plans / sizeof plans[0]; p++) {
        size = lay_out(&t, ifds, &plans[p], &shed_large, &shed_makernote);
        if (size <= limit) break;
    }
    sy_status st = SY_OK;
    if (p == sizeof plans / sizeof plans[0]) {
        st = sy__fail(err, SY_E_UNSUPPORTED, "exif: %llu bytes of standard tags do not fit in %zu",
                      (unsigned long long)size, limit);
    } else {
        uint8_t *buf = sy__calloc(ctx, (size_t)size, 1, "fitted exif", err);
        if (!buf) {
            st = err ? err->code : SY_E_BUDGET;
        } else {
            sy__tiff_put_header(buf, t.little_endian, 8);
            for (int k = 0; k < IFD_KINDS; k++)
                if (ifds[k].present) sy__tiff_ifd_write(buf, (size_t)ifds[k].at, ifds[k].fields, ifds[k].n, 0,
                                                        t.little_endian);
            if (shed_makernote) *dropped |= SY__EXIF_FIT_MAKERNOTE;
            if (shed_large) *dropped |= SY__EXIF_FIT_LARGE_VALUES;
            *out = buf;
            *out_len = (size_t)size;
        }
    }
    sy__free(ctx, pool);
    return st;
}
