/* edit.c — sy_edit: decode upright, render with the one renderer, write with
 * the source's metadata (see sy_edit.h). The job keeps the decoded source so
 * a caller can inspect what the decode produced (SPEC E7) before writing. */
#include <math.h>
#include <string.h>

#include "base/sy_icc.h"
#include "base/sy_output.h"
#include "exif/sy_content_id.h"
#include "exif/sy_exif.h"
#include "gainmap/sy_gainmap_internal.h"
#include "heif/sy_heif_metadata.h"
#include "jpeg/sy_jpeg_writer.h"
#include "render/sy_render_held.h"
#include "render/sy_render_internal.h"
#include "edit/sy_band_pool.h"
#include "edit/sy_edit_internal.h"
#include "edit/sy_edit_thumbnail.h"

struct sy_edit_job {
    sy_context *ctx;
    sy_edit_options opts;
    char *input;                /* engine copy, for decoding again on retarget */
    sy_image_info info;
    sy__file_stamp stamp;       /* SY_EDIT_IDENTIFY_SOURCE: the file as hashed */
    sy__metadata md;
    sy__upright src;
    uint32_t decode_min_w, decode_min_h; /* what src was decoded for (0 x 0 = full size) */
    sy_renderer *renderer;
    int retargeted;             /* a preview session: its in-memory renders keep the grid */
    sy__held_grid *held;        /* the downscale grid of src for the current geometry, or NULL */
    sy_recipe geometry;         /* the planned recipe's geometry, for a gain map */
    sy_edit_report report;
    uint32_t thumbnail_side;    /* a HEIC save renders the source's 'thmb' anew at this longer side; 0 = none */
    int display_p3;             /* the pixels are Display P3: a border colour (given in sRGB) is coded in it */
};

void sy_edit_options_init(sy_edit_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
    opts->format = SY_STILL_JPEG;
    opts->quality = 90;
}

void sy_edit_close(sy_edit_job *job) {
    if (!job) return;
    sy_context *ctx = job->ctx;
    sy_renderer_destroy(job->renderer);
    sy__held_grid_free(ctx, job->held);
    sy__upright_free(ctx, &job->src);
    sy__metadata_free(ctx, &job->md);
    sy__free(ctx, job->input);
    sy__free(ctx, job);
}

static sy_status check_options(const sy_edit_options *o, sy_error *err) {
    if (o->version != 1) return sy__fail(err, SY_E_USAGE, "sy_edit: options version %u, expected 1", o->version);
    if (o->format != SY_STILL_JPEG && o->format != SY_STILL_PNG && o->format != SY_STILL_HEIC)
        return sy__fail(err, SY_E_USAGE, "sy_edit: unknown output format %d", (int)o->format);
    if (o->quality < 1 || o->quality > 100)
        return sy__fail(err, SY_E_USAGE, "sy_edit: quality %d is outside 1..100", o->quality);
    if (o->threads > 8) return sy__fail(err, SY_E_USAGE, "sy_edit: threads %u is above 8", o->threads);
    if (o->flags & ~(uint32_t)(SY_EDIT_FULL_DECODE | SY_EDIT_IDENTIFY_SOURCE | SY_EDIT_ALLOW_SDR))
        return sy__fail(err, SY_E_USAGE, "sy_edit: unknown flags 0x%x", o->flags);
    return SY_OK;
}

/* A "cube:<path>" filter becomes the recipe's user LUT (*lut owns it). */
static sy_status resolve_cube(sy_context *ctx, sy_recipe *r, sy_lut **lut, sy_error *err) {
    const size_t plen = sizeof SY_EDIT_CUBE_PREFIX - 1;
    if (!r->filter_id || strncmp(r->filter_id, SY_EDIT_CUBE_PREFIX, plen) != 0) return SY_OK;
    const char *path = r->filter_id + plen;
    if (!*path) return sy__fail(err, SY_E_USAGE, "sy_recipe: filter.id \"cube:\" names no .cube file");
    if (r->filter_lut) return sy__fail(err, SY_E_USAGE, "sy_recipe: filter.id '%.64s' and a user LUT are both set", r->filter_id);
    sy_status st = sy_lut_load_cube(ctx, path, lut, err);
    if (st != SY_OK) return st;
    r->filter_id = NULL;
    r->filter_lut = *lut;
    return SY_OK;
}

/* Upright decode size for a target of tw x th: full size, unless the target
 * is at most half the native output on both axes; then the smallest size
 * keeping 2 decoded pixels per target pixel (see sy_edit.h). */
static void decode_size(const sy_image_info *info, uint32_t tw, uint32_t th, uint32_t nw, uint32_t nh,
                        uint32_t flags, uint32_t *min_w, uint32_t *min_h) {
    *min_w = *min_h = 0; /* full size */
    double k = fmax((double)tw / nw, (double)th / nh);
    if ((flags & SY_EDIT_FULL_DECODE) || 2 * k >= 1) return;
    *min_w = (uint32_t)ceil(info->width * 2 * k - 1e-9);
    *min_h = (uint32_t)ceil(info->height * 2 * k - 1e-9);
    if (*min_w < 1) *min_w = 1;
    if (*min_h < 1) *min_h = 1;
}

static void report_metadata(sy_edit_report *rep, const sy__metadata *md) {
    rep->kept_exif = md->exif != NULL;
    rep->kept_gps = md->exif && sy__exif_has_gps(md->exif, md->exif_len);
    rep->kept_capture_date = (uint8_t)sy__capture_date(md->exif, md->exif_len, md->xmp, md->xmp_len, rep->capture_date);
    rep->kept_xmp = md->xmp != NULL;
    rep->kept_icc = md->icc != NULL;
}

static sy_status same_stamp(const char *path, const sy__file_stamp *before, sy_error *err) {
    sy__file_stamp after;
    sy_status st = sy__file_stamp_path(path, &after, err);
    if (st != SY_OK) return st;
    if (after.dev != before->dev || after.ino != before->ino || after.size != before->size ||
        after.mtime_ns != before->mtime_ns)
        return sy__fail(err, SY_E_IO, "%s: the file changed while it was being read; nothing was written", path);
    return SY_OK;
}

/* Reads what does not depend on the recipe: identity, header, metadata. */
static sy_status read_source(sy_edit_job *job, sy_error *err) {
    sy_context *ctx = job->ctx;
    sy_edit_report *rep = &job->report;
    sy_status st;
    if ((job->opts.flags & SY_EDIT_IDENTIFY_SOURCE) &&
        (st = sy__file_identity(ctx, job->input, &job->stamp, &rep->source_bytes, rep->source_sha256, err)) != SY_OK)
        return st;
    if ((st = sy_image_probe(ctx, job->input, &job->info, err)) != SY_OK) return st;
    sy_error md_err = {0};
    if (sy__metadata_read(ctx, job->input, &job->info, &job->md, &md_err) != SY_OK) /* the pixels still edit */
        memset(&job->md, 0, sizeof job->md);
    if (job->md.exif) sy__exif_set_orientation(job->md.exif, job->md.exif_len, 1); /* pixels are made upright */
    if (job->md.xmp) sy__xmp_set_upright(job->md.xmp, job->md.xmp_len);
    /* An edit is a still apart from any Live movie: it claims no pairing. */
    if (job->md.exif && sy__content_id_remove(job->md.exif, job->md.exif_len) == 1)
        rep->dropped |= SY_DROPPED_CONTENT_IDENTIFIER;
    /* An Ultra HDR source's extension is joined into its main packet (every save rewrites that packet's gain-map
     * part: gainmap_xmp_carry.c), its frame-bound data (depth map, original) dropped; a JPEG save splits the
     * packet again (exif/xmp_split.c). */
    if (job->md.xmp_ext && job->md.xmp && sy__xmp_has_hdrgm((const char *)job->md.xmp, job->md.xmp_len))
        sy__metadata_drop_extended_xmp(ctx, &job->md, &rep->dropped);
    if ((st = sy__metadata_for_output(ctx, &job->md, job->opts.format, &rep->dropped, err)) != SY_OK) return st;
    if (job->info.has_alpha) rep->dropped |= SY_DROPPED_ALPHA; /* the renderer's pixels are opaque RGB */
    uint32_t thumbnail = 0;
    if (job->info.format == SY_FORMAT_HEIF) sy__heif_uncarried_items(ctx, job->input, &rep->dropped, &thumbnail);
    if (thumbnail && job->opts.format == SY_STILL_HEIC) { /* made again from the edited image, not dropped */
        job->thumbnail_side = thumbnail;
        rep->dropped &= ~(uint32_t)SY_DROPPED_HEIC_THUMBNAIL;
        rep->kept_heic_thumbnail = 1;
    }
    rep->source_format = job->info.format;
    rep->source_width = job->info.width;
    rep->source_height = job->info.height;
    rep->source_orientation = job->info.orientation;
    report_metadata(rep, &job->md);
    sy__color_source colour; /* from the metadata just read: only a HEIF's nclx is read anew */
    sy__colour_of(ctx, job->input, &job->info, &job->md, &colour);
    uint16_t primaries = colour.icc ? sy__icc_primaries(colour.icc, colour.icc_len) : colour.cicp_primaries;
    job->display_p3 = primaries == 12;
    return SY_OK;
}

/* Plans recipe `r` for the job's target box: decodes again unless the held
 * source was decoded for exactly the same request (so the pixels never
 * depend on what the job rendered before), then replaces the renderer. */
static sy_status plan(sy_edit_job *job, const sy_recipe *r, sy_error *err) {
    sy_context *ctx = job->ctx;
    const sy_image_info *info = &job->info;
    uint32_t tw, th, nw, nh, min_w, min_h;
    sy_status st;
    if ((st = sy_render_output_size(r, info->width, info->height, job->opts.max_width, job->opts.max_height, 0, &tw,
                                    &th, err)) != SY_OK ||
        (st = sy_render_output_size(r, info->width, info->height, 0, 0, 0, &nw, &nh, err)) != SY_OK)
        return st;
    decode_size(info, tw, th, nw, nh, job->opts.flags, &min_w, &min_h);
    if (!job->src.rgb || min_w != job->decode_min_w || min_h != job->decode_min_h) {
        sy_renderer_destroy(job->renderer);
        job->renderer = NULL;
        sy__held_grid_free(ctx, job->held); /* of the old pixels */
        job->held = NULL;
        sy__upright_free(ctx, &job->src);
        st = sy__upright_decode(ctx, job->input, info, min_w, min_h, job->opts.threads, &job->src, err);
        if (st != SY_OK) return st;
        if ((job->opts.flags & SY_EDIT_IDENTIFY_SOURCE) && (st = same_stamp(job->input, &job->stamp, err)) != SY_OK)
            return st;
        job->decode_min_w = min_w;
        job->decode_min_h = min_h;
        job->report.decodes++;
    }
    sy_renderer *renderer = NULL;
    sy_recipe coded = *r; /* the border colour is sRGB (the recipe's schema): coded in the pixels' space */
    if (job->display_p3 && r->border_width > 0 &&
        (st = sy__color_from_srgb(ctx, SY__RGB_DISPLAY_P3, coded.border_color, err)) != SY_OK)
        return st;
    if ((st = sy_renderer_create(ctx, &coded, job->src.width, job->src.height, tw, th, &renderer, err)) != SY_OK)
        return st;
    sy_renderer_destroy(job->renderer);
    job->renderer = renderer;
    sy_recipe_geometry_only(r, 0, &job->geometry);
    /* A depth map and original in extended XMP show the source's frame: kept while the frame is the same
     * (colour edits, a smaller size), dropped for good once cropped, turned, bordered or made upright. */
    if (job->md.xmp_ext && (!sy_recipe_is_identity(&job->geometry) || info->orientation > 1))
        sy__metadata_drop_extended_xmp(ctx, &job->md, &job->report.dropped);
    if (job->md.exif) sy__exif_set_dimensions(job->md.exif, job->md.exif_len, tw, th);
    /* The Exif thumbnail (IFD1) shows the source's picture: it goes unless the output is that picture
     * (nothing edited, not resized, no orientation made upright). Dropping never reverses, so a
     * preview session that once edited saves without it even when it returns to the identity. */
    int same_picture = sy_recipe_is_identity(r) && tw == nw && th == nh && info->orientation <= 1;
    if (job->md.exif && !same_picture && sy__exif_drop_thumbnail(job->md.exif, &job->md.exif_len))
        job->report.dropped |= SY_DROPPED_EXIF_THUMBNAIL;
    job->report.decoded_width = job->src.width;
    job->report.decoded_height = job->src.height;
    job->report.width = tw;
    job->report.height = th;
    return SY_OK;
}

sy_status sy__recipe_prepare(sy_context *ctx, const sy_recipe *recipe, sy_recipe *r, sy_lut **lut, sy_error *err) {
    *r = *recipe;
    *lut = NULL;
    sy_status st = resolve_cube(ctx, r, lut, err);
    if (st == SY_OK) st = sy_recipe_validate(r, err);
    if (st != SY_OK) {
        sy_lut_destroy(*lut);
        *lut = NULL;
    }
    return st;
}

sy_status sy_edit_open(sy_context *ctx, const char *input, const sy_recipe *recipe, const sy_edit_options *opts,
                       sy_edit_job **out, sy_edit_report *report, sy_error *err) {
    if (report) memset(report, 0, sizeof *report);
    if (!ctx || !input || !recipe || !opts || !out) return sy__fail(err, SY_E_USAGE, "sy_edit_open: NULL argument");
    *out = NULL;
    sy_status st = check_options(opts, err);
    if (st != SY_OK) return st;
    sy_recipe r;
    sy_lut *lut = NULL;
    /* Recipe first: a bad value fails before any decoding. */
    if ((st = sy__recipe_prepare(ctx, recipe, &r, &lut, err)) != SY_OK) return st;
    sy_context_reset_peak(ctx);
    sy_edit_job *job = sy__calloc(ctx, 1, sizeof *job, "edit job", err);
    size_t len = strlen(input);
    if (job) job->input = sy__alloc(ctx, len + 1, 1, "edit input path", err);
    if (!job || !job->input) {
        sy__free(ctx, job);
        sy_lut_destroy(lut);
        return err ? err->code : SY_E_BUDGET;
    }
    memcpy(job->input, input, len + 1);
    job->ctx = ctx;
    job->opts = *opts;
    if (job->opts.threads == 0) job->opts.threads = 2;
    st = read_source(job, err);
    if (st == SY_OK) st = plan(job, &r, err);
    sy_lut_destroy(lut); /* the renderer baked it */
    if (st != SY_OK) {
        sy_edit_close(job);
        return st;
    }
    if (report) *report = job->report;
    *out = job;
    return SY_OK;
}

sy_status sy_edit_job_retarget(sy_edit_job *job, const sy_recipe *recipe, uint32_t max_w, uint32_t max_h,
                               sy_edit_report *report, sy_error *err) {
    if (!job || !recipe) return sy__fail(err, SY_E_USAGE, "sy_edit_job_retarget: NULL argument");
    sy_recipe r;
    sy_lut *lut = NULL;
    sy_status st = sy__recipe_prepare(job->ctx, recipe, &r, &lut, err);
    job->opts.max_width = max_w;
    job->opts.max_height = max_h;
    job->retargeted = 1;
    if (st == SY_OK) st = plan(job, &r, err);
    sy_lut_destroy(lut);
    if (st != SY_OK) { /* never render the previous recipe by mistake */
        sy_renderer_destroy(job->renderer);
        job->renderer = NULL;
        return st;
    }
    if (report) *report = job->report;
    return SY_OK;
}

static sy_pixels job_pixels(const sy_edit_job *job) {
    return (sy_pixels){job->src.rgb, job->src.stride, job->src.width, job->src.height};
}

sy_status sy_edit_job_render(sy_edit_job *job, sy_edit_image *out, sy_error *err) {
    if (!job || !out) return sy__fail(err, SY_E_USAGE, "sy_edit_job_render: NULL argument");
    memset(out, 0, sizeof *out);
    if (!job->renderer) return sy__fail(err, SY_E_USAGE, "sy_edit_job_render: the last retarget failed");
    uint32_t w = job->report.width, h = job->report.height;
    uint8_t *px = sy__alloc(job->ctx, (size_t)w * 3, h, "rendered image", err);
    if (!px) return err ? err->code : SY_E_BUDGET;
    sy_pixels src = job_pixels(job);
    /* A slider drag changes colours, not geometry: resample once per crop. */
    sy_status st = job->retargeted ? sy__renderer_hold_grid(job->ctx, job->renderer, &src, job->opts.threads,
                                                            &job->held, err)
                                   : SY_OK;
    if (st == SY_OK)
        st = sy__render_bands(job->ctx, job->renderer, &src, job->opts.threads, px, (size_t)w * 3, NULL, NULL, err);
    if (st != SY_OK) {
        sy__free(job->ctx, px);
        return st;
    }
    *out = (sy_edit_image){px, (size_t)w * 3, w, h};
    return SY_OK;
}

/* How the planned geometry moves places in the source (sy__region_map); 0 when nothing moves. */
static int region_map(const sy_edit_job *job, sy__region_map *m) {
    const sy_recipe *g = &job->geometry;
    const sy_image_info *info = &job->info;
    uint32_t w = job->report.width, h = job->report.height;
    if (sy_recipe_is_identity(g) && info->orientation <= 1 && w == info->width && h == info->height) return 0;
    memset(m, 0, sizeof *m);
    m->orientation = info->orientation;
    int64_t crop[4];
    double zoom;
    sy__crop_pixels(g, info->width, info->height, crop, &zoom);
    m->crop[0] = (double)crop[0] / info->width, m->crop[1] = (double)crop[1] / info->height;
    m->crop[2] = (double)crop[2] / info->width, m->crop[3] = (double)crop[3] / info->height;
    m->quarter_turns = g->quarter_turns;
    m->flip_h = g->flip_horizontal, m->flip_v = g->flip_vertical;
    uint32_t b = sy__border_pixels(g->border_width, w, h);
    m->inner[0] = (double)b / w, m->inner[1] = (double)b / h;
    m->inner[2] = (double)(w - 2 * b) / w, m->inner[3] = (double)(h - 2 * b) / h;
    m->out_w = w, m->out_h = h;
    m->drop = g->straighten != 0;
    return 1;
}

/* The places the metadata points at (Exif subject, XMP face regions) moved with the pixels: copies in
 * *exif / *xmp (sy__free) that md is pointed at, or NULL when md's own bytes stand. */
static sy_status map_regions(const sy_edit_job *job, sy__metadata *md, uint8_t **exif, uint8_t **xmp, sy_error *err) {
    *exif = *xmp = NULL;
    sy__region_map m;
    if (!region_map(job, &m)) return SY_OK;
    return sy__metadata_map_regions(job->ctx, md, &m, job->info.stored_width, job->info.stored_height, exif, xmp, err);
}

typedef struct write_state {
    sy_context *ctx;
    sy__still_writer *writer;
    uint32_t height;
    sy__thumbnail thumbnail;
} write_state;

static sy_status write_band(void *user, uint32_t y0, uint32_t rows, const uint8_t *px, size_t stride, sy_error *err) {
    write_state *s = user;
    sy_status st = sy__still_writer_write(s->writer, px, stride, rows, err);
    sy__thumbnail_rows(&s->thumbnail, px, stride, rows);
    sy__progress(s->ctx, "rows", y0 + rows, s->height);
    return st;
}

sy_status sy_edit_job_write(sy_edit_job *job, const char *output, sy_error *err) {
    if (!job || !output) return sy__fail(err, SY_E_USAGE, "sy_edit_job_write: NULL argument");
    /* a folder (or one that is missing) refused before any work; over its own input is the caller's call
     * (a library overwrite behind the full-size gate) */
    sy_status st = sy__output_check(output, NULL, 0, err);
    if (st != SY_OK) return st;
    sy__hdr_decision d;
    st = sy__hdr_decide(job->ctx, job->input, SY__HDR_SAVE_BASE_ONLY, job->opts.format,
                                  (job->opts.flags & SY_EDIT_ALLOW_SDR) != 0, &d, err);
    if (st != SY_OK) return st;
    switch (d.verdict) {
    case SY__HDR_ASK:
        return sy__fail(err, SY_E_UNSUPPORTED,
                        "%s: has an HDR gain map that this save would drop; use sy_gainmap_edit to keep it, or "
                        "SY_EDIT_ALLOW_SDR with the user's consent; nothing was written",
                        job->input);
    case SY__HDR_DROP: return sy__edit_job_write_sdr(job, output, err);
    default: return sy__edit_job_write_extra(job, output, NULL, err);
    }
}

/* An Ultra HDR source's gain-map claims go with the map (sy__edit_job_write_extra); its other XMP stays. */
sy_status sy__edit_job_write_sdr(sy_edit_job *job, const char *output, sy_error *err) {
    return sy__edit_job_write_extra(job, output, NULL, err);
}

sy_status sy__edit_job_carry_identifier(sy_edit_job *job, const char *id, sy_error *err) {
    if (!job || !id || !sy__content_id_valid(id))
        return sy__fail(err, SY_E_USAGE, "sy__edit_job_carry_identifier: not a content identifier");
    uint8_t *tagged = NULL;
    size_t tagged_len = 0;
    sy_status st = sy__content_id_with(job->ctx, job->md.exif, job->md.exif_len, id, &tagged, &tagged_len, err);
    if (st != SY_OK) return st;
    sy__exif_set_dimensions(tagged, tagged_len, job->report.width, job->report.height);
    sy__free(job->ctx, job->md.exif);
    job->md.exif = tagged;
    job->md.exif_len = tagged_len;
    job->report.dropped &= ~(uint32_t)SY_DROPPED_CONTENT_IDENTIFIER; /* replaced, not dropped */
    return SY_OK;
}

sy__edit_job_view sy__edit_job_view_of(const sy_edit_job *job) {
    return (sy__edit_job_view){job->ctx, job->input, &job->opts, &job->report, &job->geometry};
}

/* The source's XMP without its gain-map claims (gainmap_xmp_carry.c), in *copy (sy__free) that md points at:
 * when the save writes a gain map's directory anew, or the source names an Ultra HDR layout (no save copies the
 * appended map: a kept map is written anew, an SDR, HEIC or PNG save has none). Everything else stays. */
static sy_status strip_gainmap_claims(sy_edit_job *job, int join, sy__metadata *md, uint8_t **copy, sy_error *err) {
    *copy = NULL;
    if (!md->xmp || (!join && !sy__xmp_has_hdrgm((const char *)md->xmp, md->xmp_len))) return SY_OK;
    int unused = 0;
    size_t len = 0;
    *copy = sy__xmp_carry_with_gainmap(job->ctx, md->xmp, md->xmp_len, NULL, 0, 0, &len, &unused, err);
    if (!*copy) return err ? err->code : SY_E_BUDGET;
    md->xmp = *copy, md->xmp_len = len;
    return SY_OK;
}

/* md's XMP with the kept map's Ultra HDR directory joined, in *out (sy__free) that md points at; when the two
 * cannot be split into a JPEG's main and extended XMP the directory alone, and the report says the source's XMP
 * was not kept. */
static sy_status join_gainmap_xmp(sy_edit_job *job, const sy__still_extra *extra, sy__metadata *md, uint8_t **out,
                                  sy_error *err) {
    size_t limit = job->opts.format == SY_STILL_JPEG ? SY__JPEG_XMP_MAX : 0, len = 0;
    int source_dropped = 0;
    *out = sy__xmp_carry_with_gainmap(job->ctx, md->xmp, md->xmp_len, (const char *)extra->xmp, extra->xmp_len, limit,
                                      &len, &source_dropped, err);
    if (!*out) return err ? err->code : SY_E_BUDGET;
    md->xmp = *out, md->xmp_len = len;
    if (source_dropped) {
        job->report.kept_xmp = 0;
        job->report.dropped |= SY_DROPPED_XMP;
    }
    return SY_OK;
}

sy_status sy__edit_job_write_extra(sy_edit_job *job, const char *output, const sy__still_extra *extra, sy_error *err) {
    if (!job || !output) return sy__fail(err, SY_E_USAGE, "sy_edit_job_write: NULL argument");
    if (!job->renderer) return sy__fail(err, SY_E_USAGE, "sy_edit_job_write: the last retarget failed");
    const sy_edit_options *o = &job->opts;
    write_state s = {job->ctx, NULL, job->report.height, {0}};
    sy__metadata md = job->md; /* shallow: the XMP may be swapped for the one this save writes */
    uint8_t *stripped = NULL, *joined = NULL, *mapped_exif = NULL, *mapped_xmp = NULL;
    const int join = extra && extra->xmp && extra->xmp_join;
    sy_status st = SY_OK;
    if (extra && extra->xmp && !join) md.xmp = (uint8_t *)extra->xmp, md.xmp_len = extra->xmp_len;
    else st = strip_gainmap_claims(job, join, &md, &stripped, err);
    if (st == SY_OK) st = map_regions(job, &md, &mapped_exif, &mapped_xmp, err);
    if (st == SY_OK && join) st = join_gainmap_xmp(job, extra, &md, &joined, err);
    if (st == SY_OK) st = sy__still_writer_open_extra(job->ctx, output, o->format, o->quality, o->heic_preset,
                                               job->report.width, job->report.height, &md, extra, &s.writer, err);
    if (st == SY_OK && o->format == SY_STILL_HEIC)
        st = sy__thumbnail_open(job->ctx, job->report.width, job->report.height, job->thumbnail_side, &s.thumbnail, err);
    sy_pixels src = job_pixels(job);
    if (st == SY_OK) st = sy__render_bands(job->ctx, job->renderer, &src, o->threads, NULL, 0, write_band, &s, err);
    if (st == SY_OK) st = sy__thumbnail_write(&s.thumbnail, s.writer, err);
    if (st == SY_OK) st = sy__still_writer_finish(s.writer, err);
    sy__thumbnail_free(&s.thumbnail);
    sy__still_writer_destroy(s.writer);
    sy__free(job->ctx, stripped);
    sy__free(job->ctx, joined);
    sy__free(job->ctx, mapped_exif);
    sy__free(job->ctx, mapped_xmp);
    return st;
}

sy_status sy_edit(sy_context *ctx, const char *input, const char *output, const sy_recipe *recipe,
                  const sy_edit_options *opts, sy_edit_report *report, sy_error *err) {
    if (!output) return sy__fail(err, SY_E_USAGE, "sy_edit: NULL output");
    sy_edit_job *job = NULL;
    sy_status st = sy_edit_open(ctx, input, recipe, opts, &job, report, err);
    if (st == SY_OK) st = sy_edit_job_write(job, output, err);
    sy_edit_close(job);
    return st;
}

sy_status sy_edit_render(sy_context *ctx, const char *input, const sy_recipe *recipe, uint32_t max_w, uint32_t max_h,
                         uint32_t flags, sy_edit_image *out, sy_edit_report *report, sy_error *err) {
    if (!out) return sy__fail(err, SY_E_USAGE, "sy_edit_render: NULL argument");
    memset(out, 0, sizeof *out);
    sy_edit_options o;
    sy_edit_options_init(&o);
    o.max_width = max_w;
    o.max_height = max_h;
    o.flags = flags;
    sy_edit_job *job = NULL;
    sy_status st = sy_edit_open(ctx, input, recipe, &o, &job, report, err);
    if (st == SY_OK) st = sy_edit_job_render(job, out, err);
    sy_edit_close(job);
    return st;
}

void sy_edit_image_free(sy_context *ctx, sy_edit_image *image) {
    if (!image) return;
    sy__free(ctx, image->pixels);
    memset(image, 0, sizeof *image);
}
