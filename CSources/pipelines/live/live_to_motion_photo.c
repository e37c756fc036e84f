/* live_to_motion_photo.c — a Live pair converted into an Android Motion Photo
 * (sy_live.h, SPEC S3). The movie is remuxed into an MP4 (video samples
 * copied, LPCM sound encoded as AAC, AAC sound copied, the Apple identifier and still-image-time track left out); the
 * still keeps its bytes with only the identifier removed (in place, same
 * length: sy_live_still_strip), unless the caller asked for the other format,
 * when it is re-encoded as a still edit is (gain map kept, SPEC E6). JPEG:
 * XMP Motion Photo claims + the MP4 appended (live/sy_live_motion.h). HEIC:
 * the MP4 as the payload of a top-level `mpvd` box after the still's boxes,
 * the form Samsung writes and sy_motion_photo_probe reads. Side files are
 * named after the output (swept like its temp files) and removed. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/sy_fourcc.h"
#include "base/sy_input.h"
#include "base/sy_internal.h"
#include "base/sy_output.h"
#include "exif/sy_exif.h"
#include "heif/sy_heif_metadata.h"
#include "heif/sy_heif_metadata_swap.h"
#include "live/sy_live_motion.h"
#include "live/sy_live_movie.h"
#include "live/sy_live_still_job.h"
#include "sy_gainmap.h"
#include "sy_live.h"
#include "sy_mov.h"
#include "sy_still.h"

void sy_motion_photo_options_init(sy_motion_photo_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
    opts->quality = 98; /* as Motion Photo -> Live: >= 50 dB on the sample scene */
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

static uint32_t output_container(const char *path) {
    if (ends_with(path, ".jpg") || ends_with(path, ".jpeg")) return SY_FOURCC('j', 'p', 'e', 'g');
    if (ends_with(path, ".heic") || ends_with(path, ".heif")) return SY_FOURCC('h', 'e', 'i', 'c');
    return 0;
}

/* The still in the output's format: its own bytes without the identifier, or re-encoded when asked. */
static sy_status prepare_still(sy_context *ctx, const char *still, uint32_t want, const sy_motion_photo_options *o,
                               const char *side, sy_motion_photo_report *rep, sy_error *err) {
    sy_image_info info;
    sy_status st = sy_image_probe_whole(ctx, still, &info, err); /* its bytes may be kept: all of them there */
    if (st != SY_OK) return st;
    rep->still_width = info.width, rep->still_height = info.height;
    uint32_t have = info.format == SY_FORMAT_JPEG ? SY_FOURCC('j', 'p', 'e', 'g')
                    : info.format == SY_FORMAT_HEIF ? SY_FOURCC('h', 'e', 'i', 'c') : 0;
    if (!have) return sy__fail(err, SY_E_UNSUPPORTED, "%s: a Motion Photo's still is a JPEG or a HEIC", still);
    if (have == want) { /* its own bytes, a gain map in them kept as it was */
        st = sy_live_still_strip(ctx, still, side, &rep->identifier_removed, err);
        sy_gainmap_info gm;
        if (st == SY_OK && sy_gainmap_probe(ctx, side, &gm, NULL) == SY_OK && gm.kind != SY_GAINMAP_NONE)
            rep->still_hdr = SY_HDR_KEPT;
        return st;
    }
    if (!o->reencode_still)
        return sy__fail(err, SY_E_UNSUPPORTED,
                        "%s: the still is a %s; write a .%s Motion Photo (the still's own bytes) or ask for the "
                        "still to be re-encoded",
                        still, have == SY_FOURCC('j', 'p', 'e', 'g') ? "JPEG" : "HEIC",
                        have == SY_FOURCC('j', 'p', 'e', 'g') ? "jpg" : "heic");
    sy_still_format format = want == SY_FOURCC('j', 'p', 'e', 'g') ? SY_STILL_JPEG : SY_STILL_HEIC;
    sy__hdr_decision hdr;
    st = sy__hdr_decide_or_refuse(ctx, still, SY__HDR_SAVE_CARRIES_MAP, format, o->allow_sdr, "the re-encoded still",
                                  NULL, &hdr, err);
    if (st != SY_OK) return st;
    sy_recipe identity;
    sy_recipe_init(&identity);
    sy_gainmap_edit_report gr;
    /* no identifier: the edit job leaves the source's out */
    st = sy__live_write_edited_still(ctx, still, &identity, format, o->quality, 0, NULL, &hdr, side, &gr, err);
    sy__hdr_decision_free(ctx, &hdr);
    rep->still_reencoded = 1;
    rep->still_hdr = gr.outcome;
    rep->still_width = gr.edit.width, rep->still_height = gr.edit.height;
    rep->identifier_removed = 1;
    return st;
}

/* The movie as an MP4: every video sample copied, LPCM sound (iPhones')
 * encoded as AAC — Android's MediaExtractor does not play LPCM in MP4 —
 * and AAC copied, the Live-only metadata left out. */
static sy_status remux_movie(sy_context *ctx, const char *movie, const char *mp4, sy_motion_photo_report *rep,
                             sy_error *err) {
    static const char *const drop[] = {SY__LIVE_CONTENT_ID_KEY};
    sy_video_metadata_plan plan = {.drop = drop, .drop_count = 1};
    sy_video_transcode_options to;
    sy_video_transcode_options_init(&to);
    to.container = SY_FOURCC('i', 's', 'o', 'm');
    to.copy_video = 1;
    to.aac_audio = 1;
    to.metadata = &plan; /* timed-metadata tracks (the still-image time) are never copied */
    return sy_video_transcode(ctx, movie, mp4, &to, &rep->movie, err);
}

/* The still's XMP item with the Motion Photo properties added (Camera:
 * MotionPhoto, the presentation timestamp, a Container:Directory whose
 * MotionPhoto item is the MP4 — the file's last bytes, as readers of the
 * directory expect, inside the `mpvd` box readers of Samsung's form look
 * for), written by repointing that item (sy__heif_copy_with_metadata).
 * *wrote = 0 and nothing written when the still has no XMP item or cannot
 * be patched so: the caller copies it as it is (no timestamp). */
static sy_status heic_with_xmp(sy_context *ctx, const char *still, uint64_t still_len, int64_t presentation_us,
                               uint64_t movie_len, const char *output, FILE *out, int *wrote, sy_error *err) {
    *wrote = 0;
    sy__metadata md;
    sy_status st = sy__heif_metadata_read(ctx, still, &md, err);
    if (st != SY_OK) return st;
    uint8_t *xmp = NULL;
    size_t xmp_len = 0;
    sy_error why = {0};
    if (md.xmp && sy__xmp_with_motion_photo(ctx, md.xmp, md.xmp_len, "image/heic", presentation_us, 0, movie_len, &xmp,
                                            &xmp_len, &why) == SY_OK) {
        long at = ftell(out);
        st = sy__heif_copy_with_metadata(ctx, still, still_len, NULL, 0, xmp, xmp_len, out, output, &why);
        if (st == SY_OK) {
            *wrote = 1;
        } else if (st == SY_E_UNSUPPORTED && at >= 0 && fseek(out, at, SEEK_SET) == 0) {
            st = SY_OK; /* nothing patched: start over with the plain copy */
        } else if (err) {
            *err = why;
        }
    }
    sy__free(ctx, xmp);
    sy__metadata_free(ctx, &md);
    return st;
}

/* HEIC: the still's boxes (its XMP item carrying the Motion Photo properties
 * where it has one), then `mpvd` holding the MP4. */
static sy_status write_heic(sy_context *ctx, const char *still, const char *mp4, int64_t presentation_us,
                            const char *output, sy__output *out, uint64_t *movie_offset, int *xmp_written,
                            sy_error *err) {
    FILE *f[2] = {NULL, NULL};
    const char *paths[2] = {still, mp4};
    uint64_t len[2];
    sy_status st = SY_OK;
    for (int i = 0; i < 2 && st == SY_OK; i++)
        if ((st = sy__input_open(paths[i], &f[i], err)) == SY_OK) {
            fseeko(f[i], 0, SEEK_END);
            len[i] = (uint64_t)ftello(f[i]);
            fseeko(f[i], 0, SEEK_SET);
        }
    uint8_t buf[1 << 16];
    *xmp_written = 0;
    if (st == SY_OK)
        st = heic_with_xmp(ctx, still, len[0], presentation_us, len[1], output, out->file, xmp_written, err);
    if (st == SY_OK && *xmp_written) len[0] = (uint64_t)ftello(out->file); /* the still as written */
    for (int i = *xmp_written ? 1 : 0; i < 2 && st == SY_OK; i++) {
        if (i == 1) { /* a 64-bit box size when the movie needs one */
            uint64_t size = len[1] + 8;
            uint8_t h[16];
            size_t hn = 8;
            if (size > UINT32_MAX) {
                size += 8, hn = 16;
                h[0] = h[1] = h[2] = 0, h[3] = 1;
                for (int b = 0; b < 8; b++) h[8 + b] = (uint8_t)(size >> (56 - 8 * b));
            } else {
                for (int b = 0; b < 4; b++) h[b] = (uint8_t)(size >> (24 - 8 * b));
            }
            memcpy(h + 4, "mpvd", 4);
            if (fwrite(h, 1, hn, out->file) != hn) st = sy__write_failed(err, output);
            *movie_offset = len[0] + hn;
        }
        size_t n;
        while (st == SY_OK && (n = fread(buf, 1, sizeof buf, f[i])) > 0)
            if (fwrite(buf, 1, n, out->file) != n) st = sy__write_failed(err, output);
    }
    for (int i = 0; i < 2; i++)
        if (f[i]) fclose(f[i]);
    return st;
}

static sy_status convert(sy_context *ctx, const char *still, const char *movie, const char *output, uint32_t want,
                         const sy_motion_photo_options *o, const char *side_still, const char *side_movie,
                         const char *side_out, sy_motion_photo_report *rep, sy_error *err) {
    sy_live_movie_info mi;
    sy_status st = sy_live_movie_read(ctx, movie, &mi, err);
    if (st != SY_OK) return st;
    char still_id[SY_LIVE_ID_LEN + 1] = "";
    int found = 0;
    if ((st = sy_live_still_read_id(ctx, still, still_id, &found, err)) != SY_OK) return st;
    if (found && mi.has_identifier && strcmp(still_id, mi.content_identifier) != 0)
        return sy__fail(err, SY_E_INVALID_INPUT, "%s and %s are not one Live photo: their content identifiers differ",
                        still, movie);
    rep->presentation_us = mi.has_still_time ? (int64_t)(mi.still_time * 1e6 + 0.5) : -1;
    if ((st = prepare_still(ctx, still, want, o, side_still, rep, err)) != SY_OK) return st;
    if ((st = remux_movie(ctx, movie, side_movie, rep, err)) != SY_OK) return st;
    /* Written under a side name, read back, then renamed over `output`: a
     * file that fails the check never replaces one that was there. */
    if (want == SY_FOURCC('j', 'p', 'e', 'g')) {
        st = sy__motion_photo_jpeg_write(ctx, side_still, side_movie, rep->presentation_us, side_out,
                                         &rep->movie_offset, err);
        rep->xmp_written = st == SY_OK;
    } else {
        sy__output out = {0};
        st = sy__output_open(ctx, side_out, &out, err);
        if (st == SY_OK)
            st = write_heic(ctx, side_still, side_movie, rep->presentation_us, output, &out, &rep->movie_offset,
                            &rep->xmp_written, err);
        if (st == SY_OK) st = sy__output_commit(&out, err);
        else if (out.file) sy__output_abort(&out);
    }
    if (st != SY_OK) return st;
    rep->movie_length = rep->movie.bytes_written;
    /* read back: our reader finds that movie, and no identifier is left on the still */
    sy_motion_photo_info mp;
    if ((st = sy_motion_photo_probe(ctx, side_out, &mp, err)) == SY_OK &&
        (mp.container != want || mp.movie_offset != rep->movie_offset || mp.movie_length != rep->movie_length))
        st = sy__fail(err, SY_E_CODEC, "%s: the written Motion Photo does not locate its movie", output);
    if (st == SY_OK) st = sy_live_still_read_id(ctx, side_out, still_id, &found, err);
    if (st == SY_OK && found) st = sy__fail(err, SY_E_CODEC, "%s: a content identifier survived", output);
    if (st == SY_OK && rename(side_out, output) != 0) {
        int e = errno;
        st = sy__fail_sub(err, SY_E_IO, e, "%s: cannot be written: %s", output, strerror(e));
    }
    return st;
}

sy_status sy_motion_photo_from_live(sy_context *ctx, const char *still, const char *movie, const char *output,
                                    const sy_motion_photo_options *opts, sy_motion_photo_report *report,
                                    sy_error *err) {
    if (!ctx || !still || !movie || !output || !report)
        return sy__fail(err, SY_E_USAGE, "sy_motion_photo_from_live: NULL argument");
    memset(report, 0, sizeof *report);
    sy_motion_photo_options defaults;
    if (!opts) sy_motion_photo_options_init(&defaults), opts = &defaults;
    if (opts->version != 1) return sy__fail(err, SY_E_USAGE, "sy_motion_photo_from_live: options version %u", opts->version);
    uint32_t want = output_container(output);
    if (!want) return sy__fail(err, SY_E_USAGE, "%s: a Motion Photo is written as .jpg or .heic", output);
    report->container = want;
    const char *inputs[] = {still, movie};
    sy_status st = sy__output_check(output, inputs, 2, err);
    if (st != SY_OK) return st;
    size_t cap = strlen(output) + 48;
    char *side_still = sy__alloc(ctx, cap, 1, "side name", err), *side_movie = sy__alloc(ctx, cap, 1, "side name", err);
    char *side_out = sy__alloc(ctx, cap, 1, "side name", err);
    if (!side_still || !side_movie || !side_out) {
        st = err ? err->code : SY_E_BUDGET;
    } else {
        sy__output_side_name(output, side_still, cap);
        sy__output_side_name(output, side_movie, cap);
        sy__output_side_name(output, side_out, cap);
        st = convert(ctx, still, movie, output, want, opts, side_still, side_movie, side_out, report, err);
        unlink(side_still);
        unlink(side_movie);
        unlink(side_out); /* renamed away on success */
    }
    sy__free(ctx, side_still);
    sy__free(ctx, side_movie);
    sy__free(ctx, side_out);
    return st;
}
