/* fuzz_motion_photo.c — libFuzzer harness for the Motion Photo locator
 * (sy_motion_photo_probe: the JPEG header walk, the XMP Motion Photo reader,
 * the HEIF top-level walk for `mpvd`) and, when it finds a movie, the
 * demuxer opening that embedded window; for a HEIC one, the metadata
 * rewrite that keeps its still (sy__heif_copy_with_metadata: the iloc walk
 * and patch). Invariants: a found movie lies inside the file, after the
 * still, and sy_mov_open agrees on where it is; a rewrite that succeeds
 * writes exactly the kept bytes plus one mdat of the new payloads.
 * Built and run by scripts/fuzz.sh (FUZZ_ONLY=motion_photo); seeds: tiny
 * JPEG and HEIC Motion Photos in Tests/Fuzz/seeds/motion_photo, keywords in
 * Tests/Fuzz/motion_photo.dict (Samsung's SEF trailer included). */
#include <sys/stat.h>

#include "fuzz_support.h"
#include "heif/sy_heif_metadata_swap.h"
#include "sy_mov.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    fuzz_make_corpus_dirs(*argc, *argv, "motion_photo");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_input_path(data, size);
    if (!path) return 0;
    sy_context *ctx = fuzz_context(64u << 20);
    sy_motion_photo_info mp;
    sy_error err;
    if (sy_motion_photo_probe(ctx, path, &mp, &err) == SY_OK && mp.container) {
        if (mp.movie_offset > size || mp.movie_length > size - mp.movie_offset || mp.movie_length < 16 ||
            mp.still_length > mp.movie_offset)
            __builtin_trap();
        if (mp.container == 0x68656963u /* 'heic' */) {
            static const uint8_t tiff[] = {'M', 'M', 0, 42, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0};
            static const uint8_t xmp[] = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/>";
            FILE *out = tmpfile();
            if (out) {
                sy_status st = sy__heif_copy_with_metadata(ctx, path, mp.still_length, tiff, sizeof tiff, xmp,
                                                           sizeof xmp - 1, out, "fuzz-out", &err);
                long written = ftell(out);
                /* 8 (mdat header) + 4..64 (the Exif item's header) + both payloads */
                if (st == SY_OK && (written < (long)(mp.still_length + 8 + 4 + sizeof tiff + sizeof xmp - 1) ||
                                    written > (long)(mp.still_length + 8 + 64 + sizeof tiff + sizeof xmp - 1)))
                    __builtin_trap();
                fclose(out);
            }
        }
        sy_mov *mov = NULL;
        if (sy_mov_open(ctx, path, &mov, &err) == SY_OK) {
            const sy_mov_info *info = sy_mov_info_get(mov);
            if (info->embedded_in != mp.container || info->embedded_offset != mp.movie_offset ||
                info->file_size != mp.movie_length)
                __builtin_trap();
            for (uint32_t t = 0; t < sy_mov_track_count(mov); t++) {
                sy_mov_sample_info si;
                if (sy_mov_sample(mov, t, 0, &si, &err) == SY_OK && si.size <= 4096) {
                    uint8_t buf[4096];
                    size_t len;
                    (void)sy_mov_read_sample(mov, t, 0, buf, sizeof buf, &len, &err);
                }
            }
            sy_mov_close(mov);
        }
    }
    fuzz_require_released(ctx);
    return 0;
}
