// Memory of long images — SPEC C13: "drawn cell by cell, each decoded, drawn and
// released: the page's measurement was 365 MB peak (all at once) vs 12 MB (strip-wise)".
//
// Measured in a fresh `shiying` process per job (peak_rss_delta_bytes = VmHWM
// during the job minus VmRSS before it), so other tests running in parallel in
// the test process cannot disturb the figures. Serialized: one job at a time.
//
// Figures on the reference machine (debug build, 2 cores), for the record:
//   strip-wise,  4 x 12 MP ≈ 5.9–6.2 MiB,  16 x 12 MP ≈ 6.3–6.4 MiB
//   naive,       4 x 12 MP ≈ 149 MiB
//   8 x 12 MP baseline ≈ 6.3 MiB; with 2 progressive ≈ 41 MiB (one coefficient
//   buffer of a 4032x3024 progressive JPEG is ≈ 35 MiB; only one is held at a time)
import Foundation
import Shiying
import ShiyingFixtures
import Testing

private let MiB: UInt64 = 1_048_576

@Suite("Memory (SPEC C13)", .serialized)
struct MemoryTests {
    /// 16 photos of 4032x3024 (every third a portrait with orientation 6), cached.
    static func photos16() async throws -> [String] {
        try await FixtureCache.shared.samples("mem16", count: 16, seed: 3, width: 4032, height: 3024)
    }

    /// 2 progressive photos of 4032x3024 (the second a portrait with orientation 6), cached.
    static func progressive2() async throws -> [String] {
        try await FixtureCache.shared.samples("mem-progressive2", count: 2, seed: 5, width: 4032, height: 3024,
                                              progressive: true)
    }

    static func longJob(_ inputs: [String], naive: Bool = false, label: String) async throws -> CollageJSON {
        let dir = try TempDir("mem-\(label)")
        defer { dir.remove() }
        let out = dir.file("long.jpg")
        let (run, json) = try await CLI.collage(["--layout", "long", "--width", "1080"] + (naive ? ["--naive"] : [])
                                                + ["-o", out] + inputs, timeout: 300)
        guard run.succeeded, let report = json else { throw TestFailure("\(label): \(run)") }
        guard report.greyCells.isEmpty else { throw TestFailure("\(label): grey cells \(report.greyReasons)") }
        let im = try await Magick.size(out)
        guard im.width == report.width, im.height == report.height else {
            throw TestFailure("\(label): identify says \(im.width)x\(im.height), report \(report.width)x\(report.height)")
        }
        print("memory \(label): peak RSS +\(report.peakRssDeltaBytes) B (\(String(format: "%.2f", Double(report.peakRssDeltaBytes) / Double(MiB))) MiB), "
              + "engine peak \(report.enginePeakBytes) B, cell peak \(report.cellPeakBytes) B, "
              + "\(report.width)x\(report.height), \(String(format: "%.1f", report.seconds)) s")
        return report
    }

    static func mib(_ bytes: UInt64) -> String { String(format: "%.2f MiB", Double(bytes) / Double(MiB)) }

    // SPEC C13: strip-wise long image of 4 and of 16 photos of 12 MP at width
    // 1080: each peak ≤ 12 MiB, and the peak does not grow with the number of
    // photos (|16 − 4| < 2 MiB).
    @Test("strip-wise long image: ≤ 12 MiB for 4 and 16 photos of 12 MP, independent of the count")
    func stripWiseIsFlat() async throws {
        let photos = try await Self.photos16()
        let four = try await Self.longJob(Array(photos.prefix(4)), label: "strip-4")
        let sixteen = try await Self.longJob(photos, label: "strip-16")
        #expect(four.height == 3 * 810 + 1440 && sixteen.height == 11 * 810 + 5 * 1440,
                "heights \(four.height), \(sixteen.height)")
        #expect(four.peakRssDeltaBytes <= 12 * MiB, "4 photos: peak RSS +\(Self.mib(four.peakRssDeltaBytes))")
        #expect(sixteen.peakRssDeltaBytes <= 12 * MiB, "16 photos: peak RSS +\(Self.mib(sixteen.peakRssDeltaBytes))")
        #expect(four.peakRssDeltaBytes > 1 * MiB, "implausibly small measurement: \(four.peakRssDeltaBytes) B")
        let difference = four.peakRssDeltaBytes > sixteen.peakRssDeltaBytes
            ? four.peakRssDeltaBytes - sixteen.peakRssDeltaBytes : sixteen.peakRssDeltaBytes - four.peakRssDeltaBytes
        #expect(difference < 2 * MiB, "peak grows with the photo count: 4 → \(Self.mib(four.peakRssDeltaBytes)), 16 → \(Self.mib(sixteen.peakRssDeltaBytes))")
        #expect(four.enginePeakBytes <= 12 * MiB && sixteen.enginePeakBytes <= 12 * MiB,
                "engine peaks \(Self.mib(four.enginePeakBytes)), \(Self.mib(sixteen.enginePeakBytes))")
    }

    // SPEC C13 (the "all at once" side of the measurement): the naive path on the
    // same 4 photos exceeds 100 MB — proves the measurement can fail the 12 MiB bar.
    @Test("naive long image of 4 photos exceeds 100 MB (the measurement can fail)")
    func naiveExceeds() async throws {
        let photos = try await Self.photos16()
        let naive = try await Self.longJob(Array(photos.prefix(4)), naive: true, label: "naive-4")
        #expect(naive.peakRssDeltaBytes > 100_000_000, "naive peak only \(Self.mib(naive.peakRssDeltaBytes))")
        #expect(naive.enginePeakBytes > 100_000_000, "naive engine peak only \(Self.mib(naive.enginePeakBytes))")
    }

    // SPEC C13 with progressive inputs: libjpeg must hold a progressive JPEG's whole
    // coefficient buffer (≈ 35 MiB at 12 MP), which no strip-wise scheme avoids.
    // The engine reports exactly those inputs in over_budget_cells, and holds at
    // most one such buffer at a time: 2 progressive photos among 6 baseline ones
    // cost the baseline-only peak plus at most ~one coefficient buffer (not two),
    // while the same 8 positions all baseline stay within 12 MiB.
    @Test("progressive inputs: over_budget_cells lists exactly them; their cost is one buffer, not additive")
    func progressiveInputs() async throws {
        let baseline = try await Self.photos16()
        let progressive = try await Self.progressive2()
        // Positions 3 and 6 are progressive (a landscape and an orientation-6 portrait).
        let mixed = [baseline[0], baseline[1], baseline[2], progressive[0], baseline[3], baseline[4], progressive[1], baseline[5]]
        let plain = [baseline[0], baseline[1], baseline[2], baseline[6], baseline[3], baseline[4], baseline[7], baseline[5]]
        for p in progressive { #expect(try ImageInfo.probe(p).progressive, "\(p) is not progressive") }
        let withProgressive = try await Self.longJob(mixed, label: "mixed-progressive")
        let baselineOnly = try await Self.longJob(plain, label: "baseline-8")
        #expect(withProgressive.overBudgetCells == [3, 6], "over_budget_cells \(withProgressive.overBudgetCells)")
        #expect(baselineOnly.overBudgetCells.isEmpty, "over_budget_cells \(baselineOnly.overBudgetCells)")
        #expect(withProgressive.height == baselineOnly.height)
        #expect(baselineOnly.peakRssDeltaBytes <= 12 * MiB, "baseline-only: \(Self.mib(baselineOnly.peakRssDeltaBytes))")
        // One 4032x3024 4:2:0 progressive coefficient buffer: (504*378 + 2*252*189) blocks * 128 B.
        let coefficientBuffer = UInt64(504 * 378 + 2 * 252 * 189) * 128
        let extra = withProgressive.peakRssDeltaBytes > baselineOnly.peakRssDeltaBytes
            ? withProgressive.peakRssDeltaBytes - baselineOnly.peakRssDeltaBytes : 0
        #expect(extra < coefficientBuffer + coefficientBuffer / 4,
                "2 progressive inputs cost +\(Self.mib(extra)) over baseline-only (\(Self.mib(baselineOnly.peakRssDeltaBytes))); one coefficient buffer is \(Self.mib(coefficientBuffer)) — they were held at the same time")
        print("memory progressive: baseline-only \(Self.mib(baselineOnly.peakRssDeltaBytes)), with 2 progressive "
              + "\(Self.mib(withProgressive.peakRssDeltaBytes)) (+\(Self.mib(extra)); one coefficient buffer \(Self.mib(coefficientBuffer)))")
    }
}

// SPEC C13 for iPhone-shaped inputs: grid HEICs (512×512 HEVC tiles) are decoded
// one tile row at a time by our own reader, so a long image of 12 MP HEICs stays
// within the same 12 MiB, flat in the number of photos.
@Suite("Memory of HEIC long images (SPEC C13)", .serialized)
struct HeicMemoryTests {
    /// 4 grid HEICs of 4032x3024 (the second a portrait), cached.
    static func heics() async throws -> [String] {
        let dir = try await FixtureCache.shared.dir("mem-heic4") { scratch in
            _ = try SamplePhotos.write(count: 4, seed: 11, width: 4032, height: 3024, heic: true, to: scratch)
        }
        return (1...4).map { (dir as NSString).appendingPathComponent(String(format: "sample-%04d.heic", $0)) }
    }

    @Test("HEIC long image: ≤ 12 MiB for 4 and 12 photos of 12 MP, independent of the count; naive > 100 MB")
    func heicStripWiseIsFlat() async throws {
        let heics = try await Self.heics()
        let four = try await MemoryTests.longJob(heics, label: "heic-4")
        let twelve = try await MemoryTests.longJob(heics + heics + heics, label: "heic-12")
        #expect(four.peakRssDeltaBytes <= 12 * MiB, "4 HEICs: \(MemoryTests.mib(four.peakRssDeltaBytes))")
        #expect(twelve.peakRssDeltaBytes <= 12 * MiB, "12 HEICs: \(MemoryTests.mib(twelve.peakRssDeltaBytes))")
        let spread = max(four.peakRssDeltaBytes, twelve.peakRssDeltaBytes) - min(four.peakRssDeltaBytes, twelve.peakRssDeltaBytes)
        #expect(spread < 2 * MiB, "HEIC peak grows with N: 4 → \(MemoryTests.mib(four.peakRssDeltaBytes)), 12 → \(MemoryTests.mib(twelve.peakRssDeltaBytes))")
        #expect(four.overBudgetCells.isEmpty, "tile-row decode must not be reported over budget: \(four.overBudgetCells)")
        let naive = try await MemoryTests.longJob(heics, naive: true, label: "heic-naive-4")
        #expect(naive.peakRssDeltaBytes > 100_000_000, "naive HEIC: \(MemoryTests.mib(naive.peakRssDeltaBytes))")
    }

    // Issue 15: a long image's HEIC cell is read while its tiles decode, each
    // row's pages given back once the strip is written (collage/prefetch.c):
    // the job no longer holds a whole cell, so its peak does not follow the
    // cell's size. The portrait sample at 1080 and at 3024 wide (a 3024x4032
    // cell: 17.4 MiB of planes, which the job held whole before: 24.2 MiB).
    @Test("HEIC long image: the peak does not grow with the cell (1080 vs 3024 wide), ≤ 12 MiB")
    func heicCellIsNotHeldWhole() async throws {
        let portrait = try await Self.heics()[1]
        let dir = try TempDir("mem-heic-wide")
        defer { dir.remove() }
        var peaks: [UInt64] = []
        for width in ["1080", "3024"] {
            let out = dir.file("long\(width).jpg")
            let (run, json) = try await CLI.collage(["--layout", "long", "--width", width, "--threads", "2", "-o", out, portrait],
                                                    timeout: 300)
            guard run.succeeded, let report = json, report.greyCells.isEmpty else { throw TestFailure("width \(width): \(run)") }
            print("memory heic portrait at \(report.width)x\(report.height): peak RSS +\(MemoryTests.mib(report.peakRssDeltaBytes))")
            #expect(report.peakRssDeltaBytes <= 12 * MiB, "width \(width): \(MemoryTests.mib(report.peakRssDeltaBytes))")
            peaks.append(report.peakRssDeltaBytes)
        }
        #expect(peaks[1] < peaks[0] + 2 * MiB, "the peak follows the cell: \(peaks.map(MemoryTests.mib))")
    }

    // Issue 15: tile rows decode on both cores, and the job still keeps 12 MiB:
    // 7 grid HEICs on 1 and on 2 threads, the same bytes, each peak within it.
    @Test("HEIC long image on 1 and 2 threads: same file, each ≤ 12 MiB (RSS and engine)")
    func heicThreadsKeepTheBudget() async throws {
        let heics = try await Self.heics()
        let inputs = Array((heics + heics).prefix(7))
        let dir = try TempDir("mem-heic-threads")
        defer { dir.remove() }
        var files: [Data] = []
        for threads in ["1", "2"] {
            let out = dir.file("long\(threads).jpg")
            let (run, json) = try await CLI.collage(["--layout", "long", "--width", "1080", "--threads", threads, "-o", out] + inputs,
                                                    timeout: 300)
            guard run.succeeded, let report = json else { throw TestFailure("threads \(threads): \(run)") }
            print("memory heic-7 threads \(threads): peak RSS +\(MemoryTests.mib(report.peakRssDeltaBytes)), engine \(MemoryTests.mib(report.enginePeakBytes))")
            #expect(report.peakRssDeltaBytes <= 12 * MiB, "threads \(threads): \(MemoryTests.mib(report.peakRssDeltaBytes))")
            #expect(report.enginePeakBytes <= 12 * MiB, "threads \(threads): engine \(MemoryTests.mib(report.enginePeakBytes))")
            #expect(report.overBudgetCells.isEmpty, "threads \(threads): over budget \(report.overBudgetCells)")
            files.append(try Data(contentsOf: URL(fileURLWithPath: out)))
        }
        #expect(files[0] == files[1], "1 and 2 threads wrote different collages")
    }

    // Issue 15: the real iPhone HEICs (24 MP grids of 640x896 tiles, 12 MP of
    // 512x512), landscape and — the iPhone 15 Plus file with irot 1, as a Pro
    // stores a portrait — portrait: a long image keeps 12 MiB and no cell is
    // over the 6 MiB cell cap. A portrait 24 MP cell at 1080 needs k = 2: rows
    // 2856 px wide for a tile row of 896 (1.9 MB of 4:2:0 planes; 3.9 MB when
    // rows were kept as converted pixels) read along, 1.0 MB read across.
    @Test("real iPhone HEICs (landscape and portrait) in a long image: ≤ 12 MiB (RSS and engine)")
    func realIPhoneHeics() async throws {
        let real = Paths.corpus.appendingPathComponent("real")
        let plus = real.appendingPathComponent("iphone15plus_IMG_3853.HEIC").path
        let se = real.appendingPathComponent("iphoneSE2_grid.heic").path
        guard FileManager.default.fileExists(atPath: plus), FileManager.default.fileExists(atPath: se) else { return }
        let dir = try TempDir("mem-heic-real")
        defer { dir.remove() }
        // The same photo turned: its one shared irot property (angle 0) set to 1.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plus)))
        let irot: [UInt8] = [0, 0, 0, 9] + Array("irot".utf8)
        let at = (0...(bytes.count - irot.count)).filter { Array(bytes[$0..<$0 + irot.count]) == irot }
        guard at.count == 1 else { throw TestFailure("expected one irot box in \(plus), found \(at.count)") }
        bytes[at[0] + irot.count] = 1
        let portrait = dir.file("portrait.heic")
        try Data(bytes).write(to: URL(fileURLWithPath: portrait))
        let landscape = try await MemoryTests.longJob([plus, se, plus, se], label: "heic-real")
        #expect(landscape.peakRssDeltaBytes <= 12 * MiB, "real: \(MemoryTests.mib(landscape.peakRssDeltaBytes))")
        #expect(landscape.enginePeakBytes <= 12 * MiB, "real: engine \(MemoryTests.mib(landscape.enginePeakBytes))")
        // libavcodec's pictures are engine blocks handed over without a copy
        // (sy__avdec_open_picture): a 640x896 tile's decoder (~2.4 MB of
        // tables and context measured, 2 pictures) and the cell's rows fit the cap.
        #expect(landscape.overBudgetCells.isEmpty, "real landscape cells over budget: \(landscape.overBudgetCells)")
        let mixed = try await MemoryTests.longJob([portrait, plus, portrait, se], label: "heic-real-portrait")
        #expect(mixed.height == 2 * 1440 + 810 + 810, "height \(mixed.height)")
        #expect(mixed.enginePeakBytes <= 12 * MiB, "real with portraits: engine \(MemoryTests.mib(mixed.enginePeakBytes))")
        // A portrait 24 MP cell (k = 2) is read tile column by tile column
        // (heif_tile_source.c, transposed): 1.0 MB of rows, not 1.9, and no
        // turn; with libavcodec's tile state it fits the job and the cell cap.
        #expect(mixed.peakRssDeltaBytes <= 12 * MiB, "real with portraits: \(MemoryTests.mib(mixed.peakRssDeltaBytes))")
        #expect(mixed.overBudgetCells.isEmpty, "real portrait cells over budget: \(mixed.overBudgetCells)")
    }

    // Issue 16: an HDR collage composes its canvas gain map before the base
    // (one stored map decoded at a time, the canvas map at half size) — the
    // job still holds 12 MiB, and the JSON says which cells kept their map.
    @Test("HDR long image (Ultra HDR + Apple HEIC of 12 MP with two SDR photos): gain_map kept, ≤ 12 MiB (RSS and engine)")
    func hdrCellsKeepTheBudget() async throws {
        let hdr = try await FixtureCache.shared.dir("mem-hdr2") { dir in
            _ = try HDRSamplePhotos.write(count: 1, seed: 9, width: 4032, height: 3024, to: dir)
        }
        let photos = try await MemoryTests.photos16()
        let inputs = [hdr + "/hdr-sample-0001.jpg", photos[0], hdr + "/hdr-sample-0001.heic", photos[2]]
        let report = try await MemoryTests.longJob(inputs, label: "hdr-4")
        #expect(report.gainMap == "kept" && report.gainMapCells == ["kept", "sdr", "kept", "sdr"],
                "gain_map \(report.gainMap ?? "-"), cells \(report.gainMapCells ?? [])")
        #expect(report.peakRssDeltaBytes <= 12 * MiB, "HDR: peak RSS +\(MemoryTests.mib(report.peakRssDeltaBytes))")
        // The engine peak also counts the HEVC decoder's charged estimate for the
        // sample HEIC's map, one 2016x1512 picture (iPhones tile their maps in
        // 512 px: the real-iPhone test above keeps the engine peak too); the
        // process's own peak is what SPEC C13 bounds.
        print("memory hdr-4: engine peak \(MemoryTests.mib(report.enginePeakBytes)) with the map decoder's estimate")
    }
}
