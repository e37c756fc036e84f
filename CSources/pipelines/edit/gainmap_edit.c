/* gainmap_edit.c — sy_gainmap_edit: an edit that keeps the HDR gain map
 * (SPEC E6). The base goes through sy_edit unchanged; the map goes through
 * the renderer's geometry at its own resolution (gainmap_geometry.c) and is
 * written with the base in one atomic file:
 *  JPEG: primary (Exif, XMP, ICC as sy_edit writes them, the Ultra HDR
 *        Container XMP joined to the source's XMP, an MPF APP2 index) + the map JPEG
 *        with its own XMP; the MPF sizes/offset are patched once the primary's
 *        length is known, then the map is appended, then the file is renamed;
 *  HEIC: the Apple auxiliary gain map + its XMP item and the ISO 21496-1
 *        'tmap' item on it (an Apple map), or the 'tmap' item and a hidden
 *        map alone (any other), added to the HEIF writer before it finishes.
 * When the map cannot be kept the hook is asked before anything is written. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sy_gainmap_edit.h"
#include "base/sy_output.h"
#include "edit/sy_edit_internal.h"
#include "gainmap/sy_gainmap_internal.h"

static sy_status refuse(sy_gainmap_edit_report *rep, sy_hdr_loss_reason reason, const char *input, const char *detail,
                        int asked, sy_error *err) {
    rep->outcome = SY_HDR_REFUSED;
    rep->reason = reason;
    snprintf(rep->reason_detail, sizeof rep->reason_detail, "%s", detail);
    return sy__fail(err, SY_E_CANCELLED, "%s: the HDR gain map would be lost (%s); %s; nothing was written", input,
                    detail, asked ? "the hook declined" : "no HDR-loss hook was given");
}

/* SDR with consent is sy_edit with SY_EDIT_ALLOW_SDR (which also takes out
 * the Ultra HDR XMP claims of a gain map no longer there). */
sy_status sy_gainmap_edit_sdr(sy_context *ctx, const char *input, const char *output, const sy_recipe *recipe,
                              const sy_edit_options *opts, sy_edit_report *report, sy_error *err) {
    if (!ctx || !input || !output || !recipe || !opts) return sy__fail(err, SY_E_USAGE, "sy_gainmap_edit_sdr: NULL argument");
    sy_edit_options consent = *opts;
    consent.flags |= SY_EDIT_ALLOW_SDR;
    return sy_edit(ctx, input, output, recipe, &consent, report, err);
}

/* A kept map is written in every form (gainmap_save.c): a source's usable
 * ISO 'tmap' item is carried, not dropped. */
static void kept(sy_gainmap_edit_report *rep, const sy_gainmap_info *info, const sy__gainmap_save *save,
                 const sy_edit_job *job) {
    rep->outcome = SY_HDR_KEPT;
    /* the write learns whether the source's XMP fitted beside the Ultra HDR directory (edit.c) */
    const sy_edit_report *written = sy__edit_job_view_of(job).report;
    rep->edit.kept_xmp = written->kept_xmp;
    rep->edit.dropped |= written->dropped & SY_DROPPED_XMP;
    rep->edit.kept_gain_map_forms = save->forms;
    if (info->iso_valid && info->tmap_item) rep->edit.dropped &= ~(uint32_t)SY_DROPPED_ISO_GAIN_MAP;
    /* a JPEG's other MPF images (portrait mattes, depth) are not written */
    if (info->mpf_images > 2) rep->edit.dropped |= SY_DROPPED_AUXILIARY_IMAGES;
}

/* Map render size: its native size under the recipe, fitted to the base's box scaled to map resolution. */
static sy_status map_size(const sy_recipe *geo, uint32_t uw, uint32_t uh, const sy_edit_report *er, uint32_t *mw,
                          uint32_t *mh, sy_error *err) {
    uint32_t bw, bh;
    sy_status st = sy_render_output_size(geo, er->source_width, er->source_height, 0, 0, 0, &bw, &bh, err);
    if (st != SY_OK) return st;
    uint32_t box_w = 0, box_h = 0;
    if (er->width < bw || er->height < bh) { /* the base was fitted into a smaller box */
        box_w = (uint32_t)(((uint64_t)er->width * uw + er->source_width - 1) / er->source_width);
        box_h = (uint32_t)(((uint64_t)er->height * uh + er->source_height - 1) / er->source_height);
    }
    return sy_render_output_size(geo, uw, uh, box_w, box_h, 0, mw, mh, err);
}

/* Renders the stored map (freeing it) with the geometry of the base the job
 * writes, `planned` (source and target sizes), and prepares `save`. */
static sy_status prepare_map(sy_context *ctx, const char *output, const sy_recipe *recipe, const sy_edit_options *opts,
                             const sy_gainmap_info *info, sy_gainmap_image *stored, const sy_edit_report *planned,
                             sy_gainmap_image *map, sy__gainmap_save *save, sy_gainmap_edit_report *rep, sy_error *err) {
    uint32_t uw = info->orientation >= 5 ? stored->height : stored->width;
    uint32_t uh = info->orientation >= 5 ? stored->width : stored->height, mw = 0, mh = 0;
    uint8_t neutral = sy_gainmap_neutral_code(info);
    sy_recipe geo;
    sy_recipe_geometry_only(recipe, neutral, &geo);
    sy_status st = map_size(&geo, uw, uh, planned, &mw, &mh, err);
    if (st == SY_OK) st = sy__gainmap_render(ctx, stored, info->orientation, recipe, neutral, mw, mh, map, err);
    sy_gainmap_image_free(ctx, stored);
    if (st == SY_OK) st = sy__gainmap_save_prepare(save, ctx, output, opts->format, opts->quality, info, map, err);
    if (st == SY_OK) rep->map_width = mw, rep->map_height = mh;
    return st;
}

/* The map is rendered (and the stored map freed) before the base is decoded,
 * so its temporaries never add to the base's peak. The base's target size is
 * what sy_edit will plan: the geometry's output size in the options' box. */
static sy_status save_hdr(sy_context *ctx, const char *input, const char *output, const sy_recipe *recipe,
                          const sy_edit_options *opts, const sy_gainmap_info *info, sy_gainmap_image *stored,
                          sy_gainmap_edit_report *rep, sy_error *err) {
    sy_edit_job *job = NULL;
    sy_gainmap_image map = {0};
    sy__gainmap_save save;
    memset(&save, 0, sizeof save);
    sy_recipe geo;
    sy_recipe_geometry_only(recipe, sy_gainmap_neutral_code(info), &geo);
    sy_image_info img;
    sy_edit_report planned = {0};
    sy_status st = sy_image_probe(ctx, input, &img, err);
    if (st == SY_OK) {
        planned.source_width = img.width, planned.source_height = img.height;
        st = sy_render_output_size(&geo, img.width, img.height, opts->max_width, opts->max_height, 0, &planned.width,
                                   &planned.height, err);
    }
    if (st == SY_OK) st = prepare_map(ctx, output, recipe, opts, info, stored, &planned, &map, &save, rep, err);
    sy_memory_stats mem;
    sy_context_memory_stats(ctx, &mem);
    rep->map_peak_bytes = mem.peak_bytes;
    if (st == SY_OK) st = sy_edit_open(ctx, input, recipe, opts, &job, &rep->edit, err);
    if (st == SY_OK && (rep->edit.width != planned.width || rep->edit.height != planned.height))
        st = sy__fail(err, SY_E_USAGE, "%s: the base renders at %ux%u, the gain map was planned for %ux%u", input,
                      rep->edit.width, rep->edit.height, planned.width, planned.height);
    if (st == SY_OK) st = sy__edit_job_write_extra(job, output, &save.extra, err);
    if (st == SY_OK) kept(rep, info, &save, job);
    else rep->map_width = rep->map_height = 0;
    sy_edit_close(job);
    sy__gainmap_save_free(&save);
    sy_gainmap_image_free(ctx, &map);
    return st;
}

/* ASK: the hook's answer. SY_OK with *consent set when the save may go on as SDR. */
static sy_status ask(const sy__hdr_decision *d, const char *input, sy_hdr_loss_hook hook, void *hook_context,
                     sy_gainmap_edit_report *rep, sy_error *err) {
    rep->reason = d->reason;
    snprintf(rep->reason_detail, sizeof rep->reason_detail, "%s", d->detail);
    if (!hook) return refuse(rep, d->reason, input, d->detail, 0, err);
    rep->hook_calls++;
    if (!hook(hook_context, d->reason, d->detail)) return refuse(rep, d->reason, input, d->detail, 1, err);
    return SY_OK;
}

sy_status sy_gainmap_edit(sy_context *ctx, const char *input, const char *output, const sy_recipe *recipe,
                          const sy_edit_options *opts, sy_hdr_loss_hook hook, void *hook_context,
                          sy_gainmap_edit_report *report, sy_error *err) {
    sy_gainmap_edit_report local, *rep = report ? report : &local;
    memset(rep, 0, sizeof *rep);
    if (!ctx || !input || !output || !recipe || !opts) return sy__fail(err, SY_E_USAGE, "sy_gainmap_edit: NULL argument");
    sy_status st = sy__output_check(output, NULL, 0, err); /* a folder refused before any work */
    if (st != SY_OK) return st;
    sy__hdr_decision d;
    st = sy__hdr_decide(ctx, input, SY__HDR_SAVE_CARRIES_MAP, opts->format, 0, &d, err);
    if (st != SY_OK) return st;
    rep->source_kind = d.info.kind;
    if (d.verdict == SY__HDR_KEEP) {
        st = save_hdr(ctx, input, output, recipe, opts, &d.info, &d.map, rep, err);
        sy__hdr_decision_free(ctx, &d);
        return st;
    }
    if (d.verdict == SY__HDR_ASK && (st = ask(&d, input, hook, hook_context, rep, err)) != SY_OK) return st;
    /* the decision is made: open and write without deciding again */
    sy_edit_job *job = NULL;
    st = sy_edit_open(ctx, input, recipe, opts, &job, &rep->edit, err);
    if (st == SY_OK)
        st = d.verdict == SY__HDR_PLAIN ? sy__edit_job_write_extra(job, output, NULL, err)
                                        : sy__edit_job_write_sdr(job, output, err);
    if (st == SY_OK && d.verdict != SY__HDR_PLAIN) rep->outcome = SY_HDR_DROPPED_WITH_CONSENT;
    sy_edit_close(job);
    return st;
}

/* The write of an open job once the decision is made: the map kept (rendered
 * with the job's geometry at its own resolution), the base alone (PLAIN), or
 * the SDR save the user agreed to (DROP). */
sy_status sy__gainmap_job_write_decided(sy_edit_job *job, const char *output, sy__hdr_decision *d,
                                        sy_gainmap_edit_report *rep, sy_error *err) {
    const sy__edit_job_view v = sy__edit_job_view_of(job);
    sy_context *ctx = v.ctx;
    rep->edit = *v.report;
    rep->source_kind = d->info.kind;
    if (d->verdict == SY__HDR_ASK)
        return sy__fail(err, SY_E_USAGE, "%s: the HDR decision was not made before the write", v.input);
    if (d->verdict == SY__HDR_PLAIN) return sy__edit_job_write_extra(job, output, NULL, err);
    if (d->verdict == SY__HDR_DROP) {
        sy_status st = sy__edit_job_write_sdr(job, output, err);
        if (st == SY_OK) rep->outcome = SY_HDR_DROPPED_WITH_CONSENT;
        return st;
    }
    sy_gainmap_image map = {0};
    sy__gainmap_save save;
    memset(&save, 0, sizeof save);
    sy_status st = prepare_map(ctx, output, v.geometry, v.opts, &d->info, &d->map, v.report, &map, &save, rep, err);
    if (st == SY_OK) st = sy__edit_job_write_extra(job, output, &save.extra, err);
    if (st == SY_OK) kept(rep, &d->info, &save, job);
    else rep->map_width = rep->map_height = 0;
    sy__gainmap_save_free(&save);
    sy_gainmap_image_free(ctx, &map);
    return st;
}

sy_status sy_gainmap_edit_job_write(sy_edit_job *job, const char *output, sy_hdr_loss_hook hook, void *hook_context,
                                    sy_gainmap_edit_report *report, sy_error *err) {
    sy_gainmap_edit_report local, *rep = report ? report : &local;
    memset(rep, 0, sizeof *rep);
    if (!job || !output) return sy__fail(err, SY_E_USAGE, "sy_gainmap_edit_job_write: NULL argument");
    const sy__edit_job_view v = sy__edit_job_view_of(job);
    sy_status checked = sy__output_check(output, NULL, 0, err); /* a folder refused before any work */
    if (checked != SY_OK) return checked;
    sy__hdr_decision d;
    sy_status st = sy__hdr_decide(v.ctx, v.input, SY__HDR_SAVE_CARRIES_MAP, v.opts->format, 0, &d, err);
    if (st != SY_OK) return st;
    if (d.verdict == SY__HDR_ASK) {
        if ((st = ask(&d, v.input, hook, hook_context, rep, err)) != SY_OK) return st;
        d.verdict = SY__HDR_DROP;
    }
    st = sy__gainmap_job_write_decided(job, output, &d, rep, err);
    sy__hdr_decision_free(v.ctx, &d);
    return st;
}
