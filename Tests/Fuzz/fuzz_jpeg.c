/* fuzz_jpeg.c — libFuzzer harness for the JPEG reader: header probe (Exif
 * orientation included), the whole-file probe (markers and scans walked to
 * the end-of-image marker), the metadata a save carries (Exif, XMP and the
 * extended XMP its note names, reassembled from APP1 chunks; ICC; IPTC), the
 * XMP split again as a JPEG save splits a packet past one APP1, and
 * what a HEIC save keeps of it (the extension joined into one packet), then
 * a scaled decode through the cell builder (DCT scaling, the renderer over a
 * sliding row window, orientation, 4:2:0 store). Built by scripts/fuzz.sh. */
#include "fuzz_support.h"
#include "base/sy_internal.h"
#include "jpeg/sy_jpeg_source.h"
#include "collage/sy_cell.h"
#include "still/sy_metadata.h"
#include "sy_still.h"

/* The packet split as a JPEG save splits one past its APP1 (exif/xmp_split.c), here at half its size so
 * every packet is split; every byte of both parts read. */
static uint32_t split_xmp(sy_context *ctx, const sy__metadata *md) {
    sy__xmp_split split;
    sy_error err;
    uint32_t sum = 0;
    if (md->xmp && sy__xmp_split_for_jpeg(ctx, md->xmp, md->xmp_len, md->xmp_len / 2, &split, &err) == SY_OK) {
        for (size_t i = 0; i < split.main_len; i++) sum += split.main[i];
        for (size_t i = 0; i < split.ext_len; i++) sum += split.ext[i];
        sy__xmp_split_free(ctx, &split);
    }
    return sum;
}

/* The markers' metadata as a save reads it; every byte of the extension read. */
static void read_metadata(sy_context *ctx, const char *path, const sy_image_info *info) {
    sy__metadata md;
    sy_error err;
    uint32_t dropped = 0, sum = 0;
    if (sy__metadata_read(ctx, path, info, &md, &err) == SY_OK) {
        for (size_t i = 0; i < md.xmp_ext_len; i++) sum += md.xmp_ext[i];
        sum += split_xmp(ctx, &md);
        (void)sy__metadata_for_output(ctx, &md, SY_STILL_HEIC, &dropped, &err);
    }
    sy__metadata_free(ctx, &md);
    if (sum == 0xFFFFFFFFu) fprintf(stderr, "unlikely\n");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_input_path(data, size);
    if (!path) return 0;
    sy_context *ctx = fuzz_context(256u << 20);
    sy_image_info info;
    sy_error err;
    (void)sy_image_probe_whole(ctx, path, &info, &err);
    int jpeg = sy_image_probe(ctx, path, &info, &err) == SY_OK && info.format == SY_FORMAT_JPEG;
    if (jpeg) read_metadata(ctx, path, &info);
    if (jpeg && (uint64_t)info.stored_width * info.stored_height <= 4096u * 4096u) {
        sy__cell cell = {0};
        uint32_t sum = 0;
        for (uint32_t chroma_shift = 0; chroma_shift < 2; chroma_shift++) {
            if (sy__cell_build(ctx, path, &info, 64, 48, chroma_shift, 1, SY__RGB_SRGB, NULL, &cell, NULL, &err) == SY_OK) {
                for (size_t i = 0; i < cell.bytes; i++) sum += cell.plane[0][i]; /* read every byte */
                sy__cell_release(ctx, &cell);
            }
        }
        if (sum == 0xFFFFFFFFu) fprintf(stderr, "unlikely\n");
    }
    fuzz_require_released(ctx);
    return 0;
}
