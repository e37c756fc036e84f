// A generated library to search (issue 21): photo-like stills with
// exiftool-set capture dates across 2024–2025 and camera names, imported
// through the real import, then given albums, tags and recognized text.
import Foundation
import Shiying
import ShiyingFixtures
import ShiyingLibrary
import ShiyingOrganize

/// One photo of the search fixture: what is set on it, and its asset id after import.
struct SearchPhoto {
    var name: String
    var date: String?          // Exif "YYYY:MM:DD HH:MM:SS"; nil = undated
    var camera: (make: String, model: String)? = nil
    var tags: [String] = []
    var album: String? = nil
    var ocr: String? = nil
}

struct LibrarySearchFixture {
    /// The reference day of every query: Wednesday 12 March 2025.
    static let today = Day(iso: "2025-03-12")!

    static let photos: [SearchPhoto] = [
        SearchPhoto(name: "yesterday", date: "2025:03:11 09:00:00", camera: ("Apple", "iPhone 15 Plus"), tags: ["猫"]),
        SearchPhoto(name: "monday", date: "2025:03:10 20:00:00", album: "日本旅行"),
        SearchPhoto(name: "last-saturday", date: "2025:03:08 10:00:00", album: "日本旅行"),
        SearchPhoto(name: "last-sunday", date: "2025:03:09 15:00:00", tags: ["笔记本"]),
        SearchPhoto(name: "last-wednesday", date: "2025:03:05 12:00:00", camera: ("samsung", "SM-G991B"), tags: ["beach", "last", "weekend"]),
        SearchPhoto(name: "receipt", date: "2025:02:25 18:30:00", ocr: "收据 合计 ¥128\nCafé Zürich"),
        SearchPhoto(name: "february", date: "2025:02:03 08:00:00", tags: ["貓咪"]),
        SearchPhoto(name: "january", date: "2025:01:15 16:00:00", tags: ["Geburtstag"]),
        SearchPhoto(name: "may-day", date: "2024:05:01 10:00:00", tags: ["playa"]),
        SearchPhoto(name: "christmas-eve", date: "2024:12:24 21:00:00", tags: ["パーティー"]),
        SearchPhoto(name: "bastille", date: "2024:07:14 22:00:00", tags: ["Fête", "생일"]),
        SearchPhoto(name: "海边日落", date: "2024:08:02 19:00:00"),
        SearchPhoto(name: "undated", date: nil, tags: ["beach"]),
    ]

    let library: PhotoLibrary
    /// Asset id by photo name.
    let ids: [String: Int64]

    func id(_ name: String) -> Int64 { ids[name]! }

    /// Builds the library in `dir`; nil when exiftool is not installed.
    static func make(in dir: TempFolder) async throws -> LibrarySearchFixture? {
        guard let exiftool = ExternalTool.find("exiftool") else { return nil }
        let input = dir.file("in")
        let samples = try SamplePhotos.write(count: photos.count, seed: 21, width: 192, height: 144, to: input + "/raw")
        var arguments: [String] = []
        var paths: [String] = []
        for (photo, sample) in zip(photos, samples) {
            let path = input + "/\(photo.name).jpg"
            try FileManager.default.moveItem(atPath: sample, toPath: path)
            paths.append(path)
            arguments += ["-q", "-overwrite_original", "-AllDates=" + (photo.date ?? ""),
                          "-Make=" + (photo.camera?.make ?? ""), "-Model=" + (photo.camera?.model ?? ""), path, "-execute"]
        }
        let argfile = dir.file("exiftool.args")
        try arguments.joined(separator: "\n").write(toFile: argfile, atomically: true, encoding: .utf8)
        let r = try await ShiyingBinary.run(exiftool, ["-@", argfile])
        guard r.status == 0 else { throw FixtureError("exiftool failed: \(r.stderr)") }

        let library = try PhotoLibrary.create(at: dir.file("lib"))
        _ = try await library.importFiles([input], reader: EngineMediaReader())
        var ids: [String: Int64] = [:]
        for asset in try await library.list(.all) {
            let name = ((asset.allFiles.first?.path ?? "") as NSString).lastPathComponent
            ids[(name as NSString).deletingPathExtension] = asset.id
        }
        guard ids.count == photos.count else { throw FixtureError("imported \(ids.count) of \(photos.count)") }
        for photo in photos {
            if !photo.tags.isEmpty { try await library.addTags(photo.tags, to: [ids[photo.name]!]) }
            if let album = photo.album { try await library.addToAlbum(album, [ids[photo.name]!]) }
        }
        // Recognized text as `organize scan --ocr --library` records it: keyed by the original's path.
        let root = library.folder.root
        let ocr = photos.filter { $0.ocr != nil }
        if !ocr.isEmpty {
            let assets = try await library.assets(ocr.map { ids[$0.name]! })
            try await library.withStore { store in
                let organize = OrganizeStore(store: store)
                for (photo, asset) in zip(ocr, assets) {
                    let path = root + "/" + asset.allFiles[0].path
                    try store.execute("""
                        INSERT INTO organize_assets(path, media_type, width, height, file_bytes, scanned_at_ms)
                        VALUES (?, 'photo', 192, 144, 1, 0)
                        """, [.text(path)])
                    let row = try store.query("SELECT id FROM organize_assets WHERE path = ?", [.text(path)])[0][0].int64!
                    try organize.setRecognizedText(photo.ocr, assetID: row)
                }
            }
        }
        return LibrarySearchFixture(library: library, ids: ids)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
