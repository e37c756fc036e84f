internal import CShiying

/// An engine failure: a category (`code`), the C engine's message
/// ("file: reason and numbers") and, where known, the file it is about.
public struct ShiyingError: Error, CustomStringConvertible, Sendable {
    /// Error category, mirroring the C `SY_E_*` constants. New categories may
    /// appear, so match on the static members instead of exhaustively.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// `SY_E_INVALID_INPUT`: corrupt, truncated, hostile or wrong-type input.
        public static let invalidInput = Code(rawValue: 1)
        /// `SY_E_UNSUPPORTED`: a valid input using a feature not handled.
        public static let unsupported = Code(rawValue: 2)
        /// `SY_E_USAGE`: a bad argument or an impossible layout.
        public static let usage = Code(rawValue: 3)
        /// `SY_E_BUDGET`: memory budget or a dimension limit exceeded.
        public static let budget = Code(rawValue: 4)
        /// `SY_E_CODEC`: a codec library failed.
        public static let codec = Code(rawValue: 5)
        /// `SY_E_IO`: open, read, write or rename failed.
        public static let io = Code(rawValue: 6)
        /// `SY_E_CANCELLED`, the C engine's code for a cancelled job. The Swift
        /// API never throws it: every cancelled job throws `CancellationError`.
        public static let cancelled = Code(rawValue: 7)

        public var description: String { String(cString: sy_status_name(rawValue)) }
    }

    /// The error's category.
    public let code: Code
    /// The engine's message, e.g. `"a.jpg: JPEG truncated at row 812 of 3024"`.
    public let message: String
    /// The file the error is about, when one is.
    public let file: String?

    /// An error of `code` with the engine's `message` about `file`.
    public init(code: Code, message: String, file: String? = nil) {
        self.code = code
        self.message = message
        self.file = file
    }

    public var description: String { "\(code): \(message)" }
}

/// Turns a C status plus its `sy_error` into a thrown `ShiyingError`; a
/// cancelled job throws `CancellationError`, the one cancellation error of the
/// whole API (sync and async forms alike).
func check(_ status: Int32, _ error: sy_error, file: String? = nil) throws {
    guard status != SY_OK else { return }
    if status == SY_E_CANCELLED { throw CancellationError() }
    throw ShiyingError(code: .init(rawValue: status), message: messageText(error), file: file)
}

/// `char message[256]` arrives as a tuple; read it up to the NUL.
func messageText(_ error: sy_error) -> String { cString(error.message) }

/// A fixed C `char[N]` (imported as a tuple) as a String, up to its NUL.
package func cString<T>(_ tuple: T) -> String {
    var copy = tuple
    return withUnsafeBytes(of: &copy) { raw in
        let bytes = raw.bindMemory(to: UInt8.self)
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}
