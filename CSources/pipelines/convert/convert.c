/* convert.c — sy_convert (SPEC S3): a conversion is an edit with the identity
 * recipe at full size, so conversions and editor saves share one exit path
 * (decode upright, the renderer's row copy, the still writer with metadata). */
#include <string.h>

#include "base/sy_internal.h"
#include "base/sy_output.h"
#include "sy_convert.h"
#include "sy_edit.h"

void sy_convert_options_init(sy_convert_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
    opts->format = SY_STILL_JPEG;
    opts->quality = 90;
}

sy_status sy_convert(sy_context *ctx, const char *input, const char *output, const sy_convert_options *opts,
                     sy_convert_report *report, sy_error *err) {
    if (!ctx || !input || !output || !opts || !report) return sy__fail(err, SY_E_USAGE, "sy_convert: NULL argument");
    memset(report, 0, sizeof *report);
    if (opts->version != 1) return sy__fail(err, SY_E_USAGE, "sy_convert: options version %u, expected 1", opts->version);
    if (opts->quality < 1 || opts->quality > 100)
        return sy__fail(err, SY_E_USAGE, "sy_convert: quality %d is outside 1..100", opts->quality);
    sy_status st = sy__output_check(output, &input, 1, err);
    if (st != SY_OK) return st;
    sy_edit_options eo;
    sy_edit_options_init(&eo);
    if (opts->format != SY_STILL_JPEG && opts->format != SY_STILL_PNG && opts->format != SY_STILL_HEIC)
        return sy__fail(err, SY_E_USAGE, "sy_convert: unknown format %d", (int)opts->format);
    eo.format = opts->format;
    eo.quality = opts->quality;
    eo.heic_preset = opts->heic_preset;
    sy_recipe identity;
    sy_recipe_init(&identity);
    sy_edit_report er;
    st = sy_edit(ctx, input, output, &identity, &eo, &er, err);
    if (st != SY_OK) return st;
    report->source_format = er.source_format;
    report->width = er.width;
    report->height = er.height;
    report->source_orientation = er.source_orientation;
    report->dropped = er.dropped;
    report->kept_exif = er.kept_exif;
    report->kept_gps = er.kept_gps;
    report->kept_capture_date = er.kept_capture_date;
    report->kept_xmp = er.kept_xmp;
    report->kept_icc = er.kept_icc;
    memcpy(report->capture_date, er.capture_date, sizeof report->capture_date);
    return SY_OK;
}
