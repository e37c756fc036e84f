/* filters.c — the built-in filters: four families of six looks, each a short
 * parameter list for one documented transform, baked into a 3D LUT when a
 * renderer is created (so there is no LUT data in the source).
 *
 * A look maps encoded RGB (0..1) to encoded RGB, in this order:
 *  1. exposure (x 2^e) and warmth/tint gains in linear light (as the sliders);
 *  2. per-channel power v^(1 + gamma[c]) (cross-processed curves);
 *  3. monochrome: m = mix . v, v = lerp(v, m, mono), then toning
 *     v += mono_tone * 4 m (1 - m) (strongest at mid-grey);
 *  4. saturation around the encoded Rec. 709 luma: v = l + (v - l)(1 + s);
 *  5. per-channel S-curve v - 0.75 c sin(2 pi v) / (2 pi) (film-like contrast);
 *  6. split toning: v += shadow_tint (1 - l)^2 + highlight_tint l^2;
 *  7. output levels: v = lift + v (1 - dim - lift) (faded blacks, muted whites);
 *  then clamped to 0..1.
 */
#include <string.h>

#include "render/sy_render_internal.h"

typedef struct filter_entry {
    sy_filter_info info;
    sy__look look;
} filter_entry;

#define MIX709 {0.2126f, 0.7152f, 0.0722f}

static const filter_entry filters[] = {
    /* film: faded blacks, warm or cross-processed colour, gentle S-curves */
    {{"film.amber", "film", "Amber", "琥珀"},
     {.warmth = 0.35f, .contrast = 0.15f, .lift = 0.04f, .saturation = -0.1f, .highlight_tint = {0.03f, 0.01f, -0.03f}}},
    {{"film.fade", "film", "Fade", "褪色"},
     {.lift = 0.10f, .dim = 0.04f, .saturation = -0.25f, .contrast = -0.2f}},
    {{"film.chrome", "film", "Chrome", "反转片"},
     {.contrast = 0.35f, .saturation = -0.2f, .shadow_tint = {-0.02f, 0.0f, 0.03f}, .highlight_tint = {0.02f, 0.01f, -0.01f}}},
    {{"film.cross", "film", "Cross", "交叉冲印"},
     {.gamma = {-0.08f, -0.06f, 0.25f}, .shadow_tint = {0.0f, 0.0f, 0.06f}, .contrast = 0.2f, .saturation = 0.1f}},
    {{"film.matte", "film", "Matte", "哑光"},
     {.lift = 0.08f, .dim = 0.03f, .contrast = 0.1f, .warmth = 0.1f, .saturation = -0.1f}},
    {{"film.expired", "film", "Expired", "过期胶片"},
     {.tint = 0.25f, .warmth = 0.2f, .lift = 0.06f, .saturation = -0.15f, .highlight_tint = {0.03f, 0.0f, 0.02f}}},
    /* portrait: soft contrast, kind skin tones */
    {{"portrait.soft", "portrait", "Soft", "柔和"},
     {.contrast = -0.2f, .lift = 0.03f, .warmth = 0.1f, .exposure = 0.1f}},
    {{"portrait.glow", "portrait", "Glow", "柔光"},
     {.exposure = 0.2f, .highlight_tint = {0.03f, 0.015f, 0.0f}, .contrast = -0.1f, .saturation = -0.05f}},
    {{"portrait.peach", "portrait", "Peach", "蜜桃"},
     {.warmth = 0.2f, .tint = 0.15f, .saturation = 0.05f, .highlight_tint = {0.02f, 0.0f, 0.01f}}},
    {{"portrait.ivory", "portrait", "Ivory", "象牙"},
     {.saturation = -0.2f, .warmth = 0.12f, .lift = 0.03f, .highlight_tint = {0.02f, 0.02f, 0.0f}}},
    {{"portrait.rose", "portrait", "Rose", "玫瑰"},
     {.tint = 0.25f, .highlight_tint = {0.03f, 0.0f, 0.02f}, .contrast = 0.05f}},
    {{"portrait.clear", "portrait", "Clear", "清透"},
     {.exposure = 0.15f, .contrast = 0.1f, .warmth = -0.08f, .saturation = 0.05f}},
    /* vivid: landscapes, more chroma and punch */
    {{"vivid.lush", "vivid", "Lush", "葱郁"},
     {.saturation = 0.35f, .contrast = 0.2f, .gamma = {0.0f, -0.05f, 0.0f}}},
    {{"vivid.sky", "vivid", "Sky", "晴空"},
     {.warmth = -0.2f, .saturation = 0.25f, .contrast = 0.15f}},
    {{"vivid.sunset", "vivid", "Sunset", "日落"},
     {.warmth = 0.45f, .saturation = 0.25f, .contrast = 0.25f, .highlight_tint = {0.03f, 0.0f, -0.03f}}},
    {{"vivid.punch", "vivid", "Punch", "鲜明"},
     {.contrast = 0.5f, .saturation = 0.4f}},
    {{"vivid.crisp", "vivid", "Crisp", "清脆"},
     {.contrast = 0.35f, .saturation = 0.15f, .warmth = -0.05f, .exposure = 0.05f}},
    {{"vivid.teal", "vivid", "Teal & Orange", "青橙"},
     {.shadow_tint = {-0.04f, 0.02f, 0.05f}, .highlight_tint = {0.05f, 0.01f, -0.04f}, .contrast = 0.25f, .saturation = 0.15f}},
    /* mono: black and white, plain and toned */
    {{"mono.classic", "mono", "Classic", "经典黑白"},
     {.mono = 1, .mono_mix = MIX709}},
    {{"mono.noir", "mono", "Noir", "黑色电影"},
     {.mono = 1, .mono_mix = {0.5f, 0.4f, 0.1f}, .contrast = 0.6f, .exposure = -0.1f}},
    {{"mono.silver", "mono", "Silver", "银盐"},
     {.mono = 1, .mono_mix = {0.3f, 0.6f, 0.1f}, .contrast = -0.1f, .lift = 0.05f, .dim = 0.03f}},
    {{"mono.sepia", "mono", "Sepia", "棕褐"},
     {.mono = 1, .mono_mix = MIX709, .mono_tone = {0.08f, 0.03f, -0.06f}, .lift = 0.03f}},
    {{"mono.selenium", "mono", "Selenium", "硒调"},
     {.mono = 1, .mono_mix = MIX709, .mono_tone = {0.02f, -0.02f, 0.03f}, .contrast = 0.2f}},
    {{"mono.soft", "mono", "Soft", "柔和黑白"},
     {.mono = 1, .mono_mix = MIX709, .contrast = -0.25f, .lift = 0.06f}},
};

#define FILTER_COUNT (sizeof filters / sizeof filters[0])

size_t sy_filter_count(void) { return FILTER_COUNT; }

int sy_filter_at(size_t index, sy_filter_info *out) {
    if (index >= FILTER_COUNT || !out) return -1;
    *out = filters[index].info;
    return 0;
}

int32_t sy_filter_find(const char *id) {
    if (!id) return -1;
    for (size_t i = 0; i < FILTER_COUNT; i++)
        if (strcmp(filters[i].info.id, id) == 0) return (int32_t)i;
    return -1;
}

const sy__look *sy__filter_look(int32_t index) { return &filters[index].look; }

static float clamp01(float v) { return v > 0 ? (v < 1 ? v : 1) : 0; }

void sy__look_prepare(const sy__look *k, sy__look_prep *out) {
    static const float luma[3] = MIX709;
    out->look = k;
    out->linear = k->exposure != 0 || k->warmth != 0 || k->tint != 0;
    float g[3] = {exp2f(0.3f * k->warmth + 0.1f * k->tint), exp2f(-0.25f * k->tint),
                  exp2f(-0.3f * k->warmth + 0.1f * k->tint)};
    float norm = exp2f(k->exposure) / (luma[0] * g[0] + luma[1] * g[1] + luma[2] * g[2]);
    for (int c = 0; c < 3; c++) out->gain[c] = g[c] * norm;
}

void sy__look_apply(const sy__look_prep *prep, const sy__transfer *tf, const float in[3], float out[3]) {
    static const float luma[3] = MIX709;
    const float two_pi = 6.28318530718f;
    const sy__look *k = prep->look;
    float v[3] = {clamp01(in[0]), clamp01(in[1]), clamp01(in[2])};
    if (prep->linear)
        for (int c = 0; c < 3; c++) v[c] = sy__tf_lerp(tf->encode, clamp01(sy__tf_lerp(tf->decode, v[c]) * prep->gain[c]));
    for (int c = 0; c < 3; c++)
        if (k->gamma[c] != 0) v[c] = powf(v[c], 1 + k->gamma[c]);
    if (k->mono != 0) {
        float m = k->mono_mix[0] * v[0] + k->mono_mix[1] * v[1] + k->mono_mix[2] * v[2];
        for (int c = 0; c < 3; c++) v[c] = v[c] + (m - v[c]) * k->mono + k->mono_tone[c] * 4 * m * (1 - m);
    }
    if (k->saturation != 0) {
        float l = luma[0] * v[0] + luma[1] * v[1] + luma[2] * v[2];
        for (int c = 0; c < 3; c++) v[c] = l + (v[c] - l) * (1 + k->saturation);
    }
    if (k->contrast != 0)
        for (int c = 0; c < 3; c++) {
            float x = clamp01(v[c]);
            v[c] = x - 0.75f * k->contrast * sinf(two_pi * x) / two_pi;
        }
    float l = clamp01(luma[0] * v[0] + luma[1] * v[1] + luma[2] * v[2]);
    for (int c = 0; c < 3; c++) {
        v[c] += k->shadow_tint[c] * (1 - l) * (1 - l) + k->highlight_tint[c] * l * l;
        out[c] = clamp01(k->lift + v[c] * (1 - k->dim - k->lift));
    }
}
