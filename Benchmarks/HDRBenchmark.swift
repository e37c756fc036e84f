// HDR suite (issue 7, SPEC E6): the cost of keeping the gain map. The same
// 12 MP HDR sample (Ultra HDR JPEG and Apple-style HEIC) is saved with a
// 90° turn + crop twice per run, in one process: `HDREditor.save` (base +
// gain map through the same geometry, map encoded and written with the MPF /
// auxiliary item) and `HDREditor.saveSDR` (SDR only: the base alone, as the
// old path did). Median of `runs`, alternating the two so load drifts hit both.
//
//   swift run -c release Benchmarks --suite hdr [--runs 5]
//
// Then an HDR camera still (HLG HEIF, 24 MP) to JPEG vs heif-convert and vips (HDRStillBenchmark.swift).
//
// Writes .build/benchmarks/hdr-latest.json and hdr-<timestamp>.json.
import Foundation
import Shiying
import ShiyingFixtures

struct HDRCaseTiming: Codable {
    var format: String
    var keepMs: [Double]
    var sdrOnlyMs: [Double]
    var keepMedianMs: Double
    var sdrOnlyMedianMs: Double
    var extraMs: Double
    var extraPercent: Double
    var keepBytes: Int
    var sdrOnlyBytes: Int
    var gainMapSize: [Int]
}

struct HDRBenchReport: Codable {
    var timestamp: String
    var host: String
    var cores: Int
    var loadAverageBefore: Double
    var loadAverageAfter: Double
    var runs: Int
    var width: Int
    var height: Int
    var recipe: String
    var cases: [HDRCaseTiming]
    var camera: [HDRCameraRow]   // HDRStillBenchmark.swift: a 24 MP HLG camera HEIF to JPEG vs libheif, libvips
}

private func hdrMedian(_ v: [Double]) -> Double {
    let s = v.sorted()
    return s.isEmpty ? .nan : s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func runHDRSuite(root: String, runs: Int) {
    let dir = root + "/.build/benchmarks/hdr"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let (width, height) = (4032, 3024)
    let recipe = EditRecipe(crop: .init(x: 0.05, y: 0.05, width: 0.9, height: 0.9), quarterTurns: 1)
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let loadBefore = loadAverage()
    if loadBefore > 0.5 * Double(cores) {
        progress("warning: load average \(loadBefore) on \(cores) cores before starting; timings will be noisy")
    }
    let inputs: [String]
    do {
        progress("hdr suite: writing \(width)x\(height) HDR samples")
        inputs = try HDRSamplePhotos.write(width: width, height: height, to: dir)
    } catch {
        fail("hdr suite: cannot write the samples: \(error)")
    }
    var cases: [HDRCaseTiming] = []
    for input in inputs {
        let ext = (input as NSString).pathExtension
        let keepOut = "\(dir)/keep.\(ext)", sdrOut = "\(dir)/sdr.\(ext)"
        var keep: [Double] = [], sdr: [Double] = []
        var mapSize = [0, 0]
        do {
            for run in 1...runs {
                let a = ContinuousClock.now
                let report = try HDREditor.saveBlocking(input, recipe: recipe, to: keepOut)
                let b = ContinuousClock.now
                _ = try HDREditor.saveSDRBlocking(input, recipe: recipe, to: sdrOut)
                let c = ContinuousClock.now
                guard report.hdr == "kept" else { fail("hdr suite: \(input) did not keep its gain map") }
                mapSize = [report.gainMapWidth ?? 0, report.gainMapHeight ?? 0]
                func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) * 1e-15 }
                keep.append(ms(b - a))
                sdr.append(ms(c - b))
                progress(String(format: "  %@ run %d/%d: keep gain map %.0f ms, SDR only %.0f ms", ext, run, runs,
                                keep.last!, sdr.last!))
            }
        } catch {
            fail("hdr suite: \(input): \(error)")
        }
        let k = hdrMedian(keep), s = hdrMedian(sdr)
        cases.append(HDRCaseTiming(format: ext, keepMs: keep, sdrOnlyMs: sdr, keepMedianMs: k, sdrOnlyMedianMs: s,
                                   extraMs: k - s, extraPercent: (k - s) / s * 100, keepBytes: fileSize(keepOut) ?? 0,
                                   sdrOnlyBytes: fileSize(sdrOut) ?? 0, gainMapSize: mapSize))
    }
    let camera = runHDRCameraCase(root: root, dir: dir, runs: runs)
    let stamp = timestamp()
    let report = HDRBenchReport(timestamp: stamp, host: ProcessInfo.processInfo.hostName, cores: cores,
                                loadAverageBefore: loadBefore, loadAverageAfter: loadAverage(), runs: runs,
                                width: width, height: height,
                                recipe: String(decoding: (try? recipe.jsonData()) ?? Data(), as: UTF8.self), cases: cases,
                                camera: camera)
    print("\nHDR: \(width)x\(height) sample, 90° turn + crop 90 %, quality 90; median of \(runs), same process")
    print("format  keep gain map   SDR only   extra          output bytes (keep / SDR)   map")
    for c in cases {
        print(String(format: "%-6@  %8.0f ms   %8.0f ms   %+6.0f ms (%+.0f %%)   %d / %d   %dx%d", c.format as NSString,
                     c.keepMedianMs, c.sdrOnlyMedianMs, c.extraMs, c.extraPercent, c.keepBytes, c.sdrOnlyBytes,
                     c.gainMapSize[0], c.gainMapSize[1]))
    }
    if !camera.isEmpty {
        print("\nHDR camera still: 6000x4000 HLG 4:2:2 HEIF (\(camera[0].inputBytes) B) -> JPEG, whole process, median of \(runs)")
        print("tool           seconds   user s   peak RSS    output bytes   shiying / tool")
        for c in camera {
            print(c.tool.padding(toLength: 13, withPad: " ", startingAt: 0)
                  + String(format: "  %7.2f   %6.2f   %5.0f MiB   %12d   %.2fx", c.secondsMedian,
                         c.userSecondsMedian, Double(c.peakRSSBytes) / 1048576, c.outputBytes, c.shiyingOverThis))
        }
        print("(shiying: SDR Display P3 + the gain map derived from the signal; the peers: the signal as SDR, no map)")
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.keyEncodingStrategy = .convertToSnakeCase
    do {
        let data = try encoder.encode(report)
        let bench = root + "/.build/benchmarks"
        for path in ["\(bench)/hdr-\(stamp).json", "\(bench)/hdr-latest.json"] { try data.write(to: URL(fileURLWithPath: path)) }
        progress("wrote \(bench)/hdr-latest.json")
    } catch {
        fail("cannot write hdr JSON: \(error)")
    }
}
