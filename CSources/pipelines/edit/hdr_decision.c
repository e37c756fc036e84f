/* hdr_decision.c — SPEC E6's "never a silent SDR save", decided in one
 * place for every still save (see sy_edit_internal.h): one gain-map probe,
 * and for a save that carries maps, the stored map decoded to prove it can
 * be kept. */
#include <stdio.h>
#include <string.h>

#include "edit/sy_edit_internal.h"

/* Why a map cannot be kept in a save that carries maps as `format`, or NONE. */
static sy_hdr_loss_reason loss_reason(const sy_gainmap_info *info, sy_still_format format, char *detail, size_t cap) {
    if (info->kind == SY_GAINMAP_UNINTERPRETABLE) {
        snprintf(detail, cap, "%s", info->detail);
        return SY_HDR_LOSS_UNINTERPRETABLE;
    }
    if (format == SY_STILL_PNG) {
        snprintf(detail, cap, "PNG has no gain maps");
        return SY_HDR_LOSS_UNSUPPORTED_TARGET;
    }
    return SY_HDR_LOSS_NONE;
}

sy_status sy__hdr_decide(sy_context *ctx, const char *input, sy__hdr_save save, sy_still_format format, int consent,
                         sy__hdr_decision *d, sy_error *err) {
    memset(d, 0, sizeof *d);
    sy_error probe_err = {0};
    sy_status st = sy_gainmap_probe(ctx, input, &d->info, &probe_err);
    if (st != SY_OK) {
        if (save == SY__HDR_SAVE_BASE_ONLY) { /* refuses only a map it can see */
            memset(&d->info, 0, sizeof d->info);
            return SY_OK;
        }
        if (err) *err = probe_err;
        return st;
    }
    if (d->info.kind == SY_GAINMAP_NONE) return SY_OK; /* SY__HDR_PLAIN */
    if (save == SY__HDR_SAVE_BASE_ONLY) {
        d->reason = SY_HDR_LOSS_UNSUPPORTED_TARGET;
        snprintf(d->detail, sizeof d->detail, "this save writes the base image only");
    } else {
        d->reason = loss_reason(&d->info, format, d->detail, sizeof d->detail);
    }
    if (d->reason == SY_HDR_LOSS_NONE) {
        sy_error derr = {0};
        if (sy_gainmap_decode(ctx, input, &d->info, &d->map, &derr) == SY_OK) {
            d->verdict = SY__HDR_KEEP;
            return SY_OK;
        }
        /* An HDR signal's map is derived from the picture itself (an HDR
         * HEIF, AVIF or PNG): when that does not decode, the photo is
         * unreadable, and that is the error. */
        if (derr.code == SY_E_BUDGET || derr.code == SY_E_IO || derr.code == SY_E_CANCELLED ||
            (d->info.kind == SY_GAINMAP_HDR_SIGNAL && derr.code == SY_E_INVALID_INPUT)) {
            if (err) *err = derr;
            return derr.code;
        }
        /* A map that does not decode because the file is damaged (cut short,
         * say) is not an HDR question: the photo itself is unreadable, and
         * that is the error, not a request for consent. */
        sy_image_info whole;
        sy_error whole_err = {0};
        if ((st = sy_image_probe_whole(ctx, input, &whole, &whole_err)) != SY_OK) {
            if (err) *err = whole_err;
            return st;
        }
        d->reason = SY_HDR_LOSS_UNREADABLE_GAIN_MAP;
        snprintf(d->detail, sizeof d->detail, "%s", derr.message);
    }
    d->verdict = consent ? SY__HDR_DROP : SY__HDR_ASK;
    return SY_OK;
}

void sy__hdr_decision_free(sy_context *ctx, sy__hdr_decision *d) {
    if (d) sy_gainmap_image_free(ctx, &d->map);
}

sy_status sy__hdr_decide_or_refuse(sy_context *ctx, const char *input, sy__hdr_save save, sy_still_format format,
                                   int consent, const char *what, const char *why, sy__hdr_decision *d,
                                   sy_error *err) {
    sy_status st = sy__hdr_decide(ctx, input, save, format, consent, d, err);
    if (st != SY_OK || d->verdict != SY__HDR_ASK) return st;
    st = sy__fail(err, SY_E_UNSUPPORTED,
                  "%s: has an HDR gain map that %s cannot keep (%s); allow_sdr records the user's consent to an SDR "
                  "still; nothing was written",
                  input, what, why ? why : d->detail);
    sy__hdr_decision_free(ctx, d);
    return st;
}
