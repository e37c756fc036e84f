/// The command line as data: every command, subcommand and form declares one
/// table (name, summary, operands, options with their value kinds, ranges,
/// defaults and help). The parser, `--help`, `shiying help`, the man page and
/// README's CLI reference are all generated from these tables, so the usage
/// text cannot drift from what the parser accepts.

/// What an option takes. Ranges and choices are checked by the parser, so a
/// command only ever reads values that passed them.
enum ValueKind: Sendable {
    case flag
    case int(ClosedRange<Int>)
    case uint64
    case double(ClosedRange<Double>)
    case text
    case path
    /// One of `choices`; `aliases` map other spellings to a choice (jpg → jpeg).
    case choice([String], aliases: [String: String])
    /// Two values (`--live STILL MOVIE`); repeatable, kept in order among the operands.
    case pair(String, String)
}

struct OptionSpec: Sendable {
    /// The long name (`output`), the key commands read it by.
    let name: String
    /// A one-letter spelling (`o` for `-o`), if any.
    var short: String?
    let kind: ValueKind
    /// The value's name in the usage (`OUT`, `N`, `SEC`).
    var placeholder: String
    let help: String
    /// Used when the option is absent (shown in the help as the default).
    var defaultValue: String?
    var required = false

    var takesValue: Bool { if case .flag = kind { return false } else { return true } }

    /// `-o, --output OUT` / `--json` / `--layout long|grid`
    var spelled: String {
        let names = (short.map { "-\($0), " } ?? "") + "--\(name)"
        switch kind {
        case .flag: return names
        case let .pair(a, b): return "\(names) \(a) \(b)"
        default: return "\(names) \(placeholder)"
        }
    }

    /// `--recipe R.json` as the synopsis shows a required option.
    var synopsisForm: String {
        let shown = short.map { "-\($0)" } ?? "--\(name)"
        return takesValue ? "\(shown) \(placeholder)" : shown
    }

    /// "1…100", "jpeg|png", "" — what the parser accepts, for the help.
    var accepted: String {
        switch kind {
        case let .int(range): return "\(range.lowerBound)…\(range.upperBound)"
        case let .double(range): return "\(formatNumber(range.lowerBound))…\(formatNumber(range.upperBound))"
        case .uint64: return "0…\(UInt64.max)"
        case let .choice(choices, aliases):
            let extra = aliases.keys.sorted().map { "\($0)=\(aliases[$0]!)" }
            return choices.joined(separator: "|") + (extra.isEmpty ? "" : " (\(extra.joined(separator: ", ")))")
        case .flag, .text, .path, .pair: return ""
        }
    }

    // MARK: - constructors (the tables read as one line per option)

    static func flag(_ name: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .flag, placeholder: "", help: help)
    }

    static func int(_ name: String, _ placeholder: String, _ range: ClosedRange<Int>, _ help: String,
                    default value: Int? = nil, required: Bool = false) -> OptionSpec {
        OptionSpec(name: name, kind: .int(range), placeholder: placeholder, help: help,
                   defaultValue: value.map(String.init), required: required)
    }

    static func double(_ name: String, _ placeholder: String, _ range: ClosedRange<Double>, _ help: String,
                       default value: Double? = nil, required: Bool = false) -> OptionSpec {
        OptionSpec(name: name, kind: .double(range), placeholder: placeholder, help: help,
                   defaultValue: value.map(formatNumber), required: required)
    }

    static func seed(_ name: String, _ help: String, default value: UInt64) -> OptionSpec {
        OptionSpec(name: name, kind: .uint64, placeholder: "S", help: help, defaultValue: String(value))
    }

    static func text(_ name: String, _ placeholder: String, _ help: String, short: String? = nil,
                     default value: String? = nil, required: Bool = false) -> OptionSpec {
        OptionSpec(name: name, short: short, kind: .text, placeholder: placeholder, help: help, defaultValue: value,
                   required: required)
    }

    static func path(_ name: String, _ placeholder: String, _ help: String, short: String? = nil,
                     required: Bool = false) -> OptionSpec {
        OptionSpec(name: name, short: short, kind: .path, placeholder: placeholder, help: help, required: required)
    }

    static func choice(_ name: String, _ choices: [String], _ help: String, aliases: [String: String] = [:],
                       default value: String? = nil, required: Bool = false) -> OptionSpec {
        OptionSpec(name: name, kind: .choice(choices, aliases: aliases), placeholder: choices.joined(separator: "|"),
                   help: help, defaultValue: value, required: required)
    }

    static func pair(_ name: String, _ first: String, _ second: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .pair(first, second), placeholder: "\(first) \(second)", help: help)
    }

    /// `-o/--output`, the one spelling every writer uses.
    static func output(_ placeholder: String, _ help: String, required: Bool = false) -> OptionSpec {
        path("output", placeholder, help, short: "o", required: required)
    }

    static let json = flag("json", "print one line of JSON on stdout")
    static let library = path("library", "DIR", "the photo library (a folder made by `shiying library init`)")
}

/// A positional argument.
struct OperandSpec: Sendable {
    enum Arity: Sendable { case one, optional, many, oneOrMore }
    let name: String
    let arity: Arity
    let help: String
    /// The message when it is missing (default: "NAME is required").
    var missing: String?

    init(_ name: String, _ arity: Arity = .one, _ help: String, missing: String? = nil) {
        self.name = name
        self.arity = arity
        self.help = help
        self.missing = missing
    }

    /// `IN`, `[DIR]`, `IN...`, `[ID...]`
    var synopsisForm: String {
        switch arity {
        case .one: return name
        case .optional: return "[\(name)]"
        case .many: return "[\(name)...]"
        case .oneOrMore: return "\(name)..."
        }
    }
}

/// One command, subcommand or form of a command.
struct CommandSpec: Sendable {
    /// `["live", "make"]`.
    let path: [String]
    let summary: String
    var operands: [OperandSpec] = []
    var options: [OptionSpec] = []
    /// Options of which at least one must be given (`-o` or `--library`); the parser enforces it.
    var oneOf: [String] = []
    /// Extra lines for the help (how options combine, what is written where).
    var notes: [String] = []
    var subcommands: [CommandSpec] = []
    /// Alternative tables for one command (`collage` still / moving): the first
    /// form one of whose `selectors` appears is used, else the first form.
    var forms: [CommandSpec] = []
    /// For a form: its title in the help and the options that select it.
    var formTitle: String?
    var selectors: [String] = []
    /// Runs the command on its parsed arguments (nil for a command with subcommands or forms).
    var run: (@Sendable (ParsedArguments) throws -> Int32)?

    var name: String { path.joined(separator: " ") }

    /// The notes the help prints: the table's, after the `oneOf` rule in words.
    var allNotes: [String] {
        let alternatives = oneOf.compactMap(option(named:)).map(\.synopsisForm)
        return (alternatives.isEmpty ? [] : ["One of \(alternatives.joined(separator: ", ")) is needed."]) + notes
    }

    func option(named spelled: String) -> OptionSpec? {
        options.first { $0.name == spelled || $0.short == spelled }
    }

    /// `shiying live make --video V -o DIR [OPTIONS]`
    var synopsis: String {
        var words = ["shiying"] + path
        // a form shows the option that selects it: `shiying collage --motion together|relay|focus ...`
        if let selector = selectors.first.flatMap(option(named:)) { words.append("--\(selector.name)" + (selector.takesValue ? " \(selector.placeholder)" : "")) }
        words += options.filter(\.required).map(\.synopsisForm)
        let alternatives = oneOf.compactMap(option(named:)).map(\.synopsisForm)
        if !alternatives.isEmpty { words.append("(" + alternatives.joined(separator: " | ") + ")") }
        if options.contains(where: { !$0.required }) { words.append("[OPTIONS]") }
        words += operands.map(\.synopsisForm)
        return words.joined(separator: " ")
    }

    /// Every table a run can be parsed with (a form's, or this one's).
    var leaves: [CommandSpec] {
        if !subcommands.isEmpty { return subcommands.flatMap(\.leaves) }
        if !forms.isEmpty { return forms }
        return [self]
    }

    /// True when a run with no arguments cannot succeed (an operand or option is required).
    var needsArguments: Bool {
        if !subcommands.isEmpty { return true }
        if let first = forms.first { return first.needsArguments } // no selector given: the first form
        return options.contains(where: \.required) || !oneOf.isEmpty
            || operands.contains { $0.arity == .one || $0.arity == .oneOrMore }
    }
}

/// 16 → "16", 0.5 → "0.5" (ranges and defaults as people write them).
func formatNumber(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
}
