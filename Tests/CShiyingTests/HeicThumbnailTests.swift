// Issue 16 item 5: a HEIC's `thmb` thumbnail. The writer stores one
// (sy_heif_writer_add_thumbnail: a visible hvc1 item, iref thmb to the
// primary), and an edit saved as HEIC renders the source's thumbnail anew
// from the edited image at the source thumbnail's long side, instead of
// dropping it — checked with our HEIF reader, Debian's heif-info and the
// thumbnail's pixels against the edited primary.
import CShiying
import CShiyingInternal
import Foundation
import Testing

/// The thumbnails of a file: (item id, width, height) of items with iref thmb to the primary.
private func thumbnails(_ ctx: Context, _ path: String) throws -> [(id: UInt32, width: UInt32, height: UInt32)] {
    var file: OpaquePointer?
    var err = sy_error()
    try #require(sy_heif_open(ctx.raw, path, &file, &err) == SY_OK, "\(message(err))")
    defer { sy_heif_close(file) }
    let primary = sy_heif_primary_id(file)
    return (0..<sy_heif_item_count(file)).compactMap { sy_heif_item_at(file, $0)?.pointee }
        .filter { $0.thumbnail_of == primary }.map { ($0.id, $0.width, $0.height) }
}

/// A 640x480 photo-like HEIC with a 160x120 thumbnail of itself.
private func sourceWithThumbnail(_ folder: HW.Folder) throws -> (path: String, pixels: [UInt8]) {
    let (w, h, tw, th) = (640, 480, 160, 120)
    let pixels = HW.photo(width: w, height: h, seed: 16)
    var small = [UInt8](repeating: 0, count: tw * th * 3) // every 4x4 block's top-left pixel: a crude but real picture
    for y in 0..<th { for x in 0..<tw { for c in 0..<3 { small[(y * tw + x) * 3 + c] = pixels[(y * 4 * w + x * 4) * 3 + c] } } }
    let ctx = try Context()
    var o = HW.options(width: w, height: h)
    var writer: OpaquePointer?
    var err = sy_error()
    let path = folder.file("src.heic")
    try #require(sy_heif_writer_create(ctx.raw, path, &o, &writer, &err) == SY_OK, "\(message(err))")
    defer { sy_heif_writer_destroy(writer) }
    try #require(HW.withRows(pixels, width: w, height: h, channels: 3) { sy_heif_writer_write_rows(writer, $0, UInt32(h), &err) } == SY_OK,
                 "\(message(err))")
    try #require(HW.withRows(small, width: tw, height: th, channels: 3) {
        sy_heif_writer_add_thumbnail(writer, UInt32(tw), UInt32(th), $0, &err)
    } == SY_OK, "\(message(err))")
    #expect(HW.withRows(small, width: tw, height: th, channels: 3) {
        sy_heif_writer_add_thumbnail(writer, UInt32(tw), UInt32(th), $0, &err)
    } == SY_E_USAGE, "one thumbnail per file")
    err = sy_error()
    try #require(sy_heif_writer_finish(writer, &err) == SY_OK, "\(message(err))")
    return (path, pixels)
}

@Suite("HEIC thumbnails (issue 16)", .enabled(if: ExternalTools.installed("heif-info", "heif-convert"), "libheif-examples missing"))
struct HeicThumbnailTests {
    @Test("the writer's thumbnail is a thmb item heif-info lists")
    func writerThumbnail() throws {
        let folder = try HW.Folder()
        let (path, _) = try sourceWithThumbnail(folder)
        let ctx = try Context()
        let t = try thumbnails(ctx, path)
        #expect(t.count == 1 && t.first?.width == 160 && t.first?.height == 120, "\(t)")
        let info = try ExternalTools.check("heif-info", [path])
        #expect(info.contains("thumbnail: 160x120"), "\(info)")
    }

    @Test("a HEIC edit renders the thumbnail anew from the edit (long side kept, the edit's shape and pixels); JPEG drops it")
    func editRendersThumbnail() throws {
        let folder = try HW.Folder()
        let (path, _) = try sourceWithThumbnail(folder)
        let ctx = try Context()
        var recipe = sy_recipe()
        sy_recipe_init(&recipe)
        recipe.crop = sy_recipe_rect(x: 0.25, y: 0, width: 0.5, height: 1) // 320x480: portrait now (the source's is 160x120)
        recipe.adjustments.exposure = 0.5
        var opts = sy_edit_options()
        sy_edit_options_init(&opts)
        opts.format = SY_STILL_HEIC
        var report = sy_edit_report()
        var err = sy_error()
        let out = folder.file("edit.heic")
        try #require(sy_edit(ctx.raw, path, out, &recipe, &opts, &report, &err) == SY_OK, "\(message(err))")
        #expect(report.kept_heic_thumbnail == 1 && report.dropped & UInt32(SY_DROPPED_HEIC_THUMBNAIL.rawValue) == 0)
        let t = try thumbnails(ctx, out)
        try #require(t.count == 1, "\(t)")
        #expect(t[0].width == 106 && t[0].height == 160, "thumbnail \(t[0].width)x\(t[0].height)") // 320x480 at long side 160
        let info = try ExternalTools.check("heif-info", [out])
        #expect(info.contains("thumbnail: 106x160"), "\(info)")
        // its pixels are the edited image's: pillow-heif (a current libheif) decodes it, against the primary box-averaged
        let script = """
        import sys, numpy as np, pillow_heif
        from PIL import Image
        f = pillow_heif.open_heif(sys.argv[1])
        t = np.asarray(f[0].get_thumbnail(0).to_pillow().convert("RGB"), dtype=float)
        m = np.asarray(f.to_pillow().convert("RGB").resize((t.shape[1], t.shape[0]), Image.BOX), dtype=float)
        print(t.shape[1], t.shape[0], 10 * np.log10(255 ** 2 / np.mean((t - m) ** 2)))
        """
        if (try? ExternalTools.check("python3", ["-c", "import pillow_heif, numpy"])) != nil {
            let f = try ExternalTools.check("python3", ["-W", "ignore", "-c", script, out])
                .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
            #expect(f.count == 3 && f[0] == 106 && f[1] == 160 && f[2] >= 30, "pillow-heif: \(f)")
        }
        // a JPEG has nowhere to keep it: said so
        opts.format = SY_STILL_JPEG
        try #require(sy_edit(ctx.raw, path, folder.file("edit.jpg"), &recipe, &opts, &report, &err) == SY_OK, "\(message(err))")
        #expect(report.kept_heic_thumbnail == 0 && report.dropped & UInt32(SY_DROPPED_HEIC_THUMBNAIL.rawValue) != 0)
    }
}
