// Recipe JSON (issue 5, docs/recipe-schema.md). Absent fields take their
// identity default and defaults are not written, so `{}` is the identity and
// the identity encodes as `{}`. A `version` above `currentVersion` is refused
// before anything else is read; then a key this version does not define is
// refused naming it (a misplaced `exposure` beside `adjustments` is an error,
// not the identity), except inside the free-form top-level `meta` object.
import Foundation

extension EditRecipe: Codable {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case version, crop, straighten, quarterTurns, flipHorizontal, flipVertical, adjustments, filter, border
    }
    /// Notes and provenance that never change pixels; read by nobody, kept by nobody.
    static let metaKey = "meta"

    /// Decodes and validates.
    /// - Throws: `EditRecipeError` for a bad version or value; `DecodingError`
    ///   for wrong types (use `init(jsonData:)` to get those as `EditRecipeError` too).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // Why first: a newer file may have changed other fields' meaning, so
        // its version error must win over any field error.
        let version = try c.decodeIfPresent(Int.self, forKey: .version) ?? 1
        self.init(version: version)
        try EditRecipe(version: version).validate()
        try refuseUnknownKeys(decoder, known: Set(CodingKeys.allCases.map(\.rawValue) + [Self.metaKey]))
        crop = try c.decodeIfPresent(Crop.self, forKey: .crop) ?? .full
        straighten = try c.decodeIfPresent(Double.self, forKey: .straighten) ?? 0
        quarterTurns = try Self.decodeQuarterTurns(c)
        flipHorizontal = try c.decodeIfPresent(Bool.self, forKey: .flipHorizontal) ?? false
        flipVertical = try c.decodeIfPresent(Bool.self, forKey: .flipVertical) ?? false
        adjustments = try c.decodeIfPresent(Adjustments.self, forKey: .adjustments) ?? .neutral
        filter = try c.decodeIfPresent(Filter.self, forKey: .filter)
        border = try c.decodeIfPresent(Border.self, forKey: .border)
        try validate()
    }

    /// Any whole number (2.0 included), taken mod 4. Read as a Double so a
    /// fraction gets a clear error naming the field.
    private static func decodeQuarterTurns(_ c: KeyedDecodingContainer<CodingKeys>) throws -> Int {
        guard let turns = try c.decodeIfPresent(Double.self, forKey: .quarterTurns) else { return 0 }
        guard turns.isFinite, turns == turns.rounded(), abs(turns) <= 1e15 else {
            throw EditRecipeError(.invalidValue, field: "quarterTurns", reason: "\(turns) is not a whole number of clockwise quarter turns")
        }
        return normalizedQuarterTurns(Int(turns))
    }

    /// Validates, then writes only the fields that differ from their defaults.
    /// - Throws: `EditRecipeError` when the recipe is invalid.
    public func encode(to encoder: any Encoder) throws {
        try validate()
        var c = encoder.container(keyedBy: CodingKeys.self)
        if version != 1 { try c.encode(version, forKey: .version) }
        if crop != .full { try c.encode(crop, forKey: .crop) }
        if straighten != 0 { try c.encode(straighten, forKey: .straighten) }
        if quarterTurns != 0 { try c.encode(quarterTurns, forKey: .quarterTurns) }
        if flipHorizontal { try c.encode(true, forKey: .flipHorizontal) }
        if flipVertical { try c.encode(true, forKey: .flipVertical) }
        if !adjustments.isNeutral { try c.encode(adjustments, forKey: .adjustments) }
        try c.encodeIfPresent(filter, forKey: .filter)
        try c.encodeIfPresent(border, forKey: .border)
    }
}

extension EditRecipe.Adjustments: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Each slider is optional; absent = 0.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        try refuseUnknownKeys(decoder, known: Set(Self.neutral.namedValues.map(\.0)))
        func slider(_ name: String) throws -> Double { try c.decodeIfPresent(Double.self, forKey: Key(name)) ?? 0 }
        self.init(exposure: try slider("exposure"), contrast: try slider("contrast"),
                  highlights: try slider("highlights"), shadows: try slider("shadows"),
                  saturation: try slider("saturation"), vibrance: try slider("vibrance"),
                  warmth: try slider("warmth"), tint: try slider("tint"),
                  vignette: try slider("vignette"), sharpness: try slider("sharpness"))
    }

    /// Writes the non-zero sliders only.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        for (name, value) in namedValues where value != 0 { try c.encode(value, forKey: Key(name)) }
    }
}

extension EditRecipe.Filter: Codable {
    enum CodingKeys: String, CodingKey { case id, intensity }

    /// `id` is required; `intensity` defaults to 1.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try refuseUnknownKeys(decoder, known: ["id", "intensity"])
        self.init(id: try c.decode(String.self, forKey: .id),
                  intensity: try c.decodeIfPresent(Double.self, forKey: .intensity) ?? 1)
    }

    /// Omits `intensity` when it is 1.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        if intensity != 1 { try c.encode(intensity, forKey: .intensity) }
    }
}

extension EditRecipe.Border: Codable {
    enum CodingKeys: String, CodingKey { case width, color }

    /// `width` is required (a border without one means nothing); `color` defaults to white.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try refuseUnknownKeys(decoder, known: ["width", "color"])
        self.init(width: try c.decode(Double.self, forKey: .width),
                  color: try c.decodeIfPresent(RecipeColor.self, forKey: .color) ?? .white)
    }

    /// Omits `color` when it is white.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(width, forKey: .width)
        if color != .white { try c.encode(color, forKey: .color) }
    }
}

extension RecipeColor: Codable {
    /// Reads `"#RRGGBB"`.
    /// - Throws: `EditRecipeError` (`.invalidValue`) naming the field for any other text.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let color = RecipeColor(hex: text) else {
            throw EditRecipeError(.invalidValue, field: EditRecipe.jsonPath(decoder.codingPath),
                                  reason: "\"\(text)\" is not a colour; write \"#RRGGBB\" (six hex digits)")
        }
        self = color
    }

    /// Writes `"#RRGGBB"` in upper case.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(hex)
    }
}

// MARK: - JSON text

extension EditRecipe {
    /// Decodes recipe JSON; every failure becomes an `EditRecipeError`.
    /// - Parameter jsonData: UTF-8 JSON, e.g. `{}` or `{"straighten": 3}`.
    /// - Throws: `EditRecipeError` naming the field (`.malformed` for syntax,
    ///   types and missing keys; otherwise the validation kind).
    public init(jsonData: Data) throws {
        do {
            self = try JSONDecoder().decode(EditRecipe.self, from: jsonData)
        } catch let error as EditRecipeError {
            throw error
        } catch let error as DecodingError {
            let mapped = Self.recipeError(error)
            // Linux's decoder calls a number that does not fit its field (1.5 for a whole number) invalid JSON;
            // it is JSON, and the author should hear what is wrong with it
            if mapped.field.isEmpty, mapped.message.hasPrefix("not valid JSON"),
               (try? JSONSerialization.jsonObject(with: jsonData)) != nil {
                throw EditRecipeError(.malformed, field: "",
                                      reason: "a value is not of its field's kind (a whole number written with a "
                                          + "fraction, a number out of range?)")
            }
            throw mapped
        }
    }

    /// Compact JSON with sorted keys and defaults omitted (identity → `{}`).
    /// Deterministic, so equal recipes give equal bytes.
    /// - Throws: `EditRecipeError` when the recipe is invalid.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(self)
        } catch let error as EncodingError {
            // Validation runs first, so this is unreachable for a validated
            // value; report it as a recipe error all the same.
            throw EditRecipeError(.invalidValue, field: "", reason: "cannot encode: \(error)")
        }
    }

    /// `jsonData()` as text.
    public func jsonString() throws -> String { String(decoding: try jsonData(), as: UTF8.self) }

    /// `a.b.c` from a coding path.
    static func jsonPath(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    /// What a JSON author calls the type a field wants (never a Swift type name).
    private static func jsonKind(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Float.Type: return "a number"
        case is Int.Type: return "a whole number"
        case is Bool.Type: return "true or false"
        case is String.Type: return "a string"
        case is [Any].Type: return "an array"
        default: return "a JSON object"
        }
    }

    private static func recipeError(_ error: DecodingError) -> EditRecipeError {
        switch error {
        case .keyNotFound(let key, let context):
            return EditRecipeError(.malformed, field: jsonPath(context.codingPath + [key]), reason: "required key is missing")
        case .typeMismatch(let type, let context):
            return EditRecipeError(.malformed, field: jsonPath(context.codingPath), reason: "expected \(jsonKind(type))")
        case .valueNotFound(let type, let context):
            return EditRecipeError(.malformed, field: jsonPath(context.codingPath), reason: "expected \(jsonKind(type)), found null")
        case .dataCorrupted(let context):
            let path = jsonPath(context.codingPath)
            return EditRecipeError(.malformed, field: path,
                                   reason: path.isEmpty ? "not valid JSON (\(context.debugDescription))" : context.debugDescription)
        @unknown default:
            return EditRecipeError(.malformed, field: "", reason: "\(error)")
        }
    }
}

/// Any key, to list what a JSON object holds.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Refuses the first key (in sorted order) that `known` does not list, naming it
/// with its path, e.g. `adjustments.clarity`.
private func refuseUnknownKeys(_ decoder: any Decoder, known: Set<String>) throws {
    let c = try decoder.container(keyedBy: AnyKey.self)
    guard let unknown = c.allKeys.map(\.stringValue).filter({ !known.contains($0) }).sorted().first else { return }
    let path = EditRecipe.jsonPath(decoder.codingPath + [AnyKey(stringValue: unknown)!])
    throw EditRecipeError(.malformed, field: path,
                          reason: "unknown key \"\(unknown)\"; this version knows \(known.sorted().joined(separator: ", "))")
}
