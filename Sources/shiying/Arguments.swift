/// Minimal flag parser: `--name value`, boolean `--flag`, and positionals.
struct Arguments {
    private(set) var options: [String: String] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// `booleans` lists the flags that take no value.
    init(_ args: some Sequence<String>, booleans: Set<String>) throws {
        var iterator = args.makeIterator()
        while let arg = iterator.next() {
            if arg.hasPrefix("-") && arg.count > 1 {
                let name = String(arg.drop(while: { $0 == "-" }))
                if booleans.contains(name) {
                    flags.insert(name)
                } else if let value = iterator.next() {
                    options[name] = value
                } else {
                    throw UsageError("\(arg) needs a value")
                }
            } else {
                positionals.append(arg)
            }
        }
    }

    func int(_ name: String) throws -> Int? {
        guard let text = options[name] else { return nil }
        guard let value = Int(text) else { throw UsageError("--\(name) expects a number, got \(text)") }
        return value
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }

    func rejectUnknown(_ known: Set<String>) throws {
        for name in options.keys where !known.contains(name) { throw UsageError("unknown option --\(name)") }
    }
}

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ text: String) { description = text }
}
