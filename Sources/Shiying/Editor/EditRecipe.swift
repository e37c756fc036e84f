// The editor's recipe (issue 5; SPEC E1, E2, S2): everything the one renderer
// needs besides the source pixels. A plain value so preview, save, every Live
// frame, the shared poster and collage cells all render from the same input.
// JSON schema and versioning rule: docs/recipe-schema.md.

/// An edit: geometry (crop, straighten, quarter turns, flips), colour
/// (adjustments and a filter) and a border. The default value is the identity.
///
/// Coordinates and order of operations are defined in docs/recipe-schema.md
/// ("upright source" = the decoded image with its file orientation applied).
/// Decoding validates; `validate()` checks a value built in code.
public struct EditRecipe: Sendable, Hashable {
    /// The schema version this code writes and the highest it reads.
    public static let currentVersion = 1

    /// The identity recipe (`{}` in JSON).
    public static let identity = EditRecipe()

    /// Schema version (1). Decoding rejects versions above `currentVersion`.
    public var version: Int
    /// Crop rectangle, normalized to the upright source (default: full rect).
    public var crop: Crop
    /// Straighten angle in degrees, −45…45; positive turns the picture clockwise.
    public var straighten: Double
    /// Clockwise quarter turns, always stored as 0…3 (any integer is taken mod 4).
    public var quarterTurns: Int {
        get { storedQuarterTurns }
        set { storedQuarterTurns = Self.normalizedQuarterTurns(newValue) }
    }
    /// Mirror left↔right, as seen after the quarter turns.
    public var flipHorizontal: Bool
    /// Mirror top↕bottom, as seen after the quarter turns.
    public var flipVertical: Bool
    /// Colour adjustments; all zero is neutral.
    public var adjustments: Adjustments
    /// A built-in or `.cube` filter with its intensity; nil = original colours.
    public var filter: Filter?
    /// A border around the rendered picture; nil = none.
    public var border: Border?

    private var storedQuarterTurns: Int

    /// - Parameters: see the properties; every default is the identity.
    public init(version: Int = EditRecipe.currentVersion, crop: Crop = .full, straighten: Double = 0,
                quarterTurns: Int = 0, flipHorizontal: Bool = false, flipVertical: Bool = false,
                adjustments: Adjustments = .neutral, filter: Filter? = nil, border: Border? = nil) {
        self.version = version
        self.crop = crop
        self.straighten = straighten
        self.storedQuarterTurns = Self.normalizedQuarterTurns(quarterTurns)
        self.flipHorizontal = flipHorizontal
        self.flipVertical = flipVertical
        self.adjustments = adjustments
        self.filter = filter
        self.border = border
    }

    /// `n` mod 4 in 0…3 (−1 → 3): four turns are no turn.
    static func normalizedQuarterTurns(_ n: Int) -> Int { ((n % 4) + 4) % 4 }
}

// MARK: - Parts

extension EditRecipe {
    /// A rectangle in the unit square of the upright source: (0, 0) is the
    /// top-left corner, (1, 1) the bottom-right.
    public struct Crop: Sendable, Hashable, Codable {
        /// The whole picture (the identity crop).
        public static let full = Crop(x: 0, y: 0, width: 1, height: 1)

        /// Left edge as a fraction of the upright source width, 0…1.
        public var x: Double
        /// Top edge as a fraction of the upright source height, 0…1.
        public var y: Double
        /// Width as a fraction of the upright source width, 0…1.
        public var width: Double
        /// Height as a fraction of the upright source height, 0…1.
        public var height: Double

        /// - Parameters: left, top, width and height as fractions of the upright source.
        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// Colour adjustments. `exposure` is in EV (−4…4, +1 doubles linear
    /// light); every other slider is −1…1. 0 is neutral for all of them.
    public struct Adjustments: Sendable, Hashable {
        /// All sliders at 0.
        public static let neutral = Adjustments()

        /// Exposure in EV, −4…4 (+1 doubles linear light).
        public var exposure: Double
        /// Contrast, −1…1 (0 = unchanged).
        public var contrast: Double
        /// Highlights recovery (negative) or boost (positive), −1…1.
        public var highlights: Double
        /// Shadows lift (positive) or deepen (negative), −1…1.
        public var shadows: Double
        /// Saturation, −1 (grey) … 1.
        public var saturation: Double
        /// Vibrance (saturation weighted toward muted colours), −1…1.
        public var vibrance: Double
        /// Colour temperature shift, −1 (cooler) … 1 (warmer).
        public var warmth: Double
        /// Tint shift, −1 (green) … 1 (magenta).
        public var tint: Double
        /// Vignette, −1 (lighter edges) … 1 (darker edges).
        public var vignette: Double
        /// Sharpening amount, −1…1 (negative softens).
        public var sharpness: Double

        /// - Parameters: slider values; each defaults to 0 (neutral).
        public init(exposure: Double = 0, contrast: Double = 0, highlights: Double = 0, shadows: Double = 0,
                    saturation: Double = 0, vibrance: Double = 0, warmth: Double = 0, tint: Double = 0,
                    vignette: Double = 0, sharpness: Double = 0) {
            self.exposure = exposure
            self.contrast = contrast
            self.highlights = highlights
            self.shadows = shadows
            self.saturation = saturation
            self.vibrance = vibrance
            self.warmth = warmth
            self.tint = tint
            self.vignette = vignette
            self.sharpness = sharpness
        }

        /// Whether every slider is 0.
        public var isNeutral: Bool { self == .neutral }
    }

    /// A filter (3D LUT) blended with the unfiltered colours by `intensity`.
    public struct Filter: Sendable, Hashable {
        /// Built-in filter id or a user filter's id (non-empty).
        public var id: String
        /// 0 (no effect) … 1 (full LUT); default 1.
        public var intensity: Double

        /// - Parameters: `id` of the filter and its `intensity` (0…1, default 1).
        public init(id: String, intensity: Double = 1) {
            self.id = id
            self.intensity = intensity
        }
    }

    /// A solid border added around the rendered picture (the canvas grows).
    public struct Border: Sendable, Hashable {
        /// Width as a fraction of the rendered picture's short side, 0…0.25.
        public var width: Double
        /// Border colour (default white).
        public var color: RecipeColor

        /// - Parameters: `width` (fraction of the short side) and `color`.
        public init(width: Double, color: RecipeColor = .white) {
            self.width = width
            self.color = color
        }
    }
}

// MARK: - Questions the save paths ask

extension EditRecipe {
    /// Whether rendering changes nothing: no geometry, neutral adjustments, no
    /// filter (or intensity 0) and no border (or width 0).
    public var isIdentity: Bool { !hasGeometry && !hasColor && !hasBorder }

    /// Whether any geometry differs from the identity (crop, straighten, turns, flips).
    public var hasGeometry: Bool {
        crop != .full || straighten != 0 || quarterTurns != 0 || flipHorizontal || flipVertical
    }

    /// Whether the colour part changes pixels (adjustments or a filter with intensity > 0).
    public var hasColor: Bool {
        !adjustments.isNeutral || (filter.map { $0.intensity != 0 } ?? false)
    }

    /// Whether a border of non-zero width is drawn.
    public var hasBorder: Bool { (border?.width ?? 0) > 0 }

    /// SPEC E1: a Live photo with a border saves as a still (the border grows
    /// the still while the video frames keep their size, so the pair would
    /// not line up); the original Live photo stays in the library.
    public var savesLivePhotoAsStill: Bool { hasBorder }

    /// Only crop, straighten, quarter turns and flips (no colour, no border).
    /// Why: issue 7 applies the geometry alone to an HDR gain map, whose
    /// values must not go through colour adjustments or a LUT.
    public var geometryOnly: EditRecipe {
        EditRecipe(version: version, crop: crop, straighten: straighten, quarterTurns: quarterTurns,
                   flipHorizontal: flipHorizontal, flipVertical: flipVertical)
    }

    /// Only adjustments and filter (no geometry, no border): the part a
    /// custom filter keeps (SPEC E4).
    public var colorOnly: EditRecipe {
        EditRecipe(version: version, adjustments: adjustments, filter: filter)
    }

    /// This recipe with its colour part (adjustments and filter) taken from
    /// `look`; geometry and border stay. Applying a custom filter does this.
    public func withColor(from look: EditRecipe) -> EditRecipe {
        var copy = self
        copy.adjustments = look.adjustments
        copy.filter = look.filter
        return copy
    }
}
