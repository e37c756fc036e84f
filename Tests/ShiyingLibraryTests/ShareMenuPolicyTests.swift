// SPEC S5: share-menu rows — compress (photos), collage (2–30 photos),
// to-Live (one video); each only opens the app at its page.
import ShiyingLibrary
import Testing

@Suite("Share-menu rows (SPEC S5)")
struct ShareMenuPolicyTests {
    typealias P = ShareMenuPolicy

    private func rows(_ selection: [P.Item]) -> [P.Row] { P.rows(for: selection).map(\.row) }
    private func photos(_ n: Int) -> [P.Item] { Array(repeating: .photo, count: n) }

    @Test("photo counts at the collage boundaries: 1, 2, 30, 31")
    func photoBoundaries() {
        #expect(rows(photos(1)) == [.compress])
        #expect(rows(photos(2)) == [.compress, .collage])
        #expect(rows(photos(30)) == [.compress, .collage])
        #expect(rows(photos(31)) == [.compress])
        #expect(rows(photos(500)) == [.compress])
    }

    @Test("one video offers to-Live only; two videos offer nothing")
    func videos() {
        #expect(rows([.video]) == [.toLive])
        #expect(rows([.video, .video]) == [])
    }

    @Test("mixed selections: a video among photos offers no photo row, photos beside a video no to-Live")
    func mixed() {
        #expect(rows([.photo, .video]) == [])
        #expect(rows(photos(5) + [.video]) == [])
        #expect(rows([.livePhoto, .video]) == [])
        #expect(rows([]) == [])
    }

    @Test("Live photos count as photos (compress, collage cells), never as a video for to-Live")
    func livePhotos() {
        #expect(rows([.livePhoto]) == [.compress])
        #expect(rows([.livePhoto, .livePhoto]) == [.compress, .collage])
        #expect(rows([.livePhoto, .photo]) == [.compress, .collage])
        #expect(rows(Array(repeating: .livePhoto, count: 29) + [.photo]) == [.compress, .collage])
        #expect(rows(Array(repeating: .livePhoto, count: 30) + [.photo]) == [.compress])
    }

    @Test("every row only opens the app at its own page")
    func onlyOpensTheApp() {
        let pages: [P.Row: P.Page] = [.compress: .compression, .collage: .collage, .toLive: .videoToLive]
        for selection in [photos(1), photos(2), photos(30), [P.Item.video], [.livePhoto, .photo]] {
            for offer in P.rows(for: selection) {
                #expect(offer.action == .openApp(page: pages[offer.row]!), "\(offer)")
            }
        }
        #expect(Set(P.rules.map(\.row)) == Set(P.Row.allCases))
    }
}
