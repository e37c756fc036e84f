// Errors of the filter strip, custom filters and their store (SPEC E3, E4).

/// A filter-area failure with a message that names the offending item.
public struct FilterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Filter-area error categories.
    public enum Kind: Sendable, Hashable {
        /// The built-in catalogue breaks a rule (family too small, duplicate id).
        case invalidCatalogue
        /// A custom filter's name is empty or too long.
        case invalidName
        /// The recipe has no colour part to save as a filter.
        case nothingToSave
        /// No custom filter has this id.
        case notFound
        /// The store file is not readable JSON of the expected shape.
        case corruptStore
        /// The store file was written by a newer schema.
        case unsupportedVersion
    }

    /// The error's category.
    public let kind: Kind
    /// A sentence for the user.
    public let message: String

    /// - Parameters: the `kind` and a message naming the item and the reason.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
