import Foundation

/// `shiying help [COMMAND [SUB]]`, `shiying help --man`, `shiying help --markdown`,
/// `shiying help --list`: the usage texts, man page and README reference, all from the option tables.
enum HelpCommand {
    static let spec = CommandSpec(
        path: ["help"], summary: "print the usage of a command, the man page or the Markdown reference",
        operands: [OperandSpec("COMMAND", .many, "a command and subcommand (`shiying help live make`)")],
        options: [
            .flag("man", "print the man page (roff), as `make cli-docs` writes docs/shiying.1"),
            .flag("markdown", "print the CLI reference in Markdown, as README.md carries it"),
            .flag("list", "list every command and subcommand, tab-separated: path, needs-arguments or no-arguments, "
                  + "its value-taking options"),
        ],
        run: { try run($0) })

    static func run(_ parsed: ParsedArguments) throws -> Int32 {
        let modes = ["man", "markdown", "list"].filter(parsed.has)
        guard modes.count <= 1, modes.isEmpty || parsed.positionals.isEmpty else {
            throw UsageError("help: give one of --man, --markdown, --list, or a COMMAND")
        }
        if parsed.has("man") { print(Help.man(version: shiyingVersion)); return 0 }
        if parsed.has("markdown") { print(Help.markdown()); return 0 }
        if parsed.has("list") {
            for spec in allCommands() {
                var valued: [String] = []
                for option in spec.leaves.flatMap(\.options) where option.takesValue && !valued.contains(option.name) {
                    valued.append(option.name)
                }
                print("\(spec.name)\t\(spec.needsArguments ? "needs-arguments" : "no-arguments")\t\(valued.joined(separator: ","))")
            }
            return 0
        }
        guard !parsed.positionals.isEmpty else { print(Help.overview()); return 0 }
        guard find(parsed.positionals) != nil else {
            throw UsageError("help: no command \(parsed.positionals.joined(separator: " ")) (shiying --help lists them)")
        }
        print(text(for: parsed.positionals))
        return 0
    }

    /// The usage of the command at `path` (a form prints its command's usage: all forms).
    static func text(for path: [String]) -> String {
        find(path).map(Help.usage) ?? Help.overview()
    }

    static func find(_ path: [String]) -> CommandSpec? {
        var level = commandTable, found: CommandSpec?
        for name in path {
            guard let next = level.first(where: { $0.path.last == name }) else { return nil }
            found = next
            level = next.subcommands
        }
        return found
    }

    /// Every command and subcommand with a usage of its own (forms share their command's).
    static func allCommands() -> [CommandSpec] {
        func walk(_ spec: CommandSpec) -> [CommandSpec] { [spec] + spec.subcommands.flatMap(walk) }
        return commandTable.flatMap(walk)
    }
}
