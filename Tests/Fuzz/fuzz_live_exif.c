/* fuzz_content_id.c — libFuzzer harness for the Live photo Exif code
 * (live/content_id.c): the content identifier reader, the in-place remover and
 * the appending writer, on arbitrary TIFF bytes.
 *
 * Built and run by scripts/fuzz.sh (FUZZ_ONLY=live_exif); seeds in
 * Tests/Fuzz/seeds/live_exif (the Exif of one of our Live stills and of the
 * iPhone HEIC, as `exiftool -b -Exif` writes them). Invariants: removal keeps
 * the length and leaves no identifier; a successful write reads back the
 * identifier it wrote and can be removed again; no engine memory is left. */
#include <stdlib.h>

#include "fuzz_support.h"
#include "exif/sy_content_id.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char id[] = "0C0FFEE0-1234-4ABC-9DEF-00112233AABB";
    if (size > (1u << 20)) return 0;
    sy_context *ctx = fuzz_context((size_t)64 << 20);
    char found[SY__CONTENT_ID_LEN + 1];
    int had = sy__content_id_read(data, size, found);
    if (had && strlen(found) != SY__CONTENT_ID_LEN) abort();

    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) abort();
    memcpy(copy, data, size);
    int removed = sy__content_id_remove(copy, size);
    if (removed == 1 && sy__content_id_read(copy, size, found)) abort(); /* gone after removal */
    free(copy);

    uint8_t *out = NULL;
    size_t out_len = 0;
    sy_error err;
    if (sy__content_id_with(ctx, data, size, id, &out, &out_len, &err) == SY_OK) {
        if (!sy__content_id_read(out, out_len, found) || strcmp(found, id) != 0) abort();
        if (sy__content_id_remove(out, out_len) != 1 || sy__content_id_read(out, out_len, found)) abort();
        sy__free(ctx, out);
    } else if (out) {
        abort(); /* failure hands out nothing */
    }
    fuzz_require_released(ctx);
    return 0;
}
