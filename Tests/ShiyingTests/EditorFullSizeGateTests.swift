// SPEC E7 / issue 5: edited pixels overwrite a library original only with
// proof they come from the full-size original; unsure → refuse, write nothing.
import Foundation
import Shiying
import Testing

private let full = PixelSize(width: 4032, height: 3024)
private let identity = FileIdentity(byteSize: 2_345_678, contentDigest: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")
private let original = OriginalRecord(fullSize: full, fileIdentity: identity)
private let proof = SourceEvidence(decodedSize: full, origin: .originalFile, headerFullSize: full, fileIdentity: identity)

/// The gate's refusal, or nil when it passed.
private func refusal(_ source: SourceEvidence, _ record: OriginalRecord = original) -> FullSizeGateError? {
    do {
        try FullSizeGate.check(source: source, original: record)
        return nil
    } catch let error as FullSizeGateError {
        #expect(error.message.hasSuffix("Nothing was written."))
        return error
    } catch {
        Issue.record("unexpected error \(error)")
        return nil
    }
}

@Suite("Editor full-size gate")
struct EditorFullSizeGateTests {
    @Test("SPEC E7: the full-size original passes")
    func accepts() throws {
        try FullSizeGate.check(source: proof, original: original)
    }

    @Test("SPEC E7: each missing fact means unsure → refuse, naming it", arguments: [
        ("decoded size", 0), ("source origin", 1), ("file header size", 2), ("identity of the file read", 3),
        ("original's full size", 4), ("original's file identity", 5),
    ])
    func unsure(_ c: (String, Int)) throws {
        var source = proof
        var record = original
        switch c.1 {
        case 0: source.decodedSize = nil
        case 1: source.origin = nil
        case 2: source.headerFullSize = nil
        case 3: source.fileIdentity = nil
        case 4: record.fullSize = nil
        default: record.fileIdentity = nil
        }
        let error = try #require(refusal(source, record))
        #expect(error.reason == .unsure(missing: [c.0]))
        #expect(error.message.contains("Cannot confirm") && error.message.contains(c.0))
    }

    @Test("SPEC E7: no evidence at all lists every missing fact")
    func nothingKnown() throws {
        let error = try #require(refusal(SourceEvidence(), OriginalRecord()))
        guard case .unsure(let missing) = error.reason else { Issue.record("\(error)"); return }
        #expect(missing.count == 6)
    }

    @Test("SPEC E7: a zero size or an empty digest counts as unknown")
    func zeroIsUnknown() throws {
        var source = proof
        source.decodedSize = PixelSize(width: 0, height: 0)
        #expect(try #require(refusal(source)).reason == .unsure(missing: ["decoded size"]))
        source = proof
        source.fileIdentity = FileIdentity(byteSize: identity.byteSize, contentDigest: "")
        #expect(try #require(refusal(source)).reason == .unsure(missing: ["identity of the file read"]))
    }

    @Test("SPEC E7: pixels from a thumbnail, proxy or preview cache are refused even at full size",
          arguments: [SourceEvidence.Origin.thumbnail, .proxy, .previewCache])
    func standIns(_ origin: SourceEvidence.Origin) throws {
        var source = proof
        source.origin = origin
        let error = try #require(refusal(source))
        #expect(error.reason == .notOriginalFile(origin))
        #expect(error.message.contains("not the full-size original"))
    }

    @Test("SPEC E7: another file (different size or digest) is refused")
    func differentFile() throws {
        for other in [FileIdentity(byteSize: identity.byteSize - 1, contentDigest: identity.contentDigest),
                      FileIdentity(byteSize: identity.byteSize, contentDigest: "00" + identity.contentDigest.dropFirst(2))] {
            var source = proof
            source.fileIdentity = other
            #expect(try #require(refusal(source)).reason == .differentFile(read: other, original: identity))
        }
    }

    @Test("SPEC E7: a file whose header records a smaller size is refused")
    func headerSmaller() throws {
        var source = proof
        let small = PixelSize(width: 1170, height: 878)
        source.headerFullSize = small
        source.decodedSize = small
        #expect(try #require(refusal(source)).reason == .headerMismatch(header: small, original: full))
    }

    @Test("SPEC E7: a decode smaller than (or transposed from) the full size is refused", arguments: [
        PixelSize(width: 2016, height: 1512), PixelSize(width: 3024, height: 4032), PixelSize(width: 4032, height: 3023),
    ])
    func decodedNotFull(_ decoded: PixelSize) throws {
        var source = proof
        source.decodedSize = decoded
        let error = try #require(refusal(source))
        #expect(error.reason == .notFullSize(decoded: decoded, fullSize: full))
        #expect(error.message.contains("\(decoded)") && error.message.contains("4032×3024"))
    }

    @Test("SPEC E7: overwrite replaces the file only after the gate passes; a refusal leaves it byte for byte")
    func overwrite() throws {
        let dir = try TempDir("gate")
        defer { dir.remove() }
        let path = dir.file("IMG_0001.HEIC")
        let old = Data("original bytes".utf8)
        try old.write(to: URL(fileURLWithPath: path))

        var thumbnail = proof
        thumbnail.origin = .thumbnail
        #expect(throws: FullSizeGateError.self) {
            try FullSizeGate.overwrite(path, with: Data("edited".utf8), source: thumbnail, original: original)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == old)
        #expect(dir.contents() == ["IMG_0001.HEIC"])

        try FullSizeGate.overwrite(path, with: Data("edited".utf8), source: proof, original: original)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("edited".utf8))
        #expect(dir.contents() == ["IMG_0001.HEIC"])
    }
}
