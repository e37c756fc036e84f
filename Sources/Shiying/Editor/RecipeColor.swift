// An sRGB colour written as "#RRGGBB" in recipes (issue 5: border colour).

/// An 8-bit sRGB colour. JSON form: `"#RRGGBB"` (hex digits in either case
/// are read; upper case is written).
public struct RecipeColor: Sendable, Hashable, CustomStringConvertible {
    /// `#FFFFFF`, the default border colour.
    public static let white = RecipeColor(red: 255, green: 255, blue: 255)
    /// `#000000`.
    public static let black = RecipeColor(red: 0, green: 0, blue: 0)

    /// Red, 0…255.
    public var red: UInt8
    /// Green, 0…255.
    public var green: UInt8
    /// Blue, 0…255.
    public var blue: UInt8

    /// - Parameters: the three sRGB components.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Parses `"#RRGGBB"`; nil for anything else (no shorthand, no alpha).
    public init?(hex: String) {
        let scalars = Array(hex.unicodeScalars)
        guard scalars.count == 7, scalars[0] == "#" else { return nil }
        var value: UInt32 = 0
        for scalar in scalars[1...] {
            guard let digit = Self.hexDigit(scalar) else { return nil }
            value = value << 4 | digit
        }
        self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// `"#RRGGBB"` in upper case.
    public var hex: String {
        let digits = Array("0123456789ABCDEF")
        var text = "#"
        for byte in [red, green, blue] {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return text
    }

    public var description: String { hex }

    private static func hexDigit(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: return scalar.value - 0x30       // 0-9
        case 0x41...0x46: return scalar.value - 0x41 + 10  // A-F
        case 0x61...0x66: return scalar.value - 0x61 + 10  // a-f
        default: return nil
        }
    }
}
