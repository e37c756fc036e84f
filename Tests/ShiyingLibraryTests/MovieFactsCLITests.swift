// A movie's capture facts through the built `shiying` binary (a metadata
// sweep): video -> Live gives the new still the movie's date, zone, place and
// camera, and the library dates and places the pair by them (SPEC S3); an
// MP4's udta ©xyz / ©day are read, carried by a rewrite and used by the
// library; video -> GIF goes into the library with its source's date and place; a camera's udta ©mak / ©mod,
// a zone-less or UTC ©day and a 3GPP loci box, each as its writers mean it.
import Foundation
import ShiyingLibrary
import Testing

private let iPhoneMovie = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../../shared/corpus/real/iphone15plus_IMG_3853.MOV").standardizedFileURL.path

/// An outside tool from /usr/bin or /usr/local/bin (ffmpeg, exiftool).
private func outside(_ name: String, _ args: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
    let exe = try #require(["/usr/bin/", "/usr/local/bin/"].map { $0 + name }
        .first { FileManager.default.isExecutableFile(atPath: $0) }, "\(name) is not installed")
    return try await ShiyingBinary.run(exe, args)
}

/// exiftool's numeric values of `tags` in `file` ("-n -s -s -s"), one per tag, "" when absent.
private func tags(_ file: String, _ tags: [String]) async throws -> [String: String] {
    let run = try await outside("exiftool", ["-n", "-S"] + tags.map { "-" + $0 } + [file])
    var found: [String: String] = [:]
    for line in run.stdout.split(separator: "\n") {
        guard let colon = line.firstIndex(of: ":") else { continue }
        found[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    return found
}

/// A 1 s 160x120 H.264 clip with mvhd time `created` (UTC); `udta`: exiftool
/// then writes ©xyz and ©day into moov/udta, as an Android phone's MP4 states them.
private func clip(_ path: String, created: String, udta: Bool) async throws {
    let made = try await outside("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=15",
                                            "-t", "1", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-bitexact",
                                            "-metadata", "creation_time=\(created)", path])
    try #require(made.status == 0, "\(made.stderr)")
    if udta {
        let tagged = try await outside("exiftool", ["-q", "-overwrite_original", "-UserData:GPSCoordinates=47.0130, 11.4240",
                                                    "-UserData:ContentCreateDate=2021:06:01 12:00:00+02:00", path])
        try #require(tagged.status == 0, "\(tagged.stderr)")
    }
}

private func listed(_ lib: String) async throws -> [[String: Any]] {
    let run = try await ShiyingBinary.shiying(["library", "list", "--library", lib, "--json"])
    return run.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
}

@Suite("Movie facts CLI")
struct MovieFactsCLITests {
    @Test("video -> Live: the still carries the iPhone movie's date and zone, GPS, make and model; the library files it by them")
    func iPhoneVideoToLive() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let made = try await ShiyingBinary.shiying(["convert", "--to", "live", "-o", dir.file("out"), iPhoneMovie])
        #expect(made.status == 0, "\(made.stderr)")
        let still = dir.file("out/iphone15plus_IMG_3853_live.jpg")
        let t = try await tags(still, ["DateTimeOriginal", "OffsetTimeOriginal", "GPSLatitude", "GPSLongitude", "Make", "Model",
                                       "Software", "Validate"])
        #expect(t["DateTimeOriginal"] == "2025:01:01 11:06:46" && t["OffsetTimeOriginal"] == "+09:00", "\(t)")
        #expect(abs((Double(t["GPSLatitude"] ?? "") ?? 0) - 35.7143) < 0.001, "\(t)")
        #expect(abs((Double(t["GPSLongitude"] ?? "") ?? 0) - 139.7963) < 0.001, "\(t)")
        #expect(t["Make"] == "Apple" && t["Model"] == "iPhone 15 Plus" && t["Software"] == "18.2", "\(t)")
        #expect(t["Validate"] == "0 0 0", "\(t)")

        let lib = dir.file("lib")
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        let into = try await ShiyingBinary.shiying(["convert", "--library", lib, "--to", "live", "-o", "vid", iPhoneMovie])
        #expect(into.status == 0, "\(into.stderr)")
        let asset = try #require(try await listed(lib).first)
        #expect(asset["capture_date"] as? String == "2025:01:01 11:06:46", "\(asset)")
        let gps = asset["gps"] as? [String: Any]
        #expect(abs((gps?["latitude"] as? Double ?? 0) - 35.7143) < 0.001, "\(asset)")
        #expect((asset["files"] as? [String] ?? []).allSatisfy { $0.contains("/originals/2025/01/") }, "\(asset)")
    }

    @Test("live make --video of a movie with only a header time: the still's date is that time in UTC, offset +00:00")
    func headerTimeIsUTC() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let movie = dir.file("plain.mov")
        try await clip(movie, created: "2022-03-04T05:06:07Z", udta: false)
        let made = try await ShiyingBinary.shiying(["live", "make", "--video", movie, "-o", dir.file("out")])
        #expect(made.status == 0, "\(made.stderr)")
        let t = try await tags(dir.file("out/plain_live.jpg"), ["DateTimeOriginal", "OffsetTimeOriginal", "GPSLatitude", "Validate"])
        #expect(t["DateTimeOriginal"] == "2022:03:04 05:06:07" && t["OffsetTimeOriginal"] == "+00:00", "\(t)")
        #expect(t["GPSLatitude"] == nil && t["Validate"] == "0 0 0", "\(t)")
    }

    @Test("an MP4's udta ©xyz / ©day: carried by a transcode as Apple's keys, on a Live still, and used by library import")
    func mp4UserData() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let movie = dir.file("android.mp4")
        try await clip(movie, created: "2021-06-01T10:00:00Z", udta: true)
        let out = dir.file("t.mov")
        let transcoded = try await ShiyingBinary.shiying(["video", "transcode", "-o", out, movie])
        #expect(transcoded.status == 0, "\(transcoded.stderr)")
        let kept = try await tags(out, ["Keys:CreationDate", "Keys:GPSCoordinates"])
        #expect(kept["CreationDate"] == "2021:06:01 12:00:00+02:00", "\(kept)")
        #expect(kept["GPSCoordinates"]?.hasPrefix("47.013 11.424") == true, "\(kept)")

        let live = try await ShiyingBinary.shiying(["convert", "--to", "live", "-o", dir.file("live"), movie])
        #expect(live.status == 0, "\(live.stderr)")
        let still = try await tags(dir.file("live/android_live.jpg"), ["DateTimeOriginal", "OffsetTimeOriginal", "GPSLatitude"])
        #expect(still["DateTimeOriginal"] == "2021:06:01 12:00:00" && still["OffsetTimeOriginal"] == "+02:00", "\(still)")
        #expect(abs((Double(still["GPSLatitude"] ?? "") ?? 0) - 47.013) < 0.001, "\(still)")

        let lib = dir.file("lib")
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        #expect(try await ShiyingBinary.shiying(["library", "import", "--library", lib, movie]).status == 0)
        let asset = try #require(try await listed(lib).first)
        #expect(asset["capture_date"] as? String == "2021:06:01 12:00:00", "\(asset)") // local time, not mvhd's UTC
        let gps = asset["gps"] as? [String: Any]
        #expect(abs((gps?["latitude"] as? Double ?? 0) - 47.013) < 1e-6 && abs((gps?["longitude"] as? Double ?? 0) - 11.424) < 1e-6,
                "\(asset)")
    }

    // ffmpeg's .mov states a camera in moov/udta text atoms ©mak / ©mod / ©day / ©xyz
    // (exiftool: UserData:Make, Model, ContentCreateDate). ©mak / ©mod were not read: no camera on the Live still,
    // none kept by a transcode, none for the library's search. ©day without a zone is a local time whose zone
    // nobody knows (exiftool reads it so, as an XMP date): kept as written, no offset invented, not mvhd's UTC.
    @Test("a camera .mov's udta ©mak / ©mod and zone-less ©day: camera and local time on the Live still, a transcode, the library")
    func cameraUserData() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let movie = dir.file("camera.mov")
        let made = try await outside("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=15", "-t", "1",
                                                "-c:v", "libx264", "-pix_fmt", "yuv420p", "-bitexact",
                                                "-metadata", "creation_time=2024-05-01T01:20:30Z", "-metadata", "make=Google",
                                                "-metadata", "model=Pixel 8", "-metadata", "date=2024-05-01T10:20:30",
                                                "-metadata", "location=+35.6895+139.6917/", movie])
        try #require(made.status == 0, "\(made.stderr)")
        let source = try await tags(movie, ["UserData:Make", "UserData:Model", "UserData:ContentCreateDate"])
        try #require(source["Make"] == "Google" && source["Model"] == "Pixel 8" && source["ContentCreateDate"] == "2024:05:01 10:20:30",
                     "the fixture as exiftool reads it: \(source)")

        let out = dir.file("t.mov")
        let transcoded = try await ShiyingBinary.shiying(["video", "transcode", "-o", out, movie])
        #expect(transcoded.status == 0, "\(transcoded.stderr)")
        let kept = try await tags(out, ["Keys:Make", "Keys:Model", "Keys:CreationDate"])
        #expect(kept["Make"] == "Google" && kept["Model"] == "Pixel 8" && kept["CreationDate"] == "2024:05:01 10:20:30", "\(kept)")

        let live = try await ShiyingBinary.shiying(["convert", "--to", "live", "-o", dir.file("live"), movie])
        #expect(live.status == 0, "\(live.stderr)")
        let still = try await tags(dir.file("live/camera_live.jpg"), ["Make", "Model", "DateTimeOriginal", "OffsetTimeOriginal", "Validate"])
        #expect(still["Make"] == "Google" && still["Model"] == "Pixel 8", "\(still)")
        #expect(still["DateTimeOriginal"] == "2024:05:01 10:20:30" && still["OffsetTimeOriginal"] == nil, "\(still)")
        #expect(still["Validate"] == "0 0 0", "\(still)")

        let lib = dir.file("lib")
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        #expect(try await ShiyingBinary.shiying(["library", "import", "--library", lib, movie]).status == 0)
        let asset = try #require(try await listed(lib).first)
        #expect(asset["capture_date"] as? String == "2024:05:01 10:20:30", "\(asset)") // as written, not 01:20:30 (mvhd, UTC)
        let found = try await ShiyingBinary.shiying(["search", "--library", lib, "--json", "Pixel"])
        let id = try #require(asset["id"] as? Int)
        #expect(found.status == 0 && found.stdout.contains("\"ids\":[\(id)]"), "the camera is searchable: \(found.stdout) \(found.stderr)")
    }

    // ©day in UTC ("…Z", the form reported for Android's MediaRecorder) is a UTC time: the Live still
    // says so (+00:00) and keeps the milliseconds. ffmpeg's MP4 states `location` as a 3GPP `loci` box (exiftool:
    // UserData:LocationInformation), read as the ISO 6709 place with its altitude, south and west as negative.
    @Test("a UTC ©day ('Z') is dated +00:00; an MP4's 3GPP loci gives the place with altitude through a transcode and the library")
    func utcDayAndLoci() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let utc = dir.file("utc.mov"), loci = dir.file("loci.mp4")
        for (file, meta) in [(utc, ["date=2024-05-01T10:20:30.250Z"]), (loci, ["location=-33.4489-070.6693+520.000/"])] {
            let made = try await outside("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=15", "-t", "1",
                                                    "-c:v", "libx264", "-pix_fmt", "yuv420p", "-bitexact",
                                                    "-metadata", "creation_time=2024-05-01T10:20:30Z"] + meta.flatMap { ["-metadata", $0] } + [file])
            try #require(made.status == 0, "\(made.stderr)")
        }
        let live = try await ShiyingBinary.shiying(["live", "make", "--video", utc, "-o", dir.file("live")])
        #expect(live.status == 0, "\(live.stderr)")
        let still = try await tags(dir.file("live/utc_live.jpg"), ["DateTimeOriginal", "OffsetTimeOriginal", "SubSecTimeOriginal"])
        #expect(still["DateTimeOriginal"] == "2024:05:01 10:20:30" && still["OffsetTimeOriginal"] == "+00:00"
                && still["SubSecTimeOriginal"] == "250", "\(still)")

        let box = try await tags(loci, ["UserData:LocationInformation"])
        try #require(box["LocationInformation"]?.contains("Lat=-33.4489") == true, "ffmpeg wrote a loci box: \(box)")
        let out = dir.file("t.mov")
        let transcoded = try await ShiyingBinary.shiying(["video", "transcode", "-o", out, loci])
        #expect(transcoded.status == 0, "\(transcoded.stderr)")
        let kept = try await tags(out, ["Keys:GPSCoordinates"])
        let v = (kept["GPSCoordinates"] ?? "").split(separator: " ").compactMap { Double($0) }
        #expect(v.count == 3 && abs(v[0] + 33.4489) < 1e-3 && abs(v[1] + 70.6693) < 1e-3 && abs(v[2] - 520) < 0.01, "\(kept)")
        let lib = dir.file("lib")
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        #expect(try await ShiyingBinary.shiying(["library", "import", "--library", lib, loci]).status == 0)
        let gps = try #require(try await listed(lib).first)["gps"] as? [String: Any]
        #expect(abs((gps?["latitude"] as? Double ?? 0) + 33.4489) < 1e-3 && abs((gps?["longitude"] as? Double ?? 0) + 70.6693) < 1e-3,
                "\(String(describing: gps))")
    }

    // ffmpeg's MP4 keeps `-metadata date` in the item list (moov/udta/meta 'mdir' ilst ©day, exiftool's
    // ItemList:ContentCreateDate), not in udta's ©day text atom: it was not read, so a video made Live was dated
    // by the header's UTC count (or not at all) and the library filed it by that.
    @Test("an MP4's item-list date (ilst ©day, with its zone) dates the Live still and the library, as exiftool reads it")
    func itemListDate() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let movie = dir.file("dated.mp4")
        let made = try await outside("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=15", "-t", "1",
                                                "-c:v", "libx264", "-pix_fmt", "yuv420p", "-bitexact",
                                                "-metadata", "date=2024-05-01T10:20:30+0200", movie])
        try #require(made.status == 0, "\(made.stderr)")
        let stated = try await tags(movie, ["ItemList:ContentCreateDate"])
        try #require(stated["ContentCreateDate"] == "2024:05:01 10:20:30+02:00", "ffmpeg wrote an ilst ©day: \(stated)")
        let live = try await ShiyingBinary.shiying(["live", "make", "--video", movie, "-o", dir.file("live")])
        #expect(live.status == 0, "\(live.stderr)")
        let still = try await tags(dir.file("live/dated_live.jpg"), ["DateTimeOriginal", "OffsetTimeOriginal"])
        #expect(still["DateTimeOriginal"] == "2024:05:01 10:20:30" && still["OffsetTimeOriginal"] == "+02:00", "\(still)")
        let lib = dir.file("lib")
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        #expect(try await ShiyingBinary.shiying(["library", "import", "--library", lib, movie]).status == 0)
        let asset = try #require(try await listed(lib).first)
        #expect(asset["capture_date"] as? String == "2024:05:01 10:20:30", "\(asset)")
    }

    @Test("convert --to gif --library: the GIF is deposited in 「拾映转换」 with its source's date and place (SPEC S3)")
    func gifIntoLibrary() async throws {
        let dir = try TempFolder()
        defer { dir.remove() }
        let movie = dir.file("clip.mp4")
        try await clip(movie, created: "2021-06-01T10:00:00Z", udta: true)
        let lib = dir.file("lib")
        #expect(try await ShiyingBinary.shiying(["library", "init", lib]).status == 0)
        let run = try await ShiyingBinary.shiying(["convert", "--library", lib, "--to", "gif", "--size", "80", "-o", "clip.gif", movie])
        #expect(run.status == 0, "\(run.stderr)")
        let asset = try #require(try await listed(lib).first)
        #expect(asset["kind"] as? String == "photo" && asset["capture_date"] as? String == "2021:06:01 12:00:00", "\(asset)")
        #expect(abs(((asset["gps"] as? [String: Any])?["latitude"] as? Double ?? 0) - 47.013) < 1e-6, "\(asset)")
        let files = asset["files"] as? [String] ?? []
        #expect(files.count == 1 && files[0].hasSuffix("/originals/2021/06/clip.gif") && FileManager.default.fileExists(atPath: files[0]),
                "\(asset)")
        #expect(asset["width"] as? Int == 80, "\(asset)")
    }
}
