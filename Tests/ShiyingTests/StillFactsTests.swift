// sy_still_read_facts (issue 18): what a photo library catalogues about a
// still, from its header and Exif, no pixel decoded.
import Foundation
import Shiying
import ShiyingFixtures
import Testing

@Suite("Still facts")
struct StillFactsTests {
    @Test("Capture date and upright size of a sample photo; no GPS IFD → no location")
    func sample() throws {
        let dir = try TempDir("facts")
        defer { dir.remove() }
        let paths = try SamplePhotos.write(count: 2, seed: 3, width: 320, height: 240, to: dir.path)
        let reader = try StillFactsReader()
        let landscape = try reader.read(paths[0]), portrait = try reader.read(paths[1])
        #expect(landscape.info.width == 320 && landscape.info.height == 240 && landscape.location == nil)
        #expect(portrait.info.width == 240 && portrait.info.height == 320, "orientation 6 applied")
        let date = try #require(landscape.captureDate)
        #expect(date.count == 19 && date.dropFirst(4).first == ":")
    }

    @Test("GPS position: north/east positive, south/west negative (exiftool writes it; skipped when absent)")
    func gps() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") else { return }
        let dir = try TempDir("facts-gps")
        defer { dir.remove() }
        let path = try SamplePhotos.write(count: 1, seed: 4, width: 160, height: 120, to: dir.path)[0]
        let heic = dir.file("south-west.heic")
        for (file, lat, latRef, lon, lonRef) in [(path, 31.2304, "N", 121.4737, "E"), (path, 33.8688, "S", 70.6693, "W")] {
            _ = try await runTool("exiftool", ["-q", "-overwrite_original", "-GPSLatitude=\(lat)", "-GPSLatitudeRef=\(latRef)",
                                               "-GPSLongitude=\(lon)", "-GPSLongitudeRef=\(lonRef)", file])
            let position = try #require(try StillFactsReader().read(file).location)
            #expect(abs(position.latitude - (latRef == "S" ? -lat : lat)) < 1e-6)
            #expect(abs(position.longitude - (lonRef == "W" ? -lon : lon)) < 1e-6)
        }
        // the same position survives a conversion into HEIC (an Exif item) and is read from there
        _ = try Conversion.convertBlocking(path, to: heic)
        let converted = try #require(try StillFactsReader().read(heic).location)
        #expect(abs(converted.latitude + 33.8688) < 1e-6 && abs(converted.longitude + 70.6693) < 1e-6)
    }

    // A position stated only in XMP (exif:GPSLatitude "DDD,MM.mmk", as exiftool and photo managers write it;
    // found by the metadata sweep: such a photo was catalogued without a place).
    @Test("GPS stated in XMP only: read as the Exif one would be; Exif wins when both say")
    func xmpOnlyGPS() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") else { return }
        let dir = try TempDir("facts-xmp-gps")
        defer { dir.remove() }
        let path = try SamplePhotos.write(count: 1, seed: 5, width: 160, height: 120, to: dir.path)[0]
        _ = try await runTool("exiftool", ["-q", "-overwrite_original", "-XMP-exif:GPSLatitude=48.8566",
                                           "-XMP-exif:GPSLongitude=-2.3522", path])
        let written = try await runTool("exiftool", ["-s3", "-n", "-XMP-exif:GPSLatitude", "-XMP-exif:GPSLongitude", path])
        #expect(written.stdout.contains("48.8566"), "the fixture states its position in XMP: \(written.stdout)")
        #expect(try await runTool("exiftool", ["-s3", "-GPS:GPSLatitude", path]).stdout.isEmpty, "no GPS IFD")
        let position = try #require(try StillFactsReader().read(path).location)
        #expect(abs(position.latitude - 48.8566) < 1e-6 && abs(position.longitude + 2.3522) < 1e-6, "\(position)")
        _ = try await runTool("exiftool", ["-q", "-overwrite_original", "-GPSLatitude=31.2304", "-GPSLatitudeRef=N",
                                           "-GPSLongitude=121.4737", "-GPSLongitudeRef=E", path])
        let both = try #require(try StillFactsReader().read(path).location)
        #expect(abs(both.latitude - 31.2304) < 1e-6 && abs(both.longitude - 121.4737) < 1e-6, "Exif wins: \(both)")
    }

    @Test("A real iPhone HEIC: its GPS position and capture date (skipped without the corpus)")
    func iphone() throws {
        let path = Paths.corpus.appendingPathComponent("real/iphone15plus_IMG_3853.HEIC").path
        guard FileManager.default.fileExists(atPath: path) else { return }
        let facts = try StillFactsReader().read(path)
        let position = try #require(facts.location)
        #expect(abs(position.latitude - 35.7142722) < 1e-5 && abs(position.longitude - 139.7963555) < 1e-5)
        #expect(facts.captureDate != nil)
        #expect(facts.camera == "Apple iPhone 15 Plus")
        for (name, camera) in [("real/iphoneSE2_grid.heic", "Apple iPhone SE (2nd generation)"), ("real/samsung_camera.jpeg", "samsung SM-G960F")] {
            let other = Paths.corpus.appendingPathComponent(name).path
            if FileManager.default.fileExists(atPath: other) { #expect(try StillFactsReader().read(other).camera == camera, "\(name)") }
        }
    }

    @Test("Camera name: Make + Model, the make once when the model repeats it, none without either (exiftool; skipped when absent)")
    func camera() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/exiftool") else { return }
        let dir = try TempDir("facts-camera")
        defer { dir.remove() }
        let path = try SamplePhotos.write(count: 1, seed: 5, width: 160, height: 120, to: dir.path)[0]
        for (make, model, expected) in [("Canon", "Canon EOS R5", "Canon EOS R5"), ("FUJIFILM", "X-T5  ", "FUJIFILM X-T5"),
                                        ("", "Pixel 8", "Pixel 8"), ("", "", nil)] as [(String, String, String?)] {
            _ = try await runTool("exiftool", ["-q", "-overwrite_original", "-Make=\(make)", "-Model=\(model)", path])
            #expect(try StillFactsReader().read(path).camera == expected, "\(make) / \(model)")
        }
    }

    @Test("A Live still's content identifier, the same as its movie's; a plain photo has none; a truncated copy is refused")
    func liveIdentifierAndWholeFile() throws {
        let dir = try TempDir("facts-live")
        defer { dir.remove() }
        let pair = try SampleLivePhotos.write(count: 1, seed: 6, width: 180, height: 240, to: dir.path)[0]
        let facts = try StillFactsReader().read(pair.still)
        #expect(facts.contentIdentifier == pair.contentIdentifier && facts.contentIdentifier?.count == 36)
        #expect(try LivePhoto.stillIdentifier(pair.still) == facts.contentIdentifier)
        let plain = try SamplePhotos.write(count: 1, seed: 6, width: 160, height: 120, to: dir.file("plain"))[0]
        #expect(try StillFactsReader().read(plain).contentIdentifier == nil)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: plain))
        let cut = dir.file("cut.jpg")
        try bytes.prefix(bytes.count * 2 / 3).write(to: URL(fileURLWithPath: cut))
        #expect { try StillFactsReader().read(cut) } throws: { ($0 as? ShiyingError)?.message.contains(cut) == true }
    }

    @Test("Not a still: an error naming the file")
    func notAStill() throws {
        let dir = try TempDir("facts-bad")
        defer { dir.remove() }
        let path = dir.file("notes.jpg")
        try Data("not a photo".utf8).write(to: URL(fileURLWithPath: path))
        #expect { try StillFactsReader().read(path) } throws: { ($0 as? ShiyingError)?.message.contains(path) == true }
    }
}
