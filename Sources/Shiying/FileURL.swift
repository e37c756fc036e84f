import Foundation

extension URL {
    /// The file-system path of a `file:` URL; any other scheme is refused.
    /// - Throws: `ShiyingError` (`.usage`) naming the URL and its role.
    func shiyingPath(_ role: String) throws -> String {
        guard isFileURL else {
            throw ShiyingError(code: .usage, message: "\(absoluteString): the \(role) must be a file URL, not \(scheme ?? "a relative reference")")
        }
        return path
    }
}

extension Optional where Wrapped == URL {
    /// `shiyingPath` of a URL that may be absent.
    func shiyingPath(_ role: String) throws -> String? {
        try map { try $0.shiyingPath(role) }
    }
}
