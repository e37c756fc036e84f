// Recipe validation (issue 5): every number finite and in range, the crop
// inside the unit square with a positive size. Refusing (not clamping) means
// a broken writer is noticed instead of rendering something else.

extension EditRecipe {
    /// Allowed range of `straighten`, in degrees.
    public static let straightenRange: ClosedRange<Double> = -45...45
    /// Allowed range of `adjustments.exposure`, in EV.
    public static let exposureRange: ClosedRange<Double> = -4...4
    /// Allowed range of every other adjustment.
    public static let sliderRange: ClosedRange<Double> = -1...1
    /// Allowed range of `filter.intensity`.
    public static let intensityRange: ClosedRange<Double> = 0...1
    /// Allowed range of `border.width` (fraction of the short side).
    public static let borderWidthRange: ClosedRange<Double> = 0...0.25
    /// Slack for crop edges (x + width ≤ 1 + this): decimal fractions such as
    /// 0.1 + 0.9 do not add up exactly in binary.
    public static let cropTolerance = 1e-9

    /// Checks every field.
    /// - Throws: `EditRecipeError` naming the first bad field and its allowed range.
    public func validate() throws {
        guard version >= 1 else {
            throw EditRecipeError(.unsupportedVersion, field: "version", reason: "\(version) is not a version (versions start at 1)")
        }
        guard version <= Self.currentVersion else {
            throw EditRecipeError(.unsupportedVersion, field: "version",
                                  reason: "version \(version) is newer than the supported version \(Self.currentVersion); update the app to open this edit")
        }
        try crop.validate()
        try Self.check(straighten, "straighten", in: Self.straightenRange, unit: "°")
        try adjustments.validate()
        if let filter { try filter.validate() }
        if let border { try Self.check(border.width, "border.width", in: Self.borderWidthRange, unit: " of the short side") }
    }

    /// Throws unless `value` is finite and inside `range`.
    static func check(_ value: Double, _ field: String, in range: ClosedRange<Double>, unit: String = "") throws {
        guard value.isFinite else {
            throw EditRecipeError(.notFinite, field: field, reason: "\(value) is not a finite number")
        }
        guard range.contains(value) else {
            throw EditRecipeError(.outOfRange, field: field,
                                  reason: "\(value) is outside the allowed range \(range.lowerBound)…\(range.upperBound)\(unit)")
        }
    }
}

extension EditRecipe.Crop {
    func validate() throws {
        for (value, name) in [(x, "x"), (y, "y"), (width, "width"), (height, "height")] where !value.isFinite {
            throw EditRecipeError(.notFinite, field: "crop.\(name)", reason: "\(value) is not a finite number")
        }
        guard width > 0, height > 0 else {
            throw EditRecipeError(.invalidValue, field: "crop",
                                  reason: "size \(width)×\(height) must be positive (width and height in 0…1, above 0)")
        }
        let slack = EditRecipe.cropTolerance
        guard x >= 0, y >= 0, x + width <= 1 + slack, y + height <= 1 + slack else {
            throw EditRecipeError(.invalidValue, field: "crop",
                                  reason: "rectangle x \(x), y \(y), width \(width), height \(height) must lie inside the unit square (x, y ≥ 0; x + width ≤ 1; y + height ≤ 1)")
        }
    }
}

extension EditRecipe.Adjustments {
    /// (JSON name, value) for each slider, in schema order.
    var namedValues: [(String, Double)] {
        [("exposure", exposure), ("contrast", contrast), ("highlights", highlights), ("shadows", shadows),
         ("saturation", saturation), ("vibrance", vibrance), ("warmth", warmth), ("tint", tint),
         ("vignette", vignette), ("sharpness", sharpness)]
    }

    func validate() throws {
        for (name, value) in namedValues {
            let isExposure = name == "exposure"
            try EditRecipe.check(value, "adjustments.\(name)",
                                 in: isExposure ? EditRecipe.exposureRange : EditRecipe.sliderRange,
                                 unit: isExposure ? " EV" : "")
        }
    }
}

extension EditRecipe.Filter {
    func validate() throws {
        guard !id.isEmpty else {
            throw EditRecipeError(.invalidValue, field: "filter.id", reason: "must not be empty")
        }
        try EditRecipe.check(intensity, "filter.intensity", in: EditRecipe.intensityRange)
    }
}
