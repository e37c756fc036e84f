// Shared by the GainMap* suites (issue 7, SPEC E6): HDR sample files, gain-map
// decode, upright edits and PSNR.
import CShiying
import CShiyingFixtures
import Foundation

/// A temp folder holding an Ultra HDR JPEG and an Apple-style HEIC of the same synthetic scene (and, asked, an ISO-only HEIC).
final class HDRSampleFolder {
    let path: String
    let jpeg: String
    let heic: String
    let width: UInt32, height: UInt32, seed: UInt64

    init(width: UInt32 = 640, height: UInt32 = 480, seed: UInt64 = 7) throws {
        self.width = width
        self.height = height
        self.seed = seed
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("shiying-gainmap-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        jpeg = (path as NSString).appendingPathComponent("hdr.jpg")
        heic = (path as NSString).appendingPathComponent("hdr.heic")
        let ctx = try Context()
        for (file, format) in [(jpeg, SY_STILL_JPEG), (heic, SY_STILL_HEIC)] {
            var o = sy_hdr_sample_options()
            sy_hdr_sample_options_init(&o)
            o.width = width
            o.height = height
            o.seed = seed
            var err = sy_error()
            guard sy_hdr_sample_write(ctx.raw, &o, format, file, &err) == SY_OK else {
                throw CTestFailure("sy_hdr_sample_write: \(message(err))")
            }
        }
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// The same scene as an ISO 21496-1-only HEIC (a 'tmap' item and its own
    /// hidden map, no Apple map: Android's HEIC Ultra HDR form), written on first use.
    lazy var isoHEIC: String = {
        let file = self.file("hdr-iso.heic")
        guard let ctx = try? Context() else { return file }
        var o = sy_hdr_sample_options()
        sy_hdr_sample_options_init(&o)
        o.width = width
        o.height = height
        o.seed = seed
        o.heic_iso_only = 1
        var err = sy_error()
        if sy_hdr_sample_write(ctx.raw, &o, SY_STILL_HEIC, file, &err) != SY_OK { print("ISO HEIC sample: \(message(err))") }
        return file
    }()

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Probe + decode of a file's gain map.
struct DecodedGainMap {
    var info: sy_gainmap_info
    var width: Int, height: Int, channels: Int
    var pixels: [UInt8]

    init(_ ctx: Context, _ path: String) throws {
        var info = sy_gainmap_info()
        var err = sy_error()
        guard sy_gainmap_probe(ctx.raw, path, &info, &err) == SY_OK else { throw CTestFailure("probe \(path): \(message(err))") }
        var img = sy_gainmap_image()
        guard sy_gainmap_decode(ctx.raw, path, &info, &img, &err) == SY_OK else {
            throw CTestFailure("decode \(path): \(message(err))")
        }
        defer { sy_gainmap_image_free(ctx.raw, &img) }
        self.info = info
        width = Int(img.width)
        height = Int(img.height)
        channels = Int(img.channels)
        pixels = []
        for y in 0..<height {
            pixels += UnsafeBufferPointer(start: img.pixels + y * Int(img.stride), count: width * channels)
        }
    }

    /// Mean log2 gain (channel 0) over the 3x3 map pixels around (x, y), in map pixel units.
    func stops(x: Double, y: Double) -> Double {
        var info = info
        var sum = 0.0
        let cx = Int(x.rounded(.down)), cy = Int(y.rounded(.down))
        for dy in -1...1 {
            for dx in -1...1 {
                let px = min(max(cx + dx, 0), width - 1), py = min(max(cy + dy, 0), height - 1)
                sum += sy_gainmap_log2_gain(&info, 0, pixels[(py * width + px) * channels])
            }
        }
        return sum / 9
    }

    /// The same map put through crop (normalized, rounded to whole pixels as
    /// sy_render.h documents), then a clockwise quarter turn and an optional
    /// horizontal flip: an independent reference for whole-pixel geometry.
    func cropTurned(x: Double, y: Double, w: Double, h: Double, turns: Int, flip: Bool = false) -> (Int, Int, [UInt8]) {
        let x0 = Int((x * Double(width)).rounded()), x1 = Int(((x + w) * Double(width)).rounded())
        let y0 = Int((y * Double(height)).rounded()), y1 = Int(((y + h) * Double(height)).rounded())
        let cw = x1 - x0, ch = y1 - y0
        let ow = turns % 2 == 1 ? ch : cw, oh = turns % 2 == 1 ? cw : ch
        var out = [UInt8](repeating: 0, count: ow * oh)
        for v in 0..<oh {
            for u0 in 0..<ow {
                let u = flip ? ow - 1 - u0 : u0
                let (sx, sy): (Int, Int) = switch turns % 4 {
                case 1: (v, ch - 1 - u)
                case 2: (cw - 1 - u, ch - 1 - v)
                case 3: (cw - 1 - v, u)
                default: (u, v)
                }
                out[v * ow + u0] = pixels[((y0 + sy) * width + x0 + sx) * channels]
            }
        }
        return (ow, oh, out)
    }

    /// As an sy_gainmap_image borrowing `bytes` (greyscale).
    static func withImage<R>(_ w: Int, _ h: Int, _ bytes: [UInt8], _ body: (UnsafePointer<sy_gainmap_image>) throws -> R) rethrows -> R {
        var copy = bytes
        return try copy.withUnsafeMutableBufferPointer { buf in
            var img = sy_gainmap_image(pixels: buf.baseAddress, stride: w, width: UInt32(w), height: UInt32(h), channels: 1)
            return try body(&img)
        }
    }
}

/// PSNR of two 8-bit buffers (peak 255).
func psnr8(_ a: [UInt8], _ b: [UInt8]) -> Double {
    precondition(a.count == b.count && !a.isEmpty)
    var sum = 0.0
    for i in 0..<a.count {
        let d = Double(a[i]) - Double(b[i])
        sum += d * d
    }
    let mse = sum / Double(a.count)
    return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
}

/// PSNR of linear-light HDR buffers, the peak being the reference's largest value.
func psnrLinear(_ test: [Float], _ reference: [Float]) -> Double {
    precondition(test.count == reference.count && !test.isEmpty)
    var sum = 0.0, peak = 0.0
    for i in 0..<test.count {
        let d = Double(test[i]) - Double(reference[i])
        sum += d * d
        peak = max(peak, Double(reference[i]))
    }
    let mse = sum / Double(test.count)
    return mse == 0 ? 99 : 10 * log10(peak * peak / mse)
}

/// Upright RGB8 of `path` through `recipe` at native size (sy_edit_render).
func renderUpright(_ ctx: Context, _ path: String, _ recipe: UnsafePointer<sy_recipe>) throws -> (Int, Int, [UInt8]) {
    var image = sy_edit_image()
    var err = sy_error()
    guard sy_edit_render(ctx.raw, path, recipe, 0, 0, UInt32(SY_EDIT_FULL_DECODE), &image, nil, &err) == SY_OK else {
        throw CTestFailure("render \(path): \(message(err))")
    }
    defer { sy_edit_image_free(ctx.raw, &image) }
    return (Int(image.width), Int(image.height),
            [UInt8](UnsafeBufferPointer(start: image.pixels, count: Int(image.stride) * Int(image.height))))
}

/// HDR reconstruction (linear light) of an upright base with a map.
func reconstruct(_ info: sy_gainmap_info, base: (Int, Int, [UInt8]), map: (Int, Int, [UInt8])) throws -> [Float] {
    var out = [Float](repeating: 0, count: base.0 * base.1 * 3)
    var info = info
    var err = sy_error()
    let status = DecodedGainMap.withImage(map.0, map.1, map.2) { img in
        base.2.withUnsafeBufferPointer { b in
            out.withUnsafeMutableBufferPointer { o in
                sy_gainmap_reconstruct(&info, b.baseAddress, base.0 * 3, UInt32(base.0), UInt32(base.1), img,
                                       o.baseAddress, &err)
            }
        }
    }
    guard status == SY_OK else { throw CTestFailure("reconstruct: \(message(err))") }
    return out
}

/// Counts hook calls and answers with `answer`.
final class HookCounter {
    var calls = 0
    var reasons: [sy_hdr_loss_reason] = []
    let answer: Bool
    init(answer: Bool) { self.answer = answer }
}

/// sy_gainmap_edit with a counting hook (nil counter = no hook), fitted inside maxSide x maxSide (0 = full size).
func gainMapEdit(_ ctx: Context, _ input: String, _ output: String, _ recipe: UnsafePointer<sy_recipe>,
                 format: sy_still_format, hook counter: HookCounter?, maxSide: UInt32 = 0)
    -> (status: sy_status, report: sy_gainmap_edit_report, error: sy_error) {
    var opts = sy_edit_options()
    sy_edit_options_init(&opts)
    opts.format = format
    opts.max_width = maxSide
    opts.max_height = maxSide
    opts.heic_preset = nil
    var report = sy_gainmap_edit_report()
    var err = sy_error()
    let hook: sy_hdr_loss_hook = { context, reason, _ in
        let counter = Unmanaged<HookCounter>.fromOpaque(context!).takeUnretainedValue()
        counter.calls += 1
        counter.reasons.append(reason)
        return counter.answer ? 1 : 0
    }
    let status: sy_status
    if let counter {
        status = sy_gainmap_edit(ctx.raw, input, output, recipe, &opts, hook, Unmanaged.passUnretained(counter).toOpaque(),
                                 &report, &err)
    } else {
        status = sy_gainmap_edit(ctx.raw, input, output, recipe, &opts, nil, nil, &report, &err)
    }
    return (status, report, err)
}

/// The edit: a clockwise quarter turn and a crop (plus colour, which must touch the base only).
func turnAndCropRecipe(colour: Bool) -> sy_recipe {
    var r = sy_recipe()
    sy_recipe_init(&r)
    r.crop = sy_recipe_rect(x: 0.1, y: 0.05, width: 0.7, height: 0.8)
    r.quarter_turns = 1
    if colour {
        r.adjustments.exposure = 0.4
        r.adjustments.saturation = 0.3
    }
    return r
}
