/* convert.c — sy_convert: decode upright at full size, carry the metadata,
 * encode to the requested format through the same writers as collages. */
#include <string.h>
#include <sys/stat.h>

#include "../base/sy_internal.h"
#include "../collage/sy_cell.h"
#include "../collage/sy_strip.h"
#include "../image/sy_color.h"
#include "../image/sy_metadata.h"
#include "../io/sy_output.h"
#include "sy_convert.h"
#include "sy_heif_writer.h"

void sy_convert_options_init(sy_convert_options *opts) {
    memset(opts, 0, sizeof *opts);
    opts->version = 1;
    opts->format = SY_CONVERT_JPEG;
    opts->quality = 90;
}

/* JPEG and PNG go through the strip sink (metadata first, then 16-row strips). */
static sy_status write_strips(sy_context *ctx, const sy__cell *cell, const sy__metadata *md,
                              const sy_convert_options *opts, const char *output, sy_error *err) {
    sy_collage_options sink_opts;
    sy_collage_options_init(&sink_opts, SY_LAYOUT_LONG);
    sink_opts.format = opts->format == SY_CONVERT_PNG ? SY_OUTPUT_PNG : SY_OUTPUT_JPEG;
    sink_opts.quality = opts->quality;
    sy__output out = {0};
    sy__strip_sink *sink = NULL;
    sy_status st = sy__output_open(ctx, output, &out, err);
    if (st == SY_OK) st = sy__strip_sink_create(ctx, out.file, output, &sink_opts, cell->width, cell->height, &sink, err);
    if (st == SY_OK) st = sy__strip_sink_write_metadata(sink, md, err);
    const sy__rect whole = {0, 0, cell->width, cell->height};
    for (uint32_t y0 = 0; st == SY_OK && y0 < cell->height; y0 += SY__STRIP_ROWS) {
        if ((st = sy__check_cancel(ctx, err)) != SY_OK) break;
        sy__strip_begin(sink, y0);
        sy__strip_put(sink, cell, &whole);
        st = sy__strip_flush(sink, err);
    }
    if (st == SY_OK) st = sy__strip_sink_finish(sink, err);
    sy__strip_sink_destroy(sink);
    if (st == SY_OK) st = sy__output_commit(&out, err);
    sy__output_abort(&out);
    return st;
}

/* Row y of a full-resolution cell as interleaved RGB. */
static void cell_rgb_row(const sy__cell *cell, uint32_t y, uint8_t *out) {
    const uint8_t *p[3];
    for (int c = 0; c < 3; c++) p[c] = cell->plane[c] + (size_t)y * cell->stride[c];
    if (cell->pixels == SY__PIX_YCC) {
        sy__ycc_planes_to_rgb(p[0], p[1], p[2], out, cell->width);
        return;
    }
    for (uint32_t x = 0; x < cell->width; x++) out[3 * x] = p[0][x], out[3 * x + 1] = p[1][x], out[3 * x + 2] = p[2][x];
}

static sy_status write_heic(sy_context *ctx, const sy__cell *cell, const sy__metadata *md,
                            const sy_convert_options *opts, const char *output, sy_error *err) {
    sy_heif_writer_options hopts;
    sy_heif_writer_options_init(&hopts);
    hopts.width = cell->width;
    hopts.height = cell->height;
    hopts.quality = opts->quality;
    hopts.x265_preset = opts->heic_preset;
    sy_heif_writer *w = NULL;
    sy_status st = sy_heif_writer_create(ctx, output, &hopts, &w, err);
    if (st == SY_OK && md->exif) st = sy_heif_writer_set_exif(w, md->exif, md->exif_len, err);
    if (st == SY_OK && md->xmp) st = sy_heif_writer_set_xmp(w, md->xmp, md->xmp_len, err);
    if (st == SY_OK && md->icc) st = sy_heif_writer_set_icc(w, md->icc, md->icc_len, err);
    uint8_t *rows = st == SY_OK ? sy__alloc(ctx, (size_t)cell->width * 3, SY__STRIP_ROWS, "convert rows", err) : NULL;
    if (st == SY_OK && !rows) st = err ? err->code : SY_E_BUDGET;
    for (uint32_t y0 = 0; st == SY_OK && y0 < cell->height; y0 += SY__STRIP_ROWS) {
        uint32_t n = SY__MIN(SY__STRIP_ROWS, cell->height - y0);
        const uint8_t *ptrs[SY__STRIP_ROWS];
        for (uint32_t i = 0; i < n; i++) {
            uint8_t *row = rows + (size_t)i * cell->width * 3;
            cell_rgb_row(cell, y0 + i, row);
            ptrs[i] = row;
        }
        st = sy_heif_writer_write_rows(w, ptrs, n, err);
    }
    if (st == SY_OK) st = sy_heif_writer_finish(w, err);
    sy__free(ctx, rows);
    sy_heif_writer_destroy(w);
    return st;
}

static int same_file(const char *a, const char *b) {
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

sy_status sy_convert(sy_context *ctx, const char *input, const char *output, const sy_convert_options *opts,
                     sy_convert_report *report, sy_error *err) {
    if (!ctx || !input || !output || !opts || !report) return sy__fail(err, SY_E_USAGE, "sy_convert: NULL argument");
    memset(report, 0, sizeof *report);
    if (opts->version != 1) return sy__fail(err, SY_E_USAGE, "sy_convert: options version %u, expected 1", opts->version);
    if (opts->quality < 1 || opts->quality > 100)
        return sy__fail(err, SY_E_USAGE, "sy_convert: quality %d is outside 1..100", opts->quality);
    if (strcmp(input, output) == 0 || same_file(input, output))
        return sy__fail(err, SY_E_USAGE, "%s: a conversion writes a copy; the output must be another file", output);
    sy_context_reset_peak(ctx);
    sy_image_info info;
    sy_status st = sy_image_probe(ctx, input, &info, err);
    if (st != SY_OK) return st;
    sy__metadata md = {0};
    sy_error md_err = {0};
    if (sy__metadata_read(ctx, input, &info, &md, &md_err) != SY_OK) memset(&md, 0, sizeof md); /* pixels still convert */
    if (md.exif) sy__exif_set_orientation(md.exif, md.exif_len, 1); /* pixels are made upright below */

    sy__cell cell = {0};
    st = sy__cell_build(ctx, input, &info, info.width, info.height, SY__FIT_STRETCH, 0, &cell, NULL, err);
    if (st == SY_OK) {
        st = opts->format == SY_CONVERT_HEIC ? write_heic(ctx, &cell, &md, opts, output, err)
                                             : write_strips(ctx, &cell, &md, opts, output, err);
    }
    if (st == SY_OK) {
        report->source_format = info.format;
        report->width = cell.width;
        report->height = cell.height;
        report->source_orientation = info.orientation;
        report->kept_exif = md.exif != NULL;
        report->kept_gps = md.exif && sy__exif_has_gps(md.exif, md.exif_len);
        report->kept_capture_date = md.exif && sy__exif_capture_date(md.exif, md.exif_len, report->capture_date);
        report->kept_xmp = md.xmp != NULL;
        report->kept_icc = md.icc != NULL;
    }
    sy__cell_release(ctx, &cell);
    sy__metadata_free(ctx, &md);
    return st;
}
