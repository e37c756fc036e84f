import Foundation
import Shiying
import ShiyingLibrary

// URL forms at the API edge (issue 24): the same work as the path forms.
extension LibraryWorkflows {
    /// `convert(_:into:format:quality:name:reader:progress:)` with the input as a `file:` URL.
    /// - Throws: `LibraryError(.invalid)` for a URL that is not a `file:` URL, then as the path form.
    public static func convert(_ input: URL, into library: PhotoLibrary, format: Conversion.Format,
                               quality: Int = 90, name: String? = nil, reader: EngineMediaReader = EngineMediaReader(),
                               progress: ((ShiyingProgress) -> Void)? = nil) async throws -> ConversionResult {
        try await convert(try filePath(input, "conversion input"), into: library, format: format, quality: quality,
                          name: name, reader: reader, progress: progress)
    }

    /// `edit(_:recipe:in:renderingFrom:renderingMovieFrom:reader:)` with the stand-in sources as `file:` URLs.
    /// - Throws: `LibraryError(.invalid)` for a URL that is not a `file:` URL, then as the path form.
    public static func edit(_ id: Int64, recipe: EditRecipe, in library: PhotoLibrary, renderingFrom source: URL?,
                            renderingMovieFrom movieSource: URL? = nil,
                            reader: EngineMediaReader = EngineMediaReader()) async throws -> LibraryAsset {
        try await edit(id, recipe: recipe, in: library, renderingFrom: try source.map { try filePath($0, "rendering source") },
                       renderingMovieFrom: try movieSource.map { try filePath($0, "rendering movie") }, reader: reader)
    }

    /// The path of a `file:` URL; any other scheme is refused naming the role.
    private static func filePath(_ url: URL, _ role: String) throws -> String {
        guard url.isFileURL else { throw LibraryError(.invalid, "\(url.absoluteString): the \(role) must be a file URL") }
        return url.path
    }
}
