// HEIC suite, part 6: a long image written as HEIC. Ours (`collage --format heic`,
// x265 tiles one tile row at a time) vs pyvips (the same thumbnail + join stack as
// the JPEG rows, written with heifsave: libheif's x265 at its default quality,
// Q=50); each side's PSNR against its own lossless PNG of the same stack (the two
// resamplers differ, the encoders are what is compared), bits per pixel of the
// primary image, wall time and peak RSS, median of the runs.
import Foundation

func heicCollageRows(root: String, shiying: String, inputs: [String], runs: Int, scratch: String, outDir: String,
                     magickDir: String, singleRunOver: Double) -> [ToolPair] {
    guard !inputs.isEmpty else { return [] }
    let script = root + "/Benchmarks/vips_longimage.py"
    let stem = outDir + "/collage-heic-N\(inputs.count)"
    let ours = stem + "-shiying.heic", theirs = stem + "-pyvips.heic"
    let oursPNG = stem + "-shiying.png", theirsPNG = stem + "-pyvips.png"
    let collage = [shiying, "collage", "--layout", "long", "--width", "1080", "--quality", "90", "-o"]
    let stack = ["python3", script, "--variant", "runs", "--width", "1080"]
    // the lossless references (untimed; vips_longimage.py picks the saver by the extension)
    for (argv, png) in [(collage + [oursPNG] + inputs, oursPNG), (stack + [theirsPNG] + inputs, theirsPNG)] {
        unlink(png)
        guard let r = try? runChild(argv, captureDirectory: scratch), r.succeeded else {
            progress("HEIC collage: the PNG reference \(png) failed; skipped")
            return []
        }
    }
    let size = imageSize(oursPNG, scratch: scratch)
    var a = timeTool("shiying collage -> HEIC", collage + [ours] + inputs, runs: runs, output: ours,
                     pixels: nil, scratch: scratch, singleRunOver: singleRunOver)
    var b = timeTool("pyvips join -> heifsave", stack + ["--quality", "50", theirs] + inputs, runs: runs,
                     output: theirs, pixels: nil, scratch: scratch, singleRunOver: singleRunOver)
    func measure(_ timing: inout ToolTiming, _ heic: String, against reference: String) {
        let decoded = heic + ".decoded.png"
        defer { unlink(decoded) }
        if let d = try? runChild(["heif-convert", heic, decoded], captureDirectory: scratch), d.succeeded {
            timing.psnrDB = magickPSNR(reference, decoded, scratch: scratch, magickConfig: magickDir)
        }
        timing.outputBytes = primaryBytes(heic, root: root, scratch: scratch)
    }
    measure(&a, ours, against: oursPNG)
    measure(&b, theirs, against: theirsPNG)
    return [makePair("collage-heic", input: "\(inputs.count) sample HEICs", size: size, a, b)]
}

func printHeicCollageRows(_ rows: [ToolPair]) {
    guard !rows.isEmpty else { return }
    print("\nHEIC long image (width 1080): shiying collage --format heic (q90) vs pyvips join + heifsave (Q=50);"
          + " PSNR vs each side's own PNG; bpp = primary image bits per pixel\n")
    for r in rows {
        let pixels = Double((r.width ?? 0) * (r.height ?? 0))
        for t in [r.shiying, r.peer] {
            let bpp = t.outputBytes.map { pixels > 0 ? String(format: "%.3f", Double($0 * 8) / pixels) : "-" } ?? "-"
            print("  \(t.tool): " + (t.secondsMedian.map { String(format: "%.3f s", $0) } ?? t.error ?? "-")
                  + ", peak RSS " + (t.peakRSSBytes.map { String(format: "%.1f MiB", Double($0) / 1_048_576) } ?? "-")
                  + ", \(bpp) bpp, PSNR " + (t.psnrDB.map { String(format: "%.2f dB", $0) } ?? "-"))
        }
        if let ratio = r.shiyingOverPeerTime {
            print(String(format: "  time ratio shiying / pyvips: %.2f (%.2fx %@)", ratio, ratio < 1 ? 1 / ratio : ratio,
                         ratio < 1 ? "faster" : "slower"))
        }
    }
}
