/* sy_gainmap_edit.h — edits that keep the HDR gain map, or ask first (SPEC E6).
 *
 * The base goes through sy_edit (decode upright -> sy_render -> write); the
 * gain map goes through the same renderer with the recipe's geometry only
 * (sy_recipe_geometry_only) at its own resolution, so the two stay aligned;
 * colour adjustments touch the base only. When the map cannot be kept (PNG
 * target, undecodable map, uninterpretable form), the caller's hook is asked
 * first; no hook or a declined hook writes nothing.
 *
 * Thread safety: calls are independent; a context is used by one call at a time.
 */
#ifndef SY_GAINMAP_EDIT_H
#define SY_GAINMAP_EDIT_H

#include "sy_edit.h"
#include "sy_gainmap.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sy_hdr_loss_reason {
    SY_HDR_LOSS_NONE = 0,
    SY_HDR_LOSS_UNSUPPORTED_TARGET = 1,  /* the output format has no gain maps (PNG) */
    SY_HDR_LOSS_UNREADABLE_GAIN_MAP = 2, /* the gain map is there but does not decode */
    SY_HDR_LOSS_UNINTERPRETABLE = 3,     /* a gain-map form we cannot interpret (e.g. ISO 21496-1 tmap) */
    SY_HDR_LOSS_HDR_VIDEO = 4,           /* an HDR movie (HLG, PQ) shown in an 8-bit SDR movie (a moving collage) */
} sy_hdr_loss_reason;

/** Asked only when the gain map cannot be kept; return 1 to write SDR, 0 to
 *  refuse (nothing is written). `detail` is borrowed for the call. */
typedef int (*sy_hdr_loss_hook)(void *context, sy_hdr_loss_reason reason, const char *detail);

typedef enum sy_hdr_outcome {
    SY_HDR_NOT_HDR = 0,               /* the source had no gain map */
    SY_HDR_KEPT = 1,                  /* output carries the edited gain map */
    SY_HDR_DROPPED_WITH_CONSENT = 2,  /* the hook agreed to SDR */
    SY_HDR_REFUSED = 3,               /* no hook or the hook declined: nothing written */
} sy_hdr_outcome;

typedef struct sy_gainmap_edit_report {
    sy_edit_report edit;              /* base image (sy_edit) */
    sy_hdr_outcome outcome;
    sy_hdr_loss_reason reason;        /* why the hook was asked (NONE when it was not) */
    char reason_detail[200];          /* what exactly cannot be kept ("" when nothing) */
    uint32_t hook_calls;
    sy_gainmap_kind source_kind;
    uint32_t map_width, map_height;   /* written gain map (0 when none) */
    uint64_t map_peak_bytes;          /* engine peak while the map was rendered, before the base
                                         (sy_edit resets the context peak when it opens) */
} sy_gainmap_edit_report;

/** Edits `input` into `output` like sy_edit, keeping the gain map (see the
 *  top of this file). Any interpretable map (Apple, Ultra HDR, ISO 21496-1)
 *  is written in every form the target has: JPEG as Ultra HDR + ISO 21496-1
 *  (+ Apple's HDRGainMap XMP for Apple maps), HEIC as an Apple auxiliary map
 *  plus a 'tmap' item on it (docs/gain-maps.md); PNG cannot. The source's
 *  XMP is written with its old Ultra HDR claims replaced; past a JPEG's one
 *  XMP segment it is split into extended XMP (the Ultra HDR directory in the
 *  main packet); only when even that cannot fit does report->edit say
 *  kept_xmp 0 and list SY_DROPPED_XMP (set once the file is written).
 *  A declined or missing hook returns SY_E_CANCELLED ("... HDR gain map would
 *  be lost ...; nothing was written") with outcome SY_HDR_REFUSED, and any
 *  existing file at `output` is untouched. `report` may be NULL. */
sy_status sy_gainmap_edit(sy_context *ctx, const char *input, const char *output, const sy_recipe *recipe,
                          const sy_edit_options *opts, sy_hdr_loss_hook hook, void *hook_context,
                          sy_gainmap_edit_report *report, sy_error *err);

/** sy_gainmap_edit for a job already open (sy_edit_open): for a save that
 *  checks what the decode produced before it writes (the SPEC E7 overwrite),
 *  so the source is decoded once. Decides like sy_gainmap_edit (no gain map:
 *  sy_edit_job_write's bytes; a map kept: rendered with the job's geometry
 *  at its own resolution after the base was decoded; otherwise the hook is
 *  asked). `report->edit` is the job's report. The job stays open. */
sy_status sy_gainmap_edit_job_write(sy_edit_job *job, const char *output, sy_hdr_loss_hook hook, void *hook_context,
                                    sy_gainmap_edit_report *report, sy_error *err);

/** Saves SDR on purpose (the caller already has the user's consent, e.g. an
 *  explicit "save as SDR"): sy_edit, minus the Ultra HDR XMP properties that
 *  would claim a gain map the output no longer has (the rest of its XMP stays). */
sy_status sy_gainmap_edit_sdr(sy_context *ctx, const char *input, const char *output, const sy_recipe *recipe,
                              const sy_edit_options *opts, sy_edit_report *report, sy_error *err);

#ifdef __cplusplus
}
#endif
#endif
