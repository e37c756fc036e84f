// Why a recipe was refused (issue 5): the field, by its JSON path, and the
// rule it broke, so a bad file or a bad slider value is fixed at once.

/// A recipe that cannot be used. `field` is the JSON path (`"adjustments.exposure"`,
/// `"crop"`, `"version"`); `message` starts with it and names the allowed range.
public struct EditRecipeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of rule was broken.
    public enum Kind: Sendable, Hashable {
        /// A number outside its allowed range.
        case outOfRange
        /// NaN or an infinity.
        case notFinite
        /// A value of the wrong shape (bad colour text, empty id, crop outside the unit square).
        case invalidValue
        /// `version` is newer than this code understands (or below 1).
        case unsupportedVersion
        /// Not JSON, a wrong type or a missing required key.
        case malformed
    }

    /// The error's category.
    public let kind: Kind
    /// JSON path of the offending field; empty for the document itself.
    public let field: String
    /// `"<field>: <reason>"`.
    public let message: String

    /// - Parameters: `kind`, the JSON path `field`, and `reason` (the message adds the field).
    public init(_ kind: Kind, field: String, reason: String) {
        self.kind = kind
        self.field = field
        self.message = field.isEmpty ? reason : "\(field): \(reason)"
    }

    public var description: String { "invalid edit recipe: \(message)" }
}
