/// The one argument parser, driven by the option tables (OptionTable.swift),
/// with the conventions of vips/ffmpeg/exiftool: `--name value` or
/// `--name=value`, `-o value`, boolean `--flag`, `--` ends the options (so a
/// file may start with a dash), `-h`/`--help` anywhere before `--` asks for the
/// usage. Unknown options, bad values (range, choice) and missing required
/// options or operands are usage errors (exit 2) naming the option.

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ text: String) { description = text }
}

/// `-h` / `--help` before `--`: the usage of the command at `path` is printed (exit 0).
struct HelpRequest: Error {
    let path: [String]
}

/// The parse of one command line against one table; commands read typed values by option name.
struct ParsedArguments {
    /// An operand or a pair option, in the order given (`--live STILL MOVIE` among the inputs).
    enum Item: Equatable {
        case operand(String)
        case pair(option: String, String, String)
    }

    let spec: CommandSpec
    private(set) var values: [String: String] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []
    private(set) var items: [Item] = []

    init(_ args: [String], spec: CommandSpec) throws {
        self.spec = spec
        if let end = args.firstIndex(of: "--") ?? Optional(args.endIndex),
           args[..<end].contains(where: { $0 == "-h" || $0 == "--help" }) {
            throw HelpRequest(path: spec.path)
        }
        var index = 0
        var optionsEnded = false
        while index < args.count {
            let arg = args[index]
            index += 1
            guard !optionsEnded, arg.hasPrefix("-"), arg.count > 1 else {
                positionals.append(arg)
                items.append(.operand(arg))
                continue
            }
            if arg == "--" { optionsEnded = true; continue }
            let spelled = String(arg.drop(while: { $0 == "-" }))
            let name = String(spelled.prefix { $0 != "=" })
            let inline = spelled.contains("=") ? String(spelled.drop { $0 != "=" }.dropFirst()) : nil
            guard let option = spec.option(named: name) else {
                throw UsageError("\(spec.name): unknown option \(arg.prefix { $0 != "=" }) (see shiying \(spec.name) --help)")
            }
            func next() throws -> String {
                guard index < args.count else { throw UsageError("--\(option.name) needs a value") }
                index += 1
                return args[index - 1]
            }
            switch option.kind {
            case .flag:
                guard inline == nil else { throw UsageError("--\(option.name) takes no value") }
                flags.insert(option.name)
            case let .pair(first, second):
                guard index + (inline == nil ? 1 : 0) < args.count else {
                    throw UsageError("--\(option.name) needs \(first) \(second)")
                }
                let a = try inline ?? next(), b = try next()
                items.append(.pair(option: option.name, a, b))
            default:
                let value = try inline ?? next()
                values[option.name] = try Self.checked(value, for: option)
            }
        }
        for option in spec.options where option.required && values[option.name] == nil && !flags.contains(option.name) {
            throw UsageError("\(spec.name): \(option.synopsisForm) is required (see shiying \(spec.name) --help)")
        }
        if !spec.oneOf.isEmpty, !spec.oneOf.contains(where: { values[$0] != nil || flags.contains($0) }) {
            let names = spec.oneOf.compactMap(spec.option(named:)).map(\.synopsisForm).joined(separator: " or ")
            throw UsageError("\(spec.name): \(names) is required (see shiying \(spec.name) --help)")
        }
        try checkOperands()
    }

    /// The value as stored: a choice's alias is resolved; anything out of range is refused naming the option.
    private static func checked(_ text: String, for option: OptionSpec) throws -> String {
        switch option.kind {
        case let .int(range):
            guard let value = Int(text), range.contains(value) else {
                throw UsageError("--\(option.name) expects a whole number in \(range.lowerBound)...\(range.upperBound), got \(text)")
            }
        case let .double(range):
            guard let value = Double(text), value.isFinite, range.contains(value) else {
                throw UsageError("--\(option.name) expects a number in \(formatNumber(range.lowerBound))..."
                                 + "\(formatNumber(range.upperBound)), got \(text)")
            }
        case .uint64:
            guard UInt64(text) != nil else {
                throw UsageError("--\(option.name) expects a whole number in 0...\(UInt64.max), got \(text)")
            }
        case let .choice(choices, aliases):
            let value = aliases[text] ?? text
            guard choices.contains(value) else {
                throw UsageError("--\(option.name) expects \(choices.joined(separator: "|")), got \(text)")
            }
            return value
        case .text, .path:
            break
        case .flag, .pair:
            preconditionFailure("flags and pairs take no single value")
        }
        return text
    }

    private func checkOperands() throws {
        let minimum = spec.operands.filter { $0.arity == .one || $0.arity == .oneOrMore }.count
        let unbounded = spec.operands.contains { $0.arity == .many || $0.arity == .oneOrMore }
        let maximum = unbounded ? Int.max : spec.operands.count
        let count = items.count // a pair stands among the operands
        if count < minimum {
            var needed = 0
            for operand in spec.operands where operand.arity == .one || operand.arity == .oneOrMore {
                needed += 1
                if count < needed {
                    throw UsageError(operand.missing ?? "\(spec.name): \(operand.name) is required (see shiying \(spec.name) --help)")
                }
            }
        }
        if count > maximum {
            let extra = positionals.dropFirst(maximum).first ?? ""
            let takes = spec.operands.map(\.synopsisForm).joined(separator: " ")
            throw UsageError("\(spec.name): unexpected argument \(extra) (it takes \(takes.isEmpty ? "no operands" : takes))")
        }
    }

    // MARK: - typed values (the table's default when absent)

    private func raw(_ name: String) -> String? {
        guard let option = spec.options.first(where: { $0.name == name }) else {
            preconditionFailure("--\(name) is not in the table of \(spec.name)")
        }
        return values[name] ?? option.defaultValue
    }

    func string(_ name: String) -> String? { raw(name) }
    func int(_ name: String) -> Int? { raw(name).flatMap { Int($0) } }
    func double(_ name: String) -> Double? { raw(name).flatMap { Double($0) } }
    func uint64(_ name: String) -> UInt64? { raw(name).flatMap { UInt64($0) } }
    func has(_ flag: String) -> Bool { _ = raw(flag); return flags.contains(flag) }
    var json: Bool { spec.option(named: "json") != nil && flags.contains("json") }
}

/// Finds the table a command line is parsed with: the command, then its
/// subcommand (the first operand; options may stand before it), then its form.
enum CommandResolver {
    static func resolve(_ args: [String], in table: [CommandSpec]) throws -> (CommandSpec, [String]) {
        guard let first = args.first else { throw UsageError("no command given\n\(Help.overview())") }
        guard let command = table.first(where: { $0.path == [first] }) else {
            throw UsageError("unknown command \(first) (shiying --help lists them)")
        }
        return try descend(command, Array(args.dropFirst()))
    }

    private static func descend(_ spec: CommandSpec, _ args: [String]) throws -> (CommandSpec, [String]) {
        if !spec.subcommands.isEmpty {
            let names = spec.subcommands.map { $0.path.last! }
            let valued = Set(spec.subcommands.flatMap(\.leaves).flatMap(\.options).filter(\.takesValue)
                .flatMap { [$0.name] + ($0.short.map { [$0] } ?? []) })
            var index = 0, found: Int?
            while index < args.count {
                let arg = args[index]
                if arg == "--" { found = index + 1 < args.count ? index + 1 : nil; break }
                if arg.hasPrefix("-") && arg.count > 1 {
                    let name = String(arg.drop(while: { $0 == "-" }).prefix { $0 != "=" })
                    if arg == "-h" || arg == "--help" { throw HelpRequest(path: spec.path) }
                    index += valued.contains(name) && !arg.contains("=") ? 2 : 1
                    continue
                }
                found = index
                break
            }
            guard let at = found else {
                throw UsageError("\(spec.name): a subcommand is required: \(names.joined(separator: ", ")) "
                                 + "(see shiying \(spec.name) --help)")
            }
            guard let sub = spec.subcommands.first(where: { $0.path.last == args[at] }) else {
                throw UsageError("\(spec.name): unknown subcommand \(args[at]) (\(names.joined(separator: ", ")))")
            }
            var rest = args
            rest.remove(at: at)
            return try descend(sub, rest)
        }
        if !spec.forms.isEmpty {
            let end = args.firstIndex(of: "--") ?? args.endIndex
            let given = Set(args[..<end].filter { $0.hasPrefix("-") }.map { String($0.drop(while: { $0 == "-" }).prefix { $0 != "=" }) })
            let form = spec.forms.first { !Set($0.selectors).isDisjoint(with: given) } ?? spec.forms[0]
            return (form, args)
        }
        return (spec, args)
    }
}
