/* sy_internal_api.h — engine-internal interfaces the C API tests call
 * directly (containers, writers, row sources and decoders that no Swift facade code uses). Reached
 * only by the test targets; the engine's public headers stay what Swift calls. */
#ifndef SY_INTERNAL_API_H
#define SY_INTERNAL_API_H

#include "base/sy_md5.h"
#include "base/sy_sha256.h"
#include "base/sy_video_stream.h"
#include "bmff/sy_bmff.h"
#include "base/sy_hdr_static.h"
#include "base/sy_hdr10plus.h"
#include "base/sy_icc.h"
#include "color/sy_color_transform.h"
#include "exif/sy_exif.h"
#include "heif/sy_heif.h"
#include "heif/sy_heif_source.h"
#include "heif/sy_heif_writer.h"
#include "heif/sy_heif_tile_lanes.h"
#include "png/sy_png_source.h"
#include "gainmap/sy_gainmap_internal.h"
#include "hevc/sy_hevc.h"
#include "hevc/sy_hevc_attached.h"
#include "mov/sy_mov_writer.h"
#include "collage/sy_layout.h"
#include "video/sy_video_cuts.h"
#include "video/sy_video_reader_decode_only.h"
#include "video/sy_video_reader_scale.h"
#include "video/sy_video_encoder_stage.h"
#include "base/sy_rgb_to_ycbcr.h"
#include "render/sy_render_encode.h"
#include "render/sy_render_scratch.h"
#include "convert/sy_gif_internal.h"
#include "convert/sy_gif_palette.h"
#include "motion/sy_motion_internal.h"

#endif
