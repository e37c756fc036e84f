// HEIC save rows of the HEIC suite (issue 15): the same edit of a real iPhone HEIC
// (crop to 80 % per side) saved three ways, one after the other in one run:
//
//   shiying HEIC:  `shiying edit IN --recipe crop80 -o OUT.heic --allow-sdr` (default quality 90)
//   shiying JPEG:  the same to OUT.jpg
//   vips heifsave: `vips copy REF.png OUT.heic[Q=50]` (vips' default quality; libheif + x265),
//                  from the lossless PNG of the same edit (libheif cannot open the iPhone 15 file)
//
// Reported: seconds (median), primary-image bits per pixel (the source's alongside), PSNR
// against the PNG of the same edit (HEICs decoded by heif-convert), and time ratios.
import Foundation

struct HeicSaveRow: Codable {
    var input: String
    var width: Int?
    var height: Int?
    var sourceBitsPerPixel: Double?
    var heic: ToolTiming
    var jpeg: ToolTiming
    var vips: ToolTiming
    var heicBitsPerPixel: Double?
    var jpegBitsPerPixel: Double?
    var vipsBitsPerPixel: Double?
    var heicOverJpegTime: Double?
    var heicOverVipsTime: Double?
}

/// Primary-image bytes of a HEIF (grid tiles or the single item), via scripts/heif_primary_bytes.py.
func primaryBytes(_ path: String, root: String, scratch: String) -> Int? {
    guard let r = try? runChild(["python3", root + "/scripts/heif_primary_bytes.py", path], captureDirectory: scratch),
          r.succeeded else { return nil }
    return r.stdout.split(separator: " ").dropFirst().first.flatMap { Int($0) }
}

func magickPSNR(_ a: String, _ b: String, scratch: String, magickConfig: String) -> Double? {
    guard let cmp = try? runChild(["compare", "-metric", "PSNR", a, b, "null:"],
                                  extraEnvironment: ["MAGICK_CONFIGURE_PATH": magickConfig], captureDirectory: scratch)
    else { return nil }
    for word in cmp.stderr.split(whereSeparator: { $0 == " " || $0.isNewline }).reversed() {
        if word == "inf" { return .infinity }
        if let value = Double(word) { return value }
    }
    return nil
}

/// Image size from exiftool (libheif, and so vips and ImageMagick, cannot open the iPhone 15 file).
private func exifSize(_ path: String, scratch: String) -> (width: Int, height: Int)? {
    guard let r = try? runChild(["exiftool", "-s3", "-ImageWidth", "-ImageHeight", path], captureDirectory: scratch),
          r.succeeded else { return nil }
    let v = r.stdout.split(whereSeparator: \.isNewline).compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    return v.count == 2 ? (v[0], v[1]) : nil
}

func heicSaveRows(root: String, shiying: String, runs: Int, scratch: String, outDir: String, magickDir: String,
                  singleRunOver: Double) -> [HeicSaveRow] {
    let real = URL(fileURLWithPath: root + "/../shared/corpus/real").standardized.path
    let recipe = outDir + "/crop80.json"
    try? #"{"version":1,"crop":{"x":0.1,"y":0.1,"width":0.8,"height":0.8}}"#.write(toFile: recipe, atomically: true, encoding: .utf8)
    var rows: [HeicSaveRow] = []
    for name in ["iphone15plus_IMG_3853.HEIC", "iphoneSE2_grid.heic"] {
        let input = real + "/" + name
        guard isFile(input) else { progress("HEIC save: \(input) absent, skipped"); continue }
        let stem = outDir + "/save-" + ((name as NSString).deletingPathExtension)
        let reference = stem + "-ref.png"
        unlink(reference)
        guard let made = try? runChild([shiying, "edit", input, "--recipe", recipe, "-o", reference, "--allow-sdr"],
                                       captureDirectory: scratch), made.succeeded,
              let size = imageSize(reference, scratch: scratch) else {
            progress("HEIC save: the PNG of the edit of \(name) failed; skipped")
            continue
        }
        let edit = [shiying, "edit", input, "--recipe", recipe, "--allow-sdr", "-o"]
        let heic = stem + "-shiying.heic", jpeg = stem + "-shiying.jpg", vips = stem + "-vips.heic"
        var row = HeicSaveRow(
            input: name, width: size.width, height: size.height,
            heic: timeTool("shiying edit -> HEIC", edit + [heic], runs: runs, output: heic, pixels: nil,
                           scratch: scratch, singleRunOver: singleRunOver),
            jpeg: timeTool("shiying edit -> JPEG", edit + [jpeg], runs: runs, output: jpeg, pixels: nil,
                           scratch: scratch, singleRunOver: singleRunOver),
            vips: timeTool("vips heifsave", ["vips", "copy", reference, vips + "[Q=50]"], runs: runs, output: vips,
                           pixels: nil, scratch: scratch, singleRunOver: singleRunOver))
        let pixels = Double(size.width * size.height)
        let sourcePixels = (imageSize(input, scratch: scratch) ?? exifSize(input, scratch: scratch))
            .map { Double($0.width * $0.height) }
        if let bytes = primaryBytes(input, root: root, scratch: scratch), let sourcePixels {
            row.sourceBitsPerPixel = Double(bytes * 8) / sourcePixels
        }
        row.heicBitsPerPixel = primaryBytes(heic, root: root, scratch: scratch).map { Double($0 * 8) / pixels }
        row.vipsBitsPerPixel = primaryBytes(vips, root: root, scratch: scratch).map { Double($0 * 8) / pixels }
        row.jpegBitsPerPixel = row.jpeg.outputBytes.map { Double($0 * 8) / pixels }
        for (path, keyPath) in [(heic, \HeicSaveRow.heic), (vips, \HeicSaveRow.vips)] {
            let decoded = path + ".decoded.png"
            if let d = try? runChild(["heif-convert", path, decoded], captureDirectory: scratch), d.succeeded {
                row[keyPath: keyPath].psnrDB = magickPSNR(reference, decoded, scratch: scratch, magickConfig: magickDir)
            }
            unlink(decoded)
        }
        row.jpeg.psnrDB = magickPSNR(reference, jpeg, scratch: scratch, magickConfig: magickDir)
        if let a = row.heic.secondsMedian, let b = row.jpeg.secondsMedian, b > 0 { row.heicOverJpegTime = a / b }
        if let a = row.heic.secondsMedian, let b = row.vips.secondsMedian, b > 0 { row.heicOverVipsTime = a / b }
        rows.append(row)
    }
    return rows
}

func printHeicSaveRows(_ rows: [HeicSaveRow], runs: Int) {
    guard !rows.isEmpty else { return }
    print("\nHEIC save of an 80 % crop (real iPhone HEICs): shiying HEIC (q90) vs shiying JPEG (q90) vs vips heifsave"
          + " (Q=50, from the PNG of the edit); median of \(runs); bpp = primary image bits per pixel; PSNR vs the PNG\n")
    func f(_ v: Double?, _ format: String) -> String { v.map { $0.isInfinite ? "inf" : String(format: format, $0) } ?? "-" }
    for r in rows {
        print("\(r.input) -> \(r.width ?? 0)x\(r.height ?? 0), source \(f(r.sourceBitsPerPixel, "%.3f")) bpp")
        for (label, t, bpp) in [("  shiying HEIC", r.heic, r.heicBitsPerPixel), ("  shiying JPEG", r.jpeg, r.jpegBitsPerPixel),
                                ("  vips heifsave", r.vips, r.vipsBitsPerPixel)] {
            print("\(label.padding(toLength: 16, withPad: " ", startingAt: 0)) \(f(t.secondsMedian, "%7.2f")) s  "
                  + "\(f(bpp, "%.3f")) bpp (\(f(bpp.flatMap { b in r.sourceBitsPerPixel.map { b / $0 } }, "%.2f"))x source)  "
                  + "\(f(t.psnrDB, "%.2f")) dB")
        }
        print("  HEIC / JPEG time \(f(r.heicOverJpegTime, "%.2f"))x (target <= 2.5x), HEIC / vips \(f(r.heicOverVipsTime, "%.2f"))x")
    }
}
