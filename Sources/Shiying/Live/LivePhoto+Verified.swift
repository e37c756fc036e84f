// SPEC E7 for Live photos: a Live edit written as a library's new version
// must be rendered from the full-size original pair — the still (its decode
// is the evidence, as for `Editor.saveVerified`) and the movie (the file read
// is the catalogued one, at its catalogued display size, and the frames
// written are that size) — or nothing is kept.
import Foundation
internal import CShiying

extension LivePhoto {
    /// What a library recorded of a Live original: the still's and the movie's
    /// upright full size and file identity (size + SHA-256).
    public struct OriginalPairRecord: Sendable, Hashable {
        /// The still's upright full size and file identity.
        public var still: OriginalRecord
        /// The movie's display size and file identity.
        public var movie: OriginalRecord

        /// - Parameters: the still's record and the movie's (display size).
        public init(still: OriginalRecord, movie: OriginalRecord) {
            self.still = still
            self.movie = movie
        }
    }

    /// `saveVerifiedBlocking` on its own thread, with file URLs; cancelling the
    /// task stops the engine within a frame and throws `CancellationError`.
    /// - Throws: as `saveVerifiedBlocking`; `CancellationError`.
    public static func saveVerified(movie: URL, still: URL, record: OriginalPairRecord,
                                    renderingFrom source: (still: URL, movie: URL)? = nil,
                                    stillOut: URL, movieOut: URL, options: SaveOptions = SaveOptions(),
                                    progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> SaveReport {
        let movie = try movie.shiyingPath("movie"), still = try still.shiyingPath("still")
        let stillOut = try stillOut.shiyingPath("still output"), movieOut = try movieOut.shiyingPath("movie output")
        let source = try source.map { (still: try $0.still.shiyingPath("rendering still"), movie: try $0.movie.shiyingPath("rendering movie")) }
        return try await runOffPool { cancel in
            try saveVerifiedBlocking(movie: movie, still: still, record: record, renderingFrom: source,
                                     stillOut: stillOut, movieOut: movieOut, options: options, progress: progress,
                                     cancel: cancel)
        }
    }

    /// SPEC E7: `save` of a Live edit behind the full-size gate. The pair is
    /// rendered from `renderingFrom` (a proxy pair, say) or the original
    /// `still` + `movie`; the still's evidence is what its decode read
    /// (decoded and header size, bytes and SHA-256 of the file read), the
    /// movie's is the file's identity before and after the save and the
    /// display size of the frames written, each checked against `record`.
    /// A border (SPEC E1) writes the still alone and reads no movie, so only
    /// the still is gated. On refusal `stillOut` and `movieOut` are removed:
    /// nothing is left to become a version.
    /// - Throws: `FullSizeGateError` (nothing kept), `EditRecipeError` or `ShiyingError`.
    public static func saveVerifiedBlocking(movie: String, still: String, record: OriginalPairRecord,
                                            renderingFrom source: (still: String, movie: String)? = nil,
                                            stillOut: String, movieOut: String, options: SaveOptions = SaveOptions(),
                                            progress: ((ShiyingProgress) -> Void)? = nil,
                                            cancel: CancelHook? = nil) throws -> SaveReport {
        let input = source ?? (still, movie)
        let stillOrigin: SourceEvidence.Origin = Editor.sameFile(input.still, still) ? .originalFile : .proxy
        let movieOrigin: SourceEvidence.Origin = Editor.sameFile(input.movie, movie) ? .originalFile : .proxy
        let readsMovie = options.recipe.border == nil
        // the movie is checked before any work too: a wrong movie costs no render
        let movieBefore = readsMovie ? try movieEvidence(input.movie, origin: movieOrigin, decoded: nil) : nil
        if let movieBefore {
            try FullSizeGate.check(source: SourceEvidence(decodedSize: movieBefore.headerFullSize, origin: movieBefore.origin,
                                                          headerFullSize: movieBefore.headerFullSize,
                                                          fileIdentity: movieBefore.fileIdentity), original: record.movie)
        }
        let (report, read, movieDecoded) = try saveReadingStill(movie: input.movie, still: input.still, stillOut: stillOut,
                                                  movieOut: movieOut, options: options, progress: progress,
                                                  cancel: cancel)
        do {
            let digest = cString(read.source_sha256)
            let stillEvidence = SourceEvidence(
                decodedSize: PixelSize(width: Int(read.decoded_width), height: Int(read.decoded_height)), origin: stillOrigin,
                headerFullSize: PixelSize(width: Int(read.source_width), height: Int(read.source_height)),
                fileIdentity: digest.isEmpty ? nil : FileIdentity(byteSize: Int64(read.source_bytes), contentDigest: digest))
            try FullSizeGate.check(source: stillEvidence, original: record.still)
            if let movieBefore, let before = movieBefore.fileIdentity {
                // the frames the save decoded, before the recipe's crop or turn (not the frames it wrote)
                let after = try movieEvidence(input.movie, origin: movieOrigin, decoded: report.live ? movieDecoded : nil)
                // the movie read during the save is the one checked before it
                if let now = after.fileIdentity, now != before { throw FullSizeGateError(.differentFile(read: now, original: before)) }
                try FullSizeGate.check(source: after, original: record.movie)
            }
        } catch {
            unlink(stillOut)
            unlink(movieOut)
            throw error
        }
        return report
    }

    /// A movie's identity and display size as read now; `decoded` = the frames the save decoded.
    private static func movieEvidence(_ path: String, origin: SourceEvidence.Origin, decoded: PixelSize?) throws -> SourceEvidence {
        let track = try VideoInfo.read(path).mainVideoTrack
        let header = track.map { PixelSize(width: $0.displayWidth, height: $0.displayHeight) }
        return SourceEvidence(decodedSize: decoded, origin: origin, headerFullSize: header,
                              fileIdentity: try Editor.fileIdentity(path))
    }
}
