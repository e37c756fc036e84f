// Failures of the photo library, each with the sentence a user sees.
import Foundation

/// A photo-library failure.
public struct LibraryError: Error, CustomStringConvertible, Sendable {
    /// Library error categories.
    public enum Kind: String, Sendable {
        /// The folder is not a library (no catalogue), or cannot be made one.
        case notALibrary
        /// No such asset (or it is in Recently Deleted when it must not be).
        case unknownAsset
        /// A file could not be read, written or moved.
        case io
        /// SPEC D4: the catalogue refused the write; nothing is shown as done.
        case couldNotRecord
        /// The request itself is wrong (bad album name, nothing to revert, …).
        case invalid
    }

    /// The error's category.
    public let kind: Kind
    /// What the user sees.
    public let message: String
    /// The cause, for logs.
    public let detail: String

    /// An error of a kind with a message and detail.
    public init(_ kind: Kind, _ message: String, detail: String = "") {
        self.kind = kind
        self.message = message
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? message : "\(message) (\(detail))" }

    /// SPEC D4: 「无法完成这次整理」 with the catalogue's reason as the detail.
    public static func couldNotRecord(_ cause: Error) -> LibraryError {
        LibraryError(.couldNotRecord, OrganizeError.couldNotRecordMessage, detail: "\(cause)")
    }

    static func io(_ what: String, _ code: Int32) -> LibraryError {
        LibraryError(.io, "\(what): \(String(cString: strerror(code)))")
    }

    /// The error for an asset identifier the library does not have.
    public static func unknown(_ id: Int64) -> LibraryError { LibraryError(.unknownAsset, "no asset \(id) in the library") }
}
