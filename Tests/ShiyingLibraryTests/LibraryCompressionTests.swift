// Issue 19 compression (SPEC S3, D5) on generated files imported through the
// real import: the copy is smaller, carries the asset's metadata into
// 「拾映转换」, and undo keeps the original byte-identical with the copy set aside.
import Foundation
import Shiying
import ShiyingLibrary
import ShiyingOrganize
import Testing

@Suite("Library compression")
struct LibraryCompressionTests {
    let reader = EngineMediaReader()

    @Test("A photo compresses to a smaller HEIC copy in 「拾映转换」 carrying date, GPS, favourite, albums, tags; undo keeps the original")
    func photo() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 2, lives: 0)
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        _ = try await library.importFiles([fixture.input], reader: reader)
        let id = try #require(try await library.assetID(forFile: fixture.gpsPhoto ?? fixture.photos[1], reader: reader))
        try await library.setFavorite(true, [id])
        try await library.addTags(["海边"], to: [id])
        try await library.addToAlbum("Holiday", [id])
        let before = try await library.asset(id)
        let originalPath = library.folder.absolute(try #require(before.file(.original)).path)
        let originalDigest = try sha256(originalPath)

        let result = try await LibraryWorkflows.compress(id, in: library)
        let copy = result.library, sizes = result.compression
        #expect(sizes.compressedBytes > 0 && sizes.compressedBytes < sizes.originalBytes, "\(sizes.compressedBytes) < \(sizes.originalBytes)")
        #expect(sizes.compressedBytes == Int64(try Data(contentsOf: URL(fileURLWithPath: copy.files[0])).count))
        #expect(sizes.originalBytes == before.file(.original)?.bytes && sizes.photo?.format == .heic && sizes.photo?.kept.contains("gps") == (fixture.gpsPhoto != nil))
        #expect(copy.album == LibraryAlbum.conversions && copy.sourceAssetID == id && copy.kind == .photo)
        #expect(copy.favorite && copy.tags == ["海边"] && copy.albums == ["Holiday", LibraryAlbum.conversions])
        #expect(copy.captureDate == before.captureDate && copy.location == before.location)
        #expect(copy.files.count == 1 && copy.files[0].hasSuffix("-compressed.heic"))
        if let exiftool = ExternalTool.find("exiftool") {
            let r = try await ShiyingBinary.run(exiftool, ["-n", "-s3", "-DateTimeOriginal", "-GPSLatitude", "-GPSLongitude", copy.files[0]])
            let lines = r.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == before.captureDate)
            if fixture.gpsPhoto != nil {
                #expect(lines.count == 3 && abs((Double(lines[1]) ?? 0) - LibraryFixture.latitude) < 1e-4)
                #expect(lines.count == 3 && abs((Double(lines[2]) ?? 0) - LibraryFixture.longitude) < 1e-4)
            }
        }
        #expect(try await library.list(.library).map(\.id).contains(id), "the original stays in the library view")

        try await library.setAside([id])  // D5 keeps the original even if the user had set it aside
        let undone = try await library.undoCompression(copy.id)
        #expect(undone.message == "已保留原始檔，壓縮版本已在『放一邊』" && undone.voiceOver == undone.message)
        #expect(undone.compressedID == copy.id && undone.originalID == id)
        let setAside = try await library.list(.setAside).map(\.id)
        #expect(setAside == [copy.id], "only the compressed copy is set aside")
        #expect(try sha256(originalPath) == originalDigest, "the original is byte-identical")
        #expect(try await library.asset(id).deletedAtMs == nil)
        #expect(FileManager.default.fileExists(atPath: copy.files[0]), "set aside, not deleted")
        #expect(try await library.undoCompression(copy.id) == undone, "undoing twice gives the same result")
        await #expect(throws: LibraryError.self) { try await library.undoCompression(id) }  // an import is no compressed copy
    }

    @Test("An edited photo compresses what the user sees: the rendition (cropped), named after the original; undo keeps the edit")
    func editedPhoto() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 1, lives: 0)
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        _ = try await library.importFiles([fixture.input], reader: reader)
        let id = try #require(try await library.assetID(forFile: fixture.photos[0], reader: reader))
        let edited = try await LibraryWorkflows.edit(id, recipe: EditRecipe(crop: .init(x: 0.25, y: 0, width: 0.5, height: 1)),
                                                     in: library)
        let rendition = try #require(edited.file(.rendition)), original = try #require(edited.file(.original))
        #expect(rendition.width * 2 <= original.width + 2 && rendition.height == original.height)

        let result = try await LibraryWorkflows.compress(id, in: library, options: .init(format: .jpeg))
        let copy = result.library
        let copied = try #require(try await library.asset(copy.id).file(.original))
        #expect(copied.width == rendition.width && copied.height == rendition.height,
                "copy \(copied.width)x\(copied.height), rendition \(rendition.width)x\(rendition.height), original \(original.width)x\(original.height)")
        #expect(result.compression.originalBytes == rendition.bytes && result.compression.savedBytes > 0)
        let stem = ((original.path as NSString).lastPathComponent as NSString).deletingPathExtension
        #expect((copy.files[0] as NSString).lastPathComponent == "\(stem)-compressed.jpg", "\(copy.files[0])")
        if let ssim = try await ffmpegSSIM(copy.files[0], library.folder.absolute(rendition.path)) { #expect(ssim >= 0.95, "SSIM \(ssim)") }
        _ = try await library.undoCompression(copy.id)
        #expect(try await library.asset(id).file(.rendition) == rendition, "the edit stays the current version")
    }

    @Test("A video compresses to a lower-bitrate MOV copy; JPEG target; PNG and Live refused")
    func videoAndRefusals() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 1, lives: 1)
        let library = try PhotoLibrary.create(at: dir.file("lib"))
        _ = try await library.importFiles([fixture.input], reader: reader)
        let photoID = try #require(try await library.assetID(forFile: fixture.photos[0], reader: reader))
        let jpeg = try await LibraryWorkflows.compress(photoID, in: library, options: .init(format: .jpeg))
        #expect(jpeg.library.files[0].hasSuffix("-compressed.jpg") && jpeg.compression.savedBytes > 0)
        if let ssim = try await ffmpegSSIM(jpeg.library.files[0], fixture.photos[0]) { #expect(ssim >= 0.95, "SSIM \(ssim)") }
        await #expect(throws: ShiyingError.self) {
            try await LibraryWorkflows.compress(photoID, in: library, options: .init(format: .png))
        }
        guard let video = fixture.video, let live = fixture.livePairs.first else { return }  // no ffmpeg
        let liveID = try #require(try await library.assetID(forFile: live.still, reader: reader))
        await #expect(throws: LibraryError.self) { try await LibraryWorkflows.compress(liveID, in: library) }
        let videoID = try #require(try await library.assetID(forFile: video, reader: reader))
        let result = try await LibraryWorkflows.compress(videoID, in: library)
        #expect(result.compression.savedBytes > 0 && result.library.kind == .video && result.library.album == LibraryAlbum.conversions)
        #expect(result.compression.video?.frames == 15 && result.library.files[0].hasSuffix("-compressed.mov"))
        if let ssim = try await ffmpegSSIM(result.library.files[0], video) { #expect(ssim >= 0.95, "SSIM \(ssim)") }
        let assetsBefore = try await library.list(.all).count
        let twice = dir.file("twice.mov")  // a copy of the compressed copy at its own bitrate saves nothing: refused
        #expect(throws: ShiyingError.self) {
            try Compression.compressBlocking(result.library.files[0], to: twice, movie: true,
                                     options: .init(videoBitrate: 50_000_000))
        }
        let assetsAfter = try await library.list(.all).count
        #expect(!FileManager.default.fileExists(atPath: twice) && assetsAfter == assetsBefore)
        let undone = try await library.undoCompression(result.library.id)
        #expect(undone.originalID == videoID && undone.message == PhotoLibrary.compressionUndoneMessage)
    }

    @Test("CLI: library compress --json reports the copy and bytes; undo-compress prints the D5 message")
    func cli() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let fixture = try await LibraryFixture.make(in: dir, photos: 1, lives: 0)
        let lib = dir.file("lib")
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        #expect(try await ShiyingBinary.shiying(["library", "import", fixture.input, "--library", lib]).status == 0)
        let library = try PhotoLibrary(at: lib)
        let id = try #require(try await library.assetID(forFile: fixture.photos[0], reader: reader))

        let r = try await ShiyingBinary.shiying(["library", "compress", "\(id)", "--quality", "60", "--library", lib, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let copyID = try #require(json["id"] as? Int)
        let engine = try #require(json["engine"] as? [String: Any])
        #expect(json["album"] as? String == LibraryAlbum.conversions && json["source_asset_id"] as? Int == Int(id))
        let original = try #require(engine["original_bytes"] as? Int), compressed = try #require(engine["compressed_bytes"] as? Int)
        #expect(compressed < original && engine["saved_bytes"] as? Int == original - compressed)

        let text = try await ShiyingBinary.shiying(["library", "undo-compress", "\(copyID)", "--library", lib])
        #expect(text.status == 0 && text.stdout == "已保留原始檔，壓縮版本已在『放一邊』\n", "\(text.stderr)")
        let undone = try await ShiyingBinary.shiying(["library", "undo-compress", "\(copyID)", "--library", lib, "--json"])
        let u = try #require(try JSONSerialization.jsonObject(with: Data(undone.stdout.utf8)) as? [String: Any])
        #expect(u["message"] as? String == PhotoLibrary.compressionUndoneMessage && u["compressed_id"] as? Int == copyID)
        #expect(try await library.list(.setAside).map(\.id) == [Int64(copyID)])
        let bad = try await ShiyingBinary.shiying(["library", "undo-compress", "\(id)", "--library", lib])
        #expect(bad.status != 0 && bad.stderr.contains("not a compressed copy"))

        // the issue's names: `compress IN --library`, `compress --undo ID`, `compress IN -o OUT`
        let byFile = try await ShiyingBinary.shiying(["compress", fixture.photos[0], "--library", lib, "--format", "jpeg", "--json"])
        #expect(byFile.status == 0, "\(byFile.stderr)")
        let second = try #require(try JSONSerialization.jsonObject(with: Data(byFile.stdout.utf8)) as? [String: Any])
        #expect(second["source_asset_id"] as? Int == Int(id) && (second["files"] as? [String])?.first?.hasSuffix(".jpg") == true)
        let undo = try await ShiyingBinary.shiying(["compress", "--undo", "\(try #require(second["id"] as? Int))", "--library", lib])
        #expect(undo.status == 0 && undo.stdout == PhotoLibrary.compressionUndoneMessage + "\n", "\(undo.stderr)")
        let out = dir.file("small.heic")
        let plain = try await ShiyingBinary.shiying(["compress", fixture.photos[0], "-o", out, "--json"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let p = try #require(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [String: Any])
        #expect(p["compressed_bytes"] as? Int == (try Data(contentsOf: URL(fileURLWithPath: out))).count)
        #expect((p["compressed_bytes"] as? Int ?? .max) < (p["original_bytes"] as? Int ?? 0))
    }
}

/// ffmpeg's mean SSIM ("All:") of `a` against `b` (every frame of a movie), nil without ffmpeg.
func ffmpegSSIM(_ a: String, _ b: String) async throws -> Double? {
    guard let ffmpeg = ExternalTool.find("ffmpeg") else { return nil }
    let r = try await ShiyingBinary.run(ffmpeg, ["-hide_banner", "-i", a, "-i", b, "-lavfi", "[0:v][1:v]ssim", "-f", "null", "-"])
    guard let range = r.stderr.range(of: "All:") else { return nil }
    return Double(r.stderr[range.upperBound...].prefix { $0.isNumber || $0 == "." })
}
