// README's CLI reference and the man page are generated from the option
// tables (`shiying help --markdown`, `shiying help --man`); these tests fail
// when either differs from what the built binary prints.
import Foundation
import Testing

@Suite("CLI reference: README and docs/shiying.1 match the binary")
struct CLIReferenceTests {
    static let begin = "<!-- cli-reference:begin -->"
    static let end = "<!-- cli-reference:end -->"
    static let regenerate = "regenerate it with `make cli-docs` (scripts/cli-docs.sh) and commit the result"

    @Test("README.md's section between the cli-reference markers is `shiying help --markdown`")
    func readmeMatches() async throws {
        let readme = try String(contentsOf: ShiyingBinary.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: Self.begin), "README.md has no \(Self.begin) marker")
        let stop = try #require(readme.range(of: Self.end, range: start.upperBound..<readme.endIndex),
                                "README.md has no \(Self.end) marker")
        let section = readme[start.upperBound..<stop.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        let generated = try await ShiyingBinary.shiying(["help", "--markdown"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let expected = generated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let message = "README.md's CLI reference differs from `shiying help --markdown` "
            + "(first difference at line \(firstDifference(section, expected)) of the section): \(Self.regenerate)"
        #expect(section == expected, "\(message)")
    }

    @Test("docs/shiying.1 is `shiying help --man`")
    func manPageMatches() async throws {
        let page = try String(contentsOf: ShiyingBinary.packageRoot.appendingPathComponent("docs/shiying.1"), encoding: .utf8)
        let generated = try await ShiyingBinary.shiying(["help", "--man"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let message = "docs/shiying.1 differs from `shiying help --man` "
            + "(first difference at line \(firstDifference(page, generated.stdout))): \(Self.regenerate)"
        #expect(page == generated.stdout, "\(message)")
    }

    @Test("the man page is well-formed roff: groff renders it without a warning")
    func manPageRenders() async throws {
        let groff = ["/usr/bin/groff"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let groff else { return } // groff is not a dependency; the byte comparison above still runs
        let page = ShiyingBinary.packageRoot.appendingPathComponent("docs/shiying.1").path
        let rendered = try await ShiyingBinary.run(groff, ["-k", "-man", "-Tutf8", "-ww", "-z", page])
        #expect(rendered.status == 0 && rendered.stderr.isEmpty, "\(rendered.stderr)")
    }

    private func firstDifference(_ a: String, _ b: String) -> Int {
        let (x, y) = (a.components(separatedBy: "\n"), b.components(separatedBy: "\n"))
        return (zip(x, y).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(x.count, y.count)) + 1
    }
}
