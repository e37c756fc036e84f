// A user-saved filter (SPEC E4): a name plus the colour part of a recipe.
import Foundation

/// A filter the user saved with 「存为滤镜」: adjustments and filter of the
/// recipe at the time (never its crop, turns or border).
public struct CustomFilter: Sendable, Hashable, Codable, Identifiable {
    /// Longest accepted name, in characters.
    public static let maximumNameLength = 40

    /// Stable id (not a built-in filter id).
    public let id: String
    /// Display name, trimmed.
    public let name: String
    /// The look: `colorOnly` of the saved recipe.
    public let look: EditRecipe
    /// When it was saved, Unix milliseconds.
    public let createdAtMilliseconds: Int64

    /// - Parameters:
    ///   - id: a stable unique id.
    ///   - name: display name; trimmed, 1…`maximumNameLength` characters.
    ///   - recipe: the current edit; only its colour part is kept.
    ///   - createdAtMilliseconds: the time of saving.
    /// - Throws: `FilterError` (`.invalidName`, `.nothingToSave`).
    public init(id: String, name: String, recipe: EditRecipe, createdAtMilliseconds: Int64) throws {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !id.isEmpty else { throw FilterError(.invalidName, "custom filter: id must not be empty") }
        guard !trimmed.isEmpty else { throw FilterError(.invalidName, "custom filter: name must not be empty") }
        guard trimmed.count <= Self.maximumNameLength else {
            throw FilterError(.invalidName, "custom filter: name has \(trimmed.count) characters, at most \(Self.maximumNameLength) are allowed")
        }
        // Why refuse: a filter that changes nothing would be a confusing no-op tile.
        guard recipe.hasColor else {
            throw FilterError(.nothingToSave, "custom filter \"\(trimmed)\": the edit has no colour adjustment or filter to save")
        }
        self.id = id
        self.name = trimmed
        self.look = recipe.colorOnly
        self.createdAtMilliseconds = createdAtMilliseconds
    }

    enum CodingKeys: String, CodingKey { case id, name, look, createdAtMilliseconds }

    /// Decodes and re-checks (a hand-edited file cannot smuggle geometry in).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(id: try c.decode(String.self, forKey: .id), name: try c.decode(String.self, forKey: .name),
                      recipe: try c.decode(EditRecipe.self, forKey: .look),
                      createdAtMilliseconds: try c.decode(Int64.self, forKey: .createdAtMilliseconds))
    }
}

extension EditRecipe {
    /// This recipe with the custom filter's look (geometry and border stay).
    public func applying(_ custom: CustomFilter) -> EditRecipe { withColor(from: custom.look) }
}
