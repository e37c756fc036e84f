// EditRecipe → the C `sy_recipe` (issue 5): the one mapping function every
// render and save goes through, plus the built-in filter list the engine
// ships. The mapping test reads the C struct back field by field
// (`engineFields`), so a field added to one side and not the other fails.
internal import CShiying

extension EditRecipe {
    /// Filter ids with this prefix name a user `.cube` file: `"cube:/path/look.cube"`
    /// (see docs/recipe-schema.md).
    public static let cubeFilterPrefix = "cube:"

    /// Checks the recipe and that its filter is one the engine can render:
    /// a built-in id or `cube:<path>`.
    /// - Throws: `EditRecipeError` naming the field.
    func validateForEngine() throws {
        try validate()
        guard let id = filter?.id else { return }
        if id.hasPrefix(Self.cubeFilterPrefix) {
            guard id.count > Self.cubeFilterPrefix.count else {
                throw EditRecipeError(.invalidValue, field: "filter.id", reason: "\"cube:\" must be followed by the path of a .cube file")
            }
        } else if sy_filter_find(id) < 0 {
            throw EditRecipeError(.invalidValue, field: "filter.id",
                                  reason: "\"\(id)\" is not a built-in filter (see `shiying filters`) or \"cube:<path>\"")
        }
    }

    /// Calls `body` with the C mirror of this recipe. The filter id string is
    /// borrowed for the duration of the call only.
    func withEngineRecipe<R>(_ body: (UnsafePointer<sy_recipe>) throws -> R) rethrows -> R {
        var r = sy_recipe()
        sy_recipe_init(&r)
        r.version = UInt32(version)
        r.crop = sy_recipe_rect(x: crop.x, y: crop.y, width: crop.width, height: crop.height)
        r.straighten = straighten
        r.quarter_turns = UInt32(quarterTurns)
        r.flip_horizontal = flipHorizontal ? 1 : 0
        r.flip_vertical = flipVertical ? 1 : 0
        let a = adjustments
        r.adjustments = sy_adjustments(exposure: a.exposure, contrast: a.contrast, highlights: a.highlights,
                                       shadows: a.shadows, saturation: a.saturation, vibrance: a.vibrance,
                                       warmth: a.warmth, tint: a.tint, vignette: a.vignette, sharpness: a.sharpness)
        if let border {
            r.border_width = border.width
            r.border_color = (border.color.red, border.color.green, border.color.blue)
        }
        guard let filter else { return try body(&r) }
        r.filter_intensity = filter.intensity
        return try filter.id.withCString { id in
            r.filter_id = id
            return try body(&r)
        }
    }

    /// The C struct's fields read back after the mapping, keyed by JSON path
    /// (for the mapping test), plus `"valid"`: whether `sy_recipe_validate` accepts it.
    var engineFields: [String: String] {
        withEngineRecipe { p in
            let r = p.pointee
            var error = sy_error()
            let a = r.adjustments
            let c = r.border_color
            return [
                "version": "\(r.version)",
                "crop.x": "\(r.crop.x)", "crop.y": "\(r.crop.y)",
                "crop.width": "\(r.crop.width)", "crop.height": "\(r.crop.height)",
                "straighten": "\(r.straighten)", "quarterTurns": "\(r.quarter_turns)",
                "flipHorizontal": "\(r.flip_horizontal)", "flipVertical": "\(r.flip_vertical)",
                "adjustments.exposure": "\(a.exposure)", "adjustments.contrast": "\(a.contrast)",
                "adjustments.highlights": "\(a.highlights)", "adjustments.shadows": "\(a.shadows)",
                "adjustments.saturation": "\(a.saturation)", "adjustments.vibrance": "\(a.vibrance)",
                "adjustments.warmth": "\(a.warmth)", "adjustments.tint": "\(a.tint)",
                "adjustments.vignette": "\(a.vignette)", "adjustments.sharpness": "\(a.sharpness)",
                "filter.id": r.filter_id.map { String(cString: $0) } ?? "",
                "filter.intensity": "\(r.filter_intensity)",
                "border.width": "\(r.border_width)",
                "border.color": "\(c.0),\(c.1),\(c.2)",
                "valid": sy_recipe_validate(p, &error) == SY_OK ? "yes" : messageText(error),
            ]
        }
    }
}

/// One built-in filter as the engine defines it (`sy_filter_at`).
public struct BuiltInFilter: Sendable, Hashable, Codable {
    /// Stable id, `"<family>.<name>"` (e.g. `"film.amber"`): the recipe's `filter.id`.
    public var id: String
    /// Family id (`film`, `portrait`, `vivid`, `mono`).
    public var family: String
    /// English display name.
    public var name: String
    /// Chinese display name.
    public var nameZh: String

    /// Every built-in filter, in family order then display order.
    public static var all: [BuiltInFilter] {
        (0..<sy_filter_count()).compactMap { index in
            var info = sy_filter_info()
            guard sy_filter_at(index, &info) == 0 else { return nil }
            return BuiltInFilter(id: String(cString: info.id), family: String(cString: info.family),
                                 name: String(cString: info.name), nameZh: String(cString: info.name_zh))
        }
    }
}

extension FilterCatalogue {
    /// The engine's built-in filters as a strip catalogue (SPEC E3), families
    /// in the engine's order.
    /// - Throws: `FilterError` if the engine's list broke the catalogue rules
    ///   (a family under 6 filters, a repeated id).
    public static func builtIn() throws -> FilterCatalogue {
        var order: [String] = []
        var ids: [String: [String]] = [:]
        for filter in BuiltInFilter.all {
            if ids[filter.family] == nil { order.append(filter.family) }
            ids[filter.family, default: []].append(filter.id)
        }
        return try FilterCatalogue(families: order.map { FilterFamily(id: $0, name: $0, filterIDs: ids[$0] ?? []) })
    }
}
