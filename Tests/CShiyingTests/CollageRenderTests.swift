// Issue 5 / SPEC C12, E2: collage cells come from the one frame renderer. The
// cell builder streams decoder rows through sy_renderer band by band; these
// tests prove it by comparing bytes with sy_render over the whole decoded
// photo (not by reading code).
import CShiying
import CShiyingFixtures
import Foundation
import Testing

/// A temp folder for this suite's files, removed on deinit.
private final class Scratch {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("shiying-collage-render-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Writes `image` as an 8-bit RGB PNG (ImageMagick encodes it losslessly).
private func writePNG(_ image: RGBImage, _ path: String) throws {
    let raw = path + ".rgb"
    try ExternalTools.writeFile(raw, image.bytes)
    defer { unlink(raw) }
    try ExternalTools.check("convert", ["-size", "\(image.width)x\(image.height)", "-depth", "8", "rgb:\(raw)",
                                        "-define", "png:color-type=2", path])
}

/// The RGB8 pixels of an image file, decoded by ImageMagick.
private func readRGB(_ path: String, width: Int, height: Int) throws -> RGBImage {
    let raw = path + ".out.rgb"
    try ExternalTools.check("convert", [path, "-depth", "8", "rgb:\(raw)"])
    defer { unlink(raw) }
    let bytes = ExternalTools.readFile(raw)
    guard bytes.count == width * height * 3 else {
        throw CTestFailure("\(path): \(bytes.count) bytes of RGB, expected \(width)x\(height)")
    }
    return RGBImage(width: width, height: height, bytes: bytes)
}

extension RGBImage {
    func crop(x: Int, y: Int, width w: Int, height h: Int) -> RGBImage {
        var out: [UInt8] = []
        out.reserveCapacity(w * h * 3)
        for row in y..<(y + h) { out += bytes[((row * width + x) * 3)..<((row * width + x + w) * 3)] }
        return RGBImage(width: w, height: h, bytes: out)
    }

    /// Pixels that differ, for a failure message that does not print the bytes.
    func differingPixels(_ other: RGBImage) -> Int {
        guard width == other.width && height == other.height else { return width * height }
        var count = 0
        for i in 0..<(width * height) where bytes[(3 * i)..<(3 * i + 3)] != other.bytes[(3 * i)..<(3 * i + 3)] {
            count += 1
        }
        return count
    }
}

/// Renders a PNG collage with no gaps and returns its pixels and report size.
private func collagePNG(_ ctx: Context, _ inputs: [String], layout: sy_layout_kind, width: UInt32, columns: UInt32 = 0,
                        output: String) throws -> RGBImage {
    var options = sy_collage_options()
    sy_collage_options_init(&options, layout)
    options.width = width
    options.columns = columns
    options.spacing = 0
    options.margin = 0
    options.format = SY_STILL_PNG
    var report = sy_collage_report()
    var err = sy_error()
    guard render(ctx, inputs, &options, output, &report, &err) == SY_OK else {
        throw CTestFailure("sy_collage_render: \(message(err))")
    }
    defer { sy_collage_report_free(&report) }
    #expect(report.grey_count == 0)
    return try readRGB(output, width: Int(report.width), height: Int(report.height))
}

@Suite("Collage cells through the one renderer (issue 5)")
struct CollageRenderTests {
    @Test("issue 5 / SPEC C12: a long-image cell is sy_render's output byte for byte, exact and rounded aspects",
          arguments: [400, 333])
    func longCellIsRenderOutput(width: Int) throws {
        let scratch = try Scratch()
        let ctx = try Context()
        let photo = RGBImage.photo(width: 1600, height: 1200, seed: 7)
        let input = scratch.file("photo.png")
        try writePNG(photo, input)
        let out = try collagePNG(ctx, [input], layout: SY_LAYOUT_LONG, width: UInt32(width),
                                 output: scratch.file("long.png"))
        let expected = try Render.run(ctx, Recipe(), photo, width: out.width, height: out.height)
        #expect(out.width == width && out.height == Int((Double(width) * 0.75).rounded()))
        #expect(out.differingPixels(expected) == 0, "cell differs from sy_render in \(out.differingPixels(expected)) pixels")
    }

    @Test("issue 5 / SPEC C12: grid cells (centre-cropped to fill) are sy_render's output byte for byte")
    func gridCellsAreRenderOutput() throws {
        let scratch = try Scratch()
        let ctx = try Context()
        let photos = [RGBImage.photo(width: 1600, height: 1200, seed: 3), RGBImage.photo(width: 900, height: 1400, seed: 4)]
        var inputs: [String] = []
        for (i, p) in photos.enumerated() {
            inputs.append(scratch.file("p\(i).png"))
            try writePNG(p, inputs[i])
        }
        let out = try collagePNG(ctx, inputs, layout: SY_LAYOUT_GRID, width: 600, columns: 2,
                                 output: scratch.file("grid.png"))
        #expect(out.width == 600 && out.height == 300)
        for (i, p) in photos.enumerated() {
            let cell = out.crop(x: 300 * i, y: 0, width: 300, height: 300)
            let expected = try Render.run(ctx, Recipe(), p, width: 300, height: 300)
            #expect(cell.differingPixels(expected) == 0, "cell \(i) differs in \(cell.differingPixels(expected)) pixels")
        }
    }

    @Test("issue 5: a JPEG with EXIF orientation 6: the cell is sy_render of the stored frame, turned upright")
    func rotatedJPEGCellIsTurnedRender() throws {
        // 640x480 stored, upright 480x640. At 432 px wide (0.9x) the cell
        // decodes at full size; the editor's full-size identity render gives
        // the same decode upright (an exact pixel move), from which the
        // stored frame is recovered for the reference render.
        let folder = try SampleFolder(count: 2, width: 640, height: 480)
        let ctx = try Context()
        let jpeg = folder.photos[1]
        let out = try collagePNG(ctx, [jpeg], layout: SY_LAYOUT_LONG, width: 432, output: folder.file("long.png"))
        #expect((out.width, out.height) == (432, 576))
        let upright = try editorRender(ctx, jpeg, maxWidth: 0)
        #expect((upright.width, upright.height) == (480, 640))
        // Orientation 6: stored (x, y) shows upright (479 - y, x).
        let stored = RGBImage(width: 640, height: 480) { x, y in
            let p = upright.pixel(479 - y, x)
            return (Int(p[0]), Int(p[1]), Int(p[2]))
        }
        let rendered = try Render.run(ctx, Recipe(), stored, width: 576, height: 432)
        let turned = RGBImage(width: 432, height: 576) { x, y in
            let p = rendered.pixel(y, 431 - x)
            return (Int(p[0]), Int(p[1]), Int(p[2]))
        }
        #expect(out.differingPixels(turned) == 0, "cell differs in \(out.differingPixels(turned)) pixels")
        // The editor renders the upright source instead: the same filter along
        // swapped axes, so float sums round differently in a few pixels.
        let preview = try editorRender(ctx, jpeg, maxWidth: 432)
        #expect(out.maxAbsDiff(preview) <= 1)
    }
}

/// The editor's identity render of `path` fitted to `maxWidth` (0 = full size).
private func editorRender(_ ctx: Context, _ path: String, maxWidth: UInt32) throws -> RGBImage {
    var recipe = sy_recipe()
    sy_recipe_init(&recipe)
    var image = sy_edit_image()
    var err = sy_error()
    guard sy_edit_render(ctx.raw, path, &recipe, maxWidth, 0, 0, &image, nil, &err) == SY_OK else {
        throw CTestFailure("sy_edit_render \(path): \(message(err))")
    }
    defer { sy_edit_image_free(ctx.raw, &image) }
    return RGBImage(width: Int(image.width), height: Int(image.height),
                    bytes: [UInt8](UnsafeBufferPointer(start: image.pixels, count: Int(image.stride) * Int(image.height))))
}

/// EXIF orientation `o` by its definition: where stored pixel (x, y) of a w x h frame shows upright.
private func uprightPosition(_ o: Int, _ x: Int, _ y: Int, _ w: Int, _ h: Int) -> (Int, Int) {
    switch o {
    case 2: (w - 1 - x, y)
    case 3: (w - 1 - x, h - 1 - y)
    case 4: (x, h - 1 - y)
    case 5: (y, x)
    case 6: (h - 1 - y, x)
    case 7: (h - 1 - y, w - 1 - x)
    case 8: (y, w - 1 - x)
    default: (x, y)
    }
}

/// The stored frame turned upright by `o`, pixel by pixel.
private func turned(_ stored: RGBImage, _ o: Int) -> RGBImage {
    let (w, h) = (stored.width, stored.height)
    let (uw, uh) = o >= 5 ? (h, w) : (w, h)
    var bytes = [UInt8](repeating: 0, count: uw * uh * 3)
    for y in 0..<h {
        for x in 0..<w {
            let (ux, uy) = uprightPosition(o, x, y, w, h)
            for c in 0..<3 { bytes[(uy * uw + ux) * 3 + c] = stored.bytes[(y * w + x) * 3 + c] }
        }
    }
    return RGBImage(width: uw, height: uh, bytes: bytes)
}

/// A copy of the JPEG at `path` whose Exif Orientation tag says `o` (same stored pixels).
private func withOrientation(_ path: String, _ o: Int, to output: String) throws {
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let be: [UInt8] = [0x01, 0x12, 0x00, 0x03, 0, 0, 0, 1], le: [UInt8] = [0x12, 0x01, 0x03, 0x00, 1, 0, 0, 0]
    guard let at = (0..<(bytes.count - 10)).first(where: { Array(bytes[$0..<$0 + 8]) == be || Array(bytes[$0..<$0 + 8]) == le })
    else { throw CTestFailure("\(path): no Orientation tag") }
    let bigEndian = bytes[at] == 0x01
    bytes[at + 8] = bigEndian ? 0 : UInt8(o)
    bytes[at + 9] = bigEndian ? UInt8(o) : 0
    try Data(bytes).write(to: URL(fileURLWithPath: output))
}

/// sy_edit_render with the identity recipe at full size (the upright decode).
private func uprightDecode(_ ctx: Context, _ path: String) throws -> RGBImage {
    var recipe = sy_recipe()
    sy_recipe_init(&recipe)
    var image = sy_edit_image()
    var err = sy_error()
    guard sy_edit_render(ctx.raw, path, &recipe, 0, 0, UInt32(SY_EDIT_FULL_DECODE), &image, nil, &err) == SY_OK else {
        throw CTestFailure("sy_edit_render \(path): \(message(err))")
    }
    defer { sy_edit_image_free(ctx.raw, &image) }
    let (w, h) = (Int(image.width), Int(image.height))
    var bytes: [UInt8] = []
    for y in 0..<h { bytes += UnsafeBufferPointer(start: image.pixels + y * Int(image.stride), count: w * 3) }
    return RGBImage(width: w, height: h, bytes: bytes)
}

@Suite("EXIF orientation: one map for the upright decode and collage cells")
struct OrientationTests {
    @Test("orientations 1-8: the upright decode and a long-image cell at native size are the stored frame turned by the EXIF definition")
    func everyOrientation() throws {
        let scratch = try Scratch()
        let ctx = try Context()
        var options = sy_sample_options()
        sy_sample_options_init(&options)
        options.width = 52 /* not a multiple of 16: partial bands and MCUs */
        options.height = 36
        options.seed = 11
        let original = scratch.file("stored.jpg")
        var err = sy_error()
        #expect(sy_sample_write_jpeg(ctx.raw, &options, original, &err) == SY_OK)
        let stored = try uprightDecode(ctx, original)
        #expect(stored.width == 52 && stored.height == 36)
        for o in 1...8 {
            let file = scratch.file("o\(o).jpg")
            try withOrientation(original, o, to: file)
            let expected = turned(stored, o)
            let decoded = try uprightDecode(ctx, file)
            #expect(decoded == expected, "orientation \(o): upright decode differs in \(decoded.differingPixels(expected)) pixels")
            let cell = try collagePNG(ctx, [file], layout: SY_LAYOUT_LONG, width: UInt32(expected.width),
                                      output: scratch.file("long\(o).png"))
            #expect(cell == expected, "orientation \(o): collage cell differs in \(cell.differingPixels(expected)) pixels")
        }
    }
}
