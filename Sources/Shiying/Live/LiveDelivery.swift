import Foundation

/// What a save or share delivers after SPEC C3's check.
public enum LiveDelivery: Sendable, Equatable {
    /// The pair passed: a real Live photo.
    case live(still: String, movie: String, contentIdentifier: String)
    /// SPEC C4: the pair failed; a plain still (identifier removed) is delivered
    /// and the movie deleted. `failure` picks the SPEC C8 title and message.
    case still(String, failure: LiveFailure, reason: String?)
}

/// What `LivePhoto.deliver` does with the movie of a pair that fails SPEC C3.
public enum FailedPairMovie: Sendable, Equatable {
    /// SPEC C4 for a pair the caller just wrote: the movie is deleted, so
    /// nothing that is not Live is left looking like half of a Live photo.
    case delete
    /// The movie is the caller's to keep (e.g. it came from the user).
    case keep
}

extension LivePhoto {
    /// SPEC C3 + C4: verifies a pair; when it fails (mismatch or timeout)
    /// writes `plainStill` = the still without its identifier (pixels
    /// untouched) and, only when `failedMovie` is `.delete`, deletes the movie,
    /// so nothing looks Live that is not. The caller's movie is never removed
    /// unless asked.
    /// - Throws: `ShiyingError` when the identifier cannot be removed — then no
    ///   plain still exists (and the movie is deleted when asked): never a fake
    ///   Live photo; `CancellationError` when cancelled (files left as they were).
    public static func deliver<C: Clock>(still: String, movie: String, plainStill: String,
                                         verifier: LiveVerifier<C>, failedMovie: FailedPairMovie) async throws -> LiveDelivery
    where C.Duration == Duration {
        let outcome = try await verifier.verify(still: still, movie: movie)
        let reason: String?
        switch outcome {
        case let .ok(id, _): return .live(still: still, movie: movie, contentIdentifier: id)
        case let .mismatch(r): reason = r
        case .timeout: reason = nil
        }
        defer { if failedMovie == .delete { try? FileManager.default.removeItem(atPath: movie) } }
        try strip(still, to: plainStill)
        return .still(plainStill, failure: outcome.failure ?? .mismatch, reason: reason)
    }
}

/// SPEC S1 + S2: what a share of one Live photo hands to a target, as a pure
/// decision. One item always; the poster is the baked edited rendition.
public enum LiveSharePolicy {
    /// Where the share goes.
    public enum Target: Sendable, Equatable {
        /// Targets that take files only (AirDrop, Files, mail attachments).
        case fileOnly
        /// Targets that accept a Live photo (Messages, social apps, the library).
        case livePhotoCapable
    }

    /// The asset being shared: the original pair, its recipe, and the baked
    /// (rendered) edited pair when there is an edit.
    public struct Source: Sendable, Equatable {
        /// The original still.
        public var still: String
        /// The original movie.
        public var movie: String
        /// The edit, `.identity` when there is none.
        public var recipe: EditRecipe
        /// The rendered edited still, when there is an edit.
        public var bakedStill: String?
        /// The rendered edited movie, when there is an edit.
        public var bakedMovie: String?
        /// A pair and its edit.
        public init(still: String, movie: String, recipe: EditRecipe = .identity, bakedStill: String? = nil,
                    bakedMovie: String? = nil) {
            self.still = still
            self.movie = movie
            self.recipe = recipe
            self.bakedStill = bakedStill
            self.bakedMovie = bakedMovie
        }
    }

    /// What is shared.
    public enum Payload: Sendable, Equatable {
        /// One still file; `stripIdentifier` when it comes from a pair that failed C3 (C4).
        case still(String, stripIdentifier: Bool)
        /// One Live photo: still + movie delivered together.
        case livePhoto(still: String, movie: String)
        /// SPEC S2: an edited photo is shared baked — render the edit first, then decide again.
        case renderEditFirst
    }

    /// - Parameters:
    ///   - target: where the share goes.
    ///   - source: the pair and its edit.
    ///   - verification: the C3 outcome for the pair that would be shared
    ///     (the baked pair when edited), nil when not checked yet (treated as failing).
    public static func payload(for target: Target, source: Source, verification: LiveVerification?) -> Payload {
        let edited = source.recipe != .identity
        if edited && source.bakedStill == nil { return .renderEditFirst }
        let still = edited ? source.bakedStill! : source.still
        guard case .ok = verification else { return .still(still, stripIdentifier: true) }
        if edited && source.bakedMovie == nil { return .renderEditFirst }
        let movie = edited ? source.bakedMovie! : source.movie
        switch target {
        case .fileOnly: return .still(still, stripIdentifier: false)
        case .livePhotoCapable: return .livePhoto(still: still, movie: movie)
        }
    }
}
