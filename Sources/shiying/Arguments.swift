/// The command line's flag parser, with the conventions of vips/ffmpeg/exiftool:
/// `--name value` or `--name=value`, boolean `--flag`, `--` ends the options
/// (so a file may start with a dash), `-h`/`--help` asks for the usage.
/// Every number goes through one checked reader that names the option and its
/// range, so no value ever reaches a conversion that could trap.
struct Arguments {
    private(set) var options: [String: String] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// `booleans` lists the flags that take no value.
    /// - Throws: `HelpRequest` for `-h`/`--help`, `UsageError` for a value-less option.
    init(_ args: some Sequence<String>, booleans: Set<String>) throws {
        var iterator = args.makeIterator()
        var optionsEnded = false
        while let arg = iterator.next() {
            guard !optionsEnded, arg.hasPrefix("-"), arg.count > 1 else {
                positionals.append(arg)
                continue
            }
            if arg == "--" { optionsEnded = true; continue }
            if arg == "-h" || arg == "--help" { throw HelpRequest() }
            let spelled = String(arg.drop(while: { $0 == "-" }))
            let name = String(spelled.prefix { $0 != "=" })
            let inline = spelled.contains("=") ? String(spelled.drop { $0 != "=" }.dropFirst()) : nil
            if booleans.contains(name) {
                guard inline == nil else { throw UsageError("--\(name) takes no value") }
                flags.insert(name)
            } else if let value = inline ?? iterator.next() {
                options[name] = value
            } else {
                throw UsageError("\(arg) needs a value")
            }
        }
    }

    /// A whole number in `range`, or nil when the option is absent.
    func int(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = options[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("--\(name) expects a whole number in \(range.lowerBound)...\(range.upperBound), got \(text)")
        }
        return value
    }

    /// A number in `range` (finite; decimals and exponents allowed), or nil when absent.
    func double(_ name: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let text = options[name] else { return nil }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw UsageError("--\(name) expects a number in \(format(range.lowerBound))...\(format(range.upperBound)), got \(text)")
        }
        return value
    }

    /// An unsigned 64-bit value (seeds), or nil when absent.
    func uint64(_ name: String) throws -> UInt64? {
        guard let text = options[name] else { return nil }
        guard let value = UInt64(text) else {
            throw UsageError("--\(name) expects a whole number in 0...\(UInt64.max), got \(text)")
        }
        return value
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }

    func rejectUnknown(_ known: Set<String>) throws {
        for name in options.keys.sorted() where !known.contains(name) { throw UsageError("unknown option --\(name)") }
    }

    private func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ text: String) { description = text }
}

/// `-h` / `--help` anywhere before `--`: the command prints its usage and exits 0.
struct HelpRequest: Error {}
