// Values bound to and read from SQLite statements.

/// One SQLite value.
public enum SQLValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob([UInt8])

    /// The integer, or nil for any other type.
    public var int64: Int64? { if case .integer(let v) = self { return v } else { return nil } }
    /// The text, or nil for any other type.
    public var string: String? { if case .text(let v) = self { return v } else { return nil } }
}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral {
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(nilLiteral: ()) { self = .null }
}

/// One result row: values by column position.
public typealias SQLRow = [SQLValue]
