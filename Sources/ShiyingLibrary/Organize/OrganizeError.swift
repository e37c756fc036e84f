// Failures the organizing pages show (SPEC D4).

/// An organizing failure with the message the page shows.
public struct OrganizeError: Error, CustomStringConvertible, Sendable {
    /// Organize error categories.
    public enum Kind: String, Sendable {
        /// SPEC D4: a decision could not be written to the record store.
        case couldNotRecord
        /// An id that is not in the store.
        case unknownGroup
    }

    /// SPEC D4, the exact text.
    public static let couldNotRecordMessage = "无法完成这次整理"

    /// The error's category.
    public let kind: Kind
    /// What the page shows.
    public let message: String
    /// The underlying cause, for logs.
    public let detail: String

    /// An error of `kind` with a message for the user and a detail for the log.
    public init(kind: Kind, message: String, detail: String) {
        self.kind = kind
        self.message = message
        self.detail = detail
    }

    /// SPEC D4.
    public static func couldNotRecord(_ cause: Error) -> OrganizeError {
        OrganizeError(kind: .couldNotRecord, message: couldNotRecordMessage, detail: "\(cause)")
    }

    public var description: String { "\(message) (\(detail))" }
}
