// Compression from the share menu (issue 19; SPEC S3, S5, D5): a smaller copy
// of a library photo or video, through the library's one exit path into
// 「拾映转换」. The original is only read; undo is `PhotoLibrary.undoCompression`.
import Foundation
import Shiying
import ShiyingLibrary

extension LibraryWorkflows {
    /// A compression and where its copy went.
    public struct CompressionResult: Sendable {
        public var library: LibraryOutputReport
        public var originalID: Int64
        public var compression: Compression.Report
    }

    /// Compresses asset `id` (a photo or a video; `Compression.compress`)
    /// into a copy in 「拾映转换」 carrying its capture date, location,
    /// favourite, albums and tags (SPEC S3). The copy is of the current
    /// version, what the user sees: an edited photo's rendition (SPEC S2's
    /// rule for shared copies), else the original. Live photos are refused
    /// (their pair would need both halves compressed as one), and so is a
    /// copy that would not be smaller (nothing deposited).
    /// - Throws: `LibraryError` (unknown asset, Live), `ShiyingError`, `HDRLossError`.
    public static func compress(_ id: Int64, in library: PhotoLibrary,
                                options: Compression.Options = Compression.Options(),
                                reader: EngineMediaReader = EngineMediaReader(),
                                progress: ((ShiyingProgress) -> Void)? = nil) async throws -> CompressionResult {
        let asset = try await library.asset(id)
        guard asset.deletedAtMs == nil, let current = asset.file(asset.edited ? .rendition : .original) else {
            throw LibraryError.unknown(id)
        }
        guard asset.kind != .live else {
            throw LibraryError(.invalid, "asset \(id) is a Live photo; compress takes photos and videos")
        }
        let source = library.folder.absolute(current.path)
        let movie = asset.kind == .video
        let ext = Compression.outputExtension(movie: movie, options: options)
        // The copy is named after the original's file, edited or not.
        let named = asset.file(.original)?.path ?? current.path
        let stem = ((named as NSString).lastPathComponent as NSString).deletingPathExtension
        let staged = library.stagingPath(extension: ext)
        let report: Compression.Report
        do {
            report = try Compression.compressBlocking(source, to: staged, movie: movie, options: options, progress: progress)
        } catch let error as ShiyingError { // the engine named the hidden staging file: say whose copy it was
            let known = "compressed copy of \(source) (asset \(id))"
            throw ShiyingError(code: error.code, message: error.message.replacingOccurrences(of: staged, with: known),
                               file: error.file == staged ? source : error.file)
        }
        let output = LibraryOutput(purpose: .conversion(source: id), primary: staged, name: "\(stem)-compressed.\(ext)")
        return CompressionResult(library: try await library.deposit(output, reader: reader), originalID: id, compression: report)
    }
}
