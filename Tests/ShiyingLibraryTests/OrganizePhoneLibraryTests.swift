// issue 22: `OrganizeScanner` on a folder shaped like a real phone library —
// an iPhone Pro-size grid HEIC (24 MP in 640x896 tiles, as an iPhone 15 Pro
// writes it) with its JPEG export, a re-compressed, a half-size and a rotated
// copy; a 12 MP JPEG with a byte copy, a metadata-stripped copy and a
// re-compressed copy; a burst of three shots; the corpus's Live pairs (HEVC
// and H.264) with a plain still exported from one; a plain video. Nothing is skipped, the groups are
// the designed ones, no keeper is a smaller or re-compressed copy, and a
// second scan of the unchanged folder decodes nothing.
import Foundation
import Shiying
import ShiyingFixtures
import ShiyingLibrary
import ShiyingOrganize
import Testing

private let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../../shared/corpus/real").standardizedFileURL.path

/// Runs an outside tool from the usual bin folders; false when it is not installed or fails.
private func tool(_ name: String, _ args: [String]) async throws -> Bool {
    guard let path = ["/usr/bin/\(name)", "/usr/local/bin/\(name)"].first(where: {
        FileManager.default.isExecutableFile(atPath: $0)
    }) else { return false }
    return try await ShiyingBinary.run(path, args).status == 0
}

@Suite("Organize a phone library (issue 22)", .serialized)
struct OrganizePhoneLibraryTests {
    @Test("24 MP HEICs, copies, a burst, Live pairs and a video: none skipped, designed groups, originals kept, rescans decode nothing")
    func phoneLibrary() async throws {
        let folder = try TempFolder()
        defer { folder.remove() }
        let lib = folder.file("lib")
        let fm = FileManager.default
        func l(_ name: String) -> String { lib + "/" + name }

        // scene A: a 24 MP iPhone Pro-size grid HEIC and what people make of it
        let pro = try SamplePhotos.write(count: 1, seed: 22, width: 5712, height: 4284, heic: true, heicTile: (640, 896),
                                         to: folder.file("a"))[0]
        try fm.createDirectory(atPath: lib, withIntermediateDirectories: true)
        try fm.copyItem(atPath: pro, toPath: l("a-pro.heic"))
        _ = try Conversion.convertBlocking(l("a-pro.heic"), to: l("a-pro-export.jpg"), quality: 90)
        _ = try Conversion.convertBlocking(l("a-pro.heic"), to: l("a-pro-q50.jpg"), quality: 50)
        _ = try Editor.saveBlocking(l("a-pro.heic"), recipe: .identity, to: l("a-pro-half.jpg"), maxSize: (2856, 2856))
        _ = try Editor.saveBlocking(l("a-pro.heic"), recipe: EditRecipe(quarterTurns: 1), to: l("a-pro-rotated.jpg"))
        // scene B: a 12 MP JPEG, a byte copy, a re-compressed copy, a copy without metadata
        let scene = try SamplePhotos.write(count: 1, seed: 23, to: folder.file("b"))[0]
        try fm.copyItem(atPath: scene, toPath: l("b-scene.jpg"))
        try fm.copyItem(atPath: scene, toPath: l("b-scene-copy.jpg"))
        _ = try Editor.saveBlocking(scene, recipe: .identity, to: l("b-scene-q60.jpg"), quality: 60)
        let stripped = try await tool("exiftool", ["-q", "-q", "-all=", "-o", l("b-scene-bare.jpg"), scene])
        // scene E: a burst — three shots of one scene in the same second, two of them softer (shake)
        let shot = try SamplePhotos.write(count: 1, seed: 24, width: 2016, height: 1512, to: folder.file("e"))[0]
        for (n, soften) in [(1, -0.6), (2, 0.0), (3, -0.3)] {
            _ = try Editor.saveBlocking(shot, recipe: EditRecipe(adjustments: .init(sharpness: soften)),
                                        to: l("e-burst-\(n).jpg"), quality: 92)
        }
        // Live photos from the corpus and a plain still exported from one
        let live = ["iphone15plus_IMG_3853.HEIC", "iphone15plus_IMG_3853.MOV", "h264_live_keyPhoto.jpg",
                    "h264_live_pairedVideo.mov"]
        let hasCorpus = live.allSatisfy { fm.fileExists(atPath: corpus + "/" + $0) }
        if hasCorpus {
            for name in live { try fm.copyItem(atPath: corpus + "/" + name, toPath: l("c-" + name)) }
            _ = try Conversion.convertBlocking(l("c-iphone15plus_IMG_3853.HEIC"), to: l("c-IMG_3853-export.jpg"), quality: 90)
        }
        let video = try await tool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30",
                                              "-t", "2", "-pix_fmt", "yuv420p", "-c:v", "libx264", l("d-clip.mp4")])

        let store = OrganizeStore(store: try RecordStore(path: folder.file("organize.sqlite")))
        let first = try await OrganizeScanner.scan(folder: lib, store: store)
        print("first scan: \(first)")
        #expect(first.skipped.isEmpty, "\(first.skipped)")
        let files = try OrganizeScanner.media(in: lib).count
        #expect(first.scanned == files - first.livePhotos, "every file is an item, a Live pair is one")
        // h264_live_keyPhoto.jpg carries no identifier: its movie is a plain video
        #expect(first.livePhotos == (hasCorpus ? 1 : 0) && first.videos == (hasCorpus ? 1 : 0) + (video ? 1 : 0))
        #expect(first.burstGroups == 1, "the three shots are a burst; copies of one shot are none")
        let workers = min(ProcessInfo.processInfo.activeProcessorCount, 4)
        #expect(first.enginePeakBytes <= UInt64(workers) * (12 << 20))

        let assets = try store.assets()
        let name = { (id: Int64) in (assets.first { $0.id == id }!.path as NSString).lastPathComponent }
        let views = try store.groupViews()
        func group(containing file: String) -> OrganizeGroupView? {
            views.first { v in v.group.kind != .duplicate && v.group.members.map(name).contains(file) }
        }
        // scene A: the HEIC original is kept over its export, its half-size and its rotated copy
        let a = try #require(group(containing: "a-pro.heic"))
        #expect(Set(a.group.members.map(name))
                == ["a-pro.heic", "a-pro-export.jpg", "a-pro-q50.jpg", "a-pro-half.jpg", "a-pro-rotated.jpg"])
        #expect(a.keeper.map(name) == "a-pro.heic", "\(a.group.members.map { id in (name(id), assets.first { $0.id == id }!) })")
        // scene B: the exact copies are one duplicate group (the first kept on a tie), the q60 copy is similar
        let dup = try #require(views.first { $0.group.kind == .duplicate })
        #expect(Set(dup.group.members.map(name)) == Set(["b-scene.jpg", "b-scene-copy.jpg"] + (stripped ? ["b-scene-bare.jpg"] : [])))
        #expect(dup.keeper.map(name) == dup.group.members.map(name).first { $0 != "b-scene-bare.jpg" })
        let b = try #require(group(containing: "b-scene-q60.jpg"))
        #expect(Set(b.group.members.map(name)) == [dup.group.members.map(name)[0], "b-scene-q60.jpg"])
        #expect(b.keeper.map(name) != "b-scene-q60.jpg")
        // the burst keeps its sharpest shot
        let burst = try #require(views.first { $0.group.kind == .burst })
        #expect(Set(burst.group.members.map(name)) == ["e-burst-1.jpg", "e-burst-2.jpg", "e-burst-3.jpg"])
        #expect(burst.keeper.map(name) == "e-burst-2.jpg", "\(burst.group.members.map { id in (name(id), assets.first { $0.id == id }!.quality) })")
        if hasCorpus {
            // the Live photo is one item carrying its movie's duration, similar to its exported still
            let heic = try #require(assets.first { $0.path.hasSuffix("c-iphone15plus_IMG_3853.HEIC") })
            #expect(heic.pairedPath?.hasSuffix("c-iphone15plus_IMG_3853.MOV") == true && heic.durationMs > 1000)
            #expect(!assets.contains { $0.path.hasSuffix("c-iphone15plus_IMG_3853.MOV") })
            let h264 = try #require(assets.first { $0.path.hasSuffix("h264_live_pairedVideo.mov") })
            #expect(h264.mediaType == .video && h264.durationMs > 0 && h264.pixelSHA256.count == 64)
            let c = try #require(group(containing: "c-iphone15plus_IMG_3853.HEIC"))
            #expect(Set(c.group.members.map(name)) == ["c-iphone15plus_IMG_3853.HEIC", "c-IMG_3853-export.jpg"])
            #expect(c.keeper.map(name) == "c-iphone15plus_IMG_3853.HEIC")
        }
        if video {
            let clip = try #require(assets.first { $0.path.hasSuffix("d-clip.mp4") })
            #expect(clip.mediaType == .video && abs(clip.durationMs - 2000) < 100 && clip.pixelSHA256.count == 64)
        }

        // the unchanged folder again: nothing decoded, the same records and groups
        let second = try await OrganizeScanner.scan(folder: lib, store: store)
        print("second scan: \(second); first \(first.seconds) s, second \(second.seconds) s")
        #expect(second.decoded == 0 && second.unchanged == first.scanned && second.skipped.isEmpty)
        #expect(try store.assets().map(\.pixelSHA256) == assets.map(\.pixelSHA256))
        #expect(try store.groupViews().map(\.keeper) == views.map(\.keeper))
        // touching one file decodes that file only
        try fm.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 5)], ofItemAtPath: l("b-scene-q60.jpg"))
        let third = try await OrganizeScanner.scan(folder: lib, store: store)
        #expect(third.decoded == 1 && third.unchanged == first.scanned - 1)
    }

    @Test("Keeper score: half-size, re-compressed, stripped and converted copies never outrank the original; a tie keeps the first")
    func keeperScore() {
        func asset(_ id: Int64, _ w: Int, _ h: Int, bytes: Int64, format: String = "jpeg", camera: Bool = true,
                   time: Int64? = 1_000, quality: Double = 0.85, movie: String? = nil) -> OrganizeAsset {
            var a = OrganizeAsset(id: id, path: "/p/\(id)", width: w, height: h, fileBytes: bytes, fileSHA256: "\(id)",
                                  pixelSHA256: "\(id)", phash: 0, quality: quality, capturedAtMs: time, hasCamera: camera)
            a.format = format
            a.pairedPath = movie
            return a
        }
        // the case: the half-size copy measured a hair sharper (0.8466 vs 0.8463)
        let original = asset(1, 4032, 3024, bytes: 3_000_000, quality: 0.8463)
        let cases: [[OrganizeAsset]] = [
            [asset(2, 2016, 1512, bytes: 900_000, quality: 0.8466), original],
            [asset(3, 4032, 3024, bytes: 1_100_000, quality: 0.86), original],  // re-compressed at q60
            [asset(4, 4032, 3024, bytes: 2_990_000, camera: false, time: nil, quality: 0.8464), original],  // stripped
            [asset(5, 4032, 3024, bytes: 3_400_000, quality: 0.851), asset(1, 4032, 3024, bytes: 1_600_000, format: "heif",
                                                                          quality: 0.849)],  // JPEG export of a HEIC
            [asset(6, 4032, 3024, bytes: 3_000_000, quality: 0.8465),
             asset(1, 4032, 3024, bytes: 2_900_000, format: "heif", quality: 0.8463, movie: "/p/1.mov")],  // still of a Live
        ]
        for members in cases {
            let scores = KeeperScore.scores(members)
            let keeper = KeeperRule.similarKeeper(members.map { KeeperCandidate(id: $0.id, quality: scores[$0.id] ?? nil) })
            #expect(keeper == 1, "\(members.map(\.id)): \(scores)")
        }
        // equal members: the first is kept (SPEC D6)
        let twins = [asset(7, 4032, 3024, bytes: 3_000_000), asset(8, 4032, 3024, bytes: 3_000_000)]
        let s = KeeperScore.scores(twins)
        #expect(KeeperRule.similarKeeper(twins.map { KeeperCandidate(id: $0.id, quality: s[$0.id] ?? nil) }) == 7)
        // a burst of real shots (same size and coding) keeps the sharpest
        let burst = [asset(9, 4032, 3024, bytes: 3_000_000, quality: 0.6), asset(10, 4032, 3024, bytes: 3_100_000, quality: 0.9),
                     asset(11, 4032, 3024, bytes: 2_900_000, quality: 0.7)]
        let bs = KeeperScore.scores(burst)
        #expect(KeeperRule.burstKeeper(burst.map { KeeperCandidate(id: $0.id, quality: bs[$0.id] ?? nil) },
                                       systemRepresentative: nil) == 10)
        // no score stays no score
        #expect(KeeperScore.scores([asset(12, 10, 10, bytes: 100).with(quality: nil)])[12]! == nil)
    }
}

private extension OrganizeAsset {
    func with(quality: Double?) -> OrganizeAsset {
        var a = self
        a.quality = quality
        return a
    }
}
