// The URL edge of the calls that take file-system paths (issue 24): the long
// ones are async and run off the cooperative pool; a preview render stays
// synchronous (see `Editor.render(_:recipe:maxSize:)` for why).
import Foundation

extension Editor {
    /// `render(_:recipe:maxSize:)` for a `file:` URL.
    ///
    /// Synchronous on purpose: a preview render of a decoded photo takes
    /// 1–73 ms (the box decides), so it is called on the thread that shows
    /// it, and `EditSession` keeps the decode for the next one. Run it in a
    /// task of your own for a full-size render.
    /// - Throws: `ShiyingError` (`.usage`) for a URL that is not a `file:` URL; then as the path form.
    public static func render(_ input: URL, recipe: EditRecipe, maxSize: (width: Int, height: Int)? = nil) throws -> RenderedImage {
        try render(try input.shiyingPath("input"), recipe: recipe, maxSize: maxSize)
    }
}

extension EditSession {
    /// Decodes the photo at the `file:` URL `input` for `recipe` in the box `maxSize`.
    /// - Throws: `ShiyingError` (`.usage`) for a URL that is not a `file:` URL; then as the path form.
    public convenience init(_ input: URL, recipe: EditRecipe = .identity, maxSize: (width: Int, height: Int)? = nil) throws {
        try self.init(try input.shiyingPath("input"), recipe: recipe, maxSize: maxSize)
    }

    /// The photo being edited, as a `file:` URL.
    public var inputURL: URL { URL(fileURLWithPath: input) }
}

extension LivePhoto {
    /// `renderFrame(movie:at:recipe:)` for a `file:` URL: one frame, so synchronous (as a preview render).
    /// - Throws: `ShiyingError` (`.usage`) for a URL that is not a `file:` URL; then as the path form.
    public static func renderFrame(movie: URL, at seconds: Double, recipe: EditRecipe = .identity) throws -> Frame {
        try renderFrame(movie: try movie.shiyingPath("movie"), at: seconds, recipe: recipe)
    }

    /// `saveFrame(movie:at:recipe:metadataFrom:to:format:quality:)` with `file:` URLs, on a thread of its
    /// own. One frame is decoded and one still written, so the job is not
    /// interrupted mid-way: a task cancelled before it starts throws
    /// `CancellationError` and writes nothing; the write itself is atomic
    /// (temporary file renamed into place).
    /// - Throws: `ShiyingError` naming the file; `CancellationError`.
    public static func saveFrame(movie: URL, at seconds: Double, recipe: EditRecipe = .identity,
                                 metadataFrom still: URL? = nil, to output: URL,
                                 format: StillFormat = .jpeg, quality: Int = 95) async throws -> Frame {
        let movie = try movie.shiyingPath("movie"), still = try still.shiyingPath("metadata source")
        let output = try output.shiyingPath("output")
        try Task.checkCancellation()
        return try await runOffPool { _ in
            try saveFrame(movie: movie, at: seconds, recipe: recipe, metadataFrom: still, to: output,
                          format: format, quality: quality)
        }
    }

    /// `strip(_:to:)` with `file:` URLs, on a thread of its own (a metadata
    /// rewrite: the pixels are copied, not decoded). A task cancelled before
    /// it starts throws `CancellationError` and writes nothing.
    /// - Returns: whether there was an identifier to remove.
    /// - Throws: `ShiyingError` (`.unsupported`) when it cannot be removed; `CancellationError`.
    @discardableResult
    public static func strip(_ still: URL, to output: URL) async throws -> Bool {
        let still = try still.shiyingPath("still"), output = try output.shiyingPath("output")
        try Task.checkCancellation()
        return try await runOffPool { _ in try strip(still, to: output) }
    }
}

extension ImageInfo {
    /// `probe(_:)` for a `file:` URL (a header read: synchronous).
    /// - Throws: `ShiyingError` (`.usage`) for a URL that is not a `file:` URL; then as the path form.
    public static func probe(_ url: URL) throws -> ImageInfo {
        try probe(try url.shiyingPath("input"))
    }

    /// The headers of many files, in order, on a thread of their own; task
    /// cancellation is checked between files (`CancellationError`).
    /// - Returns: each file's facts, or the error naming it (one bad file does not stop the others).
    /// - Throws: `ShiyingError` (`.usage`) for a URL that is not a `file:` URL; `CancellationError`.
    public static func probe(_ urls: [URL]) async throws -> [Result<ImageInfo, ShiyingError>] {
        let paths = try urls.map { try $0.shiyingPath("input") }
        let stop = StopFlag()
        return try await runOffPool { cancel in
            cancel { stop.raise() }
            return try paths.map { path in
                if stop.raised { throw CancellationError() }
                do { return .success(try probe(path)) } catch let error as ShiyingError { return .failure(error) }
            }
        }
    }
}

/// A flag a cancel action raises and a loop checks between files.
private final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func raise() { lock.withLock { value = true } }
    var raised: Bool { lock.withLock { value } }
}

// Reports keep their path fields (the CLI's JSON names and values); these
// computed accessors give the same files as URLs and are not encoded.

extension Editor.EditReport {
    /// ``input`` as a `file:` URL.
    public var inputURL: URL { URL(fileURLWithPath: input) }
    /// ``output`` as a `file:` URL.
    public var outputURL: URL { URL(fileURLWithPath: output) }
}

extension Conversion.Report {
    /// ``input`` as a `file:` URL.
    public var inputURL: URL { URL(fileURLWithPath: input) }
    /// ``output`` as a `file:` URL.
    public var outputURL: URL { URL(fileURLWithPath: output) }
}

extension LivePhoto.SaveReport {
    /// ``still`` as a `file:` URL.
    public var stillURL: URL { URL(fileURLWithPath: still) }
    /// ``movie`` as a `file:` URL; nil when no movie was written (a bordered save is a still).
    public var movieURL: URL? { movie.map { URL(fileURLWithPath: $0) } }
}
