// HDR suite, second part: an HDR camera still — the kind of HEIF Sony, Canon and Nikon cameras write (24 MP,
// HLG, BT.2020, 10-bit 4:2:2, a grid of 512x512 tiles), made by scripts/hdr_still.py with sensor-like grain at
// ~3.3 bits per pixel — converted to JPEG, whole process, median of `runs`:
//  - shiying `convert`: the SDR Display P3 rendition (tone-mapped) and the gain map derived from the signal;
//  - heif-convert (libheif, the peer people use): the signal written as if it were SDR, no gain map;
//  - vips copy (libvips through libheif): the same as heif-convert.
// The peers do less (no tone mapping, no map, no profile): the ratio is what fidelity costs, or saves.
import Foundation

struct HDRCameraRow: Codable {
    var input: String
    var width: Int
    var height: Int
    var inputBytes: Int
    var tool: String
    var command: String
    var runSeconds: [Double]
    var secondsMedian: Double
    var userSecondsMedian: Double
    var peakRSSBytes: Int
    var outputBytes: Int
    var shiyingOverThis: Double     // shiying's median seconds / this tool's (< 1: shiying faster)
}

func runHDRCameraCase(root: String, dir: String, runs: Int) -> [HDRCameraRow] {
    let input = dir + "/camera-hlg.heic"
    if !FileManager.default.fileExists(atPath: input) {
        progress("hdr suite: writing a 6000x4000 HLG 4:2:2 camera-like HEIF (scripts/hdr_still.py, about a minute)")
        let make = try? runChild(["/usr/bin/env", "python3", root + "/scripts/hdr_still.py", input, "hlg", "--tile", "512",
                                  "--chroma", "422", "--size", "6000x4000", "--grain", "0.02", "--qp", "20"],
                                 captureDirectory: dir)
        guard let make, make.succeeded else {
            progress("hdr suite: no camera HEIF (numpy and ffmpeg with libx265 needed): \(make?.stderr.suffix(300) ?? "")")
            return []
        }
    }
    let shiying = locateShiying(root: root, scratch: dir)
    let tools: [(String, [String], String)] = [
        ("shiying", [shiying, "convert", "-o", dir + "/camera-shiying.jpg", input], dir + "/camera-shiying.jpg"),
        ("heif-convert", ["heif-convert", "-q", "90", input, dir + "/camera-heif-convert.jpg"],
         dir + "/camera-heif-convert.jpg"),
        ("vips", ["vips", "copy", input, dir + "/camera-vips.jpg[Q=90]"], dir + "/camera-vips.jpg"),
    ]
    var results: [(String, [String], [ChildResult], String)] = []
    for (name, argv, out) in tools {
        var rs: [ChildResult] = []
        for run in 1...runs {
            guard let r = try? runChild(argv, captureDirectory: dir), r.succeeded else {
                progress("hdr suite: \(name) failed on the camera HEIF"); break
            }
            rs.append(r)
            progress(String(format: "  camera HLG -> JPEG, %@ run %d/%d: %.2f s", name, run, runs, r.seconds))
        }
        if !rs.isEmpty { results.append((name, argv, rs, out)) }
    }
    guard let ours = results.first, ours.0 == "shiying" else { return [] }
    let oursMedian = median(ours.2.map(\.seconds))
    let attributes = (try? FileManager.default.attributesOfItem(atPath: input)) ?? [:]
    return results.map { name, argv, rs, out in
        let m = median(rs.map(\.seconds))
        return HDRCameraRow(input: input, width: 6000, height: 4000,
                            inputBytes: (attributes[.size] as? NSNumber)?.intValue ?? 0, tool: name,
                            command: argv.joined(separator: " "), runSeconds: rs.map(\.seconds), secondsMedian: m,
                            userSecondsMedian: median(rs.map(\.userSeconds)),
                            peakRSSBytes: (rs.map(\.maxRSSKiB).max() ?? 0) * 1024,
                            outputBytes: ((try? FileManager.default.attributesOfItem(atPath: out))?[.size] as? NSNumber)?
                                .intValue ?? 0,
                            shiyingOverThis: oursMedian / m)
    }
}
