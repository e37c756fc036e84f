// Engine work whose results belong to a photo library (issue 18): a
// conversion's copy (SPEC S3) and a collage (SPEC C9) leave through the
// library's one exit path, `PhotoLibrary.deposit`; an edit becomes the
// asset's rendition behind the full-size gate (SPEC E7), a Live photo with a
// border becoming a still (SPEC E1).
import Foundation
import Shiying
import ShiyingLibrary

public enum LibraryWorkflows {
    /// A conversion and where its copy went.
    public struct ConversionResult: Sendable {
        public var conversion: Conversion.Report
        public var library: LibraryOutputReport
    }

    /// Converts `input` (a library file, an imported source, or any photo)
    /// into `format` and deposits the copy in 「拾映转换」 with the source
    /// asset's capture date, location, favourite, albums and tags. The input
    /// is only read.
    /// - Parameter name: the copy's file name; nil = the input's stem + the format's extension.
    public static func convert(_ input: String, into library: PhotoLibrary, format: Conversion.Format,
                               quality: Int = 90, name: String? = nil, reader: EngineMediaReader = EngineMediaReader(),
                               progress: ((ShiyingProgress) -> Void)? = nil) async throws -> ConversionResult {
        let source = try await library.assetID(forFile: input, reader: reader)
        let ext = format == .jpeg ? "jpg" : format.rawValue
        let staged = library.stagingPath(extension: ext)
        let report: Conversion.Report
        do {
            report = try Conversion.convertBlocking(input, to: staged, format: format, quality: quality, progress: progress)
        } catch {
            unlink(staged)
            throw error
        }
        let stem = ((input as NSString).lastPathComponent as NSString).deletingPathExtension
        let output = LibraryOutput(purpose: .conversion(source: source), primary: staged, name: name ?? "\(stem).\(ext)",
                                   sourceFacts: source == nil ? try? reader.facts(of: input) : nil)
        return ConversionResult(conversion: report, library: try await library.deposit(output, reader: reader))
    }

    /// Deposits files a conversion already wrote into the staging folder
    /// (`PhotoLibrary.stagingPath`) as a copy of `input` in 「拾映转换」,
    /// carrying the source asset's capture date, location, favourite, albums
    /// and tags (SPEC S3); an input that is not a library asset lends its own
    /// date and place to a copy that states none (a GIF). `movie` makes it a
    /// Live pair. The staged files are consumed.
    public static func deposit(converted staged: String, movie: String? = nil, from input: String,
                               into library: PhotoLibrary, name: String,
                               reader: EngineMediaReader = EngineMediaReader()) async throws -> LibraryOutputReport {
        let source: Int64?
        do {
            source = try await library.assetID(forFile: input, reader: reader)
        } catch {
            unlink(staged)
            if let movie { unlink(movie) }
            throw error
        }
        let output = LibraryOutput(purpose: .conversion(source: source), primary: staged, movie: movie, name: name,
                                   sourceFacts: source == nil ? try? reader.facts(of: input) : nil)
        return try await library.deposit(output, reader: reader)
    }

    /// A collage and where it went.
    public struct CollageResult: Sendable {
        public var collage: CollageReport
        public var library: LibraryOutputReport
    }

    /// Renders `request` (its `output` is replaced by a staging path) and
    /// deposits the collage in 「拾映创作」: no location, no album of its sources.
    public static func collage(_ request: CollageRequest, into library: PhotoLibrary, name: String? = nil,
                               reader: EngineMediaReader = EngineMediaReader(),
                               progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws -> CollageResult {
        var sources: [Int64] = []
        for input in request.inputs {
            if let id = try await library.assetID(forFile: input, reader: reader), !sources.contains(id) { sources.append(id) }
        }
        var staged = request
        let ext = request.format.fileExtension
        staged.output = library.stagingPath(extension: ext)
        let report: CollageReport
        do {
            report = try await Collage.render(staged, progress: progress)
        } catch {
            unlink(staged.output)
            throw error
        }
        let output = LibraryOutput(purpose: .creation(sources: sources), primary: staged.output,
                                   name: name ?? "collage-\(Int64(Date().timeIntervalSince1970)).\(ext)")
        return CollageResult(collage: report, library: try await library.deposit(output, reader: reader))
    }

    /// A moving collage and where it went.
    public struct MovingCollageResult: Sendable {
        /// The export's report (its file paths are the staging ones the deposit consumed).
        public var collage: MovingCollageReport
        /// The asset it became in 「拾映创作」.
        public var library: LibraryOutputReport
    }

    /// Exports `request` (its `directory` is replaced by a staging folder)
    /// and deposits what was delivered in 「拾映创作」 (SPEC C9): a Live photo
    /// as one Live asset (still + movie), a video as the movie, a still as
    /// itself; no location, no album of its sources. The video tier's poster
    /// still is not deposited (the movie is the creation).
    public static func movingCollage(_ request: MovingCollageRequest, into library: PhotoLibrary,
                                     reader: EngineMediaReader = EngineMediaReader(),
                                     progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws
        -> MovingCollageResult {
        var sources: [Int64] = []
        for input in request.inputs {
            if let id = try await library.assetID(forFile: input.still, reader: reader), !sources.contains(id) { sources.append(id) }
        }
        let folder = library.stagingPath(extension: "")
        guard mkdir(folder, 0o755) == 0 else {
            throw LibraryError(.io, "\(folder): cannot create a staging folder: \(String(cString: strerror(errno)))")
        }
        defer { try? FileManager.default.removeItem(atPath: folder) } // what the deposit did not take
        var staged = request
        staged.directory = folder
        let report = try await MovingCollage.export(staged, progress: progress)
        let stem = request.name
        let output: LibraryOutput
        switch report.delivered {
        case .live:
            output = LibraryOutput(purpose: .creation(sources: sources), primary: report.still, movie: report.movie,
                                   name: (report.still as NSString).lastPathComponent)
        case .video:
            guard let movie = report.movie else { throw LibraryError(.invalid, "the moving collage wrote no movie") }
            output = LibraryOutput(purpose: .creation(sources: sources), primary: movie,
                                   name: stem + "." + (movie as NSString).pathExtension)
        case .still:
            output = LibraryOutput(purpose: .creation(sources: sources), primary: report.still,
                                   name: (report.still as NSString).lastPathComponent)
        }
        return MovingCollageResult(collage: report, library: try await library.deposit(output, reader: reader))
    }

    /// Edits asset `id` with `recipe` into a new rendition; the original stays.
    ///
    /// A photo goes through SPEC E7's full-size gate: the pixels are rendered
    /// from the library's original file (or `renderingFrom`, e.g. a proxy,
    /// which the gate refuses) and checked against what the catalogue recorded
    /// of the original (size, bytes, SHA-256); when unsure nothing is written.
    /// A Live photo is saved by the Live pipeline from its original pair behind
    /// the same gate for both files (`LivePhoto.saveVerified`: the still's
    /// decode and the movie read are checked against the catalogued still and
    /// movie; `renderingFrom` / `renderingMovieFrom` stand in for either, and
    /// the gate refuses them). With a border it becomes a still (SPEC E1);
    /// revert brings the Live photo back.
    /// - Throws: `FullSizeGateError` (nothing written), `ShiyingError`, `LibraryError`.
    public static func edit(_ id: Int64, recipe: EditRecipe, in library: PhotoLibrary, renderingFrom source: String? = nil,
                            renderingMovieFrom movieSource: String? = nil,
                            reader: EngineMediaReader = EngineMediaReader()) async throws -> LibraryAsset {
        let original = try await library.original(of: id)
        switch original.kind {
        case .video:
            throw LibraryError(.invalid, "asset \(id) is a video; library edit takes photos and Live photos")
        case .photo:
            let record = OriginalRecord(fullSize: PixelSize(width: original.width, height: original.height),
                                        fileIdentity: FileIdentity(byteSize: original.bytes, contentDigest: original.sha256))
            let ext = (original.path as NSString).pathExtension.lowercased()
            let format = Conversion.Format(pathExtension: ext) ?? .jpeg
            let staged = library.stagingPath(extension: format == .jpeg ? "jpg" : format.rawValue)
            do {
                _ = try Editor.saveVerifiedBlocking(original.path, recipe: recipe, record: record, renderingFrom: source, to: staged,
                                           format: format)
            } catch {
                unlink(staged)
                throw error
            }
            return try await library.setRendition(id, still: staged, reader: reader)
        case .live:
            guard let movie = original.moviePath, let movieFile = original.movie else { throw LibraryError.unknown(id) }
            let still = library.stagingPath(extension: "jpg"), movieOut = library.stagingPath(extension: "mov")
            var options = LivePhoto.SaveOptions()
            options.recipe = recipe
            let record = LivePhoto.OriginalPairRecord(
                still: OriginalRecord(fullSize: PixelSize(width: original.width, height: original.height),
                                      fileIdentity: FileIdentity(byteSize: original.bytes, contentDigest: original.sha256)),
                movie: OriginalRecord(fullSize: PixelSize(width: movieFile.width, height: movieFile.height),
                                      fileIdentity: FileIdentity(byteSize: movieFile.bytes, contentDigest: movieFile.sha256)))
            let stand = source != nil || movieSource != nil ? (still: source ?? original.path, movie: movieSource ?? movie) : nil
            let saved: LivePhoto.SaveReport
            do {
                saved = try LivePhoto.saveVerifiedBlocking(movie: movie, still: original.path, record: record,
                                                           renderingFrom: stand, stillOut: still, movieOut: movieOut,
                                                           options: options)
            } catch {
                unlink(still)
                unlink(movieOut)
                throw error
            }
            if !saved.live { unlink(movieOut) }
            return try await library.setRendition(id, still: still, movie: saved.live ? movieOut : nil, reader: reader)
        }
    }

    // MARK: - organize on a library

    /// Organize's records for `library`, on its catalogue (a connection of
    /// its own): what it sets aside lands on the library's set-aside list,
    /// from which `PhotoLibrary.delete` removes it (SPEC D1).
    public static func organizeStore(for library: PhotoLibrary) throws -> OrganizeStore {
        OrganizeStore(store: try RecordStore(path: library.folder.catalogue), libraryRoot: library.folder.root)
    }

    /// Scans the library's originals into organize's records (groups formed,
    /// each record linked to its library asset).
    /// - Parameter progress: one `ShiyingProgress` for the whole scan, as
    ///   `OrganizeScanner.scan` reports it (fraction 1 only once the store is updated).
    /// - Throws: as `OrganizeScanner.scan`; `CancellationError` when the task is
    ///   cancelled (organize's records are then left as they were).
    public static func organizeScan(_ library: PhotoLibrary, into store: OrganizeStore, ocr: Bool = false,
                                    progress: (@Sendable (ShiyingProgress) -> Void)? = nil) async throws
        -> OrganizeScanReport {
        try await OrganizeScanner.scan(folder: library.folder.originals, store: store, ocr: ocr, progress: progress)
    }
}
