// Table-driven date-phrase cases (SPEC Q2): one line per query.
import ShiyingLibrary
import Testing

/// One parser case: query, reference day, expected ranges and rest.
///
/// `expect` lists ranges separated by ";", each "YYYY-MM-DD" (one day) or
/// "YYYY-MM-DD..YYYY-MM-DD"; "" = no date.
struct PhraseCase: Sendable, CustomTestStringConvertible {
    let query: String
    let today: String
    let expect: String
    let rest: String
    let kind: DatePhraseKind?

    init(_ query: String, _ today: String, _ expect: String, rest: String = "", kind: DatePhraseKind? = nil) {
        self.query = query
        self.today = today
        self.expect = expect
        self.rest = rest
        self.kind = kind
    }

    var testDescription: String { "\(query) @\(today)" }

    var expectedRanges: [DayRange] {
        expect.split(separator: ";").map { part in
            let ends = part.components(separatedBy: "..")
            let a = Day(iso: ends[0])!, b = Day(iso: ends.count > 1 ? ends[1] : ends[0])!
            return DayRange(start: a, end: b)
        }
    }

    /// A case whose query must stay text: no range, rest = query.
    static func none(_ query: String, _ today: String = "2025-03-12") -> PhraseCase {
        PhraseCase(query, today, "", rest: query)
    }
}

/// Runs one case and checks ranges, rest and (when given) the kind of the first match.
func check(_ c: PhraseCase, sourceLocation: SourceLocation = #_sourceLocation) {
    let result = DatePhraseParser().parse(c.query, today: Day(iso: c.today)!)
    #expect(result.ranges == c.expectedRanges, "\(c.query) @\(c.today): ranges \(result.ranges)", sourceLocation: sourceLocation)
    #expect(result.rest == c.rest, "\(c.query) @\(c.today): rest「\(result.rest)」", sourceLocation: sourceLocation)
    if let kind = c.kind {
        #expect(result.matches.first?.kind == kind, "\(c.query): kind \(String(describing: result.matches.first?.kind))",
                sourceLocation: sourceLocation)
    }
    // The consumed texts are exactly the query's text at the reported bounds.
    for m in result.matches {
        #expect(String(c.query[m.bounds]) == m.text, sourceLocation: sourceLocation)
        let utf16 = Array(c.query.utf16)
        #expect(String(decoding: utf16[m.utf16Offsets], as: UTF16.self) == m.text, sourceLocation: sourceLocation)
    }
}
