/* recipe.c — the edit recipe's defaults (the identity) and range checks.
 * Out-of-range values are caller errors (SY_E_USAGE), NaN included. */
#include <string.h>

#include "render/sy_render_internal.h"

void sy_recipe_init(sy_recipe *r) {
    memset(r, 0, sizeof *r);
    r->version = SY_RECIPE_VERSION;
    r->crop.width = 1.0;
    r->crop.height = 1.0;
    r->filter_intensity = 1.0;
    r->border_color[0] = r->border_color[1] = r->border_color[2] = 255;
}

/* 1 when lo <= v <= hi (false for NaN). */
static int in_range(double v, double lo, double hi) { return v >= lo && v <= hi; }

static sy_status range_error(sy_error *err, const char *field, double v, double lo, double hi) {
    return sy__fail(err, SY_E_USAGE, "sy_recipe: %s = %g is outside %g..%g", field, v, lo, hi);
}

sy_status sy_recipe_validate(const sy_recipe *r, sy_error *err) {
    if (!r) return sy__fail(err, SY_E_USAGE, "sy_recipe: recipe is NULL");
    if (r->version != SY_RECIPE_VERSION)
        return sy__fail(err, SY_E_USAGE, "sy_recipe: version %u, expected %u", r->version, SY_RECIPE_VERSION);
    const double eps = 1e-9; /* normalized edges computed in floating point may overshoot by an ulp */
    const sy_recipe_rect *c = &r->crop;
    if (!in_range(c->x, 0, 1)) return range_error(err, "crop.x", c->x, 0, 1);
    if (!in_range(c->y, 0, 1)) return range_error(err, "crop.y", c->y, 0, 1);
    if (!in_range(c->width, 0, 1) || c->width <= 0) return range_error(err, "crop.width", c->width, 0, 1);
    if (!in_range(c->height, 0, 1) || c->height <= 0) return range_error(err, "crop.height", c->height, 0, 1);
    if (c->x + c->width > 1 + eps)
        return sy__fail(err, SY_E_USAGE, "sy_recipe: crop.x + crop.width = %g exceeds 1", c->x + c->width);
    if (c->y + c->height > 1 + eps)
        return sy__fail(err, SY_E_USAGE, "sy_recipe: crop.y + crop.height = %g exceeds 1", c->y + c->height);
    if (!in_range(r->straighten, -45, 45)) return range_error(err, "straighten", r->straighten, -45, 45);
    if (r->quarter_turns > 3)
        return sy__fail(err, SY_E_USAGE, "sy_recipe: quarterTurns = %u is outside 0..3", r->quarter_turns);
    if (r->flip_horizontal > 1 || r->flip_vertical > 1)
        return sy__fail(err, SY_E_USAGE, "sy_recipe: flips must be 0 or 1 (%u, %u)", r->flip_horizontal,
                        r->flip_vertical);
    const sy_adjustments *a = &r->adjustments;
    struct {
        const char *name;
        double v, lo, hi;
    } sliders[] = {
        {"adjustments.exposure", a->exposure, -4, 4},     {"adjustments.contrast", a->contrast, -1, 1},
        {"adjustments.highlights", a->highlights, -1, 1}, {"adjustments.shadows", a->shadows, -1, 1},
        {"adjustments.saturation", a->saturation, -1, 1}, {"adjustments.vibrance", a->vibrance, -1, 1},
        {"adjustments.warmth", a->warmth, -1, 1},         {"adjustments.tint", a->tint, -1, 1},
        {"adjustments.vignette", a->vignette, -1, 1},     {"adjustments.sharpness", a->sharpness, -1, 1},
    };
    for (size_t i = 0; i < sizeof sliders / sizeof sliders[0]; i++)
        if (!in_range(sliders[i].v, sliders[i].lo, sliders[i].hi))
            return range_error(err, sliders[i].name, sliders[i].v, sliders[i].lo, sliders[i].hi);
    if (!in_range(r->filter_intensity, 0, 1)) return range_error(err, "filter.intensity", r->filter_intensity, 0, 1);
    if (r->filter_id && r->filter_lut)
        return sy__fail(err, SY_E_USAGE, "sy_recipe: filter id '%.64s' and a user LUT are both set", r->filter_id);
    if (r->filter_id && sy_filter_find(r->filter_id) < 0)
        return sy__fail(err, SY_E_USAGE, "sy_recipe: unknown filter id '%.64s'", r->filter_id);
    if (!in_range(r->border_width, 0, 0.5)) return range_error(err, "border.width", r->border_width, 0, 0.5);
    return SY_OK;
}

int sy_recipe_is_identity(const sy_recipe *r) {
    if (!r || sy_recipe_validate(r, NULL) != SY_OK) return 0;
    const sy_adjustments *a = &r->adjustments;
    int filter = (r->filter_id || r->filter_lut) && r->filter_intensity > 0;
    return r->crop.x == 0 && r->crop.y == 0 && r->crop.width >= 1 && r->crop.height >= 1 && r->straighten == 0 &&
           r->quarter_turns == 0 && !r->flip_horizontal && !r->flip_vertical && a->exposure == 0 &&
           a->contrast == 0 && a->highlights == 0 && a->shadows == 0 && a->saturation == 0 && a->vibrance == 0 &&
           a->warmth == 0 && a->tint == 0 && a->vignette == 0 && a->sharpness == 0 && !filter &&
           r->border_width == 0;
}
