// What one organize scan must decode, what it can take from the store
// (incremental: an unchanged file is not decoded again) and how stills and
// movies pair into Live photos (by content identifier, like the library).
import Foundation
import Shiying
import ShiyingLibrary

/// What the first pass learnt about one file.
struct ScanFacts: Sendable {
    /// A still: its whole record. A movie: its size, duration, dates and
    /// identifier, with a fingerprint only when `fingerprinted`.
    var asset: OrganizeAsset
    var isMovie: Bool
    var fingerprinted: Bool
}

/// The files of one scan against what the store already holds.
struct ScanPlan: Sendable {
    /// Files to read now, in folder order.
    let decode: [String]
    /// Files whose size and modification time are as recorded.
    let reused: [String: ScanFacts]
    /// Paths the store holds records for.
    let knownPaths: Set<String>
    let ocr: Bool
    private let modified: [String: (bytes: Int64, ms: Int64)]

    init(paths: [String], known: [OrganizeAsset], ocr: Bool) {
        self.ocr = ocr
        var modified: [String: (bytes: Int64, ms: Int64)] = [:]
        for path in paths {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  let size = (attributes[.size] as? NSNumber)?.int64Value,
                  let date = attributes[.modificationDate] as? Date else { continue }
            modified[path] = (size, Int64((date.timeIntervalSince1970 * 1000).rounded()))
        }
        self.modified = modified
        let byPath = Dictionary(known.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        let byMovie = Dictionary(known.compactMap { a in a.pairedPath.map { ($0, a) } }, uniquingKeysWith: { a, _ in a })
        knownPaths = Set(byPath.keys)
        var reused: [String: ScanFacts] = [:]
        for path in paths {
            guard let now = modified[path] else { continue }
            let movie = OrganizeScanner.movieExtensions.contains((path as NSString).pathExtension.lowercased())
            if let a = byPath[path], a.fileBytes == now.bytes, a.fileModifiedMs == now.ms,
               a.mediaType == (movie ? .video : .photo) {
                reused[path] = ScanFacts(asset: a, isMovie: movie, fingerprinted: true)
            } else if movie, let still = byMovie[path], still.pairedBytes == now.bytes, still.pairedModifiedMs == now.ms {
                // recorded as part of a Live photo: its facts are on the still
                var a = OrganizeAsset(path: path, mediaType: .video, width: still.width, height: still.height,
                                      durationMs: still.durationMs, fileBytes: now.bytes, fileSHA256: "",
                                      pixelSHA256: "", phash: 0, capturedAtMs: still.capturedAtMs)
                a.contentIdentifier = still.contentIdentifier
                a.fileModifiedMs = now.ms
                reused[path] = ScanFacts(asset: a, isMovie: true, fingerprinted: false)
            }
        }
        self.reused = reused
        decode = paths.filter { reused[$0] == nil }
    }

    /// The first pass over one file: a still fingerprinted (and its text
    /// recognized with `ocr`), a movie's facts read without decoding.
    func read(_ path: String, with fingerprinter: Fingerprinter) throws -> ScanFacts {
        let ext = (path as NSString).pathExtension.lowercased()
        if OrganizeScanner.movieExtensions.contains(ext) {
            var a = try Self.movieFacts(path)
            a.fileModifiedMs = modified[path]?.ms
            return ScanFacts(asset: a, isMovie: true, fingerprinted: false)
        }
        let fp = try fingerprinter.fingerprint(path, pixelDigest: false)
        var a = OrganizeAsset(fp, recognizedText: ocr ? try TesseractOCR.recognize(path) : nil)
        if a.pixelSHA256.isEmpty { a.pixelSHA256 = Self.byteEvidence + fp.fileSHA256 }
        a.fileModifiedMs = modified[path]?.ms
        // Only JPEG and HEIC carry a Live identifier (Apple MakerNote).
        a.contentIdentifier = fp.format == "png" ? nil : try LivePhoto.stillIdentifier(path)
        return ScanFacts(asset: a, isMovie: false, fingerprinted: true)
    }

    /// Exact-content evidence of a still whose pixel digest was not needed
    /// yet: its file's SHA-256 (byte copies still agree).
    static let byteEvidence = "file:"

    /// Stills whose full-resolution pixel digest an exact-duplicate check
    /// needs: those still holding byte evidence that share a bucket (media
    /// type, size, duration) with a photo at most `distance` pHash bits away
    /// — decoded pixels that are equal hash alike. One path per file digest.
    static func needingPixelDigest(_ assets: [OrganizeAsset], distance: Int = 4) -> [String] {
        struct Bucket: Hashable { var w: Int, h: Int, duration: Int }
        var buckets: [Bucket: [OrganizeAsset]] = [:]
        for a in assets where a.mediaType == .photo {
            buckets[Bucket(w: a.width, h: a.height, duration: a.durationMs), default: []].append(a)
        }
        var wanted: [String: String] = [:]  // file SHA-256 -> a path with it
        for members in buckets.values where members.count > 1 {
            for a in members where a.pixelSHA256.hasPrefix(byteEvidence) && wanted[a.fileSHA256] == nil {
                if members.contains(where: { $0.path != a.path && ($0.phash ^ a.phash).nonzeroBitCount <= distance }) {
                    wanted[a.fileSHA256] = a.path
                }
            }
        }
        return wanted.values.sorted()
    }

    /// A movie's record from its metadata (QuickTime keys a phone writes).
    static func movieFacts(_ path: String) throws -> OrganizeAsset {
        let info = try VideoInfo.read(path)
        guard let video = info.mainVideoTrack else {
            throw ShiyingError(code: .unsupported, message: "\(path): a movie without a video track", file: path)
        }
        var a = OrganizeAsset(path: path, mediaType: .video, width: video.displayWidth, height: video.displayHeight,
                              durationMs: Int((info.durationSeconds * 1000).rounded()), fileBytes: 0, fileSHA256: "",
                              pixelSHA256: "", phash: 0,
                              capturedAtMs: info.metadataValue("com.apple.quicktime.creationdate")
                                  .flatMap(EngineMediaReader.exifDate).flatMap(ExifCaptureTime.milliseconds),
                              hasCamera: info.metadataValue("com.apple.quicktime.make") != nil
                                  || info.metadataValue("com.apple.quicktime.model") != nil)
        a.format = "movie"
        a.contentIdentifier = info.metadataValue("com.apple.quicktime.content.identifier")
        return a
    }

    /// The second pass over a movie no still claimed: a few frames decoded.
    static func fingerprintMovie(_ path: String, facts: ScanFacts, with fingerprinter: Fingerprinter) throws
        -> OrganizeAsset {
        let fp = try fingerprinter.fingerprintMovie(path)
        var a = facts.asset
        a.width = fp.width
        a.height = fp.height
        a.fileBytes = fp.fileBytes
        a.fileSHA256 = fp.fileSHA256
        a.pixelSHA256 = fp.pixelSHA256
        a.phash = fp.phash
        a.phashTurned = fp.phashTurned
        a.quality = fp.quality
        a.format = "movie"
        return a
    }
}

/// Stills and movies paired into Live photos by content identifier (in
/// folder order, first still with first movie), the rest as they are.
struct LivePairing {
    let paths: [String]
    let facts: [String: ScanFacts]
    /// Movie of each paired still, and the reverse.
    private(set) var movieOf: [String: String] = [:]
    private(set) var stillOf: [String: String] = [:]
    /// Fingerprinted movies that no still claimed (reused ones to begin with).
    var videos: [String: OrganizeAsset] = [:]
    let reusedVideos: Int

    init(paths: [String], facts: [String: ScanFacts]) {
        self.paths = paths
        self.facts = facts
        var stills: [String: [String]] = [:], movies: [String: [String]] = [:]
        for path in paths {
            guard let f = facts[path], let id = f.asset.contentIdentifier, !id.isEmpty else { continue }
            if f.isMovie { movies[id, default: []].append(path) } else { stills[id, default: []].append(path) }
        }
        // The still named like the movie first (IMG_3853.HEIC with IMG_3853.MOV),
        // so an exported copy that kept the identifier stays a plain still.
        func base(_ p: String) -> String { ((p as NSString).lastPathComponent as NSString).deletingPathExtension }
        for (id, s) in stills {
            var free = movies[id] ?? []
            let names = Set(free.map(base))
            let named = s.filter { names.contains(base($0)) }
            for still in named + s.filter({ !names.contains(base($0)) }) {
                guard !free.isEmpty else { break }
                let movie = free.firstIndex { base($0) == base(still) } ?? 0
                movieOf[still] = free[movie]
                stillOf[free[movie]] = still
                free.remove(at: movie)
            }
        }
        var reused: [String: OrganizeAsset] = [:]
        for path in paths where stillOf[path] == nil {
            if let f = facts[path], f.isMovie, f.fingerprinted { reused[path] = f.asset }
        }
        videos = reused
        reusedVideos = reused.count
    }

    /// Movies left to fingerprint from their frames.
    var unpairedMoviesToDecode: [String] {
        paths.filter { p in facts[p].map { $0.isMovie && !$0.fingerprinted } == true && stillOf[p] == nil }
    }

    var pairedMoviePaths: [String] { paths.filter { stillOf[$0] != nil } }

    /// Every record, in folder order: stills (Live ones with their movie's
    /// duration and identity), then unpaired movies at their place.
    func assets() -> [OrganizeAsset] {
        paths.compactMap { path in
            guard let f = facts[path] else { return nil }
            if f.isMovie { return stillOf[path] == nil ? videos[path] : nil }
            var a = f.asset
            if let movie = movieOf[path], let m = facts[movie]?.asset {
                a.durationMs = m.durationMs
                a.pairedPath = movie
                a.pairedBytes = m.fileBytes > 0 ? m.fileBytes : movieBytes(movie)
                a.pairedModifiedMs = m.fileModifiedMs
            } else {
                a.durationMs = 0
                a.pairedPath = nil
                a.pairedBytes = nil
                a.pairedModifiedMs = nil
            }
            return a
        }
    }

    private func movieBytes(_ path: String) -> Int64? {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value
    }
}
