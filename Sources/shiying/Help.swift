/// Every text about the command line — `--help`, `shiying help`, the man page
/// and README's CLI reference — generated from the option tables.
enum Help {
    static let exitStatus: [(code: Int, meaning: String)] = [
        (0, "success"),
        (1, "failure: a file could not be read or written, a check failed (the message names the file and reason)"),
        (2, "usage error: unknown option or command, a bad or missing value, a missing argument"),
        (130, "interrupted (Ctrl-C, SIGTERM): the job stopped and removed what it had begun"),
    ]

    static let conventions = [
        "`--name value` and `--name=value` are the same; `-o` is `--output`.",
        "`--` ends the options, so a file name may start with a dash.",
        "`-h`/`--help` after any command or subcommand prints its usage (exit 0); `shiying help COMMAND [SUB]` prints the same.",
        "Every number is range-checked; a bad value is a usage error naming the option.",
        "A single-file `-o` must carry an extension naming a format the command writes; `-o -` is refused "
            + "(outputs are written to a temporary file and renamed into place).",
        "Progress goes to stderr: a redrawn bar on a terminal, plain lines (at most one a second per phase) on a pipe.",
    ]

    // MARK: - terminal

    /// `shiying --help`: the commands and their summaries.
    static func overview() -> String {
        let width = commandTable.map(\.name.count).max() ?? 0
        var lines = ["usage:", "  shiying COMMAND [SUBCOMMAND] [OPTIONS] [ARGUMENTS]", "  shiying --version", "",
                     "commands:"]
        for command in commandTable { lines.append("  " + pad(command.name, width) + "  " + command.summary) }
        lines += ["", "`shiying COMMAND --help` or `shiying help COMMAND [SUB]` shows a command's options;",
                  "`shiying help --man` prints the man page, `shiying help --markdown` the reference in Markdown.",
                  ""] + exitText()
        return lines.joined(separator: "\n")
    }

    /// `shiying X --help` and `shiying help X`.
    static func usage(_ spec: CommandSpec) -> String {
        var lines = ["usage:"]
        if !spec.subcommands.isEmpty {
            lines += spec.subcommands.flatMap(\.leaves).map { "  " + $0.synopsis }
            lines += ["", spec.summary, "", "subcommands:"]
            let width = spec.subcommands.map { $0.path.last!.count }.max() ?? 0
            for sub in spec.subcommands { lines.append("  " + pad(sub.path.last!, width) + "  " + sub.summary) }
            lines += ["", "`shiying \(spec.name) SUB --help` shows a subcommand's options.", ""] + exitText()
            return lines.joined(separator: "\n")
        }
        let leaves = spec.leaves
        lines += leaves.map { "  " + $0.synopsis }
        lines += ["", spec.summary]
        for leaf in leaves {
            if let title = leaf.formTitle {
                lines += ["", "\(title) (\(leaf.selectors.isEmpty ? "the default" : leaf.selectors.map { "--\($0)" }.joined(separator: ", "))): \(leaf.summary)"]
            }
            lines += body(leaf)
        }
        lines += [""] + exitText()
        return lines.joined(separator: "\n")
    }

    private static func body(_ spec: CommandSpec) -> [String] {
        var lines: [String] = []
        let rows = spec.operands.map { ($0.synopsisForm, $0.help) } + spec.options.map { ($0.spelled, describe($0)) }
            + [("-h, --help", "print this usage")]
        let width = min(rows.map(\.0.count).max() ?? 0, 28)
        if !spec.operands.isEmpty {
            lines += ["", "arguments:"]
            for operand in spec.operands { lines.append(row(operand.synopsisForm, operand.help, width)) }
        }
        lines += ["", "options:"]
        for option in spec.options { lines.append(row(option.spelled, describe(option), width)) }
        lines.append(row("-h, --help", "print this usage", width))
        if !spec.allNotes.isEmpty { lines += [""] + spec.allNotes.map { "  " + $0 } }
        return lines
    }

    /// "JPEG quality [1…100, default 90] (required)"
    static func describe(_ option: OptionSpec) -> String {
        var facts: [String] = []
        if case let .choice(_, aliases) = option.kind {
            facts += aliases.keys.sorted().map { "\($0) = \(aliases[$0]!)" }
        } else if !option.accepted.isEmpty {
            facts.append(option.accepted)
        }
        if let value = option.defaultValue { facts.append("default \(value)") }
        if option.required { facts.append("required") }
        if case .pair = option.kind { facts.append("repeatable") }
        return option.help + (facts.isEmpty ? "" : " [\(facts.joined(separator: ", "))]")
    }

    private static func row(_ left: String, _ right: String, _ width: Int) -> String {
        left.count > width ? "  \(left)\n  \(String(repeating: " ", count: width))  \(right)" : "  \(pad(left, width))  \(right)"
    }

    private static func exitText() -> [String] {
        ["exit status:"] + exitStatus.map { "  \($0.code)  \($0.meaning)" }
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    // MARK: - Markdown (README's CLI reference)

    static func markdown() -> String {
        var lines = ["<!-- generated by `shiying help --markdown` (make cli-docs); edit Sources/shiying, not this section -->",
                     "", "Conventions:", ""]
        lines += conventions.map { "- " + $0 }
        lines += ["", "Exit status:", "", "| code | meaning |", "|---|---|"]
        lines += exitStatus.map { "| \($0.code) | \(cell($0.meaning)) |" }
        for command in commandTable {
            lines += ["", "### `shiying \(command.name)`", "", command.summary]
            if !command.subcommands.isEmpty {
                for sub in command.subcommands { lines += markdownLeaves(sub, heading: "####") }
            } else {
                lines += markdownLeaves(command, heading: nil)
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func markdownLeaves(_ spec: CommandSpec, heading: String?) -> [String] {
        var lines: [String] = []
        if let heading { lines += ["", "\(heading) `shiying \(spec.name)`", "", spec.summary] }
        for leaf in spec.leaves {
            if let title = leaf.formTitle {
                let by = leaf.selectors.isEmpty ? "the default" : leaf.selectors.map { "`--\($0)`" }.joined(separator: ", ")
                lines += ["", "*\(title)* (\(by)): \(leaf.summary)"]
            }
            lines += ["", "```", leaf.synopsis, "```"]
            let rows = leaf.operands.map { ("`\($0.synopsisForm)`", $0.help) }
                + leaf.options.map { ("`\($0.spelled)`", describe($0)) }
            if !rows.isEmpty {
                lines += ["", "| argument / option | meaning |", "|---|---|"]
                lines += rows.map { "| \(cell($0.0)) | \(cell($0.1)) |" }
            }
            if !leaf.allNotes.isEmpty { lines += [""] + leaf.allNotes }
        }
        return lines
    }

    private static func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }

    // MARK: - man page (roff)

    static func man(version: String) -> String {
        var lines = [".\\\" generated by `shiying help --man` (make cli-docs); edit Sources/shiying, not this file",
                     ".TH SHIYING 1 \"\" \"shiying \(version)\" \"Shiying Core\"",
                     ".SH NAME", "shiying \\- collages, edits, conversions, Live photos and the photo library of Shiying Core",
                     ".SH SYNOPSIS", ".B shiying", "\\fICOMMAND\\fR [\\fISUBCOMMAND\\fR] [\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]",
                     ".SH DESCRIPTION"]
        for convention in conventions { lines += [".IP \\(bu 2", roff(convention)] }
        lines.append(".SH COMMANDS")
        for command in commandTable {
            lines += [".SS \(roff(command.name))", roff(command.summary)]
            for leaf in command.leaves { lines += manLeaf(leaf, under: command) }
        }
        lines.append(".SH EXIT STATUS")
        for status in exitStatus { lines += [".TP", "\(status.code)", roff(status.meaning)] }
        return lines.joined(separator: "\n")
    }

    private static func manLeaf(_ leaf: CommandSpec, under command: CommandSpec) -> [String] {
        var lines = [".PP"]
        if leaf.path != command.path { lines += [".B \(roff(leaf.name))", ".br", roff(leaf.summary), ".br"] }
        if let title = leaf.formTitle { lines += [".I \(roff(title))", ".br", roff(leaf.summary), ".br"] }
        lines += [".nf", roff(leaf.synopsis), ".fi"]
        for operand in leaf.operands { lines += [".TP", ".I \(roff(operand.synopsisForm))", roff(operand.help)] }
        for option in leaf.options { lines += [".TP", ".B \(roff(option.spelled))", roff(describe(option))] }
        for note in leaf.allNotes { lines += [".PP", roff(note)] }
        return lines
    }

    /// Escapes for roff: backslashes, hyphens as minus signs, no control character at a line start.
    private static func roff(_ text: String) -> String {
        var out = text.replacingOccurrences(of: "\\", with: "\\e").replacingOccurrences(of: "-", with: "\\-")
        out = out.replacingOccurrences(of: "`", with: "")
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }
}
