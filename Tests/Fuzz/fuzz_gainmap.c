/* fuzz_gainmap.c — libFuzzer harness for the gain-map parsers (issue 7):
 * MPF APP2 index, hdrgm / Apple HDRGainMap XMP, the Apple MakerNote walk, the
 * ISO 21496-1 binary metadata (issue 16: what it accepts passes the range
 * checks and survives serialize -> parse), the XMP join, and
 * sy_gainmap_probe + sy_gainmap_decode on the input as a whole file, and the
 * organize fingerprint (its exact-content evidence folds the map in). A HEIF
 * map decodes the same through warm libavcodec contexts (one, or one per
 * worker) as through a fresh one per tile (sy__gainmap_decode_fresh_tiles),
 * pixels and errors.
 *
 * Built and run by scripts/fuzz.sh (FUZZ_ONLY=gainmap) from the seeds in
 * Tests/Fuzz/seeds/gainmap (tiny Ultra HDR JPEG, ISO-only HEIC, XMP packets). Every parser
 * must stay inside its buffer; a probe may fail only with a message; a decode
 * after a successful probe must give the size the probe announced or fail
 * cleanly; afterwards no engine memory may be left. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_support.h"
#include "gainmap/sy_gainmap_internal.h"
#include "sy_fingerprint.h"
#include "sy_gainmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether two decodes of one map agree: the same pixels, or the same failure
 * (a budget refusal may differ: kept contexts stay charged). */
static int same_map(sy_status as, const sy_gainmap_image *a, const sy_error *ae, sy_status bs,
                    const sy_gainmap_image *b, const sy_error *be) {
    if (as == SY_E_BUDGET || bs == SY_E_BUDGET) return 1;
    if (as != bs) return 0;
    if (as != SY_OK) return strcmp(ae->message, be->message) == 0;
    if (a->width != b->width || a->height != b->height || a->channels != b->channels) return 0;
    for (uint32_t y = 0; y < a->height; y++)
        if (memcmp(a->pixels + y * a->stride, b->pixels + y * b->stride, (size_t)a->width * a->channels)) return 0;
    return 1;
}

/* A HEIF map's tiles through warm libavcodec contexts — one (a collage's
 * decode) or one per worker (`whole`, sy_gainmap_decode's) — must give what
 * a fresh context per tile gives, pixels and errors. */
static void check_warm_tiles(sy_context *ctx, const char *path, const sy_gainmap_info *info, sy_status whole_st,
                             const sy_gainmap_image *whole, const sy_error *whole_err) {
    sy_gainmap_image warm, fresh;
    sy_error we, fe;
    memset(&we, 0, sizeof we), memset(&fe, 0, sizeof fe);
    sy_status ws = sy__gainmap_decode_reduced(ctx, path, info, 1, &warm, &we);
    sy_status fs = sy__gainmap_decode_fresh_tiles(ctx, path, info, 1, &fresh, &fe);
    if (!same_map(ws, &warm, &we, fs, &fresh, &fe)) abort(); /* one warm context differs from fresh ones */
    if (!same_map(whole_st, whole, whole_err, fs, &fresh, &fe)) abort(); /* the workers' differ */
    if (ws == SY_OK) sy_gainmap_image_free(ctx, &warm);
    if (fs == SY_OK) sy_gainmap_image_free(ctx, &fresh);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* the pure parsers on the raw bytes */
    sy__mpf_entry e[SY__MPF_MAX_IMAGES];
    int n = sy__mpf_parse(data, size, e, SY__MPF_MAX_IMAGES);
    if (n > SY__MPF_MAX_IMAGES) abort();
    sy_gainmap_params p;
    char why[160] = "";
    int r = sy__xmp_hdrgm_parse((const char *)data, size, &p, why, sizeof why);
    if (r > 0 && (!(p.gamma[0] > 0) || p.max_log2[0] < p.min_log2[0] || (p.channels != 1 && p.channels != 3))) abort();
    if (r < 0 && why[0] == 0) abort();
    uint32_t version;
    double headroom, m33, m48;
    sy__xmp_apple_parse((const char *)data, size, &version, &headroom);
    if (headroom != 0 && !(headroom >= 1)) abort();
    if (sy__apple_makernote_headroom(data, size, &m33, &m48) && !(isfinite(m33) && isfinite(m48))) abort();
    sy_gainmap_params iso, again;
    uint8_t flags = 0, built[SY__ISO21496_MAX_LEN];
    char iso_why[160] = "";
    int ir = sy__iso21496_parse(data, size, &iso, &flags, iso_why, sizeof iso_why);
    if (ir < 0 && iso_why[0] == 0) abort();
    if (ir > 0) {
        if (sy__gainmap_params_check(&iso, "fuzz", iso_why, sizeof iso_why) != 0) abort();
        size_t n = sy__iso21496_build(&iso, built);
        if (n > sizeof built || sy__iso21496_parse(built, n, &again, NULL, iso_why, sizeof iso_why) != 1) abort();
        if (fabs(again.max_log2[0] - iso.max_log2[0]) > 1e-3 * fmax(1, fabs(iso.max_log2[0])) ||
            again.channels != iso.channels)
            abort();
    }
    size_t xl = 0;
    const char *x = sy__jpeg_find_xmp(data, size, &xl);
    const uint8_t *il = NULL;
    size_t iln = 0;
    if ((il = sy__jpeg_find_iso21496(data, size, &iln)) != NULL && (il < data || il + iln > data + size)) abort();
    if (x && (x < (const char *)data || x + xl > (const char *)data + size)) abort();

    /* the whole-file probe and decode */
    const char *path = fuzz_input_path(data, size);
    if (!path) abort();
    sy_context *ctx = fuzz_context((size_t)64 << 20);
    size_t joined_len = 0;
    static const char add[] = "<x:xmpmeta><rdf:RDF><rdf:Description hdrgm:Version=\"1.0\"/></rdf:RDF></x:xmpmeta>";
    char *joined = sy__xmp_join(ctx, (const char *)data, size, add, sizeof add - 1, &joined_len, NULL);
    if (!joined || joined[joined_len] != 0) abort();
    sy__free(ctx, joined);
    sy_error err;
    memset(&err, 0, sizeof err);
    sy_gainmap_info info;
    sy_status st = sy_gainmap_probe(ctx, path, &info, &err);
    if (st != SY_OK && err.message[0] == 0) abort();
    if (st == SY_OK && info.kind != SY_GAINMAP_NONE && info.kind != SY_GAINMAP_UNINTERPRETABLE) {
        sy_gainmap_image img;
        memset(&err, 0, sizeof err);
        st = sy_gainmap_decode(ctx, path, &info, &img, &err);
        if (st == SY_OK && (img.width != info.map_width || img.height != info.map_height)) abort();
        if (st != SY_OK && err.message[0] == 0) abort();
        if (info.kind == SY_GAINMAP_APPLE_HEIC || info.kind == SY_GAINMAP_ISO_HEIC)
            check_warm_tiles(ctx, path, &info, st, &img, &err);
        sy_gainmap_image_free(ctx, &img);
    }
    /* the organize fingerprint folds the map into its evidence (gainmap_evidence.c) */
    sy_fingerprint fp;
    memset(&err, 0, sizeof err);
    st = sy_fingerprint_file(ctx, path, &fp, &err);
    if (st != SY_OK && err.message[0] == 0) abort();
    if (st == SY_OK && strlen(fp.pixel_sha256) != 64) abort();
    fuzz_require_released(ctx);
    return 0;
}
